// Whole policy packets: a 200-page text packet (the generated fixture, declarations on page 7) through
// extractDocument() in process, which skims every page and reads only the pages that matter, beside the peer
// `pdftotext -layout` of the same file in this run (poppler, native). Also a one-page certificate the same way.
// Prints medians of warm runs (the PDF worker started once before), the ratio to the peer, and the pages read.
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { closeDocumentPools } from '../pipelines/documents/index.ts';
import { extractDocument } from '../pipelines/extraction/index.ts';
import { percentile, type BenchContext } from './lib.ts';

const execFileP = promisify(execFile);
const fixtures = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/policies');

async function timeIt(n: number, fn: () => Promise<unknown>): Promise<number> {
  const ms: number[] = [];
  for (let k = 0; k < n; k++) {
    const t0 = performance.now();
    await fn();
    ms.push(performance.now() - t0);
  }
  return percentile(
    [...ms].sort((a, b) => a - b),
    50,
  );
}

async function pair(name: string, file: string, entityType: 'commercial_general_liability' | 'declaration_page', n: number) {
  const bytes = new Uint8Array(fs.readFileSync(path.join(fixtures, file)));
  const options = { entityType, read: { ocr: false as const } };
  const first = await extractDocument(bytes, options); // warm: the PDF worker thread and pdf.js loaded
  const ours = await timeIt(n, () => extractDocument(bytes, options));
  const peer = await timeIt(n, () => execFileP('pdftotext', ['-layout', path.join(fixtures, file), '-'], { maxBuffer: 64 * 1024 * 1024 }));
  const read = first._raw.page_selection?.read.map((p) => p.page) ?? first._raw.pages.map((p) => p.page);
  process.stdout.write(
    `  ${name.padEnd(34)} svc extract in process ${ours.toFixed(0).padStart(6)} ms   pdftotext -layout ${peer.toFixed(0).padStart(5)} ms   ratio ${(ours / peer).toFixed(2)}×   pages ${first._raw.document.page_count}, read in full: ${read.join(', ')}\n`,
  );
}

export async function run(ctx: BenchContext): Promise<void> {
  const n = ctx.quick ? 3 : 7;
  process.stdout.write(`packets (median of ${n} warm runs; peer: poppler pdftotext -layout of the same file, this run)\n`);
  try {
    await pair('200-page text packet', 'packet_cpp_northgate.pdf', 'commercial_general_liability', n);
    await pair('one-page certificate (ACORD 25)', 'coi_alpha.pdf', 'declaration_page', n);
  } finally {
    await closeDocumentPools();
  }
}
