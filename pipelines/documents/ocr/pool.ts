// The tesseract.js engine: a pool of reused workers (each its own thread), recycled after a number of pages or
// above a memory mark.
import os from 'node:os';
import { DocumentError } from '../errors.ts';
import { langDataDir } from './options.ts';
import type { TextItem } from '../layout.ts';

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
  /** Dropped (timed out, failed or recycled): its worker is being terminated and takes no more calls. */
  dropped?: boolean;
}

/** Pages a tesseract.js worker reads before it is replaced, by default. */
export const OCR_RECYCLE_AFTER_PAGES = 200;
/** Process RSS (MB) above which a tesseract.js worker that finished a page is replaced, by default. */
export const OCR_RECYCLE_ABOVE_RSS_MB = 896;

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
    slot.dropped = true;
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
      // A call that timed out goes on here until its worker answers or is terminated: once its slot is dropped
      // it sends that worker nothing more (tesseract.js throws on a terminated worker, outside this promise's
      // reach), and its late failure is nobody's (the caller has had the time-out).
      const live = (w: TessWorker) => {
        if (slot.dropped) throw new Error('the OCR worker was replaced');
        return w;
      };
      const work = (async () => {
        const w = live(await slot.worker);
        if (slot.psm !== psm) {
          await w.setParameters({ tessedit_pageseg_mode: String(psm), user_defined_dpi: '300' });
          slot.psm = psm;
        }
        // Only the TSV output, the same words-with-boxes table the native command prints: building the
        // `blocks` tree instead (symbols and choices for every word) cost 16% more CPU per page.
        const r = await live(w).recognize(image, {}, { tsv: true, blocks: false, text: false, hocr: false });
        return r.data.tsv ?? '';
      })();
      work.catch(() => {});
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

export function pool(engine: { workers?: number; recycleAfterPages?: number; recycleAboveRssMb?: number }): TesseractPool {
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
