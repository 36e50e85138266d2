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
  ocrPage,
  sniff,
  rasterPdfPage,
  normaliseImage,
  ocrImage,
  cliTessdataDir,
  cliArgs,
  closeDocumentPools,
  pdfPool,
  textRepairs,
  type OcrOptions,
  type NormalisedImage,
  type ReadOptions,
  type TextRepair,
} from '../pipelines/documents/index.ts';
import { repairTextItems, runsWordsTogether } from '../pipelines/documents/repair.ts';
import { unreadable, mayHideText } from '../pipelines/documents/invisible.ts';
import { mayDrawText } from '../pipelines/documents/missing_text.ts';
import { tickBoxCandidates } from '../pipelines/documents/ticks.ts';

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

const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const runs = (xs: number[]) => xs.map(f2).join(', ');

export async function run(ctx?: { quick?: boolean }): Promise<void> {
  const quick = ctx?.quick ?? false;
  const cores = os.availableParallelism();
  const textFiles = fs
    .readdirSync(fixtures)
    .filter((f) => f.endsWith('.pdf') && !f.includes('_scan'))
    .map((f) => path.join(fixtures, f));
  const bytes = textFiles.map((f) => new Uint8Array(fs.readFileSync(f)));
  console.log(
    `documents bench: ${cores} cores, ${textFiles.length} text PDFs from fixtures/policies; every figure is the median of 3 runs, ours and the peer interleaved`,
  );

  // Warm the pool (worker start and pdf.js import are one-off costs).
  await Promise.all(bytes.slice(0, cores).map((b) => readDocument(b, { ocr: false })));
  const rounds = 10;
  // The machine is shared, so load changes within a run: ours and the peer alternate in small batches (one pass
  // over the files each) and their times are summed, so both see the same load.
  const oursBatch = async (options: ReadOptions = {}) => {
    let pages = 0;
    const t0 = performance.now();
    await parallel(bytes, cores * 2, async (b) => {
      const n = (await readDocument(b, { ocr: false, ...options })).pageCount;
      pages += n; // (not `pages += await …`, which would read `pages` before the await)
    });
    return [pages, secs(t0)] as const;
  };
  const havePdftotext = installed('pdftotext', ['-v']);
  const ours: number[] = [];
  const peer: number[] = [];
  const ratio: number[] = [];
  for (let r = 0; r < 3; r++) {
    let [op, ot, pp, pt] = [0, 0, 0, 0];
    for (let k = 0; k < rounds; k++) {
      const [p, s] = await oursBatch();
      op += p;
      ot += s;
      if (!havePdftotext) continue;
      const t0 = performance.now();
      await parallel(textFiles, cores, (f) => execFileP('pdftotext', ['-layout', f, '-']));
      pt += secs(t0);
      pp += textFiles.length;
    }
    ours.push(op / ot);
    if (!havePdftotext) continue;
    peer.push(pp / pt);
    ratio.push(ours[r] / peer[r]);
  }
  console.log(
    `text: pdf.js worker pool (${pdfPool().size} threads): ${f2(med(ours))} pages/s (runs ${runs(ours)}) over ${rounds * bytes.length} documents a run`,
  );
  if (havePdftotext)
    console.log(
      `text: pdftotext -layout (${cores} processes): ${f2(med(peer))} pages/s (runs ${runs(peer)}) — ours/pdftotext = ${f2(med(ratio))} (runs ${runs(ratio)})`,
    );
  else console.log('text: pdftotext not installed (apt-get install poppler-utils) — no peer figure');

  // What each text-layer repair costs on clean documents: all repairs, none, and each one alone, interleaved.
  const configs: [string, ReadOptions['repairTextLayer']][] = [['all', true], ['none', false], ...textRepairs.map((k) => [k, [k]] as [string, TextRepair[]])];
  const rates = new Map<string, number[]>(configs.map(([k]) => [k, []]));
  for (let r = 0; r < 3; r++) {
    const acc = new Map<string, [number, number]>(configs.map(([k]) => [k, [0, 0]]));
    for (let k = 0; k < rounds; k++)
      for (const [name, repairTextLayer] of configs) {
        const [p, s] = await oursBatch({ repairTextLayer });
        const a = acc.get(name)!;
        a[0] += p;
        a[1] += s;
      }
    for (const [name, [p, s]] of acc) rates.get(name)!.push(p / s);
  }
  const none = med(rates.get('none')!);
  console.log(
    `text repairs on clean documents, pages/s (cost vs none): ${configs
      .map(([k]) => `${k} ${f2(med(rates.get(k)!))}${k === 'none' ? '' : ` (${((1 - med(rates.get(k)!) / none) * 100).toFixed(1)}%)`}`)
      .join(', ')}`,
  );

  await repairCosts(bytes);

  // Extraction against the hand-labelled dev set, when the shared corpus is on this machine.
  const labels = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../shared/corpus/labels');
  if (quick) console.log('extraction vs hand labels: skipped (--quick)');
  else if (fs.existsSync(labels)) {
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
  for (let batch = 0; batch < (quick ? 2 : 5); batch++) {
    await parallel(
      Array.from({ length: 200 }, (_, i) => bytes[i % bytes.length]),
      cores * 2,
      (b) => readDocument(b, { ocr: false }),
    );
    marks.push(`${rss()} MB`);
  }
  console.log(`memory: RSS every 200 text documents: ${marks.join(' → ')}`);

  await runOcr();
  await closeDocumentPools();
}

// CPU time, so that OCR figures mean something on a shared machine: wall time counts whatever else runs, CPU
// time counts the work. Linux /proc only; elsewhere the CPU figures read 0 and are left out.
const TICKS = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();
/** The fields of a /proc stat line after the command name (field 3, the state, is [0]). */
const statFields = (file: string) => {
  const t = fs.readFileSync(file, 'utf8');
  return t.slice(t.lastIndexOf(')') + 2).split(' ');
};
const haveProc = fs.existsSync('/proc/self/task');
/** User+system CPU seconds of each thread of this process, by thread id. */
function threadCpu(): Map<string, number> {
  const out = new Map<string, number>();
  if (!haveProc) return out;
  for (const t of fs.readdirSync('/proc/self/task'))
    try {
      const f = statFields(`/proc/self/task/${t}/stat`);
      out.set(t, (+f[11] + +f[12]) / TICKS);
    } catch {
      // the thread ended between the listing and the read
    }
  return out;
}
/** User+system CPU seconds of the children this process has waited for (the native command's runs). */
const childCpu = () => (haveProc ? ((f) => (+f[13] + +f[14]) / TICKS)(statFields('/proc/self/stat')) : 0);
/** CPU seconds used by the whole machine (all processes, all cores). */
const machineCpu = () => {
  if (!haveProc) return 0;
  const [, ...v] = fs.readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/).map(Number);
  return (v.reduce((a, b) => a + b, 0) - v[3] - v[4]) / TICKS; // all but idle and iowait
};
const processCpu = () => {
  const r = process.resourceUsage();
  return (r.userCPUTime + r.systemCPUTime) / 1e6;
};
/**
 * What each text-layer check costs on clean pages, as CPU time beside pdf.js reading the same pages' text (open,
 * text content, items: the PDF worker's own path, here in one thread). The throughput figures above move by several
 * percent from batch to batch, more than the checks cost; these time the checks themselves, alternating with the
 * reading, each over every page many times. `drawn_ticks` renders only pages showing a tick-box label: it is given
 * as the pages it rendered and what one render costs.
 */
async function repairCosts(bytes: Uint8Array[]): Promise<void> {
  // Loaded here: only this line reads PDFs in the bench's own thread (the rest goes through the worker pool), and
  // importing pdf_worker.ts puts its zlib DecompressionStream in place for that reading, as in the PDF worker;
  // documents are opened as that worker opens them for their text.
  const { openPdf, textItemsOf } = await import('../pipelines/documents/pdf_worker.ts');
  type Page = { items: ReturnType<typeof textItemsOf>; width: number; height: number };
  const readAll = async () => {
    const pages: Page[] = [];
    for (const b of bytes) {
      const doc = await openPdf(new Uint8Array(b), true); // as the PDF worker opens a document for its text
      for (let n = 1; n <= doc.numPages; n++) {
        const page = await doc.getPage(n);
        const vp = page.getViewport({ scale: 1 });
        pages.push({ items: textItemsOf(await page.getTextContent(), vp), width: vp.width, height: vp.height });
      }
      await doc.destroy();
    }
    return pages;
  };
  const pages = await readAll();
  const checks: [string, () => void][] = [
    ['invisible_text', () => (bytes.forEach((b) => mayHideText(b)), pages.forEach((p) => unreadable(p.items, p.width, p.height)))],
    ['doubled_glyphs', () => pages.forEach((p) => repairTextItems(p.items, ['doubled_glyphs']))],
    ['letter_spacing', () => pages.forEach((p) => repairTextItems(p.items, ['letter_spacing']))],
    ['reversed_numbers', () => pages.forEach((p) => repairTextItems(p.items, ['reversed_numbers']))],
    ['run_together_words', () => pages.forEach((p) => runsWordsTogether(p.items))],
    ['missing_text', () => bytes.forEach((b) => mayDrawText(b))],
  ];
  const reading: number[] = [];
  const spent = new Map<string, number[]>(checks.map(([k]) => [k, []]));
  const repeat = 20;
  for (let r = 0; r < 5; r++) {
    let t0 = performance.now();
    await readAll();
    reading.push(performance.now() - t0);
    for (const [name, check] of checks) {
      t0 = performance.now();
      for (let k = 0; k < repeat; k++) check();
      spent.get(name)!.push((performance.now() - t0) / repeat);
    }
  }
  const base = med(reading);
  const share = (ms: number) => `${((ms / base) * 100).toFixed(2)}%`;
  const total = checks.reduce((sum, [k]) => sum + med(spent.get(k)!), 0);
  // drawn_ticks: the pages the service would render to look for ticks, and one 100-dpi render.
  let rendered = 0;
  let pageCount = 0;
  for (const b of bytes) {
    const doc = await readDocument(b, { ocr: false, repairTextLayer: [] });
    for (const page of doc.pages) {
      pageCount++;
      if (tickBoxCandidates(page).length > 0) rendered++;
    }
  }
  const renders: number[] = [];
  for (let r = 0; r < 5; r++) {
    const t0 = performance.now();
    await rasterPdfPage(bytes[0], 1, 100, 4_000_000);
    renders.push(performance.now() - t0);
  }
  console.log(
    `text repairs, CPU on clean pages beside pdf.js reading their text in one thread (${f2(base / pages.length)} ms/page over ${pages.length} pages, runs ${runs(reading.map((x) => x / pages.length))}): ` +
      checks.map(([k]) => `${k} ${share(med(spent.get(k)!))}`).join(', ') +
      `; together ${share(total)}; drawn_ticks rendered ${rendered} of ${pageCount} pages (a tick-box label), ${f2(med(renders))} ms a render`,
  );
}

/** CPU seconds the threads not in `before` (the OCR workers started since) used between two snapshots. */
const newThreadsCpu = (base: Set<string>, a: Map<string, number>, b: Map<string, number>) => {
  let sum = 0;
  for (const [t, c] of b) if (!base.has(t)) sum += c - (a.get(t) ?? 0);
  return sum;
};
const load = () =>
  os
    .loadavg()
    .map((l) => l.toFixed(1))
    .join(' ');

/**
 * A scanned page end to end, PDF page in, words out: the service's OCR stage for one page (`ocrPage`: the embedded
 * scan or a pdf.js raster, sharp's preparation, tesseract.js with the second reading of weak words, as configured by
 * default) against poppler's `pdftoppm -r 300 -gray` and the native command on its image, same model data, one
 * thread each, interleaved page by page.
 */
async function scannedPageEndToEnd(sources: string[]): Promise<void> {
  const ours: number[] = [];
  const peer: number[] = [];
  const ratio: number[] = [];
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'bench-scan-'));
  try {
    const onePage = async (file: string) => {
      const bytes = new Uint8Array(fs.readFileSync(path.join(fixtures, file)));
      let t0 = performance.now();
      await ocrPage(bytes, sniff(bytes), 1, { ocr: { engine: { kind: 'tesseract.js', workers: 1 } } });
      const a = secs(t0);
      t0 = performance.now();
      const out = path.join(tmp, 'page');
      await execFileP('pdftoppm', ['-r', '300', '-gray', '-f', '1', '-l', '1', '-singlefile', path.join(fixtures, file), out]);
      await execFileP('tesseract', cliArgs(`${out}.pgm`, 3), { env: { OMP_THREAD_LIMIT: '1', PATH: process.env.PATH }, maxBuffer: 64 << 20 });
      return [a, secs(t0)];
    };
    await onePage(sources[0]); // warm: the OCR worker's start and language data
    for (let r = 0; r < 3; r++) {
      let [a, b] = [0, 0];
      for (const s of sources) {
        const [x, y] = await onePage(s);
        a += x;
        b += y;
      }
      ours.push(a / sources.length);
      peer.push(b / sources.length);
      ratio.push(a / b);
    }
  } finally {
    fs.rmSync(tmp, { recursive: true, force: true });
  }
  console.log(
    `ocr: a scanned page end to end (PDF page in, words out): ours ${f2(med(ours))} s/page (runs ${runs(ours)}) — peer pdftoppm -r 300 -gray + native tesseract ${f2(med(peer))} s/page (runs ${runs(peer)}) — ours/peer = ${f2(med(ratio))} (runs ${runs(ratio)}; target ≤ 1.3)`,
  );
}

/** The OCR figures: per page against native tesseract, the second reading's cost, and 1 vs 2 workers. */
export async function runOcr(): Promise<void> {
  // OCR: the same normalised page images for every engine.
  const sources = ['home_granite_scan.pdf', 'cgl_keystone_scan.pdf', 'coi_alpha_scan.pdf', 'auto_acme_mutual_scan.pdf'];
  const images: NormalisedImage[] = [];
  // Preparing a page (pdf.js raster in the PDF worker, then sharp in libuv's threads) is the same for both engines
  // and outside the figures below; what it costs is printed beside them. The first pass warms the PDF worker.
  const prepWall: number[] = [];
  const prepCpu: number[] = [];
  for (let r = 0; r < 2; r++)
    for (const s of sources) {
      const [t0, c0] = [performance.now(), processCpu()];
      const raster = await rasterPdfPage(new Uint8Array(fs.readFileSync(path.join(fixtures, s))), 1);
      const img = await normaliseImage(raster.data, { pageWidthPt: raster.pageWidth });
      if (r === 0) images.push(img);
      else [prepWall, prepCpu].forEach((xs, k) => xs.push(k === 0 ? secs(t0) : processCpu() - c0));
    }
  // Threads started from here on are the OCR workers (the PDF workers and V8's and libuv's threads exist already).
  let base = new Set(threadCpu().keys());
  // The engines are compared on one reading of each page (the same work for both); the second reading of
  // weak words (ocr.ts, rereadStrip) is measured on its own below, as what it adds per page.
  const one: OcrOptions = { engine: { kind: 'tesseract.js', workers: 1 }, reread: false };
  await ocrImage(images[0], one); // worker start and language data load
  const haveTesseract = installed('tesseract', ['--version']);
  if (haveTesseract) cliTessdataDir();
  const cli: OcrOptions = { engine: { kind: 'tesseract-cli', path: 'tesseract' }, reread: false };
  const js: number[] = [];
  const jsCpu: number[] = [];
  const jsProcCpu: number[] = [];
  const native: number[] = [];
  const nativeCpu: number[] = [];
  const jsRatio: number[] = [];
  const cpuRatio: number[] = [];
  const withReread: number[] = [];
  const rereadCpu: number[] = [];
  for (let r = 0; r < 3; r++) {
    let [tj, tn, tr, cj, cp, cn, cr] = [0, 0, 0, 0, 0, 0, 0];
    for (const img of images) {
      let t0 = performance.now();
      let th = threadCpu();
      let p0 = processCpu();
      await ocrImage(img, one);
      tj += secs(t0);
      cp += processCpu() - p0;
      let th1 = threadCpu();
      cj += newThreadsCpu(base, th, th1);
      t0 = performance.now();
      await ocrImage(img, { ...one, reread: true });
      tr += secs(t0);
      cr += newThreadsCpu(base, th1, threadCpu());
      if (!haveTesseract) continue;
      t0 = performance.now();
      const c0 = childCpu();
      await ocrImage(img, cli);
      tn += secs(t0);
      cn += childCpu() - c0;
    }
    const n = images.length;
    js.push(tj / n);
    jsCpu.push(cj / n);
    jsProcCpu.push(cp / n);
    withReread.push(tr / n);
    rereadCpu.push(cr / n);
    if (!haveTesseract) continue;
    native.push(tn / n);
    nativeCpu.push(cn / n);
    jsRatio.push(js[r] / native[r]);
    cpuRatio.push(jsCpu[r] / nativeCpu[r]);
  }
  console.log(
    `ocr: tesseract.js, 1 worker: ${f2(med(js))} s/page (runs ${runs(js)}; ${images.length} pages, ${images[0].width}×${images[0].height} px); ` +
      `CPU ${f2(med(jsCpu))} s/page in the OCR worker thread (runs ${runs(jsCpu)}), ${f2(med(jsProcCpu))} s/page in the whole process`,
  );
  if (haveTesseract) {
    console.log(
      `ocr: native tesseract (same eng best_int data from @tesseract.js-data/eng, --oem 1, 1 thread): ${f2(med(native))} s/page (runs ${runs(native)}) — tesseract.js/native = ${f2(med(jsRatio))} (runs ${runs(jsRatio)})`,
    );
    console.log(
      `ocr: CPU (user+sys): native ${f2(med(nativeCpu))} s/page (runs ${runs(nativeCpu)}, process start and model load included) — tesseract.js/native = ${f2(med(cpuRatio))} (runs ${runs(cpuRatio)}); load ${load()}`,
    );
  } else console.log('ocr: native tesseract not installed (apt-get install tesseract-ocr) — no peer figure');
  console.log(
    `ocr: page preparation (pdf.js raster + sharp normalise, the same for both engines, not in the figures above): ${f2(med(prepWall))} s/page, CPU ${f2(med(prepCpu))} s/page (pages ${runs(prepCpu)})`,
  );
  if (haveTesseract && installed('pdftoppm', ['-v'])) await scannedPageEndToEnd(sources);
  const rereadCost = withReread.map((t, k) => t / js[k]);
  const rereadCpuCost = rereadCpu.map((t, k) => t / jsCpu[k]);
  console.log(
    `ocr: with the second reading of weak words (the default): ${f2(med(withReread))} s/page (runs ${runs(withReread)}) — ×${f2(med(rereadCost))} of one reading (runs ${runs(rereadCost)}); CPU ×${f2(med(rereadCpuCost))} (runs ${runs(rereadCpuCost)})`,
  );

  // A queue of 16 pages (the 4 pages four times over), as the service's pool sees pages of the documents its
  // worker extracts at once (WORKER_CONCURRENCY, 2 by default). At the end of any batch one worker waits for the
  // other's last page; over 8 pages of ~2 s that wait alone held two workers to 1.90–1.99 of one (the bound
  // printed below), over 16 it weighs half as much. The native peer runs the same queue.
  const queue = [...images, ...images, ...images, ...images];
  const two: OcrOptions = { engine: { kind: 'tesseract.js', workers: 2 }, reread: false };
  // Each page's time with one worker (pages run one after another: the time between finishes).
  let pageTimes: number[] = [];
  const throughput = async (o: OcrOptions) => {
    const [th, m0, p0] = [threadCpu(), machineCpu(), processCpu()];
    const t0 = performance.now();
    const done: number[] = [];
    await Promise.all(queue.map((img, k) => ocrImage(img, o).then(() => (done[k] = performance.now()))));
    const wall = secs(t0);
    const order = [...done.keys()].sort((a, b) => done[a] - done[b]);
    pageTimes = new Array(queue.length);
    order.forEach((k, n) => (pageTimes[k] = (done[k] - (n === 0 ? t0 : done[order[n - 1]])) / 1000));
    const ocrCpu = newThreadsCpu(base, th, threadCpu());
    // What the rest of the machine used meanwhile, in cores: the share two workers could not have.
    const others = (machineCpu() - m0 - (processCpu() - p0)) / wall;
    return { rate: queue.length / wall, cpuPerPage: ocrCpu / queue.length, busy: ocrCpu / wall, others };
  };
  // The best two workers can do on these pages handed out in this order (each to the worker free first):
  // the batch ends when the busier one does, so uneven pages leave one idle at the end.
  const handOutBound = (times: number[]) => {
    const free = [0, 0];
    for (const t of times) free[free[0] <= free[1] ? 0 : 1] += t;
    return times.reduce((a, b) => a + b, 0) / Math.max(...free);
  };
  // The peer: the native command on the same pages, one process at a time and two at once. Two cores of this
  // machine do not give two cores' worth of OCR to anyone (shared caches and memory bandwidth): what native
  // tesseract gets from the second core is the bar the workers' 2/1 is read against.
  const nativeThroughput = async (n: number) => {
    const c0 = childCpu();
    const t0 = performance.now();
    await parallel(queue, n, (img) => ocrImage(img, cli));
    const wall = secs(t0);
    return { rate: queue.length / wall, cpuPerPage: (childCpu() - c0) / queue.length };
  };
  const nat: { one: { rate: number; cpuPerPage: number }; two: { rate: number; cpuPerPage: number } }[] = [];
  const tp1: ReturnType<typeof throughput> extends Promise<infer T> ? T[] : never = [];
  const tp2: typeof tp1 = [];
  const scale: number[] = [];
  const cpuScale: number[] = [];
  const bound: number[] = [];
  for (let r = 0; r < 3; r++) {
    tp1.push(await throughput(one));
    bound.push(handOutBound(pageTimes));
    // Switching the pool size restarts the workers: start both before timing.
    base = new Set(threadCpu().keys());
    await Promise.all([ocrImage(images[0], two), ocrImage(images[1], two)]);
    tp2.push(await throughput(two));
    scale.push(tp2[r].rate / tp1[r].rate);
    // Pages per CPU-second of the workers, 2 vs 1, times 2: what two workers would give with a free core each.
    cpuScale.push((2 * tp1[r].cpuPerPage) / tp2[r].cpuPerPage);
    base = new Set(threadCpu().keys());
    await ocrImage(images[0], one);
    if (haveTesseract) nat.push({ one: await nativeThroughput(1), two: await nativeThroughput(2) });
  }
  const m = (xs: typeof tp1, k: 'rate' | 'cpuPerPage' | 'busy' | 'others') => med(xs.map((x) => x[k]));
  console.log(
    `ocr throughput: 1 worker ${f2(m(tp1, 'rate') * 60)} pages/min, 2 workers ${f2(m(tp2, 'rate') * 60)} pages/min — 2/1 = ${f2(med(scale))} (runs ${runs(scale)}); ` +
      `bound from handing these ${queue.length} pages out one at a time: ${f2(med(bound))} (runs ${runs(bound)}); load ${load()}`,
  );
  if (haveProc)
    console.log(
      `ocr throughput, CPU: ${f2(m(tp1, 'cpuPerPage'))} s/page with 1 worker, ${f2(m(tp2, 'cpuPerPage'))} with 2 — 2/1 with a free core per worker = ${f2(med(cpuScale))} (runs ${runs(cpuScale)}); ` +
        `cores busy with OCR: 1 worker ${f2(m(tp1, 'busy'))}, 2 workers ${f2(m(tp2, 'busy'))}; cores the rest of the machine used meanwhile: ${f2(m(tp1, 'others'))} and ${f2(m(tp2, 'others'))}`,
    );
  if (nat.length) {
    const natScale = nat.map((x) => x.two.rate / x.one.rate);
    const natCpu = nat.map((x) => x.two.cpuPerPage / x.one.cpuPerPage);
    const jsCpuRise = tp1.map((x, k) => tp2[k].cpuPerPage / x.cpuPerPage);
    const against = scale.map((x, k) => x / natScale[k]);
    console.log(
      `peer: native tesseract on the same ${queue.length} pages, 1 process at a time vs 2 at once: 2/1 = ${f2(med(natScale))} (runs ${runs(natScale)}); ` +
        `CPU per page ×${f2(med(natCpu))} with two at once (runs ${runs(natCpu)}), tesseract.js workers ×${f2(med(jsCpuRise))} (runs ${runs(jsCpuRise)}); ` +
        `tesseract.js 2/1 against native 2/1 = ${f2(med(against))} (runs ${runs(against)}); load ${load()}`,
    );
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await run();
