// The OCR options every caller passes down: the engine (tesseract.js pool or the native command), page
// segmentation, time-out and re-reads, and where the language data lives.
import { createRequire } from 'node:module';
import path from 'node:path';
import { z } from 'zod';

const require = createRequire(import.meta.url);

/** Page segmentation modes we allow (tesseract numbering): 3 auto, 4 single column, 6 uniform block, 11 sparse. */
export const ocrPsm = z.union([z.literal(3), z.literal(4), z.literal(6), z.literal(11)]);

export const ocrEngineSchema = z.discriminatedUnion('kind', [
  z
    .object({
      kind: z.literal('tesseract.js'),
      workers: z.number().int().min(1).max(64).optional(),
      /** Pages a worker reads before it is replaced (its WebAssembly memory only grows). */
      recycleAfterPages: z.number().int().min(1).optional(),
      /** A worker that finishes a page while the process's RSS is over this many MB is replaced. */
      recycleAboveRssMb: z.number().int().min(1).optional(),
    })
    .strict(),
  z
    .object({
      kind: z.literal('tesseract-cli'),
      path: z.string().min(1).default('tesseract'),
      /** PATH the command is looked up in (the caller's configuration); the system default path when unset. */
      searchPath: z.string().min(1).optional(),
    })
    .strict(),
]);
export type OcrEngine = z.input<typeof ocrEngineSchema>;

export const ocrOptionsSchema = z
  .object({
    engine: ocrEngineSchema.default({ kind: 'tesseract.js' }),
    psm: ocrPsm.default(3),
    /** Time-out for one page. */
    timeoutMs: z.number().int().positive().default(120_000),
    /** Decoded-pixel limit for input images (decompression-bomb guard). */
    maxInputPixels: z.number().int().positive().default(40_000_000),
    /** Target resolution of the normalised image. */
    dpi: z.number().int().min(100).max(600).default(300),
    /**
     * Whiten long form rules before OCR (see form_lines.ts). Off by default: on the dev set's three scanned
     * ACORD 25s it moved whole coverage rows between documents (one gained 9 fields, another lost 6) for no
     * net gain, because tesseract then drops or keeps other text lines of the page.
     */
    removeFormLines: z.boolean().default(false),
    /**
     * Read the page's weak words (low confidence, see rereadWords) a second time, each cut out with the form
     * rules around it whitened, all in one strip image: one more engine call per page.
     */
    reread: z.boolean().default(true),
  })
  .strict();
export type OcrOptions = z.input<typeof ocrOptionsSchema>;

/** Where the English language data lives (the @tesseract.js-data/eng package; LSTM "best_int" model). */
export function langDataDir(): string {
  const pkg = path.dirname(require.resolve('@tesseract.js-data/eng/package.json'));
  return path.join(pkg, '4.0.0_best_int');
}
