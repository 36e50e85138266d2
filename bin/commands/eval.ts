// `svc eval [DIR] [--json]`: run extraction over every document in DIR that has a `<name>.expected.json`
// beside it (default fixtures/) and print per-field precision and recall, then the misses.
import fs from 'node:fs';
import path from 'node:path';
import { commandArgs, filesUnder } from './args.ts';
import { extractDocument, closeDocumentPools, entityTypeSchema } from '../../pipelines/extraction/index.ts';
import { scoreDocument, sumScores, precision, recall, type Miss, type FieldScore } from '../../pipelines/extraction/evaluate.ts';
import { engineOptionsFromConfig } from './extract.ts';
import { runGeneratedLeases, findLeaseCases, evalLease, formatLease, runLeaseLabels } from './eval_lease.ts';
import { runLabels } from './eval_labels.ts';
import type { HistoryDatabase, HistoryTarget } from './eval_history.ts';
import { FAMILIES, generateDocument, type Family } from '../../fixtures/generated.ts';

const usage = `usage: svc eval [DIR] [--json] [--only SUBSTRING]
        svc eval --generated N [--family packet|certificate|declarations|all|lease] [--seed S] [--json]
        svc eval --labels LABELS_DIR [--docs DOCS_DIR] [--only SUBSTRING] [--json] [--html FILE] [--no-history]
        svc eval --lease-labels DIR [--only SUB1,SUB2] [--json]
   DIR          documents beside <name>.expected.json (default fixtures/): precision and recall per field;
                a DIR of lease/insurance pairs (e.g. fixtures/lease) scores the lease checker
   --labels     hand labels in the corpus label format (each names its PDF in "file", relative to --docs,
                default the labels directory's parent): accuracy per field, per document kind, text vs scan
   --lease-labels  real leases with hand labels (<stem>/lease.pdf, <stem>/expected.json): the lease facts and
                the ten requirement checks, per fact and per check; --only takes comma-separated stems
   --html FILE  with --labels, also write a self-contained analyst report with a crop of each miss and charts
                of the history
   --no-history with --labels, do not record the run in the eval history (app_analyst.eval_history), which is
                kept when a database is configured (DATABASE_URL, or the embedded one in DATA_DIR)
   --generated  score a fresh sample of N randomised documents, seeded by --seed (default: now); --family picks
                them: packet (fixtures/packet.ts: 20-200 pages, declarations on page 1-12, labels, columns),
                certificate (fixtures/free_certificate.ts: non-ACORD certificates, free layout, a third scanned),
                declarations (fixtures/layouts.ts: captions right of or under values, two columns, label variants,
                a third scanned), or all (N of each); default packet. lease: N residential lease/insurance pairs
                (fixtures/lease/residential.ts: parties, premises, term and insurance duties worded as real forms word
                them), scored on facts and the 15 statuses with the false passes counted`;
const DOC_EXT = ['.pdf', '.png', '.jpg', '.jpeg'];

/** Pairs of (document, expected.json) under a directory, recursively, sorted by path. */
export function findCases(dir: string): { doc: string; expected: string }[] {
  const out: { doc: string; expected: string }[] = [];
  for (const p of filesUnder(dir).filter((f) => f.endsWith('.expected.json'))) {
    const base = p.slice(0, -'.expected.json'.length);
    const doc = DOC_EXT.map((x) => base + x).find((f) => fs.existsSync(f));
    if (doc) out.push({ doc, expected: p });
  }
  return out.sort((a, b) => a.doc.localeCompare(b.doc));
}

function progress(i: number, n: number, label: string) {
  if (!process.stderr.isTTY) return;
  const width = 30;
  const done = Math.round((i / n) * width);
  process.stderr.write(`\r[${'#'.repeat(done)}${'.'.repeat(width - done)}] ${i}/${n} ${label.slice(0, 40).padEnd(40)}`);
  if (i === n) process.stderr.write('\n');
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`.padStart(6);

/** The sum of the scores of every field. */
const overallOf = (fields: Record<string, FieldScore>): FieldScore =>
  Object.values(fields).reduce((a, s) => ({ tp: a.tp + s.tp, fp: a.fp + s.fp, fn: a.fn + s.fn }), { tp: 0, fp: 0, fn: 0 });

/** The report of a scored run: `title`, a row per field, the overall row, then each document's error and misses. */
function scoreLines(title: string, total: Record<string, FieldScore>, all: FieldScore, perDoc: { file: string; misses: Miss[]; error?: string }[]): string[] {
  const row = (name: string, s: FieldScore) =>
    `${name.padEnd(46)} ${String(s.tp).padStart(4)} ${String(s.fp).padStart(4)} ${String(s.fn).padStart(4)}  ${pct(precision(s))}    ${pct(recall(s))}`;
  const lines = [title, `${'field'.padEnd(46)} ${'tp'.padStart(4)} ${'fp'.padStart(4)} ${'fn'.padStart(4)}  precision  recall`];
  for (const [f, s] of Object.entries(total).sort()) lines.push(row(f, s));
  lines.push(row('overall', all), '', 'misses:');
  for (const d of perDoc) {
    if (d.error) lines.push(`  ${d.file}: ${d.error}`);
    for (const m of d.misses) lines.push(`  ${d.file} ${m.pointer}: expected ${JSON.stringify(m.expected)} got ${JSON.stringify(m.got)}`);
  }
  return lines;
}

/** Entry point for `svc eval`; returns the exit code. `history` is the database the eval history lives in, if one is configured. */
export async function run(argv: string[], history?: HistoryDatabase): Promise<number> {
  const args = commandArgs(
    {
      args: argv,
      allowPositionals: true,
      options: {
        json: { type: 'boolean' },
        only: { type: 'string' },
        labels: { type: 'string' },
        'lease-labels': { type: 'string' },
        docs: { type: 'string' },
        html: { type: 'string' },
        generated: { type: 'string' },
        seed: { type: 'string' },
        family: { type: 'string' },
        'no-history': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    },
    usage,
  );
  if (typeof args === 'number') return args;
  if (args.values['lease-labels']) return runLeaseLabels({ dir: path.resolve(args.values['lease-labels']), only: args.values.only, json: !!args.values.json });
  if (args.values.generated !== undefined) {
    const n = Number(args.values.generated);
    const seed = args.values.seed === undefined ? Date.now() % 1_000_000_007 : Number(args.values.seed);
    if (!Number.isInteger(n) || n < 1 || n > 1000 || !Number.isInteger(seed)) {
      process.stderr.write(`--generated takes a count from 1 to 1000 and --seed an integer\n${usage}\n`);
      return 2;
    }
    const family = args.values.family ?? 'packet';
    if (family === 'lease') return runGeneratedLeases(n, seed, !!args.values.json);
    if (family !== 'all' && !(FAMILIES as readonly string[]).includes(family)) {
      process.stderr.write(`--family takes one of ${FAMILIES.join(', ')}, all or lease\n${usage}\n`);
      return 2;
    }
    return runGenerated(n, seed, !!args.values.json, family === 'all' ? [...FAMILIES] : [family as Family]);
  }
  if (args.values.labels) {
    const target: HistoryTarget = args.values['no-history']
      ? { skipped: '--no-history' }
      : history
        ? { database: history }
        : { skipped: 'no database configured: set DATABASE_URL, or run `svc migrate` once for the embedded one' };
    return runLabels({
      labels: args.values.labels,
      docs: args.values.docs,
      only: args.values.only,
      json: !!args.values.json,
      html: args.values.html,
      history: target,
    });
  }
  if (args.values.html || args.values['no-history']) {
    process.stderr.write(`${args.values.html ? '--html' : '--no-history'} needs --labels\n${usage}\n`);
    return 2;
  }
  const dir = path.resolve(args.positionals[0] ?? 'fixtures');
  if (!fs.existsSync(dir)) {
    process.stderr.write(`no such directory: ${dir}\n`);
    return 2;
  }
  const cases = findCases(dir).filter((c) => !args.values.only || c.doc.includes(args.values.only));
  const leaseCases = findLeaseCases(dir).filter((c) => !args.values.only || c.name.includes(args.values.only));
  if (cases.length === 0 && leaseCases.length === 0) {
    process.stderr.write(`no documents with .expected.json found under ${dir}\n`);
    return 2;
  }
  if (cases.length === 0) {
    // Only lease/insurance pairs here (fixtures/lease): score the checker.
    try {
      const rows = await evalLease(leaseCases);
      process.stdout.write(args.values.json ? `${JSON.stringify({ dir, lease: rows }, null, 2)}\n` : `${formatLease(rows)}\n`);
    } finally {
      await closeDocumentPools();
    }
    return 0;
  }
  const engine = engineOptionsFromConfig();
  const perDoc: { file: string; fields: Record<string, FieldScore>; misses: Miss[]; error?: string; method?: string; ms: number }[] = [];
  try {
    for (let i = 0; i < cases.length; i++) {
      const c = cases[i];
      const rel = path.relative(dir, c.doc);
      progress(i, cases.length, rel);
      const expected = JSON.parse(fs.readFileSync(c.expected, 'utf8')) as Record<string, unknown>;
      const et = entityTypeSchema.safeParse(expected.entity_type);
      const t0 = performance.now();
      try {
        const r = await extractDocument(new Uint8Array(fs.readFileSync(c.doc)), {
          entityType: et.success ? et.data : 'declaration_page',
          filename: path.basename(c.doc),
          ...engine,
        });
        const s = scoreDocument(expected, r.extracted_data as unknown as Record<string, unknown>);
        perDoc.push({ file: rel, ...s, method: r.parsing_method, ms: performance.now() - t0 });
      } catch (e) {
        const s = scoreDocument(expected, {});
        perDoc.push({ file: rel, ...s, error: `${(e as { code?: string }).code ?? 'error'}: ${(e as Error).message}`, ms: performance.now() - t0 });
      }
    }
    progress(cases.length, cases.length, 'done');
  } finally {
    await closeDocumentPools();
  }
  const total = sumScores(perDoc.map((d) => d.fields));
  const all = overallOf(total);
  if (args.values.json) {
    const fields = Object.fromEntries(
      Object.entries(total)
        .sort()
        .map(([f, s]) => [f, { ...s, precision: precision(s), recall: recall(s) }]),
    );
    process.stdout.write(
      `${JSON.stringify({ dir, documents: perDoc.length, overall: { ...all, precision: precision(all), recall: recall(all) }, fields, documents_detail: perDoc }, null, 2)}\n`,
    );
    return 0;
  }
  const lines = scoreLines(`${perDoc.length} documents under ${dir}`, total, all, perDoc);
  lines.push('', 'per document:');
  for (const d of perDoc) {
    const s = overallOf(d.fields);
    lines.push(`  ${d.file.padEnd(44)} ${d.method ?? 'error'.padEnd(8)} P ${pct(precision(s))} R ${pct(recall(s))} ${(d.ms / 1000).toFixed(1)}s`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}

/** `svc eval --generated N`: a fresh sample of randomised packets, generated in memory, scored per field. */
async function runGenerated(n: number, seed: number, json: boolean, families: Family[]): Promise<number> {
  const engine = engineOptionsFromConfig();
  const perDoc: { file: string; fields: Record<string, FieldScore>; misses: Miss[]; error?: string }[] = [];
  const total_ = n * families.length;
  try {
    for (const family of families)
      for (let k = 0; k < n; k++) {
        const d = await generateDocument(family, seed + k);
        progress(perDoc.length, total_, d.name);
        try {
          const r = await extractDocument(d.pdf, { entityType: d.entityType, filename: `${d.name}.pdf`, ...engine });
          perDoc.push({ file: `${d.name} (${d.describe})`, ...scoreDocument(d.expected, r.extracted_data as never) });
        } catch (e) {
          perDoc.push({ file: d.name, ...scoreDocument(d.expected, {}), error: `${(e as { code?: string }).code ?? 'error'}: ${(e as Error).message}` });
        }
      }
    progress(total_, total_, 'done');
  } finally {
    await closeDocumentPools();
  }
  const total = sumScores(perDoc.map((d) => d.fields));
  const all = overallOf(total);
  if (json) {
    process.stdout.write(
      `${JSON.stringify({ generated: n, families, seed, overall: { ...all, precision: precision(all), recall: recall(all) }, fields: total, documents_detail: perDoc }, null, 2)}\n`,
    );
    return 0;
  }
  const lines = scoreLines(`${n} generated ${families.join(' + ')} documents${families.length > 1 ? ' each' : ''}, seed ${seed}`, total, all, perDoc);
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
