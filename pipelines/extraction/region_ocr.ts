// OCR of one region of a page: what a text layer cannot say because it is drawn, most often the carrier's
// name in a logo in the header band. The page is rendered, the region cut out and read by the configured OCR
// engine; only words where the text layer has nothing are added (as extra lines of that page, which is then
// marked `ocrAssisted`), so typed text is never doubled or replaced.
import sharp from 'sharp';
import {
  rasterPdfPage,
  normaliseImage,
  ocrImage,
  layoutPage,
  buildBlocks,
  readOptionsSchema,
  stageClock,
  type StageClock,
  type DocumentText,
  type PageText,
  type ReadOptions,
  type TextItem,
  type Line,
  type Cell,
} from '../documents/index.ts';

/** A rectangle on a page, in PDF points from the top-left corner. */
export interface PageRegion {
  page: number;
  x: number;
  y: number;
  w: number;
  h: number;
}

/** The header band: the top of a page, where a carrier's logo sits. */
export const HEADER_BAND = 0.16;

/** OCR the words inside `region` of a PDF page; positions are page points. */
export async function ocrRegion(
  bytes: Uint8Array,
  region: PageRegion,
  options: ReadOptions = {},
  clock: StageClock = stageClock('region OCR', undefined),
): Promise<TextItem[]> {
  const o = readOptionsSchema.parse(options);
  if (o.ocr === false) return [];
  const dpi = o.ocr.dpi;
  const r = await clock.step(() => rasterPdfPage(bytes, region.page, dpi, 12_000_000, clock.within(60_000)));
  const meta = await sharp(r.data).metadata();
  const width = meta.width ?? 0;
  const height = meta.height ?? 0;
  if (!width || !height) return [];
  const s = width / r.pageWidth; // pixels per point of the image as rendered (or as embedded)
  const left = Math.max(0, Math.floor(region.x * s));
  const top = Math.max(0, Math.floor(region.y * s));
  const w = Math.min(width - left, Math.ceil(region.w * s));
  const h = Math.min(height - top, Math.ceil(region.h * s));
  if (w < 8 || h < 8) return [];
  const crop = await sharp(r.data).extract({ left, top, width: w, height: h }).png({ compressionLevel: 1 }).toBuffer();
  const img = await normaliseImage(crop, { dpi, maxInputPixels: o.ocr.maxInputPixels, pageWidthPt: region.w, removeFormLines: o.ocr.removeFormLines });
  // A band of a page is a few lines of text: tesseract's "sparse text" mode finds words around logos.
  const ocr = o.ocr;
  const words = await clock.step(() => ocrImage(img, { ...ocr, psm: 11, timeoutMs: clock.within(ocr.timeoutMs) }));
  return words.words.map((wd) => ({ ...wd, x: wd.x + region.x, y: wd.y + region.y }));
}

const overlaps = (a: { x: number; y: number; w: number; h: number }, b: { x: number; y: number; w: number; h: number }) =>
  a.x < b.x + b.w && b.x < a.x + a.w && a.y < b.y + b.h && b.y < a.y + a.h;

/** Add OCR words that the text layer lacks to a page, as lines of their own. Returns the page (a copy) or undefined when nothing was added. */
export function addRegionWords(page: PageText, words: TextItem[]): PageText | undefined {
  const cells = page.lines.flatMap((l) => l.cells);
  const fresh = words.filter((w) => (w.conf ?? 0) >= 0.6 && /[A-Za-z]{2}/.test(w.text) && !cells.some((c) => overlaps(c, w)));
  if (fresh.length === 0) return undefined;
  // A logo's words are stacked ("FARMERS" over "INSURANCE"): each block of words read here is one name, so
  // it becomes one line.
  const extra: Line[] = buildBlocks(layoutPage(page.page, page.width, page.height, fresh, 'ocr').lines).map((b) => {
    const cs = b.lines.flatMap((l) => l.cells);
    const text = b.lines.map((l) => l.cells.map((c) => c.text).join(' ')).join(' ');
    const cell: Cell = { text, x: b.x, y: b.y, w: b.w, h: b.h, conf: cs.reduce((a, c) => a + c.conf, 0) / cs.length, source: 'ocr' };
    return { text, x: b.x, y: b.y, w: b.w, h: b.h, cells: [cell] };
  });
  const lines = [...page.lines, ...extra].sort((a, b) => a.y - b.y || a.x - b.x);
  return { ...page, lines, blocks: buildBlocks(lines), text: lines.map((l) => l.text).join('\n'), ocrAssisted: true };
}

/**
 * The document with the header band of its first page read by OCR, when that page came from a text layer
 * (a scanned page was read whole by OCR already). Undefined when the band added nothing.
 */
export async function withHeaderBandOcr(
  bytes: Uint8Array,
  doc: DocumentText,
  options: ReadOptions = {},
  clock?: StageClock,
): Promise<DocumentText | undefined> {
  const first = doc.pages.find((p) => p.page === 1);
  if (doc.sniffed.kind !== 'pdf' || !first || first.source !== 'text') return undefined;
  const words = await ocrRegion(bytes, { page: 1, x: 0, y: 0, w: first.width, h: first.height * HEADER_BAND }, options, clock);
  const page = addRegionWords(first, words);
  if (!page) return undefined;
  return { ...doc, pages: doc.pages.map((p) => (p === first ? page : p)), method: doc.method === 'text' ? 'mixed' : doc.method };
}
