// OCR of page images. Images are normalised with sharp (EXIF orientation, grayscale, ~300 dpi, contrast,
// pixel limit) into an uncompressed PGM, then read by a pool of reused tesseract.js workers (each its own
// thread) or, as an option, the native `tesseract` command. Both engines return the same words-with-positions structure.
import { createRequire } from 'node:module';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import os from 'node:os';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import sharp from 'sharp';
import { z } from 'zod';
import { DocumentError } from './errors.ts';
import type { TextItem } from './layout.ts';
import { removeFormLines } from './form_lines.ts';

const require = createRequire(import.meta.url);
const execFileP = promisify(execFile);

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

export interface NormalisedImage {
  /**
   * The image as a binary PGM (8-bit gray, no compression): both engines read it as it is, where a PNG had
   * to be inflated inside tesseract.js's WebAssembly (about a tenth of its time per page).
   */
  pgm: Buffer;
  width: number;
  height: number;
  /** Points per pixel, to put OCR boxes in the page's coordinate space. */
  ptPerPx: number;
}

/** The gray pixels of a normalised image (a view into its PGM), row by row. */
export function grayPixels(img: NormalisedImage): Uint8Array {
  const n = img.width * img.height;
  return new Uint8Array(img.pgm.buffer, img.pgm.byteOffset + img.pgm.byteLength - n, n);
}

/**
 * Normalise a page image for OCR. `pageWidthPt` is the PDF page width when the image is a page of a PDF;
 * for a photo the page is taken to be the image at `dpi`.
 */
export async function normaliseImage(
  input: Uint8Array,
  opts: { dpi?: number; maxInputPixels?: number; pageWidthPt?: number; removeFormLines?: boolean } = {},
): Promise<NormalisedImage> {
  const dpi = opts.dpi ?? 300;
  const limitInputPixels = opts.maxInputPixels ?? 40_000_000;
  try {
    const base = sharp(input, { limitInputPixels, failOn: 'error', pages: 1 }).rotate();
    const meta = await sharp(input, { limitInputPixels, pages: 1 }).metadata();
    const swap = (meta.orientation ?? 1) >= 5;
    const w0 = (swap ? meta.height : meta.width) ?? 0;
    const h0 = (swap ? meta.width : meta.height) ?? 0;
    if (!w0 || !h0) throw new Error('image has no size');
    // Target width: the page at `dpi`; for a photo, a Letter-width page (8.5 in) at `dpi`, capped to 2x up-scaling.
    const targetW = opts.pageWidthPt ? Math.round((opts.pageWidthPt / 72) * dpi) : Math.round(8.5 * dpi);
    let width = Math.min(targetW, w0 * 2);
    if (Math.abs(width - w0) / w0 < 0.1) width = w0; // close enough; avoid a needless resample
    const height = Math.round((h0 * width) / w0);
    const { data, info } = await base
      .flatten({ background: '#ffffff' })
      .resize({ width, height, kernel: 'lanczos3' })
      .grayscale()
      // A 3x3 median removes scanner dust that would otherwise inflate word boxes and join lines.
      .median(3)
      .extractChannel(0)
      .raw()
      .toBuffer({ resolveWithObject: true });
    if (info.channels !== 1 || info.width !== width || info.height !== height)
      throw new Error(`unexpected image ${info.width}x${info.height}x${info.channels}`);
    await stretchContrast(data, width, height);
    const header = Buffer.from(`P5\n${width} ${height}\n255\n`, 'latin1');
    const pgm = Buffer.concat([header, data]);
    const pageWidthPt = opts.pageWidthPt ?? (width / dpi) * 72;
    const img = { pgm, width, height, ptPerPx: pageWidthPt / width };
    if (opts.removeFormLines) removeFormLines(grayPixels(img), width, height, { dpi: (width / pageWidthPt) * 72, minHorizontalIn: 1, minVerticalIn: 1 });
    return img;
  } catch (e) {
    const msg = (e as Error).message;
    if (/pixel limit/i.test(msg)) throw new DocumentError('bad_request', 'image_too_large', 'the image has too many pixels', msg);
    throw new DocumentError('extraction_failed', 'corrupt_image', 'the image could not be decoded', msg);
  }
}

/** CIE lightness (0-100) of each gray level, as sharp computes it. */
let lightness: Promise<Float32Array> | undefined;
function grayLightness(): Promise<Float32Array> {
  return (lightness ??= (async () => {
    const ramp = Uint8Array.from({ length: 256 }, (_, g) => g);
    const lab = await sharp(ramp, { raw: { width: 256, height: 1, channels: 1 } })
      .toColourspace('lab')
      .raw({ depth: 'float' })
      .toBuffer();
    const f = new Float32Array(lab.buffer, lab.byteOffset, lab.length / 4);
    return Float32Array.from({ length: 256 }, (_, g) => f[g * 3]);
  })());
}

/**
 * sharp's `normalise({ lower: 1, upper: 99 })` of a gray image (`px`, one byte a pixel), in place and pixel for
 * pixel the same, for a fraction of its CPU: sharp converts every pixel to Lab and back (about 0.6 s of CPU on
 * a 300 dpi page, a third of what the OCR engine then spends on it). On a gray image its result depends only
 * on a pixel's level and on the image's histogram: on where the cumulative counts fall against thresholds k/X,
 * X the number of lightness bins (the brightest level's lightness + 1) and k = 1, 2, X-1 or X. So sharp
 * stretches a probe of about `probePixels` pixels whose cumulative counts are the page's scaled down (every
 * level present keeps at least one pixel), and the probe's output for each level is the lookup table for the
 * page. When a scaled count could fall on another side of such a threshold than the page's, sharp stretches
 * the page itself. Returns which was done.
 */
export async function stretchContrast(px: Uint8Array, width: number, height: number, probePixels = 1_000_000): Promise<'probe' | 'page'> {
  const stretch = (img: Uint8Array, w: number, h: number) =>
    sharp(img, { raw: { width: w, height: h, channels: 1 } })
      .normalise({ lower: 1, upper: 99 })
      .extractChannel(0)
      .raw()
      .toBuffer();
  const n = px.length;
  const hist = new Float64Array(256);
  for (let i = 0; i < n; i++) hist[px[i]]++;
  // The probe's cumulative counts: the page's scaled, at least one pixel a level.
  const cum = new Float64Array(256);
  const cum2 = new Float64Array(256);
  let top = 0;
  for (let g = 0, c = 0, c2 = 0; g < 256; g++) {
    if (hist[g] > 0) {
      c += hist[g];
      c2 = Math.max(c2 + 1, Math.round((c * probePixels) / n));
      top = g;
    }
    cum[g] = c;
    cum2[g] = c2;
  }
  const n2 = cum2[255];
  let same = n2 < n;
  const t = Math.trunc((await grayLightness())[top]);
  for (let g = 0; same && g < top; g++) {
    if (hist[g] === 0) continue;
    for (let x = Math.max(1, t - 1); same && x <= t + 2; x++)
      for (const k of [1, 2, x - 1, x]) {
        const a = cum[g] * x - k * n;
        const b = cum2[g] * x - k * n2;
        if (a === 0 || b === 0 || a < 0 !== b < 0) same = false;
      }
  }
  if (!same) {
    px.set(await stretch(px, width, height));
    return 'page';
  }
  const probe = new Uint8Array(n2);
  for (let g = 0, i = 0; g < 256; g++) probe.fill(g, i, (i = cum2[g]));
  const out = await stretch(probe, n2, 1);
  const lut = new Uint8Array(256);
  for (let g = 0; g < 256; g++) if (hist[g] > 0) lut[g] = out[cum2[g] - 1];
  for (let i = 0; i < n; i++) px[i] = lut[px[i]];
  return 'probe';
}

export interface OcrPage {
  words: TextItem[];
  /** Mean word confidence 0..1. */
  confidence: number;
  engine: 'tesseract.js' | 'tesseract-cli';
}

interface TessWorker {
  recognize: (img: Buffer, opts?: object, output?: object) => Promise<{ data: { tsv: string | null } }>;
  setParameters: (p: Record<string, string>) => Promise<unknown>;
  terminate: () => Promise<unknown>;
}

interface Slot {
  worker: Promise<TessWorker>;
  busy: boolean;
  psm: number | undefined;
  pages: number;
}

/** Pages a tesseract.js worker reads before it is replaced, by default. */
export const OCR_RECYCLE_AFTER_PAGES = 200;
/** Process RSS (MB) above which a tesseract.js worker that finished a page is replaced, by default. */
export const OCR_RECYCLE_ABOVE_RSS_MB = 1536;

interface TesseractPoolOptions {
  size: number;
  recycleAfterPages: number;
  recycleAboveRssMb: number;
}

/**
 * A pool of reused tesseract.js workers; language data from node_modules only, nothing cached to disk. A worker's
 * WebAssembly memory grows to its largest page and never shrinks, so a worker is replaced after a number of pages, or
 * when it finishes a page while the process is over its memory bound.
 */
class TesseractPool {
  private slots: Slot[] = [];
  private waiters: ((s: Slot) => void)[] = [];
  readonly size: number;
  private readonly opts: TesseractPoolOptions;
  constructor(opts: TesseractPoolOptions) {
    this.size = opts.size;
    this.opts = opts;
  }

  // Which engine build runs, and why it is slower than the native command (bench: documents, "ocr: CPU"):
  // tesseract.js picks tesseract-core-relaxedsimd(.wasm) on Node 22 (its lstm-only check compares a boolean
  // with OEM numbers, so it never takes the -lstm builds; they measured the same per page). Inside, the
  // relaxed-SIMD dot product is switched off at start-up on x86 (V8's relaxed dot fails the engine's signed
  // sdot probe), so the LSTM's int8 matrix product runs the SSE port (128-bit i16 dot products): a quarter of
  // the worker's CPU per page (~0.47 s), where the native command's AVX2 product (vpmaddubsw) takes an eighth
  // of its CPU (~0.20 s). That is three quarters of the gap; the rest of the work costs within ~6% of native.
  private create(): Promise<TessWorker> {
    return (async () => {
      const { createWorker, OEM } = await import('tesseract.js');
      const worker = await createWorker('eng', OEM.LSTM_ONLY, {
        langPath: langDataDir(),
        gzip: true,
        cacheMethod: 'none',
        // Without a handler tesseract.js throws asynchronously from the worker and can kill the process.
        errorHandler: () => {},
        logger: () => {},
      });
      // tesseract's own diagnostics ("Detected N diacritics") would otherwise land on the process's stdout,
      // between the service's JSON log lines.
      await worker.setParameters({ debug_file: '/dev/null' } as Record<string, string>);
      return worker as unknown as TessWorker;
    })();
  }

  private async acquire(): Promise<Slot> {
    const free = this.slots.find((s) => !s.busy);
    if (free) {
      free.busy = true;
      return free;
    }
    if (this.slots.length < this.size) {
      const slot: Slot = { worker: this.create(), busy: true, psm: undefined, pages: 0 };
      this.slots.push(slot);
      return slot;
    }
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  private release(slot: Slot) {
    const next = this.waiters.shift();
    if (next) next(slot);
    else slot.busy = false;
  }

  private drop(slot: Slot) {
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    void slot.worker.then((w) => w.terminate()).catch(() => {});
    // A waiter gets a fresh worker.
    const next = this.waiters.shift();
    if (next) {
      const fresh: Slot = { worker: this.create(), busy: true, psm: undefined, pages: 0 };
      this.slots.push(fresh);
      next(fresh);
    }
  }

  async recognize(image: Buffer, psm: number, timeoutMs: number): Promise<string> {
    const slot = await this.acquire();
    let timer: NodeJS.Timeout | undefined;
    try {
      const work = (async () => {
        const w = await slot.worker;
        if (slot.psm !== psm) {
          await w.setParameters({ tessedit_pageseg_mode: String(psm), user_defined_dpi: '300' });
          slot.psm = psm;
        }
        // Only the TSV output, the same words-with-boxes table the native command prints: building the
        // `blocks` tree instead (symbols and choices for every word) cost 16% more CPU per page.
        const r = await w.recognize(image, {}, { tsv: true, blocks: false, text: false, hocr: false });
        return r.data.tsv ?? '';
      })();
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new DocumentError('extraction_failed', 'ocr_timeout', `OCR of a page took longer than ${timeoutMs} ms`)), timeoutMs);
      });
      const blocks = await Promise.race([work, timeout]);
      slot.pages++;
      if (slot.pages >= this.opts.recycleAfterPages || process.memoryUsage.rss() / 2 ** 20 > this.opts.recycleAboveRssMb) {
        ocrWorkersRecycled++;
        this.drop(slot);
      } else this.release(slot);
      return blocks;
    } catch (e) {
      this.drop(slot); // a worker that failed or timed out is not reused
      throw e;
    } finally {
      if (timer) clearTimeout(timer);
    }
  }

  async close() {
    const slots = this.slots.splice(0);
    await Promise.all(slots.map((s) => s.worker.then((w) => w.terminate()).catch(() => {})));
  }
}

let tessPool: TesseractPool | undefined;
let tessPoolKey: string | undefined;
let ocrWorkersRecycled = 0;

/** tesseract.js workers replaced after their page count or over the memory bound, for tests and metrics. */
export function ocrWorkersReplaced(): number {
  return ocrWorkersRecycled;
}

function pool(engine: { workers?: number; recycleAfterPages?: number; recycleAboveRssMb?: number }): TesseractPool {
  const want: TesseractPoolOptions = {
    size: engine.workers ?? os.availableParallelism(),
    recycleAfterPages: engine.recycleAfterPages ?? OCR_RECYCLE_AFTER_PAGES,
    recycleAboveRssMb: engine.recycleAboveRssMb ?? OCR_RECYCLE_ABOVE_RSS_MB,
  };
  const key = JSON.stringify(want);
  if (tessPool && tessPoolKey !== key) {
    void tessPool.close();
    tessPool = undefined;
  }
  tessPoolKey = key;
  return (tessPool ??= new TesseractPool(want));
}

export async function closeOcrPool(): Promise<void> {
  const p = tessPool;
  tessPool = undefined;
  await p?.close();
}

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

const GROUP_TAIL = /[;:\]}|)]+$/;
/**
 * An amount the engine read in pieces or with its commas lost ("1.000 000", "2 000 000;", "$1 000 000": the
 * commas of a low-resolution scan are a pixel or two) becomes one word with commas, "1,000,000", where the
 * pattern is unambiguous: a first group of 1-3 digits, then groups of exactly 3 digits at word-spacing or
 * closer, three groups or more (or two after a "$"), and no digit word right after (a phone number is not
 * an amount). One word "1.000.000" is written with commas too.
 */
export function joinDigitGroups(line: TextItem[]): TextItem[] {
  const out: TextItem[] = [];
  for (let i = 0; i < line.length; i++) {
    const first = line[i];
    // "1000 000": the first comma lost too, when a 3-digit group follows.
    const m = /^(\$?)(\d{1,3}(?:[.,]\d{3})*|[1-9]000)$/.exec(first.text.replace(GROUP_TAIL, ''));
    if (!m) {
      out.push(first);
      continue;
    }
    const groups = /^\d000$/.test(m[2]) ? [m[2][0], '000'] : m[2].split(/[.,]/);
    let j = i + 1;
    let prev = first;
    while (j < line.length) {
      const w = line[j];
      const t = w.text.replace(GROUP_TAIL, '');
      const gap = w.x - (prev.x + prev.w);
      if (!/^\d{3}(?:[.,]\d{3})*$/.test(t) || gap > 0.6 * Math.max(prev.h, w.h) || gap < -0.5 * w.h) break;
      groups.push(...t.split(/[.,]/));
      prev = w;
      j++;
      if (GROUP_TAIL.test(w.text)) break;
    }
    const next = line[j];
    const digitAfter = next !== undefined && /^\d/.test(next.text) && next.x - (prev.x + prev.w) <= 0.6 * Math.max(prev.h, next.h);
    const enough = groups.length >= 3 || (m[1] === '$' && groups.length >= 2);
    if (!enough || digitAfter || !groups.slice(1).every((g) => g.length === 3)) {
      out.push(first);
      continue;
    }
    const parts = line.slice(i, j);
    const x1 = Math.max(...parts.map((w) => w.x + w.w));
    const y0 = Math.min(...parts.map((w) => w.y));
    const y1 = Math.max(...parts.map((w) => w.y + w.h));
    out.push({ ...first, text: m[1] + groups.join(','), w: x1 - first.x, y: y0, h: y1 - y0, conf: Math.min(...parts.map((w) => w.conf ?? 0)) });
    i = j - 1;
  }
  return out;
}

/** A word is read again when its confidence is below this (it is what the layout stage and merging trust). */
export const REREAD_BELOW = 0.6;
/**
 * A word of four digits or more (a policy number, a limit, a date) is read again below this: on a scan the
 * first reading of a small number among rules takes a glyph twice ("60839057" at 0.73 for 6089057, which
 * the same engine reads at 0.95 cut out on its own).
 */
export const REREAD_DIGITS_BELOW = 0.85;
/** A reread replaces a word only with at least this confidence. */
export const REREAD_MIN_CONF = 0.6;

/** Where each reread unit sits in the strip (pixels) and where it came from in the page image (pixels). */
export interface RereadSlot {
  /** The unit's words: their places in the page's words (its lines, flattened). */
  indices: number[];
  /** The unit's own box in the strip: words read again count only with their centre in it. */
  top: number;
  bottom: number;
  left: number;
  right: number;
  /** Offset from strip pixels to page-image pixels. */
  dx: number;
  dy: number;
  /** Mean confidence of the unit's first reading. */
  conf: number;
}

interface PxBox {
  x0: number;
  y0: number;
  x1: number;
  y1: number;
}

/**
 * The weak words of a page (confidence below REREAD_BELOW, at least three letters or digits, text-high) cut
 * from the page image and stacked one per line in a strip image, to be read again:
 * - weak words that overlap or touch on a line are one unit (the engine split one value, "T050.000" over
 *   ",000,"), read as one;
 * - a unit grows sideways over ink no word covers (the "1," and "000" the engine left out of ",000,");
 * - in its cut-out, the rules crossing it (a column or row inked nearly all through: a box border the engine
 *   read into the word, "|02/05/2023" at 0.06) and other words reaching in are whitened.
 * Undefined when the page has no weak word.
 */
export function rereadStrip(img: NormalisedImage, words: TextItem[]): (NormalisedImage & { slots: RereadSlot[] }) | undefined {
  const px = grayPixels(img);
  const s = img.ptPerPx;
  const W = img.width;
  const H = img.height;
  const heights = words.map((w) => w.h / s).sort((a, b) => a - b);
  const typical = heights[Math.floor(heights.length / 2)] ?? 0;
  const boxOf = (w: TextItem): PxBox => ({
    x0: Math.max(0, Math.floor(w.x / s)),
    y0: Math.max(0, Math.floor(w.y / s)),
    x1: Math.min(W, Math.ceil((w.x + w.w) / s)),
    y1: Math.min(H, Math.ceil((w.y + w.h) / s)),
  });
  const boxes = words.map(boxOf);
  const weak = words
    .map((_, i) => i)
    .filter((i) => {
      const w = words[i];
      const hp = boxes[i].y1 - boxes[i].y0;
      const conf = w.conf ?? 1;
      const digits = (w.text.match(/\d/g) ?? []).length;
      return (
        (conf < REREAD_BELOW || (digits >= 4 && conf < REREAD_DIGITS_BELOW)) &&
        (w.text.match(/[A-Za-z0-9]/g) ?? []).length >= 3 &&
        hp >= typical * 0.5 &&
        hp <= typical * 2.5
      );
    });
  if (weak.length === 0) return undefined;
  // Units: weak words whose boxes overlap, or sit side by side on a line closer than a third of their height.
  const units: number[][] = [];
  const near = (a: PxBox, b: PxBox) => {
    const h = Math.min(a.y1 - a.y0, b.y1 - b.y0);
    const vOverlap = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
    const hGap = Math.max(a.x0, b.x0) - Math.min(a.x1, b.x1);
    return vOverlap > 0 && (hGap < 0 ? true : vOverlap >= h * 0.5 && hGap < h * 0.33);
  };
  for (const i of weak) {
    const joined = units.filter((u) => u.some((j) => near(boxes[i], boxes[j])));
    const merged = [i, ...joined.flat()];
    for (const u of joined) units.splice(units.indexOf(u), 1);
    units.push(merged);
  }
  const isInk = (x: number, y: number) => px[y * W + x] < 150;
  const crops: (Crop & { unit: number[]; own: PxBox })[] = [];
  for (const unit of units) {
    const own: PxBox = {
      x0: Math.min(...unit.map((i) => boxes[i].x0)),
      y0: Math.min(...unit.map((i) => boxes[i].y0)),
      x1: Math.max(...unit.map((i) => boxes[i].x1)),
      y1: Math.max(...unit.map((i) => boxes[i].y1)),
    };
    const hp = own.y1 - own.y0;
    const others = boxes.filter((_, i) => !unit.includes(i));
    const covered = (x: number, y: number) => others.some((b) => x >= b.x0 && x < b.x1 && y >= b.y0 && y < b.y1);
    // Columns beside the unit with ink no other word covers (not a rule through the whole band) join it.
    const freeInk = (x: number) => {
      let n = 0;
      let free = false;
      for (let y = own.y0; y < own.y1; y++)
        if (isInk(x, y)) {
          n++;
          if (!covered(x, y)) free = true;
        }
      return n > 0 && n < hp * 0.8 && free;
    };
    const blocked = (x: number) => others.some((b) => x >= b.x0 && x < b.x1 && b.y0 < own.y1 - hp * 0.3 && b.y1 > own.y0 + hp * 0.3);
    for (const dir of [-1, 1]) {
      let x = dir < 0 ? own.x0 - 1 : own.x1;
      let last = x - dir;
      const limit = Math.round(hp * 6);
      for (let k = 0; k < limit && x >= 0 && x < W && !blocked(x); k++, x += dir) {
        if (freeInk(x)) last = x;
        else if (Math.abs(x - last) > hp * 0.5) break;
      }
      if (dir < 0) own.x0 = Math.min(own.x0, last);
      else own.x1 = Math.max(own.x1, last + 1);
    }
    const padX = Math.round(hp * 0.5);
    const padY = Math.round(hp * 0.45);
    const x0 = Math.max(0, own.x0 - padX);
    const y0 = Math.max(0, own.y0 - padY);
    const x1 = Math.min(W, own.x1 + padX);
    const y1 = Math.min(H, own.y1 + padY);
    const cw = x1 - x0;
    const ch = y1 - y0;
    if (cw < 4 || ch < 4) continue;
    const data = new Uint8Array(cw * ch);
    for (let y = 0; y < ch; y++) data.set(px.subarray((y0 + y) * W + x0, (y0 + y) * W + x1), y * cw);
    // Other words reaching into the cut-out (the line above or below, a neighbour on the line) are whitened
    // outside the unit's own box: only the unit is read again.
    for (const b of others) {
      const ox0 = Math.max(0, b.x0 - x0);
      const oy0 = Math.max(0, b.y0 - y0);
      const ox1 = Math.min(cw, b.x1 - x0);
      const oy1 = Math.min(ch, b.y1 - y0);
      if (ox0 >= ox1 || oy0 >= oy1) continue;
      for (let y = oy0; y < oy1; y++)
        for (let x = ox0; x < ox1; x++) if (x + x0 < own.x0 || x + x0 >= own.x1 || y + y0 < own.y0 || y + y0 >= own.y1) data[y * cw + x] = 255;
    }
    whitenRules(data, cw, ch);
    crops.push({ data, w: cw, h: ch, x0, y0, unit, own });
  }
  if (crops.length === 0) return undefined;
  const strip = stackCrops(crops, Math.max(20, Math.round(typical)), Math.max(20, Math.round(typical * 1.2)));
  const slots: RereadSlot[] = crops.map((c, k) => {
    const { dx, dy } = strip.placed[k];
    return {
      indices: c.unit,
      top: c.own.y0 - dy,
      bottom: c.own.y1 - dy,
      left: c.own.x0 - dx,
      right: c.own.x1 - dx,
      dx,
      dy,
      conf: c.unit.reduce((a, i) => a + (words[i].conf ?? 0), 0) / c.unit.length,
    };
  });
  return { ...strip.img, slots };
}

/** A gray cut-out of a page image (pixels), and where it was cut from. */
export interface Crop {
  data: Uint8Array;
  w: number;
  h: number;
  x0: number;
  y0: number;
}

/**
 * Cut-outs stacked one under another on white (left-aligned at `margin`, `gap` apart): one image read in one
 * engine call. Each cut-out's placement: its top row in the strip, and the offset from strip pixels back to
 * page-image pixels.
 */
export function stackCrops(
  crops: Crop[],
  margin: number,
  gap: number,
): { img: NormalisedImage; placed: { top: number; bottom: number; dx: number; dy: number }[] } {
  const width = Math.max(...crops.map((c) => c.w)) + 2 * margin;
  const height = crops.reduce((a, c) => a + c.h + gap, margin);
  const out = new Uint8Array(width * height).fill(255);
  const placed: { top: number; bottom: number; dx: number; dy: number }[] = [];
  let y = margin;
  for (const c of crops) {
    for (let r = 0; r < c.h; r++) out.set(c.data.subarray(r * c.w, (r + 1) * c.w), (y + r) * width + margin);
    placed.push({ top: y, bottom: y + c.h, dx: c.x0 - margin, dy: c.y0 - y });
    y += c.h + gap;
  }
  const header = Buffer.from(`P5\n${width} ${height}\n255\n`, 'latin1');
  return { img: { pgm: Buffer.concat([header, out]), width, height, ptPerPx: 1 }, placed };
}

/**
 * Boxes of the page image (pixels, clamped to the image) cut out, stacked and read in one engine call (psm 6, no
 * second reading); each box's words, in page points. `prepare` may change a cut-out's pixels before it is read
 * (whiten words the page already has). A box with a `scale` (2 = twice as large) is enlarged (lanczos3) after
 * `prepare`: the same glyphs at another size are a second, independent look for the engine.
 */
export async function readPixelBoxes(
  img: NormalisedImage,
  boxes: { x0: number; y0: number; x1: number; y1: number; scale?: number }[],
  options: OcrOptions,
  prepare?: (crop: Crop) => void,
): Promise<TextItem[][]> {
  if (boxes.length === 0) return [];
  const px = grayPixels(img);
  const crops = await Promise.all(
    boxes.map(async (b) => {
      const x0 = Math.max(0, Math.floor(b.x0));
      const y0 = Math.max(0, Math.floor(b.y0));
      const w = Math.max(1, Math.min(img.width, Math.ceil(b.x1)) - x0);
      const h = Math.max(1, Math.min(img.height, Math.ceil(b.y1)) - y0);
      const data = new Uint8Array(w * h).fill(255);
      for (let y = 0; y < h && y0 + y < img.height; y++) data.set(px.subarray((y0 + y) * img.width + x0, (y0 + y) * img.width + x0 + w), y * w);
      const crop = { data, w, h, x0, y0 };
      prepare?.(crop);
      const k = b.scale ?? 1;
      if (k === 1) return { crop, k };
      const W = Math.round(w * k);
      const H = Math.round(h * k);
      const big = await sharp(crop.data, { raw: { width: w, height: h, channels: 1 } })
        .resize(W, H, { kernel: 'lanczos3' })
        .extractChannel(0)
        .raw()
        .toBuffer();
      return { crop: { data: new Uint8Array(big.buffer, big.byteOffset, big.length), w: W, h: H, x0, y0 }, k: W / w };
    }),
  );
  const margin = 24;
  const { img: strip, placed } = stackCrops(
    crops.map((c) => c.crop),
    margin,
    24,
  );
  const read = await ocrImage(strip, { ...options, psm: 6, reread: false });
  const s = img.ptPerPx;
  const out: TextItem[][] = boxes.map(() => []);
  for (const w of read.words) {
    const mid = w.y + w.h / 2;
    const k = placed.findIndex((p) => mid >= p.top && mid < p.bottom);
    if (k < 0) continue;
    // Strip pixels back to page-image pixels: x0 + (x - margin) / scale (the same as x + dx at scale 1).
    const { k: f, crop } = crops[k];
    out[k].push({ ...w, x: (crop.x0 + (w.x - margin) / f) * s, y: (crop.y0 + (w.y - placed[k].top) / f) * s, w: (w.w / f) * s, h: (w.h / f) * s });
  }
  return out;
}

/** Whiten columns and rows of a small gray cut-out that are inked through nearly all of it (rules, not glyphs). */
function whitenRules(data: Uint8Array, w: number, h: number, ink = 150) {
  const cols: number[] = [];
  for (let x = 0; x < w; x++) {
    let n = 0;
    for (let y = 0; y < h; y++) if (data[y * w + x] < ink) n++;
    if (n >= h * 0.8) cols.push(x);
  }
  const rows: number[] = [];
  for (let y = 0; y < h; y++) {
    let n = 0;
    for (let x = 0; x < w; x++) if (data[y * w + x] < ink) n++;
    if (n >= w * 0.8) rows.push(y);
  }
  // A rule's anti-aliased fringe goes with it.
  for (const x of cols) for (let y = 0; y < h; y++) for (const k of [x - 1, x, x + 1]) if (k >= 0 && k < w) data[y * w + k] = 255;
  for (const y of rows) for (const k of [y - 1, y, y + 1]) if (k >= 0 && k < h) data.fill(255, k * w, (k + 1) * w);
}

const inside = (v: number, lo: number, hi: number) => v >= lo && v < hi;
type Box = { x: number; y: number; w: number; h: number };
const overlapArea = (a: Box, b: Box) =>
  Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x)) * Math.max(0, Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y));

/** Engine line numbers given to reread words that came back on a line of their own (a label under a label). */
let nextLine = 1_000_000;

/**
 * Put the strip's words back: each slot's words (in strip pixels) replace the unit they were cut from,
 * positioned in page points, when they were read with more confidence (at least REREAD_MIN_CONF on average).
 * Words of the strip line nearest the unit keep its engine line; words of another strip line (a two-line
 * caption the first reading ran together) get a line of their own. Returns the number of units replaced.
 */
export function applyReread(lines: TextItem[][], strip: { slots: RereadSlot[] }, again: TextItem[], ptPerPx: number): number {
  const flat = lines.flat();
  const replace = new Map<TextItem, TextItem[]>();
  for (const slot of strip.slots) {
    const got = again
      .filter((a) => inside(a.x + a.w / 2, slot.left, slot.right) && inside(a.y + a.h / 2, slot.top, slot.bottom) && /[A-Za-z0-9$]/.test(a.text))
      .sort((a, b) => a.x - b.x);
    if (got.length === 0) continue;
    const conf = got.reduce((a, g) => a + (g.conf ?? 0), 0) / got.length;
    if (conf < REREAD_MIN_CONF || conf <= slot.conf) continue;
    const unit = slot.indices.map((i) => flat[i]);
    const old = unit[0];
    const toPage = (g: TextItem): Box => ({ x: (g.x + slot.dx) * ptPerPx, y: (g.y + slot.dy) * ptPerPx, w: g.w * ptPerPx, h: g.h * ptPerPx });
    // A word the first pass already has elsewhere (its box reached into this one's) is not added twice.
    const fresh = got.filter((g) => {
      const b = toPage(g);
      return !flat.some((o) => !unit.includes(o) && overlapArea(o, b) >= 0.5 * b.w * b.h);
    });
    if (fresh.length === 0) continue;
    const oldMid = unit.reduce((a, w) => a + w.y + w.h / 2, 0) / unit.length;
    const stripLines = [...new Set(fresh.map((g) => g.line))];
    const midOf = (l: number | undefined) => {
      const ws = fresh.filter((g) => g.line === l).map(toPage);
      return ws.reduce((a, b) => a + b.y + b.h / 2, 0) / ws.length;
    };
    const main = stripLines.reduce((a, b) => (Math.abs(midOf(b) - oldMid) < Math.abs(midOf(a) - oldMid) ? b : a));
    const lineOf = new Map(stripLines.map((l) => [l, l === main ? old.line : old.line === undefined ? undefined : nextLine++]));
    replace.set(
      old,
      fresh.map((g) => ({ ...old, ...toPage(g), text: g.text, conf: g.conf, line: lineOf.get(g.line) })),
    );
    for (const w of unit.slice(1)) replace.set(w, []);
  }
  for (const l of lines)
    for (let i = l.length - 1; i >= 0; i--) {
      const r = replace.get(l[i]);
      if (r) l.splice(i, 1, ...r);
    }
  return strip.slots.filter((sl) => replace.has(flat[sl.indices[0]]) && replace.get(flat[sl.indices[0]])!.length > 0).length;
}

/** Tesseract's TSV (both engines): word rows (level 5) grouped into the engine's lines, in its reading order. */
export function linesFromTsv(tsv: string, ptPerPx: number): TextItem[][] {
  const byLine = new Map<string, TextItem[]>();
  for (const row of tsv.split('\n')) {
    const c = row.split('\t');
    if (c.length < 12 || c[0] !== '5' || !c[11].trim()) continue;
    const key = `${c[2]}.${c[3]}.${c[4]}`;
    let list = byLine.get(key);
    if (!list) byLine.set(key, (list = []));
    list.push(toItem(c[11], +c[6], +c[7], +c[8], +c[9], +c[10], ptPerPx));
  }
  // Lines numbered in order of first appearance.
  return [...byLine.values()].map((words, line) => words.map((w) => ({ ...w, line })));
}

/**
 * The engine picks curly or straight quotes by the glyph's look, not by the text: "EMPLOYERS’ LIABILITY" as
 * printed is "EMPLOYERS' LIABILITY" to every rule that reads it. OCR words get straight quotes.
 */
export const straightQuotes = (t: string) => t.replace(/[\u2018\u2019\u201a\u2032`]/g, "'").replace(/[\u201c\u201d\u201e\u2033]/g, '"');

function toItem(text: string, x: number, y: number, w: number, h: number, conf: number, s: number): TextItem {
  return { text: boxedMark(straightQuotes(text)), x: x * s, y: y * s, w: w * s, h: h * s, source: 'ocr', conf: Math.max(0, Math.min(1, conf / 100)) };
}

/**
 * Box borders read as glyphs: a tick read with its box ("|X|", "[X", "X]") is the tick, "X"; a border glued
 * to a word ("[PER", "LIMIT|") is dropped.
 */
export function boxedMark(word: string): string {
  if (/^[[(|]+[Xx][\])|]*$|^[Xx][\])|]+$/.test(word)) return 'X';
  return word.replace(/^[[|]+(?=[A-Za-z0-9$]{2})/, '').replace(/(?<=[A-Za-z0-9.,)]{2})[\]|]+$/, '');
}

/**
 * Undo page skew in word positions: the OCR engine finds the (slanted) lines; the median slope of word
 * bottoms along those lines is removed, so rows and columns line up for the layout stage.
 */
export function deskew(lines: TextItem[][]): TextItem[] {
  const slopes: number[] = [];
  for (const l of lines) {
    if (l.length < 3) continue;
    const xs = l.map((w) => w.x + w.w / 2);
    const ys = l.map((w) => w.y + w.h);
    const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
    const my = ys.reduce((a, b) => a + b, 0) / ys.length;
    let num = 0;
    let den = 0;
    for (let i = 0; i < xs.length; i++) {
      num += (xs[i] - mx) * (ys[i] - my);
      den += (xs[i] - mx) ** 2;
    }
    if (den > 0 && xs[xs.length - 1] - xs[0] > 60) slopes.push(num / den);
  }
  const words = lines.flat();
  if (slopes.length < 3) return words;
  slopes.sort((a, b) => a - b);
  const slope = slopes[Math.floor(slopes.length / 2)];
  if (Math.abs(slope) < 0.002 || Math.abs(slope) > 0.15) return words;
  return words.map((w) => ({ ...w, y: w.y - slope * (w.x + w.w / 2), x: w.x + slope * (w.y + w.h / 2) }));
}

const meanConf = (words: TextItem[]) => (words.length ? words.reduce((a, w) => a + (w.conf ?? 0), 0) / words.length : 0);

let cliTessdata: string | undefined;
/** The same language data as tesseract.js, unpacked once into a temporary directory for the native command. */
export function cliTessdataDir(): string {
  if (cliTessdata) return cliTessdata;
  const dir = path.join(os.tmpdir(), 'svc-tessdata-best-int');
  const file = path.join(dir, 'eng.traineddata');
  if (!fs.existsSync(file)) {
    fs.mkdirSync(dir, { recursive: true });
    const tmp = `${file}.${process.pid}`;
    fs.writeFileSync(tmp, zlib.gunzipSync(fs.readFileSync(path.join(langDataDir(), 'eng.traineddata.gz'))));
    fs.renameSync(tmp, file);
  }
  return (cliTessdata = dir);
}

/** The native command's TSV for one PGM image. */
async function cliTsv(pgm: Buffer, bin: string, searchPath: string | undefined, psm: number, timeoutMs: number): Promise<string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'svc-ocr-'));
  try {
    const input = path.join(dir, 'page.pgm');
    fs.writeFileSync(input, pgm);
    let stdout: string;
    try {
      ({ stdout } = await execFileP(
        bin,
        [
          input,
          'stdout',
          '--tessdata-dir',
          cliTessdataDir(),
          '-l',
          'eng',
          '--oem',
          '1',
          '--psm',
          String(psm),
          '-c',
          'tessedit_create_tsv=1',
          '-c',
          'tessedit_create_txt=0',
          '-c',
          'user_defined_dpi=300',
        ],
        {
          timeout: timeoutMs,
          maxBuffer: 64 * 1024 * 1024,
          // Only what the command needs: nothing of this process's environment leaks into it.
          env: { OMP_THREAD_LIMIT: '1', ...(searchPath ? { PATH: searchPath } : {}) },
        },
      ));
    } catch (e) {
      const err = e as NodeJS.ErrnoException & { killed?: boolean };
      if (err.code === 'ENOENT') throw new DocumentError('internal_error', 'ocr_unavailable', `the OCR command "${bin}" is not installed`);
      if (err.killed) throw new DocumentError('extraction_failed', 'ocr_timeout', `OCR of a page took longer than ${timeoutMs} ms`);
      throw new DocumentError('extraction_failed', 'ocr_failed', 'the OCR command failed', err.message);
    }
    return stdout;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
