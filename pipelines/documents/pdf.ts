// The caller's side of the PDF worker pool.
import { WorkerPool } from './pool.ts';
import { DocumentError, type DocumentErrorCode } from './errors.ts';
import type { PdfTextResult, PdfRasterResult } from './pdf_worker.ts';
import { buildBlocks, type PageText } from './layout.ts';
import { textRepairs, type TextRepair } from './repair.ts';

let pool: WorkerPool | undefined;

/**
 * Worker flags: when this Node strips TypeScript types itself, the workers are started without the tsx
 * loader the parent may run under (it costs ~230 MB per thread); otherwise they inherit the parent's flags.
 */
function workerExecArgv(): string[] | undefined {
  if (!(process.features as { typescript?: string | false }).typescript) return undefined;
  const out: string[] = [];
  const argv = process.execArgv;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if ((a === '--import' || a === '--require' || a === '--loader' || a === '-r') && /tsx/.test(argv[i + 1] ?? '')) {
      i++;
      continue;
    }
    if (/^--(import|require|loader)=.*tsx/.test(a)) continue;
    if (a === '--eval' || a === '-e' || a === '--print' || a === '-p') {
      i++;
      continue;
    }
    out.push(a);
  }
  return out;
}

/** The shared PDF pool (created on first use, sized to the cores). */
export function pdfPool(size?: number): WorkerPool {
  // A worker is replaced after 1000 documents, not 100: its start (importing pdf.js) cost ~1.5 ms per document
  // at 100, and its memory stays flat over thousands (bench: documents, memory).
  return (pool ??= new WorkerPool(new URL('./pdf_worker.ts', import.meta.url), { size, execArgv: workerExecArgv(), recycleAfter: 1000 }));
}

export async function closePdfPool(): Promise<void> {
  const p = pool;
  pool = undefined;
  await p?.close();
}

function toDocumentError(e: unknown): Error {
  const err = e as { code?: string; reason?: string; details?: string; message?: string };
  if (err?.code === 'extraction_failed' || err?.code === 'bad_request' || err?.code === 'payload_too_large') {
    return new DocumentError(err.code as DocumentErrorCode, err.reason ?? 'unreadable', err.message ?? 'unreadable PDF', err.details);
  }
  if (/timed out/.test(err?.message ?? '')) return new DocumentError('extraction_failed', 'timeout', 'reading the PDF took too long', err.message);
  // A worker that dies (out of memory on a hostile file) fails this document only; the pool replaces it.
  if (/OUT_OF_MEMORY|worker exited|terminated/i.test(`${(e as { code?: string }).code ?? ''} ${err?.message ?? ''}`)) {
    return new DocumentError('extraction_failed', 'worker_crashed', 'the PDF could not be processed', err.message);
  }
  return e instanceof Error ? e : new Error(String(e));
}

/**
 * A file this large is likely a long document (a 100-page text lease is about 180 KB, a one-page certificate a few
 * dozen): when every page is read (no page location) and two workers are free, its pages are shared between them
 * (each opens the file and reads every other page), so a long lease reads in about half the time. Otherwise one
 * worker reads it, so a busy pool is never asked for more than one worker per document.
 */
export const SPLIT_ABOVE_BYTES = 64 * 1024;

/**
 * A worker posts the pages it has read in batches of this many while it reads on: the copying of a long
 * document's pages into this thread (tens of milliseconds for 100 pages) then happens while the worker is still
 * reading, not all at the end.
 */
export const PAGES_PER_PARTIAL = 8;

/** A worker's pages come without their blocks (pdf_worker.ts lays them out with `blocks` false): built here from the lines. */
function withBlocks(pages: PageText[]): PageText[] {
  for (const p of pages) p.blocks = buildBlocks(p.lines);
  return pages;
}

/** Results of the workers that read shares of one document's pages, as one. */
function mergeParts(parts: PdfTextResult[]): PdfTextResult {
  return {
    pageCount: parts[0].pageCount,
    pages: parts.flatMap((p) => p.pages).sort((a, b) => a.page - b.page),
    needOcr: parts.flatMap((p) => p.needOcr).sort((a, b) => a - b),
    warnings: parts.flatMap((p) => p.warnings),
  };
}

/** Text items of every page (positions, AcroForm values) and the pages that need OCR. */
export async function readPdfText(
  bytes: Uint8Array,
  maxPages: number,
  timeoutMs = 60_000,
  repairs: boolean | readonly TextRepair[] = true,
  locateAbovePages?: number,
): Promise<PdfTextResult> {
  const repair = repairs === true ? [...textRepairs] : repairs === false ? [] : [...repairs];
  const pool = pdfPool();
  const of = locateAbovePages === undefined && bytes.length >= SPLIT_ABOVE_BYTES && pool.idle() >= 2 ? 2 : 1;
  const read = async (part?: { index: number; of: number }) => {
    const copy = new Uint8Array(bytes); // pdf.js detaches the buffer it is given
    const early: PageText[][] = [];
    const rest = await pool.run<PdfTextResult>(
      {
        op: 'text',
        bytes: copy,
        maxPages,
        repair,
        missingText: repairs === true,
        locateAbovePages,
        pagesPerPartial: PAGES_PER_PARTIAL,
        ...(part ? { part } : {}),
      },
      [copy.buffer as ArrayBuffer],
      timeoutMs,
      (p) => early.push(withBlocks((p as { pages: PageText[] }).pages)),
    );
    return { ...rest, pages: early.flat().concat(withBlocks(rest.pages)) };
  };
  try {
    if (of === 1) return await read();
    return mergeParts(await Promise.all(Array.from({ length: of }, (_, index) => read({ index, of }))));
  } catch (e) {
    throw toDocumentError(e);
  }
}

/** One page as an image for OCR: the embedded scan JPEG when there is one, else rendered at `dpi`. */
export async function rasterPdfPage(bytes: Uint8Array, page: number, dpi = 300, maxPixels = 12_000_000, timeoutMs = 60_000): Promise<PdfRasterResult> {
  const copy = new Uint8Array(bytes);
  try {
    return await pdfPool().run<PdfRasterResult>({ op: 'raster', bytes: copy, page, dpi, maxPixels }, [copy.buffer as ArrayBuffer], timeoutMs);
  } catch (e) {
    throw toDocumentError(e);
  }
}
