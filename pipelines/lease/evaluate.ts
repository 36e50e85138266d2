// Scoring of a lease analysis against its fixture's expected facts and statuses, for `svc eval`.
import { normaliseText } from '../extraction/normalise.ts';
import type { AnalysisResult } from './schema.ts';

export interface LeaseExpected {
  as_of: string;
  lease: Record<string, string | number | null>;
  insurance: Record<string, string | number | null>;
  statuses: Record<string, string>;
}

export interface LeaseScore {
  facts: { right: number; total: number };
  statuses: { right: number; total: number };
  misses: { what: string; expected: unknown; got: unknown }[];
}

const same = (a: unknown, b: unknown) => (typeof a === 'string' && typeof b === 'string' ? normaliseText(a) === normaliseText(b) : a === b);

/** Facts (values and pages of `lease` and `insurance`) and the 15 statuses, each right or wrong. */
export function scoreAnalysis(expected: LeaseExpected, got: AnalysisResult | undefined): LeaseScore {
  const s: LeaseScore = { facts: { right: 0, total: 0 }, statuses: { right: 0, total: 0 }, misses: [] };
  for (const side of ['lease', 'insurance'] as const) {
    for (const [k, v] of Object.entries(expected[side])) {
      const g = (got?.[side] as Record<string, unknown> | undefined)?.[k] ?? null;
      s.facts.total++;
      if (same(v, g)) s.facts.right++;
      else s.misses.push({ what: `${side}.${k}`, expected: v, got: g });
    }
  }
  for (const [field, status] of Object.entries(expected.statuses)) {
    const g = got?.comparison.find((c) => c.field === field)?.status ?? null;
    s.statuses.total++;
    if (g === status) s.statuses.right++;
    else s.misses.push({ what: `status ${field}`, expected: status, got: g });
  }
  return s;
}
