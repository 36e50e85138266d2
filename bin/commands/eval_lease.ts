// The lease half of `svc eval`: every `<name>.expected.json` beside `<name>.lease.*` and `<name>.insurance.*`
// is analysed and scored on its facts (values and pages) and the 15 statuses.
import fs from 'node:fs';
import path from 'node:path';
import { filesUnder } from './args.ts';
import { analyzePair, analysisReadOptions, readForAnalysis, leaseStage, shortDate } from '../../pipelines/lease/index.ts';
import { closeDocumentPools } from '../../pipelines/documents/index.ts';
import { scoreAnalysis, scoreLeaseLabel, type LeaseExpected, type LeaseScore, type LeaseLabel, type LabelScore } from '../../pipelines/lease/evaluate.ts';
import { engineOptionsFromConfig } from './extract.ts';
import { residentialBlanks, residentialForms, residentialVariants, residentialWordings } from '../../fixtures/lease/residential.ts';
import { renderPair } from '../../fixtures/lease/generate.ts';

const DOC_EXT = ['.pdf', '.png', '.jpg', '.jpeg'];

export interface LeaseCase {
  name: string;
  lease: string;
  insurance: string;
  expected: string;
}

/** Lease/insurance pairs with expected results under a directory, recursively, sorted by name. */
export function findLeaseCases(dir: string): LeaseCase[] {
  const out: LeaseCase[] = [];
  for (const p of filesUnder(dir).filter((f) => f.endsWith('.expected.json'))) {
    const base = p.slice(0, -'.expected.json'.length);
    const lease = DOC_EXT.map((x) => `${base}.lease${x}`).find((f) => fs.existsSync(f));
    const insurance = DOC_EXT.map((x) => `${base}.insurance${x}`).find((f) => fs.existsSync(f));
    if (lease && insurance) out.push({ name: path.relative(dir, base), lease, insurance, expected: p });
  }
  return out.sort((a, b) => a.name.localeCompare(b.name));
}

export interface LeaseEvalRow extends LeaseScore {
  name: string;
  ms: number;
  error?: string;
}

/** Analyse and score every pair. */
export async function evalLease(cases: LeaseCase[]): Promise<LeaseEvalRow[]> {
  const read = engineOptionsFromConfig().read;
  const rows: LeaseEvalRow[] = [];
  for (const c of cases) {
    const expected = JSON.parse(fs.readFileSync(c.expected, 'utf8')) as LeaseExpected;
    rows.push(await scorePair(c.name, new Uint8Array(fs.readFileSync(c.lease)), new Uint8Array(fs.readFileSync(c.insurance)), expected, read));
  }
  return rows;
}

/** One pair analysed and scored; a refused or unreadable file is a row with its error. */
async function scorePair(
  name: string,
  lease: Uint8Array,
  insurance: Uint8Array,
  expected: LeaseExpected,
  read: ReturnType<typeof engineOptionsFromConfig>['read'],
): Promise<LeaseEvalRow> {
  const t0 = performance.now();
  try {
    const r = await analyzePair(lease, insurance, { asOf: expected.as_of, read });
    return { name, ...scoreAnalysis(expected, r), ms: performance.now() - t0 };
  } catch (e) {
    return {
      name,
      ...scoreAnalysis(expected, undefined),
      ms: performance.now() - t0,
      error: `${(e as { code?: string }).code ?? 'error'}: ${(e as Error).message}`,
    };
  }
}

/**
 * `svc eval --generated N --family lease`: a fresh sample of N randomised residential lease/insurance pairs (a quarter
 * each of fixtures/lease/residential.ts `residentialVariants`, `residentialForms`, `residentialWordings` and
 * `residentialBlanks`), rendered in memory and scored as `svc eval DIR` scores pairs on disk.
 */
export async function runGeneratedLeases(n: number, seed: number, json: boolean): Promise<number> {
  const read = engineOptionsFromConfig().read;
  const draws = [residentialVariants, residentialForms, residentialWordings, residentialBlanks];
  const specs = draws.flatMap((draw, k) => draw(seed, Math.floor(n / draws.length) + (k < n % draws.length ? 1 : 0)));
  const rows: LeaseEvalRow[] = [];
  try {
    for (const p of specs) {
      const { files, expected } = await renderPair(p);
      rows.push(await scorePair(p.name, files[0][1], files[1][1], expected, read));
    }
  } finally {
    await closeDocumentPools();
  }
  if (json) process.stdout.write(`${JSON.stringify({ generated: n, family: 'lease', seed, pairs: rows }, null, 2)}\n`);
  else process.stdout.write(`${n} generated residential lease pairs, seed ${seed}\n${formatLease(rows)}\n`);
  return 0;
}

const pct = (a: number, b: number) => `${b ? ((a / b) * 100).toFixed(1) : '100.0'}%`;

/** The human report: totals, then every miss, then one line per pair. */
export function formatLease(rows: LeaseEvalRow[]): string {
  const sum = (k: 'facts' | 'statuses') => rows.reduce((a, r) => ({ right: a.right + r[k].right, total: a.total + r[k].total }), { right: 0, total: 0 });
  const f = sum('facts');
  const s = sum('statuses');
  // The one error the product must not make: `pass` where the expected verdict is `fail` or `warning`.
  const falsePasses = rows.flatMap((r) => r.misses.filter((m) => m.what.startsWith('status ') && m.got === 'pass').map((m) => `${r.name} ${m.what.slice(7)}`));
  const lines = [
    `${rows.length} lease/insurance pairs`,
    `facts     ${f.right}/${f.total} right (${pct(f.right, f.total)})`,
    `statuses  ${s.right}/${s.total} right (${pct(s.right, s.total)})`,
    `false passes ${falsePasses.length}${falsePasses.length ? `: ${falsePasses.join(', ')}` : ''}`,
    '',
    'misses:',
  ];
  for (const r of rows) {
    if (r.error) lines.push(`  ${r.name}: ${r.error}`);
    for (const m of r.misses) lines.push(`  ${r.name} ${m.what}: expected ${JSON.stringify(m.expected)} got ${JSON.stringify(m.got)}`);
  }
  lines.push('', 'per pair:');
  for (const r of rows)
    lines.push(
      `  ${r.name.padEnd(32)} facts ${String(r.facts.right).padStart(2)}/${r.facts.total} statuses ${String(r.statuses.right).padStart(2)}/${r.statuses.total} ${(r.ms / 1000).toFixed(1)}s`,
    );
  return lines.join('\n');
}

/**
 * `svc eval --lease-labels DIR`: the lease side of the checker on real leases with hand labels
 * (`<stem>/lease.pdf` beside `<stem>/expected.json`), per fact and per requirement check. `only` is a
 * comma-separated list of substrings of the stems to run (a tune or a measure half).
 */
export async function runLeaseLabels(o: { dir: string; only?: string; json: boolean }): Promise<number> {
  if (!fs.existsSync(o.dir)) {
    process.stderr.write(`no such directory: ${o.dir}\n`);
    return 2;
  }
  const only = o.only?.split(',').filter(Boolean) ?? [];
  const stems = fs
    .readdirSync(o.dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && fs.existsSync(path.join(o.dir, e.name, 'expected.json')) && fs.existsSync(path.join(o.dir, e.name, 'lease.pdf')))
    .map((e) => e.name)
    .filter((n) => only.length === 0 || only.some((s) => n.includes(s)))
    .sort();
  if (stems.length === 0) {
    process.stderr.write(`no <stem>/lease.pdf with <stem>/expected.json under ${o.dir}\n`);
    return 2;
  }
  const read = analysisReadOptions(engineOptionsFromConfig().read ?? {}, 'lease');
  const rows: { stem: string; ms: number; score: LabelScore }[] = [];
  try {
    for (const stem of stems) {
      const label = JSON.parse(fs.readFileSync(path.join(o.dir, stem, 'expected.json'), 'utf8')) as LeaseLabel;
      const t0 = performance.now();
      const doc = await readForAnalysis(new Uint8Array(fs.readFileSync(path.join(o.dir, stem, 'lease.pdf'))), read, 'lease');
      const facts = leaseStage(doc).facts;
      rows.push({ stem, ms: performance.now() - t0, score: scoreLeaseLabel(label, facts, shortDate) });
    }
  } finally {
    await closeDocumentPools();
  }
  if (o.json) {
    process.stdout.write(`${JSON.stringify({ dir: o.dir, leases: rows }, null, 2)}\n`);
    return 0;
  }
  const tally = (pick: (s: LabelScore) => Record<string, { right: boolean }>) => {
    const t = new Map<string, number>();
    for (const r of rows) for (const [k, v] of Object.entries(pick(r.score))) t.set(k, (t.get(k) ?? 0) + (v.right ? 1 : 0));
    return t;
  };
  const lines = [`${rows.length} labelled leases: ${stems.join(', ')}`];
  for (const [title, pick] of [
    ['facts', (s: LabelScore) => s.facts],
    ['requirements', (s: LabelScore) => s.checks],
  ] as const) {
    const t = tally(pick);
    const right = [...t.values()].reduce((a, b) => a + b, 0);
    const total = t.size * rows.length;
    lines.push('', `${title.padEnd(28)} ${right}/${total} right (${pct(right, total)})`);
    for (const [k, n] of t) lines.push(`  ${k.padEnd(26)} ${n}/${rows.length}`);
  }
  lines.push('', 'misses:');
  for (const r of rows)
    for (const [k, v] of [...Object.entries(r.score.facts), ...Object.entries(r.score.checks)])
      if (!v.right) lines.push(`  ${r.stem} ${k}: expected ${JSON.stringify(v.expected)} got ${JSON.stringify(v.got)}`);
  lines.push('', 'per lease:');
  for (const r of rows) lines.push(`  ${r.stem.padEnd(52)} ${(r.ms / 1000).toFixed(2)}s`);
  process.stdout.write(`${lines.join('\n')}\n`);
  return 0;
}
