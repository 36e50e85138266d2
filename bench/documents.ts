// Document pipeline benchmark: prints figures, asserts nothing.
//  - text extraction pages/s (pdf.js in the worker pool) beside `pdftotext` on the same files
//  - OCR seconds/page (tesseract.js, one worker) beside native `tesseract` on the same images and language data
//  - OCR throughput with 1 and 2 workers
//  - memory (RSS) over many documents
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import {
  readDocument,
  rasterPdfPage,
  normaliseImage,
  ocrImage,
  cliTessdataDir,
  closeDocumentPools,
  pdfPool,
  type OcrOptions,
} from '../pipelines/documents/index.ts';

const execFileP = promisify(execFile);
const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/policies');

function installed(cmd: string, args: string[]): boolean {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** Run `fn` over items with at most `n` in flight. */
async function parallel<T>(items: T[], n: number, fn: (x: T) => Promise<unknown>): Promise<void> {
  let i = 0;
  await Promise.all(
    Array.from({ length: n }, async () => {
      while (i < items.length) await fn(items[i++]);
    }),
  );
}

const secs = (t0: number) => (performance.now() - t0) / 1000;
const f2 = (x: number) => x.toFixed(2);

export async function run(): Promise<void> {
  const cores = os.availableParallelism();
  const textFiles = fs
    .readdirSync(fixtures)
    .filter((f) => f.endsWith('.pdf') && !f.includes('_scan'))
    .map((f) => path.join(fixtures, f));
  const bytes = textFiles.map((f) => new Uint8Array(fs.readFileSync(f)));
  console.log(`documents bench: ${cores} cores, ${textFiles.length} text PDFs from fixtures/policies`);

  // Warm the pool (worker start and pdf.js import are one-off costs).
  await Promise.all(bytes.slice(0, cores).map((b) => readDocument(b, { ocr: false })));
  const rounds = 10;
  const work = Array.from({ length: rounds }, () => bytes).flat();
  let pages = 0;
  let t0 = performance.now();
  await parallel(work, cores * 2, async (b) => {
    const n = (await readDocument(b, { ocr: false })).pageCount;
    pages += n; // (not `pages += await …`, which would read `pages` before the await)
  });
  const ours = pages / secs(t0);
  console.log(`text: pdf.js worker pool (${pdfPool().size} threads): ${f2(ours)} pages/s over ${pages} pages`);
  if (installed('pdftotext', ['-v'])) {
    const files = Array.from({ length: rounds }, () => textFiles).flat();
    t0 = performance.now();
    await parallel(files, cores, (f) => execFileP('pdftotext', ['-layout', f, '-']));
    const peer = files.length / secs(t0);
    console.log(`text: pdftotext -layout (${cores} processes): ${f2(peer)} pages/s — ours/pdftotext = ${f2(ours / peer)}`);
  } else console.log('text: pdftotext not installed (apt-get install poppler-utils) — no peer figure');

  // What the text-layer repairs cost on clean documents: the same files with and without them, interleaved.
  const withRepair: number[] = [];
  const withoutRepair: number[] = [];
  for (let r = 0; r < 3; r++) {
    for (const [repairTextLayer, out] of [
      [true, withRepair],
      [false, withoutRepair],
    ] as const) {
      let n = 0;
      const t1 = performance.now();
      await parallel(work, cores * 2, async (b) => {
        const k = (await readDocument(b, { ocr: false, repairTextLayer })).pageCount;
        n += k;
      });
      out.push(n / secs(t1));
    }
  }
  const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `text repairs (doubled glyphs, letter spacing, reversed numbers) on clean documents: ${f2(med(withRepair))} pages/s with, ${f2(med(withoutRepair))} without (median of 3) — with/without = ${f2(med(withRepair) / med(withoutRepair))}`,
  );

  // Extraction against the hand-labelled dev set, when the shared corpus is on this machine.
  const labels = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared/corpus/labels');
  if (fs.existsSync(labels)) {
    const { runLabelled, summarise } = await import('../bin/commands/eval_labels.ts');
    const runs = await runLabelled(labels, path.dirname(labels));
    const s = summarise(runs);
    const pct = (t: { n: number; ok: number }) => `${((t.ok / Math.max(1, t.n)) * 100).toFixed(1)}% (${t.ok}/${t.n})`;
    console.log(
      `extraction vs hand labels (${s.documents} documents): overall ${pct(s.overall)}, text ${pct(s.text)}, scans ${pct(s.scan)}; statuses ${Object.entries(
        s.statuses,
      )
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}; median ${f2(s.medianTextMs / 1000)} s per text document`,
    );
  } else console.log('extraction vs hand labels: ../shared/corpus/labels not present — no figure');

  // Memory over many documents: RSS after each batch (worker threads live in this process).
  const rss = () => Math.round(process.memoryUsage().rss / 1024 / 1024);
  const marks: string[] = [`${rss()} MB`];
  for (let batch = 0; batch < 5; batch++) {
    await parallel(
      Array.from({ length: 200 }, (_, i) => bytes[i % bytes.length]),
      cores * 2,
      (b) => readDocument(b, { ocr: false }),
    );
    marks.push(`${rss()} MB`);
  }
  console.log(`memory: RSS every 200 text documents (1000 in all): ${marks.join(' → ')}`);

  // OCR: the same normalised page images for every engine.
  const sources = ['home_granite_scan.pdf', 'cgl_keystone_scan.pdf', 'coi_alpha_scan.pdf', 'auto_acme_mutual_scan.pdf'];
  const images = [];
  for (const s of sources) {
    const r = await rasterPdfPage(new Uint8Array(fs.readFileSync(path.join(fixtures, s))), 1);
    images.push(await normaliseImage(r.data, { pageWidthPt: r.pageWidth }));
  }
  const one: OcrOptions = { engine: { kind: 'tesseract.js', workers: 1 } };
  await ocrImage(images[0], one); // worker start and language data load
  t0 = performance.now();
  for (const img of images) await ocrImage(img, one);
  const jsPerPage = secs(t0) / images.length;
  console.log(`ocr: tesseract.js, 1 worker: ${f2(jsPerPage)} s/page (${images.length} pages, ${images[0].width}×${images[0].height} px)`);
  if (installed('tesseract', ['--version'])) {
    cliTessdataDir();
    const cli: OcrOptions = { engine: { kind: 'tesseract-cli', path: 'tesseract' } };
    t0 = performance.now();
    for (const img of images) await ocrImage(img, cli);
    const cliPerPage = secs(t0) / images.length;
    console.log(`ocr: native tesseract (same eng best_int data, 1 thread): ${f2(cliPerPage)} s/page — tesseract.js/native = ${f2(jsPerPage / cliPerPage)}`);
  } else console.log('ocr: native tesseract not installed (apt-get install tesseract-ocr) — no peer figure');

  const pages8 = [...images, ...images];
  t0 = performance.now();
  await Promise.all(pages8.map((img) => ocrImage(img, one)));
  const tp1 = pages8.length / secs(t0);
  const two: OcrOptions = { engine: { kind: 'tesseract.js', workers: 2 } };
  await Promise.all([ocrImage(images[0], two), ocrImage(images[1], two)]); // start both workers
  t0 = performance.now();
  await Promise.all(pages8.map((img) => ocrImage(img, two)));
  const tp2 = pages8.length / secs(t0);
  console.log(`ocr throughput: 1 worker ${f2(tp1 * 60)} pages/min, 2 workers ${f2(tp2 * 60)} pages/min — 2/1 = ${f2(tp2 / tp1)}`);
  await closeDocumentPools();
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
