// A candidate is one extracted value with where it was read: extractors emit candidates, grounding checks
// them against their page, and the record is built from the survivors.
import type { Citation } from './schema.ts';

export type CandidateSource = Citation['source'];

export interface Candidate {
  /** JSON pointer into extracted_data, e.g. `/policy/policy_number` or `/vehicles/0/vin`. */
  pointer: string;
  value: string | number | boolean | null;
  page: number;
  /** The text on the page the value was read from. */
  text: string;
  confidence: number;
  source: CandidateSource;
  /** Which label, box or rule chose the value (shown in its citation), e.g. "ACORD 25 box: CERTIFICATE HOLDER". */
  rule?: string;
}

/** Set a value in an object by JSON pointer, creating objects and arrays on the way. */
export function setByPointer(root: Record<string, unknown>, pointer: string, value: unknown): void {
  const parts = pointer
    .split('/')
    .slice(1)
    .map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
  let cur: Record<string, unknown> | unknown[] = root;
  for (let i = 0; i < parts.length - 1; i++) {
    const key = parts[i];
    const nextIsIndex = /^\d+$/.test(parts[i + 1]);
    const container = cur as Record<string, unknown>;
    if (container[key] === undefined || container[key] === null) container[key] = nextIsIndex ? [] : {};
    cur = container[key] as Record<string, unknown>;
  }
  (cur as Record<string, unknown>)[parts[parts.length - 1]] = value;
}

/** Every leaf of an object as [pointer, value] (arrays by index). */
export function leaves(obj: unknown, prefix = ''): [string, unknown][] {
  if (obj === null || typeof obj !== 'object') return [[prefix, obj]];
  const out: [string, unknown][] = [];
  const entries = Array.isArray(obj) ? obj.map((v, i) => [String(i), v] as const) : Object.entries(obj);
  for (const [k, v] of entries) out.push(...leaves(v, `${prefix}/${String(k).replace(/~/g, '~0').replace(/\//g, '~1')}`));
  return out;
}
