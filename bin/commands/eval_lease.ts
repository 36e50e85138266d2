// The lease half of `svc eval`: every `<name>.expected.json` beside `<name>.lease.*` and `<name>.insurance.*`
// is analysed and scored on its facts (values and pages) and the 15 statuses.
import fs from 'node:fs';
import path from 'node:path';
import { analyzePair } from '../../pipelines/lease/index.ts';
import { scoreAnalysis, type LeaseExpected, type LeaseScore } from '../../pipelines/lease/evaluate.ts';
import { engineOptionsFromConfig } from './extract.ts';

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
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else if (e.name.endsWith('.expected.json')) {
        const base = p.slice(0, -'.expected.json'.length);
        const lease = DOC_EXT.map((x) => `${base}.lease${x}`).find((f) => fs.existsSync(f));
        const insurance = DOC_EXT.map((x) => `${base}.insurance${x}`).find((f) => fs.existsSync(f));
        if (lease && insurance) out.push({ name: path.relative(dir, base), lease, insurance, expected: p });
      }
    }
  };
  walk(dir);
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
    const t0 = performance.now();
    try {
      const r = await analyzePair(new Uint8Array(fs.readFileSync(c.lease)), new Uint8Array(fs.readFileSync(c.insurance)), { asOf: expected.as_of, read });
      rows.push({ name: c.name, ...scoreAnalysis(expected, r), ms: performance.now() - t0 });
    } catch (e) {
      rows.push({
        name: c.name,
        ...scoreAnalysis(expected, undefined),
        ms: performance.now() - t0,
        error: `${(e as { code?: string }).code ?? 'error'}: ${(e as Error).message}`,
      });
    }
  }
  return rows;
}

const pct = (a: number, b: number) => `${b ? ((a / b) * 100).toFixed(1) : '100.0'}%`;

/** The human report: totals, then every miss, then one line per pair. */
export function formatLease(rows: LeaseEvalRow[]): string {
  const sum = (k: 'facts' | 'statuses') => rows.reduce((a, r) => ({ right: a.right + r[k].right, total: a.total + r[k].total }), { right: 0, total: 0 });
  const f = sum('facts');
  const s = sum('statuses');
  const lines = [
    `${rows.length} lease/insurance pairs`,
    `facts     ${f.right}/${f.total} right (${pct(f.right, f.total)})`,
    `statuses  ${s.right}/${s.total} right (${pct(s.right, s.total)})`,
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
