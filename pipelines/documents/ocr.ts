// OCR of page images, the stage's front: `ocrImage` reads one prepared image with the chosen engine, re-reads its
// doubtful words and returns words with positions. Its parts live in ocr/: options (engines, language data),
// image (preparation with sharp into a PGM), pool (tesseract.js workers), cli (the native command), words (TSV to
// words, deskew), reread (the re-read strip), crops and boxes (pixel boxes read on their own).
import { ocrOptionsSchema, type OcrOptions } from './ocr/options.ts';
import type { NormalisedImage } from './ocr/image.ts';
import { pool, type OcrPage } from './ocr/pool.ts';
import { cliTsv } from './ocr/cli.ts';
import { rereadStrip, applyReread } from './ocr/reread.ts';
import { linesFromTsv, joinDigitGroups, deskew, meanConf } from './ocr/words.ts';

export * from './ocr/options.ts';
export * from './ocr/image.ts';
export * from './ocr/pool.ts';
export * from './ocr/words.ts';
export * from './ocr/reread.ts';
export { cliTessdataDir, cliArgs } from './ocr/cli.ts';

/** OCR one normalised image; words come back in page points. */
export async function ocrImage(img: NormalisedImage, options: OcrOptions = {}): Promise<OcrPage> {
  const o = ocrOptionsSchema.parse(options);
  const engine = o.engine;
  const tsvOf = (pgm: Buffer, psm: number) =>
    engine.kind === 'tesseract-cli'
      ? cliTsv(pgm, engine.path ?? 'tesseract', engine.searchPath, psm, o.timeoutMs)
      : pool(engine).recognize(pgm, psm, o.timeoutMs);
  const lines = linesFromTsv(await tsvOf(img.pgm, o.psm), img.ptPerPx);
  if (o.reread) {
    const strip = rereadStrip(img, lines.flat());
    if (strip) {
      const again = linesFromTsv(await tsvOf(strip.pgm, 6), 1);
      applyReread(lines, strip, again.flat(), img.ptPerPx);
    }
  }
  const words = deskew(lines.map(joinDigitGroups));
  return { words, confidence: meanConf(words), engine: engine.kind };
}
