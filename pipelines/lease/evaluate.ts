// Scoring of a lease analysis against its fixture's expected facts and statuses, for `svc eval`.
import { normaliseText } from '../extraction/normalise.ts';
import { checkRequirement } from './evidence.ts';
import type { AnalysisResult, ComparisonField, LeaseFacts, RequirementKind } from './schema.ts';

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

/** A hand label of a real lease in the corpus label format (lease facts and the tenant's requirements). */
export interface LeaseLabel {
  lease: Record<string, string | number | null>;
  allPages?: Record<string, number[]>;
  requirements: Record<string, { required: boolean; amount_per_occurrence?: number | null; amount?: number | null; page: number | null }>;
  accept?: Record<string, unknown>;
}

/** The ten requirement checks of a label (in the labels' order), each with the lease requirement its verdict rests on. */
const labelCheckNames = [
  'General Liability',
  'Property Damage',
  'Workers Compensation',
  'Umbrella/Excess Liability',
  'Auto Liability',
  'Professional Liability',
  'Additional Insured',
  'Waiver of Subrogation',
  'Primary & Non-Contributory',
  'Certificate Holder',
] as const satisfies readonly ComparisonField[];
const labelChecks: [string, RequirementKind][] = labelCheckNames.map((name) => [name, checkRequirement[name]!]);

const STATES: Record<string, string> = {
  alabama: 'al',
  alaska: 'ak',
  arizona: 'az',
  arkansas: 'ar',
  california: 'ca',
  colorado: 'co',
  connecticut: 'ct',
  delaware: 'de',
  florida: 'fl',
  georgia: 'ga',
  hawaii: 'hi',
  idaho: 'id',
  illinois: 'il',
  indiana: 'in',
  iowa: 'ia',
  kansas: 'ks',
  kentucky: 'ky',
  louisiana: 'la',
  maine: 'me',
  maryland: 'md',
  massachusetts: 'ma',
  michigan: 'mi',
  minnesota: 'mn',
  mississippi: 'ms',
  missouri: 'mo',
  montana: 'mt',
  nebraska: 'ne',
  nevada: 'nv',
  ohio: 'oh',
  oklahoma: 'ok',
  oregon: 'or',
  pennsylvania: 'pa',
  tennessee: 'tn',
  texas: 'tx',
  utah: 'ut',
  vermont: 'vt',
  virginia: 'va',
  washington: 'wa',
  wisconsin: 'wi',
  wyoming: 'wy',
};
const ADDRESS_WORDS: Record<string, string> = {
  street: 'st',
  avenue: 'ave',
  boulevard: 'blvd',
  road: 'rd',
  drive: 'dr',
  lane: 'ln',
  highway: 'hwy',
  suite: 'ste',
  north: 'n',
  south: 's',
  east: 'e',
  west: 'w',
  no: '',
  number: '',
  and: '',
  unit: 'ste',
  apartment: 'ste',
  apt: 'ste',
  building: 'bldg',
};
const addressTokens = (s: string) =>
  normaliseText(s.replace(/\b(new|north|south|west|rhode)\s+(york|jersey|hampshire|mexico|carolina|dakota|virginia|island)\b/gi, '$1$2'))
    .split(' ')
    .map((w) => STATES[w] ?? ADDRESS_WORDS[w] ?? w)
    .filter(Boolean);

/** An address is right when every word of the label's is in it (suffixes and states either way) and little else. */
export function sameAddress(expected: string, got: string | null): boolean {
  if (!got) return false;
  const e = addressTokens(expected);
  const g = addressTokens(got);
  return e.every((w) => g.includes(w)) && g.length - e.length <= 3;
}

export interface LabelScore {
  facts: Record<string, { right: boolean; expected: unknown; got: unknown }>;
  checks: Record<string, { right: boolean; expected: unknown; got: unknown }>;
}

/** Each lease fact (value and page) and each requirement check (required, amount, page) right or wrong. */
export function scoreLeaseLabel(label: LeaseLabel, facts: LeaseFacts, formatDate: (iso: string) => string): LabelScore {
  const out: LabelScore = { facts: {}, checks: {} };
  const pagesOf = (key: string, first: number | null) => {
    const list = label.allPages?.[key];
    return list && list.length ? list : first === null ? [] : [first];
  };
  for (const k of ['propertyAddress', 'landlord', 'tenant', 'leaseStart', 'leaseEnd'] as const) {
    const c = facts[k];
    const got = c ? (k === 'leaseStart' || k === 'leaseEnd' ? formatDate(c.value) : c.value) : null;
    const want = label.lease[k] as string | null;
    const accepted = (label.accept?.[`lease.${k}`] as (string | null)[] | undefined) ?? [want];
    const valueRight =
      k === 'propertyAddress'
        ? want === null
          ? got === null
          : sameAddress(want, got)
        : accepted.some((a) => (a === null ? got === null : got !== null && same(a.replace(/[.,]/g, ''), got.replace(/[.,]/g, ''))));
    const pageRight = got === null || pagesOf(`lease.${k}`, label.lease[`${k}_page`] as number | null).includes(c!.page);
    out.facts[k] = { right: valueRight && pageRight, expected: want, got: c ? `${got} (p${c.page})` : null };
  }
  for (const [name, kind] of labelChecks) {
    const want = label.requirements[name];
    const r = facts.requirements[kind];
    const gotRequired = !!r?.required;
    const wantAmount = want.amount_per_occurrence ?? want.amount ?? null;
    const either = label.accept?.[`requirements.${name}`] === 'either';
    const amountRight = wantAmount === null || r?.amount === wantAmount || (kind === 'workersComp' && !!r?.statutory);
    const pageRight = !r?.required || pagesOf(`requirements.${name}`, want.page).includes(r.page);
    const right = either ? !gotRequired || (amountRight && pageRight) : gotRequired === want.required && (!want.required || (amountRight && pageRight));
    out.checks[name] = {
      right,
      expected: want.required ? `required${wantAmount !== null ? ` ${wantAmount}` : ''} p${want.page}${either ? ' (either)' : ''}` : 'not required',
      got: r ? `${r.required ? 'required' : 'not required'}${r.amount !== null ? ` ${r.amount}` : ''} p${r.page}` : 'not required',
    };
  }
  return out;
}
