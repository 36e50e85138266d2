// Field-level comparison of an extraction with its expected output, for `svc eval`.
import { leaves } from './candidates.ts';
import { normaliseText, parseMoney } from './normalise.ts';

export interface FieldScore {
  tp: number;
  fp: number;
  fn: number;
}
export interface Miss {
  pointer: string;
  expected: unknown;
  got: unknown;
}
export interface DocumentScore {
  fields: Record<string, FieldScore>;
  misses: Miss[];
}

const ARRAY_KEYS: Record<string, string> = {
  coverages: 'name',
  vehicles: 'vin',
  drivers: 'name',
  interested_parties: 'name',
  insurers: 'letter',
};
const IGNORED = /^\/(citations|policy_type|entity_type|located_pages)(\/|$)/;

/** Reorder `actual`'s arrays so that items line up with `expected`'s by their key field. */
function align(expected: unknown, actual: unknown, key?: string): unknown {
  if (Array.isArray(expected) && Array.isArray(actual)) {
    if (!key) return actual;
    const rest = [...actual];
    const out: unknown[] = [];
    for (const e of expected) {
      const ek = normaliseText(String((e as Record<string, unknown>)?.[key] ?? ''));
      const i = rest.findIndex((a) => normaliseText(String((a as Record<string, unknown>)?.[key] ?? '')) === ek);
      out.push(i >= 0 ? rest.splice(i, 1)[0] : undefined);
    }
    return out.map((a) => a ?? rest.shift() ?? null).concat(rest);
  }
  if (expected && actual && typeof expected === 'object' && typeof actual === 'object') {
    const out: Record<string, unknown> = { ...(actual as Record<string, unknown>) };
    for (const [k, v] of Object.entries(expected as Record<string, unknown>)) out[k] = align(v, (actual as Record<string, unknown>)[k], ARRAY_KEYS[k]);
    return out;
  }
  return actual;
}

/** Are two leaf values the same after normalising text, money and split limits? */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || a === undefined || b === undefined) return false;
  if (typeof a === 'number' || typeof b === 'number') {
    const x = typeof a === 'number' ? a : parseMoney(String(a));
    const y = typeof b === 'number' ? b : parseMoney(String(b));
    return x !== undefined && y !== undefined && Math.abs(x - y) < 0.005;
  }
  return normaliseText(String(a)) === normaliseText(String(b));
}

const fieldName = (pointer: string) => pointer.replace(/\/\d+(?=\/|$)/g, '/*');

/** Score one document: true positives, false positives and false negatives per field. */
export function scoreDocument(expected: Record<string, unknown>, actual: Record<string, unknown>): DocumentScore {
  const aligned = align(expected, actual) as Record<string, unknown>;
  const fields: Record<string, FieldScore> = {};
  const misses: Miss[] = [];
  const bump = (p: string, k: keyof FieldScore) => ((fields[fieldName(p)] ??= { tp: 0, fp: 0, fn: 0 })[k] += 1);
  const exp = new Map(leaves(expected).filter(([p]) => !IGNORED.test(p)));
  // Only the sections an expected file names are scored, so partial ground truth is usable.
  const sections = new Set(Object.keys(expected));
  const act = new Map(leaves(aligned).filter(([p]) => !IGNORED.test(p) && sections.has(p.split('/')[1])));
  for (const [p, e] of exp) {
    const a = act.get(p);
    if (e === null || e === undefined) {
      if (a !== null && a !== undefined) {
        bump(p, 'fp');
        misses.push({ pointer: p, expected: e, got: a });
      }
      continue;
    }
    if (sameValue(e, a)) bump(p, 'tp');
    else {
      bump(p, 'fn');
      if (a !== null && a !== undefined) bump(p, 'fp');
      misses.push({ pointer: p, expected: e, got: a ?? null });
    }
  }
  for (const [p, a] of act) {
    if (exp.has(p) || a === null || a === undefined || (Array.isArray(a) && a.length === 0)) continue;
    bump(p, 'fp');
    misses.push({ pointer: p, expected: undefined, got: a });
  }
  return { fields, misses };
}

/** Sum field scores over documents. */
export function sumScores(scores: Record<string, FieldScore>[]): Record<string, FieldScore> {
  const out: Record<string, FieldScore> = {};
  for (const s of scores)
    for (const [f, v] of Object.entries(s)) {
      const o = (out[f] ??= { tp: 0, fp: 0, fn: 0 });
      o.tp += v.tp;
      o.fp += v.fp;
      o.fn += v.fn;
    }
  return out;
}

export const precision = (s: FieldScore) => (s.tp + s.fp === 0 ? 1 : s.tp / (s.tp + s.fp));
export const recall = (s: FieldScore) => (s.tp + s.fn === 0 ? 1 : s.tp / (s.tp + s.fn));
