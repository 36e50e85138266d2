// Runs inside a worker thread: pdf.js parsing (text items, AcroForm values) and page rasterisation for OCR,
// so the caller's event loop never blocks on PDF work. Every document is destroyed and every page cleaned up.
import { parentPort } from 'node:worker_threads';
import { createRequire } from 'node:module';
import path from 'node:path';
import v8 from 'node:v8';
import zlib from 'node:zlib';
import { checkDecodedSize, mayContainName, type DecodeLimits } from './decoded.ts';
import { layoutPage, hasUsableText, type TextItem, type FormField, type PageText } from './layout.ts';
import { repairTextItems, runsWordsTogether, textRepairs, type TextRepair } from './repair.ts';
import { mayHideText, hiddenItems, unreadable, type PdfOps } from './invisible.ts';
import { mayDrawText, uncoveredInk, hasMissingText, keepTextImages, MIN_UNCOVERED_IMAGES, type InkOps, type ImagePixels } from './missing_text.ts';
import { scorePage, choosePages, type PageLocation } from './page_roles.ts';
import { portPair } from './pdf_port.ts';

// pdf-lib (which reads a scan's stored JPEG, embeddedJpeg below) reports each damaged object of a broken PDF with
// console.warn and skips it. In the service those lines would land as plain text on stderr beside the JSON log,
// once per damaged object of every upload; pdf.js reads such files on its own terms (its own warnings are off,
// verbosity 0), so in the PDF worker thread pdf-lib's parser notes are dropped and every other warning kept.
const PDF_LIB_PARSER_NOTE = /^(Trying to parse invalid object|Invalid object ref|Removing parsed object|Parsed number that is too large)/;
if (parentPort) {
  const warn = console.warn.bind(console);
  console.warn = (...args: unknown[]) => {
    if (typeof args[0] === 'string' && PDF_LIB_PARSER_NOTE.test(args[0])) return;
    warn(...args);
  };
}

const require = createRequire(import.meta.url);
const pdfjsDir = path.dirname(require.resolve('pdfjs-dist/package.json'));
const standardFontDataUrl = path.join(pdfjsDir, 'standard_fonts') + path.sep;

type Pdfjs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');
let pdfjsP: Promise<Pdfjs> | undefined;
const pdfjs = () => (pdfjsP ??= import('pdfjs-dist/legacy/build/pdf.mjs'));

/** This thread's one pdf.js worker: its worker code runs here too, joined to the API by `portPair` (pdf_port.ts). */
let workerP: Promise<InstanceType<Pdfjs['PDFWorker']>> | undefined;
const pdfWorker = () =>
  (workerP ??= (async () => {
    const { PDFWorker } = await pdfjs();
    // @ts-expect-error pdf.js ships no types for its worker module; WorkerMessageHandler is its one export.
    const { WorkerMessageHandler } = await import('pdfjs-dist/legacy/build/pdf.worker.mjs');
    const [api, worker] = portPair();
    WorkerMessageHandler.initializeFromPort(worker);
    return new PDFWorker({ port: api as never, verbosity: 0 });
  })());

/**
 * pdf.js inflates content streams through the web DecompressionStream, whose stream machinery costs more
 * than the inflating itself on the small streams of a page (a quarter of the text path's CPU time). This
 * stand-in has the same surface pdf.js uses and inflates in one synchronous zlib call; on corrupt data it
 * errors like the real one, and pdf.js then falls back to its own tolerant decoder.
 */
class ZlibDecompressionStream {
  readonly writable: { getWriter(): { ready: Promise<void>; write(b: Uint8Array): Promise<void>; close(): Promise<void> } };
  readonly readable: AsyncIterable<Uint8Array>;
  constructor(format: string) {
    const chunks: Uint8Array[] = [];
    this.writable = {
      getWriter: () => ({ ready: Promise.resolve(), write: async (b) => void chunks.push(b), close: async () => {} }),
    };
    this.readable = {
      async *[Symbol.asyncIterator]() {
        const input = Buffer.concat(chunks);
        const out = format === 'brotli' ? zlib.brotliDecompressSync(input) : format === 'deflate-raw' ? zlib.inflateRawSync(input) : zlib.inflateSync(input);
        yield new Uint8Array(out.buffer, out.byteOffset, out.byteLength);
      },
    };
  }
}
(globalThis as { DecompressionStream?: unknown }).DecompressionStream = ZlibDecompressionStream;

export interface PdfTextRequest {
  op: 'text';
  bytes: Uint8Array;
  maxPages: number;
  /** The repairs to apply (all when absent). */
  repair?: TextRepair[];
  /** Look for text drawn outside the text layer (default on). */
  missingText?: boolean;
  /** What the document may decode to (default DEFAULT_DECODE_LIMITS): past it, it is refused before pdf.js reads it. */
  decodeLimits?: DecodeLimits;
  /** Locate the pages that matter (page_roles.ts) in a PDF of more pages than this; absent: read every page. */
  locateAbovePages?: number;
  /** Read only this share of the pages (those whose 0-based index is `index` modulo `of`), beside workers reading the rest. */
  part?: { index: number; of: number };
  /**
   * Post the pages read so far as a partial result (`{ pages }`) every this many pages, so the caller takes them
   * in while the rest are read; the reply then holds only the pages not posted yet.
   */
  pagesPerPartial?: number;
}
export interface PdfTextResult {
  pageCount: number;
  pages: PageText[];
  /** 1-based pages whose text layer is not usable (they need OCR). */
  needOcr: number[];
  warnings: string[];
  /** A located document: every page's role and whether it was read (only those are in `pages`). */
  located?: PageLocation[];
}
export interface PdfRasterRequest {
  op: 'raster';
  bytes: Uint8Array;
  page: number;
  dpi: number;
  maxPixels: number;
}
export interface PdfRasterResult {
  kind: 'jpeg' | 'png';
  data: Uint8Array;
  width: number;
  height: number;
  from: 'embedded' | 'rendered';
  pageWidth: number;
  pageHeight: number;
}

export type PdfWorkerRequest = PdfTextRequest | PdfRasterRequest;

/**
 * `forText`: the document is only read for its text, which needs no glyph outlines — the widths of the
 * standard 14 fonts are built into pdf.js — so the standard font files are not loaded and parsed for every
 * document (that was 45% of the text path's CPU time on documents using Helvetica without embedding it).
 */
export async function openPdf(bytes: Uint8Array, forText = false) {
  const { getDocument } = await pdfjs();
  const task = getDocument({
    data: bytes,
    worker: await pdfWorker(),
    isEvalSupported: false,
    maxImageSize: 40_000_000,
    ...(forText ? {} : { standardFontDataUrl }),
    useSystemFonts: false,
    disableFontFace: true,
    verbosity: 0,
  });
  try {
    return await task.promise;
  } catch (e) {
    await task.destroy().catch(() => {});
    throw classify(e);
  }
}

function classify(e: unknown): Error & { code?: string; reason?: string; details?: string } {
  const err = e as { name?: string; message?: string };
  const name = err?.name ?? '';
  const message = err?.message ?? String(e);
  if (name === 'PasswordException') {
    return Object.assign(new Error('the PDF is encrypted with a password'), {
      code: 'extraction_failed',
      reason: 'encrypted',
      details: 'the PDF is password-protected; send an unencrypted copy',
    });
  }
  if (
    name === 'InvalidPDFException' ||
    name === 'UnknownErrorException' ||
    name === 'FormatError' ||
    /Invalid PDF|bad XRef|Invalid root|startxref/i.test(message)
  ) {
    return Object.assign(new Error('the PDF is corrupt or truncated'), {
      code: 'extraction_failed',
      reason: 'corrupt',
      details: `pdf.js could not read the file: ${message}`,
    });
  }
  return Object.assign(new Error(message), { code: 'extraction_failed', reason: 'unreadable', details: message });
}

/** Whether the file may hold annotations (form fields): "/Annots" appears in its dictionaries, compressed or not. */
const mayHaveAnnotations = (bytes: Uint8Array) => mayContainName(bytes, ['/Annots']);

/** Non-ASCII text that pdf.js's Unicode normalisation may change (ligatures, compatibility forms, odd spaces). */
const MAY_NORMALISE = /[^\x00-\x7f]/;

/**
 * A page's text content, normalised as pdf.js normalises it: pdf.js is asked not to (its pass runs a regular
 * expression over every item, most of them ASCII words) and the few items with other characters are normalised here.
 */
async function pageTextContent(page: { getTextContent(o: { disableNormalization: boolean }): Promise<{ items: unknown[] }> }) {
  const content = (await page.getTextContent({ disableNormalization: true })) as { items: Array<{ str?: string } | object> };
  const { normalizeUnicode } = await pdfjs();
  for (const item of content.items) if ('str' in item && typeof item.str === 'string' && MAY_NORMALISE.test(item.str)) item.str = normalizeUnicode(item.str);
  return content;
}

/** A page's text runs as items in viewport coordinates (points from the top-left corner), blank runs left out. */
export function textItemsOf(
  content: { items: Array<{ str?: string; transform?: unknown; height?: number; width?: number } | object> },
  vp: { transform: number[] },
): TextItem[] {
  const items: TextItem[] = [];
  // The viewport's matrix applied by hand: one page has hundreds of runs (pdf.js makes each word and each space
  // one), and its `convertToViewportPoint` returns a new array for each.
  const [a, b, c, d0, e0, f0] = vp.transform;
  for (const raw of content.items) {
    if (!('str' in raw) || typeof raw.str !== 'string' || !/\S/.test(raw.str)) continue;
    const t = raw.transform as number[];
    const e = t[4];
    const f = t[5];
    const h = raw.height || Math.abs(t[3]) || 10;
    const x = a * e + c * f + e0;
    const baseY = b * e + d0 * f + f0;
    items.push({ text: raw.str, x, y: baseY - h, w: raw.width ?? 0, h, source: 'text' });
  }
  return items;
}

async function text(req: PdfTextRequest, partial: (value: { pages: PageText[] }) => void): Promise<PdfTextResult> {
  checkDecodedSize(req.bytes, req.decodeLimits);
  const annotations = mayHaveAnnotations(req.bytes);
  const enabled = req.repair ?? [...textRepairs];
  const invisible = enabled.includes('invisible_text');
  // The operator list (fill colour, render mode) only for files whose streams show text white or invisible.
  const checkHidden = invisible && mayHideText(req.bytes);
  // Text drawn as glyph masks, images or unmapped glyphs: the operator list only for files that may hold them.
  const checkInk = req.missingText !== false && mayDrawText(req.bytes);
  // Text drawn as glyph outlines (filled paths) hides in compressed content streams: a page whose layer is
  // sparse (a footer, a form number) has its operator list read whatever the file's bytes show.
  const checkSparse = req.missingText !== false;
  const doc = await openPdf(req.bytes, true);
  const { OPS, AnnotationMode } = await pdfjs();
  const warnings: string[] = [];
  try {
    const pageCount = doc.numPages;
    if (pageCount > req.maxPages) {
      throw Object.assign(new Error(`the PDF has ${pageCount} pages; the limit is ${req.maxPages}`), {
        code: 'extraction_failed',
        reason: 'too_many_pages',
        details: `page cap is ${req.maxPages} pages`,
      });
    }
    const pages: PageText[] = [];
    const needOcr: number[] = [];
    // A long document is skimmed first (text runs only) and only the pages that matter are read in full.
    const skimmed = new Map<number, TextItem[]>();
    let located: PageLocation[] | undefined;
    if (req.locateAbovePages !== undefined && pageCount > req.locateAbovePages) {
      const scores = [];
      for (let n = 1; n <= pageCount; n++) {
        const page = await doc.getPage(n);
        try {
          const vp = page.getViewport({ scale: 1 });
          const items = textItemsOf(await pageTextContent(page), vp);
          skimmed.set(n, items);
          scores.push(scorePage(n, items, vp.height));
        } finally {
          page.cleanup();
        }
      }
      located = choosePages(scores);
      for (const l of located) if (!l.read) skimmed.delete(l.page);
    }
    const part = located ? undefined : req.part;
    const toRead = located
      ? located.filter((l) => l.read).map((l) => l.page)
      : Array.from({ length: pageCount }, (_, k) => k + 1).filter((n) => !part || (n - 1) % part.of === part.index);
    for (const n of toRead) {
      const page = await doc.getPage(n);
      try {
        const vp = page.getViewport({ scale: 1 });
        let items = skimmed.get(n) ?? textItemsOf(await pageTextContent(page), vp);
        let hidden = false;
        let list: { fnArray: number[]; argsArray: unknown[] } | undefined;
        const operators = async () => (list ??= await page.getOperatorList({ intent: 'display', annotationMode: AnnotationMode.DISABLE }));
        const toViewport = (x: number, y: number) => vp.convertToViewportPoint(x, y) as [number, number];
        if (invisible) {
          const gone = unreadable(items, vp.width, vp.height);
          if (checkHidden) {
            const list = await operators();
            for (const it of hiddenItems(OPS as unknown as PdfOps, list, items, (x, y) => vp.convertToViewportPoint(x, y) as [number, number])) gone.add(it);
          }
          if (gone.size > 0) {
            items = items.filter((i) => !gone.has(i));
            hidden = true;
          }
        }
        const fields: FormField[] = [];
        if (annotations)
          try {
            const annots = await page.getAnnotations({ intent: 'display' });
            for (const a of annots as Array<Record<string, unknown>>) {
              if (a.subtype !== 'Widget' || typeof a.fieldName !== 'string') continue;
              let value = a.fieldValue;
              if (Array.isArray(value)) value = value.join(', ');
              if (a.checkBox || a.radioButton) value = a.fieldValue && a.fieldValue !== 'Off' ? 'X' : '';
              if (typeof value !== 'string' || value.trim() === '') continue;
              const [x1, y1, x2, y2] = vp.convertToViewportRectangle(a.rect as number[]) as number[];
              const box = { x: Math.min(x1, x2), y: Math.min(y1, y2), w: Math.abs(x2 - x1), h: Math.abs(y2 - y1) };
              fields.push({ name: a.fieldName, value: value.trim(), ...box });
              // Multi-line values become one item per line so they read like printed text.
              const parts = value.split(/\r\n|\r|\n/).filter((p) => p.trim() !== '');
              const lh = Math.min(box.h / Math.max(1, parts.length), 14);
              parts.forEach((p, k) =>
                items.push({ text: p.trim(), x: box.x + 2, y: box.y + k * lh + 1, w: Math.min(box.w, p.length * lh * 0.5), h: lh * 0.9, source: 'acroform' }),
              );
            }
          } catch (e) {
            warnings.push(`page ${n}: form fields unreadable (${(e as Error).message})`);
          }
        const repaired = repairTextItems(items, enabled);
        if (hidden) repaired.repairs.unshift('invisible_text');
        const usable = hasUsableText(repaired.items);
        // Words run together: OCR reads the page instead; its text layer stays as the fallback.
        const bypass = usable && enabled.includes('run_together_words') && runsWordsTogether(repaired.items);
        if (bypass) repaired.repairs.push('run_together_words');
        // Values drawn on the page but missing from its layer: OCR reads the page, its words merged with the layer's.
        let missing = false;
        if (usable && !bypass && (checkInk || (checkSparse && sparseText(repaired.items)))) {
          let ink = uncoveredInk(OPS as unknown as InkOps, await operators(), repaired.items, toViewport);
          // Strip images decide the page only when they show printed text (not a signature, logo or coloured bar):
          // their pixels are looked at only when there are enough of them to matter.
          if (ink.boxes.filter((b) => b.kind === 'image').length >= MIN_UNCOVERED_IMAGES) ink = await keepTextImages(ink, (ref) => imagePixels(page, ref));
          missing = hasMissingText(ink);
        }
        const repairs: NonNullable<PageText['repairs']> = [...repaired.repairs];
        if (missing) repairs.push('missing_text');
        if (!usable || bypass || missing) needOcr.push(n);
        // Without blocks: the reading thread builds them from the lines (`withBlocks`), cheaper than posting them.
        const laid = layoutPage(n, vp.width, vp.height, usable ? repaired.items : repaired.items.filter((i) => i.source === 'acroform'), 'text', fields, false);
        if (repairs.length) laid.repairs = repairs;
        const at = located?.find((l) => l.page === n);
        if (at) laid.located = { role: at.role, score: at.score, why: at.why };
        pages.push(laid);
        if (req.pagesPerPartial && pages.length >= req.pagesPerPartial) partial({ pages: pages.splice(0) });
      } finally {
        page.cleanup();
      }
    }
    return { pageCount, pages, needOcr, warnings, ...(located ? { located } : {}) };
  } finally {
    await doc.destroy();
  }
}

/** Fewer characters than this on a page with a text layer: the layer may be a footer over ink drawn otherwise. */
const SPARSE_CHARS = 400;
function sparseText(items: { text: string }[]): boolean {
  return items.reduce((n, i) => n + i.text.replace(/\s/g, '').length, 0) < SPARSE_CHARS;
}

/** The decoded pixels of an image the operator list painted: its object (page-level or shared), or inline data. */
async function imagePixels(
  page: {
    objs: { has(id: string): boolean; get(id: string, cb?: (d: unknown) => void): unknown };
    commonObjs: { has(id: string): boolean; get(id: string, cb?: (d: unknown) => void): unknown };
  },
  ref: unknown,
): Promise<ImagePixels | undefined> {
  if (ref && typeof ref === 'object') return ref as ImagePixels;
  if (typeof ref !== 'string') return undefined;
  const objs = ref.startsWith('g_') ? page.commonObjs : page.objs;
  if (objs.has(ref)) return objs.get(ref) as ImagePixels;
  // Not resolved yet: wait briefly for it, else the image is taken as text (as before the pixels were looked at).
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 500);
    objs.get(ref, (d) => {
      clearTimeout(timer);
      resolve(d as ImagePixels);
    });
  });
}

/** A page's single full-page JPEG, taken as stored (a scanner's output), or undefined. */
async function embeddedJpeg(bytes: Uint8Array, pageNumber: number): Promise<{ data: Uint8Array } | undefined> {
  // pdf-lib is only needed here (OCR of scans); loading it lazily keeps worker start-up cheap for text.
  const { PDFDocument, PDFName, PDFRawStream, PDFDict, PDFArray, PDFRef } = await import('pdf-lib');
  const doc = await PDFDocument.load(bytes, { ignoreEncryption: true, updateMetadata: false, throwOnInvalidObject: false });
  const page = doc.getPages()[pageNumber - 1];
  if (!page) return undefined;
  const resources = page.node.Resources();
  const xobjects = resources?.lookupMaybe(PDFName.of('XObject'), PDFDict);
  if (!xobjects) return undefined;
  const images: import('pdf-lib').PDFRawStream[] = [];
  for (const [, ref] of xobjects.entries()) {
    const obj = ref instanceof PDFRef ? doc.context.lookup(ref) : ref;
    if (!(obj instanceof PDFRawStream)) continue;
    if (obj.dict.get(PDFName.of('Subtype')) !== PDFName.of('Image')) continue;
    images.push(obj);
  }
  if (images.length !== 1) return undefined;
  const img = images[0];
  const filter = img.dict.get(PDFName.of('Filter'));
  const filters = filter instanceof PDFArray ? filter.asArray() : [filter];
  if (filters.length !== 1 || filters[0] !== PDFName.of('DCTDecode')) return undefined;
  return { data: img.contents };
}

async function raster(req: PdfRasterRequest): Promise<PdfRasterResult> {
  const doc = await openPdf(req.bytes.slice());
  try {
    const page = await doc.getPage(req.page);
    try {
      const vp1 = page.getViewport({ scale: 1 });
      // A rotated page would need its scan rotated too; render those instead of taking the JPEG as stored.
      const jpeg = page.rotate % 360 === 0 ? await embeddedJpeg(req.bytes, req.page).catch(() => undefined) : undefined;
      if (jpeg) {
        return { kind: 'jpeg', data: jpeg.data, width: 0, height: 0, from: 'embedded', pageWidth: vp1.width, pageHeight: vp1.height };
      }
      let scale = req.dpi / 72;
      const px = vp1.width * vp1.height * scale * scale;
      if (px > req.maxPixels) scale *= Math.sqrt(req.maxPixels / px);
      const vp = page.getViewport({ scale });
      const { createCanvas } = await import('@napi-rs/canvas');
      const canvas = createCanvas(Math.ceil(vp.width), Math.ceil(vp.height));
      const ctx = canvas.getContext('2d');
      ctx.fillStyle = '#ffffff';
      ctx.fillRect(0, 0, canvas.width, canvas.height);
      await page.render({ canvas: canvas as unknown as HTMLCanvasElement, canvasContext: ctx as unknown as CanvasRenderingContext2D, viewport: vp }).promise;
      const data = canvas.toBuffer('image/png');
      return {
        kind: 'png',
        data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
        width: canvas.width,
        height: canvas.height,
        from: 'rendered',
        pageWidth: vp1.width,
        pageHeight: vp1.height,
      };
    } finally {
      page.cleanup();
    }
  } finally {
    await doc.destroy();
  }
}

/** This thread's memory after a task (its heap and the buffers it holds outside it): the pool recycles a worker past its limit. */
const memoryMb = () => {
  const h = v8.getHeapStatistics() as v8.HeapInfo & { external_memory?: number };
  return Math.round((h.used_heap_size + (h.external_memory ?? 0)) / 1024 / 1024);
};

parentPort?.on('message', async (req: PdfWorkerRequest) => {
  try {
    const value = req.op === 'text' ? await text(req, (partial) => parentPort!.postMessage({ partial })) : await raster(req);
    parentPort!.postMessage({ ok: true, value, memoryMb: memoryMb() });
  } catch (e) {
    const err = (e as { code?: string }).code ? (e as Error & { code?: string; reason?: string; details?: string }) : classify(e);
    parentPort!.postMessage({
      ok: false,
      error: { name: err.name, message: err.message, code: err.code, reason: err.reason, details: err.details },
      memoryMb: memoryMb(),
    });
  }
});
