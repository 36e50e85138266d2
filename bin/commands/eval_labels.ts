// `svc eval --labels DIR`: score `svc extract` against hand labels in the corpus label format, per field, per
// document kind and text vs scan, printing each miss as expected vs got with its page. `--html FILE` writes
// the analysts' report (see eval_report.ts). Each run is kept in the eval history when a database is configured
// (eval_history.ts), and the report draws that history.
import fs from 'node:fs';
import path from 'node:path';
import { filesUnder } from './args.ts';
import { extractDocument, closeDocumentPools, entityTypeSchema } from '../../pipelines/extraction/index.ts';
import { scoreAgainstLabel, accuracy, type Tally } from '../../pipelines/extraction/labels.ts';
import { emptyExtractedData } from '../../pipelines/extraction/schema.ts';
import { engineOptionsFromConfig } from './extract.ts';
import { writeHtmlReport } from './eval_report.ts';
import { summarise, tallyByFieldAndKind, total, type LabelledRun } from './eval_summary.ts';
import { recordAndLoad, type HistoryTarget } from './eval_history.ts';

export { summarise, type LabelledRun } from './eval_summary.ts';

/** Label files under a directory, recursively, sorted. */
export function findLabels(dir: string): string[] {
  return filesUnder(dir)
    .filter((f) => f.endsWith('.json'))
    .sort();
}

const pct = (t: Tally) => `${(accuracy(t) * 100).toFixed(1)}%`.padStart(6);
const row = (name: string, t: Tally) => `  ${name.padEnd(36)} ${pct(t)}  ${String(t.ok).padStart(4)}/${String(t.n).padEnd(4)}`;

/** Extract and score every labelled document. */
export async function runLabelled(
  labelsDir: string,
  docsDir: string,
  only?: string,
  onProgress?: (i: number, n: number, f: string) => void,
): Promise<LabelledRun[]> {
  const files = findLabels(labelsDir)
    .map((f) => ({ f, label: JSON.parse(fs.readFileSync(f, 'utf8')) as Record<string, unknown> }))
    .filter((x) => typeof x.label.file === 'string' && (!only || (x.label.file as string).includes(only)));
  const engine = engineOptionsFromConfig();
  const runs: LabelledRun[] = [];
  for (let i = 0; i < files.length; i++) {
    const { label } = files[i];
    const rel = label.file as string;
    const doc = path.join(docsDir, rel);
    onProgress?.(i, files.length, rel);
    const et = entityTypeSchema.safeParse(label.entity_type);
    const t0 = performance.now();
    try {
      const r = await extractDocument(new Uint8Array(fs.readFileSync(doc)), {
        entityType: et.success ? et.data : 'declaration_page',
        filename: path.basename(doc),
        ...engine,
      });
      const ms = performance.now() - t0;
      const ocrPages = r._raw.pages.filter((p) => p.source === 'ocr').length;
      const s = scoreAgainstLabel(label, r.extracted_data);
      runs.push({
        file: rel,
        path: doc,
        docKind: s.docKind,
        scan: ocrPages * 2 > r._raw.pages.length,
        status: r.parsing_status,
        method: r.parsing_method,
        ms,
        comparisons: s.comparisons,
        result: r,
      });
    } catch (e) {
      const ms = performance.now() - t0;
      const s = scoreAgainstLabel(label, emptyExtractedData('unknown'));
      runs.push({
        file: rel,
        path: doc,
        docKind: s.docKind,
        scan: /scan|image/.test(rel),
        status: 'failed',
        method: 'error',
        ms,
        error: `${(e as { code?: string }).code ?? 'error'}: ${(e as Error).message}`,
        comparisons: s.comparisons,
      });
    }
  }
  onProgress?.(files.length, files.length, 'done');
  return runs;
}

function progress(i: number, n: number, label: string) {
  if (!process.stderr.isTTY) return;
  process.stderr.write(`\r${i}/${n} ${label.slice(0, 60).padEnd(60)}`);
  if (i === n) process.stderr.write('\n');
}

/** Print the accuracy tables and the misses. */
export function formatReport(runs: LabelledRun[], labelsDir: string): string {
  const s = summarise(runs);
  const lines: string[] = [];
  lines.push(`${runs.length} labelled documents from ${labelsDir}`);
  lines.push(row('overall', s.overall), row('text documents', s.text), row('scanned documents', s.scan), '');
  lines.push(`  ${'field'.padEnd(36)} ${'all'.padStart(6)}  ${'ok/n'.padEnd(9)}  ${'text'.padStart(6)}  ${'scan'.padStart(6)}`);
  for (const [f, t] of Object.entries(s.fields).sort()) {
    const tt = s.fieldsText[f];
    const ts = s.fieldsScan[f];
    lines.push(`${row(f, t)}  ${tt ? pct(tt) : '     -'}  ${ts ? pct(ts) : '     -'}`);
  }
  lines.push('', '  per document kind:');
  for (const [k, t] of Object.entries(s.kinds)) lines.push(row(k, t));
  lines.push(
    '',
    `  statuses: ${Object.entries(s.statuses)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}; median time per text document ${(s.medianTextMs / 1000).toFixed(2)} s`,
  );
  lines.push(
    '',
    `  values cited with confidence >= 0.9: ${pct(s.calibration.high)} right (${s.calibration.high.ok}/${s.calibration.high.n}); below 0.9: ${pct(s.calibration.low)} (${s.calibration.low.ok}/${s.calibration.low.n})`,
  );
  lines.push('', 'misses (expected vs got, label page / cited page):');
  for (const r of runs) {
    if (r.error) lines.push(`  ${r.file}: ${r.error}`);
    for (const c of r.comparisons) {
      if (c.ok) continue;
      lines.push(
        `  ${r.file} ${c.where}: expected ${JSON.stringify(c.expected)} got ${JSON.stringify(c.got)}  (p.${c.expectedPage ?? '-'} / p.${c.gotPage ?? '-'})`,
      );
    }
  }
  lines.push('', 'per document:');
  for (const r of runs) {
    lines.push(
      `  ${r.file.padEnd(58)} ${r.docKind.padEnd(14)} ${(r.scan ? 'scan' : 'text').padEnd(5)} ${r.status.padEnd(9)} ${r.method.padEnd(13)} ${pct(total(r.comparisons))} ${(r.ms / 1000).toFixed(2)}s`,
    );
  }
  return `${lines.join('\n')}\n`;
}

/** Entry point for `svc eval --labels`; returns the exit code (1 when a configured history could not be recorded). */
export async function runLabels(o: { labels: string; docs?: string; only?: string; json: boolean; html?: string; history: HistoryTarget }): Promise<number> {
  const labelsDir = path.resolve(o.labels);
  if (!fs.existsSync(labelsDir)) {
    process.stderr.write(`no such directory: ${labelsDir}\n`);
    return 2;
  }
  const docsDir = path.resolve(o.docs ?? path.dirname(labelsDir));
  let runs: LabelledRun[];
  let kept: Awaited<ReturnType<typeof recordAndLoad>>;
  try {
    runs = await runLabelled(labelsDir, docsDir, o.only, progress);
    if (runs.length === 0) {
      process.stderr.write(`no label files found under ${labelsDir}\n`);
      return 2;
    }
    kept = await recordAndLoad(o.history, { labelsDir, documents: runs.length, fields: tallyByFieldAndKind(runs) });
    if (o.html) await writeHtmlReport(o.html, runs, summarise(runs), kept.history ?? { points: [], corrections: [], note: kept.note });
  } finally {
    await closeDocumentPools();
  }
  const failed = !('skipped' in o.history) && kept.recorded === undefined;
  if (o.json) {
    const s = summarise(runs);
    const history = { recorded: kept.recorded !== undefined, run_id: kept.recorded ?? null, note: kept.note };
    process.stdout.write(`${JSON.stringify({ labels: labelsDir, ...s, history, documents_detail: runs.map(({ result: _r, ...r }) => r) }, null, 2)}\n`);
  } else process.stdout.write(`${formatReport(runs, labelsDir)}\n${kept.note}\n`);
  if (failed) process.stderr.write(`${kept.note}\n(use --no-history to score without recording)\n`);
  return failed ? 1 : 0;
}
