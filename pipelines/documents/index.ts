// The document stage: bytes in, positioned text per page out (text layer, AcroForm values, OCR where needed).
import os from 'node:os';
import { z } from 'zod';
import { sniff, storedSniff, DEFAULT_MAX_BYTES, DEFAULT_MAX_PAGES, DEFAULT_MAX_IMAGE_PIXELS, type Sniffed } from './sniff.ts';
import { DocumentError } from './errors.ts';
import { readPdfText, rasterPdfPage, closePdfPool } from './pdf.ts';
import { normaliseImage, ocrImage, closeOcrPool, ocrOptionsSchema, grayPixels } from './ocr.ts';
import { layoutPage, type PageText, type TextItem } from './layout.ts';
import { textRepairs, type TextRepair } from './repair.ts';
import { mergeOcrWords } from './missing_text.ts';
import { readUncoveredInk } from './uncovered_ink.ts';
import { addDrawnTicks, tickBoxCandidates, type GrayPage } from './ticks.ts';
import { type PageLocation } from './page_roles.ts';
import sharp from 'sharp';

export * from './errors.ts';
export * from './layout.ts';
export { sniff, storedSniff, DEFAULT_MAX_BYTES, DEFAULT_MAX_PAGES, DEFAULT_MAX_IMAGE_PIXELS, type Sniffed, type DocumentKind } from './sniff.ts';
export {
  normaliseImage,
  grayPixels,
  ocrImage,
  langDataDir,
  cliTessdataDir,
  cliArgs,
  ocrOptionsSchema,
  type OcrOptions,
  type OcrEngine,
  type NormalisedImage,
} from './ocr.ts';
export { readPdfText, rasterPdfPage, pdfPool } from './pdf.ts';
export { renderPagePreview, type PagePreview } from './preview.ts';
export { textRepairs, type TextRepair } from './repair.ts';
export { scorePage, choosePages, LOCATE_ABOVE_PAGES, type PageRole, type PageScore, type PageLocation } from './page_roles.ts';

export const readOptionsSchema = z
  .object({
    maxBytes: z.number().int().positive().default(DEFAULT_MAX_BYTES),
    maxPages: z.number().int().positive().default(DEFAULT_MAX_PAGES),
    maxImagePixels: z.number().int().positive().default(DEFAULT_MAX_IMAGE_PIXELS),
    /** OCR settings; `false` turns OCR off (pages without text then come back empty). */
    ocr: z.union([ocrOptionsSchema, z.literal(false)]).prefault({}),
    /** Time-out for parsing the whole PDF text layer. */
    pdfTimeoutMs: z.number().int().positive().default(60_000),
    /**
     * Repair broken text layers (see repair.ts): `true` all repairs, or the list of repairs to apply; `false`
     * or a partial list only to measure what each costs.
     */
    repairTextLayer: z.union([z.boolean(), z.array(z.enum(textRepairs))]).default(true),
    /**
     * Locate the pages that matter in a PDF of more pages than this (page_roles.ts): every page is skimmed, only
     * declarations, certificates and schedules are read in full and OCR'd. Absent: every page is read.
     */
    locateAbovePages: z.number().int().positive().optional(),
    /**
     * Wall-clock budget of one stage (reading the text layer, OCR of one page), in milliseconds. Every worker call
     * of the stage gets the time left as its time-out (a PDF or OCR worker that runs out is terminated and
     * replaced); a stage past its budget throws a StageBudgetError (`extraction_failed`, reason `stage_budget`).
     * Absent: the per-call time-outs alone.
     */
    stageBudgetMs: z.number().int().positive().optional(),
  })
  .strict();
export type ReadOptions = z.input<typeof readOptionsSchema>;

/** A stage that ran past its wall-clock budget (`stageBudgetMs`): the document fails, whichever page it was on. */
export class StageBudgetError extends DocumentError {
  constructor(stage: string, budgetMs: number) {
    super('extraction_failed', 'stage_budget', `the ${stage} stage ran past its budget`, `the ${stage} stage took longer than its budget of ${budgetMs} ms`);
  }
}

/** The clock of one stage: each worker call's time-out shortened to the budget left, and the budget error when it is spent. */
export type StageClock = ReturnType<typeof stageClock>;
export function stageClock(stage: string, budgetMs: number | undefined) {
  const deadline = budgetMs === undefined ? Infinity : Date.now() + budgetMs;
  const spent = () => Date.now() >= deadline;
  return {
    /** A call's time-out: its own, or what is left of the budget when that is less (at least 1 ms). */
    within: (ms: number) => Math.max(1, Math.min(ms, deadline - Date.now())),
    /** Throw the budget error when the budget is spent. */
    check: () => {
      if (spent()) throw new StageBudgetError(stage, budgetMs!);
    },
    /** Run a step; an error it throws once the budget is spent (a worker terminated at the deadline) is the budget error. */
    async step<T>(fn: () => Promise<T>): Promise<T> {
      if (spent()) throw new StageBudgetError(stage, budgetMs!);
      try {
        return await fn();
      } catch (e) {
        if (spent()) throw new StageBudgetError(stage, budgetMs!);
        throw e;
      }
    },
  };
}

export type StageStatus = 'success' | 'partial_success' | 'failure';

export interface StageError {
  stage: string;
  page?: number;
  message: string;
}

export interface DocumentText {
  status: StageStatus;
  errors: StageError[];
  sniffed: Sniffed;
  pageCount: number;
  pages: PageText[];
  /** `text` (all pages had a text layer), `ocr` (all pages OCR'd) or `mixed`. */
  method: 'text' | 'ocr' | 'mixed';
  ocrEngine?: string;
  /** A located document (see page_roles.ts): every page's role and whether it was read. */
  located?: PageLocation[];
}

/** What the text layer gave: the pages read, and the pages that need OCR (all of them for an image). */
export interface TextLayer {
  sniffed: Sniffed;
  pages: PageText[];
  needOcr: number[];
  errors: StageError[];
  /** A located document: every page's role and whether it was read (only those are in `pages`). */
  located?: PageLocation[];
}

/** Stage 1 of reading: sniff and read the text layer (off the main thread). Throws DocumentError for bad files. */
export async function readTextLayer(bytes: Uint8Array, options: ReadOptions = {}): Promise<TextLayer> {
  const o = readOptionsSchema.parse(options);
  const sniffed = sniff(bytes, { maxBytes: o.maxBytes, maxImagePixels: o.maxImagePixels });
  if (sniffed.kind !== 'pdf') return { sniffed, pages: [], needOcr: [1], errors: [] };
  const clock = stageClock('text', o.stageBudgetMs);
  const r = await clock.step(() => readPdfText(bytes, o.maxPages, clock.within(o.pdfTimeoutMs), o.repairTextLayer, o.locateAbovePages));
  const errors: StageError[] = r.warnings.map((w) => ({ stage: 'text', message: w }));
  if (repairOn(o.repairTextLayer, 'drawn_ticks'))
    for (const page of r.pages) {
      // Only a page with a tick-box label and no typed mark before it is rendered (PER STATUTE on ACORD 25).
      if (r.needOcr.includes(page.page) || tickBoxCandidates(page).length === 0) continue;
      try {
        const img = await clock.step(() => rasterPdfPage(bytes, page.page, 100, 4_000_000, clock.within(o.pdfTimeoutMs)));
        addDrawnTicks(page, await grayPage(img.data, img.pageWidth));
      } catch (e) {
        if (e instanceof StageBudgetError) throw e;
        errors.push({ stage: 'text', page: page.page, message: `tick boxes not checked: ${(e as Error).message}` });
      }
    }
  return { sniffed, pages: r.pages, needOcr: r.needOcr, errors, ...(r.located ? { located: r.located } : {}) };
}

function repairOn(option: ReadOptions['repairTextLayer'], repair: TextRepair): boolean {
  return option === undefined || option === true || (Array.isArray(option) && option.includes(repair));
}

/** A page image as one gray channel, for looking at ink. */
async function grayPage(data: Uint8Array, pageWidthPt: number): Promise<GrayPage> {
  const { data: px, info } = await sharp(data, { limitInputPixels: 40_000_000 }).grayscale().raw().toBuffer({ resolveWithObject: true });
  return { px: new Uint8Array(px.buffer, px.byteOffset, info.width * info.height), width: info.width, height: info.height, ptPerPx: pageWidthPt / info.width };
}

/**
 * Stage 2 of reading: OCR one page (1 for an image). `previous` is what the text layer found on that page;
 * its AcroForm values are kept.
 */
export async function ocrPage(
  bytes: Uint8Array,
  sniffed: Sniffed,
  n: number,
  options: ReadOptions = {},
  previous?: PageText,
): Promise<{ page: PageText; engine: string }> {
  const o = readOptionsSchema.parse(options);
  if (o.ocr === false) throw new Error('OCR is off');
  const clock = stageClock(`OCR (page ${n})`, o.stageBudgetMs);
  const ocrStep = clock.step;
  const ocrOpts = o.ocr;
  // Each engine call of the page (the reading, uncovered ink) gets the budget left as its time-out.
  const withinOcr = () => ({ ...ocrOpts, timeoutMs: clock.within(ocrOpts.timeoutMs) });
  let img;
  if (sniffed.kind === 'pdf') {
    const r = await ocrStep(() => rasterPdfPage(bytes, n, ocrOpts.dpi, 12_000_000, clock.within(o.pdfTimeoutMs)));
    img = await normaliseImage(r.data, {
      dpi: ocrOpts.dpi,
      maxInputPixels: ocrOpts.maxInputPixels,
      pageWidthPt: r.pageWidth,
      removeFormLines: ocrOpts.removeFormLines,
    });
  } else {
    img = await normaliseImage(bytes, { dpi: ocrOpts.dpi, maxInputPixels: ocrOpts.maxInputPixels, removeFormLines: ocrOpts.removeFormLines });
  }
  const words = await ocrStep(() => ocrImage(img, withinOcr()));
  // A page whose text layer lacks values drawn on it: the layer's words are kept, OCR's added where it has none.
  if (previous?.repairs?.includes('missing_text')) {
    const layer: TextItem[] = previous.lines.flatMap((l) =>
      l.cells.map((c) => ({ text: c.text, x: c.x, y: c.y, w: c.w, h: c.h, source: c.source, conf: c.conf })),
    );
    const merged = mergeOcrWords(layer, words.words);
    // What the full-page reading passed over (a value alone at the end of a row) is read once more.
    merged.push(...(await ocrStep(() => readUncoveredInk(img, merged, withinOcr()))));
    const page = layoutPage(n, previous.width, previous.height, merged, 'ocr', previous.fields);
    page.repairs = previous.repairs.filter((r) => r !== 'drawn_ticks');
    page.ocrAssisted = true;
    if (repairOn(o.repairTextLayer, 'drawn_ticks') && tickBoxCandidates(page).length > 0)
      addDrawnTicks(page, { px: grayPixels(img), width: img.width, height: img.height, ptPerPx: img.ptPerPx });
    if (previous.located) page.located = previous.located;
    return { page, engine: words.engine };
  }
  const items = [...words.words];
  // Keep AcroForm values already found on a page that otherwise needed OCR (its text layer, when it had one
  // that was bypassed, is replaced by the OCR words).
  if (previous)
    previous.lines.forEach((l, k) => {
      for (const c of l.cells)
        if (c.source === 'acroform') items.push({ text: c.text, x: c.x, y: c.y, w: c.w, h: c.h, source: c.source, conf: c.conf, line: 1_000_000 + k });
    });
  const page = layoutPage(n, img.width * img.ptPerPx, img.height * img.ptPerPx, items, 'ocr', previous?.fields ?? []);
  // Why a page with a text layer was read by OCR (e.g. run_together_words) stays visible.
  if (previous?.repairs?.length) page.repairs = previous.repairs.filter((r) => r !== 'drawn_ticks');
  if (repairOn(o.repairTextLayer, 'drawn_ticks') && tickBoxCandidates(page).length > 0)
    addDrawnTicks(page, { px: grayPixels(img), width: img.width, height: img.height, ptPerPx: img.ptPerPx });
  if (previous?.located) page.located = previous.located;
  return { page, engine: words.engine };
}

/** Stage 3 of reading: the document from its pages (text-layer pages and OCR'd pages), with status and method. */
export function assembleDocument(
  sniffed: Sniffed,
  pagesIn: PageText[],
  errors: StageError[],
  ocrEngine?: string,
  located?: { pageCount: number; pages?: PageLocation[] },
): DocumentText {
  let pages = [...pagesIn].sort((a, b) => a.page - b.page);
  if (sniffed.kind !== 'pdf' && pages.length === 0) pages = [layoutPage(1, 612, 792, [], 'ocr')];
  const withText = pages.filter((p) => p.lines.length > 0);
  const pageCount = sniffed.kind === 'pdf' ? Math.max(pages.length, located?.pageCount ?? 0, ...pages.map((p) => p.page)) : 1;
  // A located document's pages not chosen were skimmed on purpose: only the pages meant to be read count.
  const meant = located || pages.some((p) => p.located) ? pages.length : pageCount;
  const status: StageStatus =
    withText.length === 0 ? 'failure' : errors.some((e) => e.stage === 'ocr') || withText.length < meant ? 'partial_success' : 'success';
  // A page whose text layer was kept and completed by OCR (missing_text) was read both ways: mixed.
  const ocrCount = pages.filter((p) => p.source === 'ocr' && !p.ocrAssisted).length;
  const assisted = pages.some((p) => p.ocrAssisted);
  const method = ocrCount === 0 && !assisted ? 'text' : ocrCount === pages.length ? 'ocr' : 'mixed';
  return { status, errors, sniffed, pageCount, pages, method, ocrEngine, ...(located?.pages ? { located: located.pages } : {}) };
}

/** A page as the reading chain stores it (app_private.document_pages): its text, how far it is read, and by what. */
export interface StoredPage {
  page: number;
  /** `read` from the text layer; `ocr_pending`, `ocr_done` or `ocr_failed` for a page without a usable one. */
  state: 'read' | 'ocr_pending' | 'ocr_done' | 'ocr_failed';
  content: PageText | null;
  /** The OCR engine that read the page. */
  engine: string | null;
  error: string | null;
}

/** The document from its stored pages (the staged chain's stage 3): a failed page is an OCR error, a pending one is left out. */
export function storedDocument(file: { content_type: string; size_bytes: number; page_count: number | null }, stored: StoredPage[]): DocumentText {
  const errors: StageError[] = [];
  const pages: PageText[] = [];
  let engine: string | undefined;
  for (const p of stored) {
    if (p.state === 'ocr_failed') errors.push({ stage: 'ocr', page: p.page, message: p.error ?? 'OCR failed' });
    if (!p.content || p.state === 'ocr_pending') continue;
    if (p.engine) engine = p.engine;
    pages.push(p.content);
  }
  const sniffed = storedSniff(file.content_type, file.size_bytes);
  return assembleDocument(sniffed, pages, errors, engine, file.page_count ? { pageCount: file.page_count } : undefined);
}

/** Sniff, read the text layer (off the main thread) and OCR pages without one. Throws DocumentError for bad files. */
export async function readDocument(bytes: Uint8Array, options: ReadOptions = {}): Promise<DocumentText> {
  const o = readOptionsSchema.parse(options);
  const layer = await readTextLayer(bytes, o);
  const { sniffed, needOcr: ocrPages } = layer;
  const errors: StageError[] = [...layer.errors];
  let pages = layer.pages;
  let ocrEngine: string | undefined;
  if (ocrPages.length > 0 && o.ocr !== false) {
    // A few pages at a time: each in-flight page holds a copy of the PDF and a decoded image.
    const done = await settleLimited(ocrPages, os.availableParallelism(), (n) =>
      ocrPage(
        bytes,
        sniffed,
        n,
        o,
        pages.find((p) => p.page === n),
      ),
    );
    done.forEach((d, k) => {
      const n = ocrPages[k];
      if (d.status === 'fulfilled') {
        ocrEngine = d.value.engine;
        pages = pages.filter((p) => p.page !== n).concat(d.value.page);
      } else {
        const e = d.reason as Error;
        if (e instanceof DocumentError && sniffed.kind !== 'pdf') throw e;
        errors.push({ stage: 'ocr', page: n, message: e.message });
      }
    });
  } else if (ocrPages.length > 0) {
    errors.push({ stage: 'ocr', message: `OCR is off; ${ocrPages.length} page(s) without a text layer were not read` });
  }
  return assembleDocument(sniffed, pages, errors, ocrEngine, layer.located ? { pageCount: layer.located.length, pages: layer.located } : undefined);
}

/** Release the PDF worker threads and the OCR workers (call on shutdown and at the end of CLI runs). */
export async function closeDocumentPools(): Promise<void> {
  await Promise.all([closePdfPool(), closeOcrPool()]);
}

/** Promise.allSettled over `items` with at most `limit` running at once, results in input order. */
async function settleLimited<T, R>(items: T[], limit: number, fn: (x: T) => Promise<R>): Promise<PromiseSettledResult<R>[]> {
  const out: PromiseSettledResult<R>[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) {
        const i = next++;
        try {
          out[i] = { status: 'fulfilled', value: await fn(items[i]) };
        } catch (reason) {
          out[i] = { status: 'rejected', reason };
        }
      }
    }),
  );
  return out;
}
