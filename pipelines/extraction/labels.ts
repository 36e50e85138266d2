// Scoring an extraction against a hand label in the corpus label format (labels/README.md there): one
// comparison per labelled field, compared the way a reviewer reads a value (case, punctuation, legal
// suffixes, `$` and commas do not matter; anything else does). Pure: label and record in, comparisons out.
import type { ExtractedData } from './schema.ts';
import { normaliseText, parseMoney, STREET_ABBREVIATIONS } from './normalise.ts';

/** How a label's value is compared with the extracted one. */
export type CompareKind = 'name' | 'id' | 'date' | 'money' | 'bool' | 'address' | 'names';

export interface FieldComparison {
  /** Field name as reported (`policy.provider`, `coverage.expiration_date`, `certificate.insured`...). */
  field: string;
  /** Where in the label the value is (for the miss list). */
  where: string;
  expected: unknown;
  got: unknown;
  ok: boolean;
  /** Page the label names for the value, when it does. */
  expectedPage: number | null;
  /** Page the extractor cited. */
  gotPage: number | null;
  /** The extractor's citation pointer (to find its box for the analyst report). */
  pointer: string | null;
}

export interface LabelScore {
  docKind: string;
  comparisons: FieldComparison[];
}

const LEGAL_SUFFIX = /(?:\s+(?:inc|incorporated|llc|l l c|ltd|limited|corp|corporation|co|company|lp|llp|pllc|pc))+$/;

/** Reviewer form of a name: case, punctuation, `&`/`and`, a leading "The" and trailing legal suffixes do not matter. */
export function reviewerName(s: string): string {
  return normaliseText(s)
    .replace(/^the\s+/, '')
    .replace(LEGAL_SUFFIX, '')
    .trim();
}

/** Reviewer form of an identifier (policy number): case, spaces and punctuation do not matter. */
export function reviewerId(s: string): string {
  return normaliseText(s).replace(/ /g, '');
}

const ADDRESS_WORDS: Record<string, string> = { ...STREET_ABBREVIATIONS, suite: 'ste', apartment: 'apt' };

/** Reviewer form of an address: punctuation and the usual street-word abbreviations do not matter; a ZIP+4 counts as its ZIP. */
export function reviewerAddress(s: string): string {
  return normaliseText(s.replace(/\b(\d{5})-\d{4}\b/, '$1'))
    .split(' ')
    .map((w) => ADDRESS_WORDS[w] ?? w)
    .join(' ');
}

/** Compare one value as a reviewer would. */
export function sameAs(kind: CompareKind, expected: unknown, got: unknown): boolean {
  const empty = (v: unknown) => v === null || v === undefined || v === '' || (Array.isArray(v) && v.length === 0);
  if (empty(expected) || empty(got)) return empty(expected) && empty(got);
  switch (kind) {
    case 'money': {
      const a = typeof expected === 'number' ? expected : parseMoney(String(expected));
      const b = typeof got === 'number' ? got : parseMoney(String(got));
      return a !== undefined && b !== undefined && Math.abs(a - b) < 0.5;
    }
    case 'bool':
      return expected === got;
    case 'date':
      return String(expected) === String(got);
    case 'id':
      return reviewerId(String(expected)) === reviewerId(String(got));
    case 'address':
      return reviewerAddress(String(expected)) === reviewerAddress(String(got));
    case 'names': {
      const a = (expected as string[]).map(reviewerName).sort();
      const b = (got as string[]).map(reviewerName).sort();
      return a.length === b.length && a.every((x, i) => x === b[i]);
    }
    default:
      return reviewerName(String(expected)) === reviewerName(String(got));
  }
}

type Obj = Record<string, unknown>;
const obj = (v: unknown): Obj => (v && typeof v === 'object' && !Array.isArray(v) ? (v as Obj) : {});

/** The label's certificate coverage types → the extractor's. */
const COVERAGE_TYPE: Record<string, string> = {
  commercial_general_liability: 'general_liability',
  automobile_liability: 'automobile_liability',
  umbrella_liability: 'umbrella_liability',
  excess_liability: 'umbrella_liability',
  workers_compensation: 'workers_compensation',
  property: 'property',
  other: 'other',
};

const CERT_COVERAGE_FIELDS: [string, CompareKind][] = [
  ['policy_number', 'id'],
  ['effective_date', 'date'],
  ['expiration_date', 'date'],
  ['each_occurrence', 'money'],
  ['general_aggregate', 'money'],
  ['combined_single_limit', 'money'],
  ['umbrella_each_occurrence', 'money'],
  ['el_each_accident', 'money'],
  ['wc_statutory', 'bool'],
  ['additional_insured', 'bool'],
  ['subrogation_waived', 'bool'],
];

/** The label's `pages` entry for a field, trying a few key spellings. */
function pageOf(label: Obj, ...keys: string[]): number | null {
  const pages = obj(label.pages);
  for (const k of keys) if (typeof pages[k] === 'number') return pages[k] as number;
  return null;
}

/** Score an extraction record against one label file's content. */
export function scoreAgainstLabel(label: Obj, data: ExtractedData): LabelScore {
  const out: FieldComparison[] = [];
  const cite = (pointer: string | null) => (pointer ? (data.citations[pointer]?.page ?? null) : null);
  const add: Add = (field, where, kind, expected, got, pointer, expectedPage, scoreEmpty = true) => {
    // Limits a coverage row cannot have (a CSL on a GL row) count only when the extractor invents one.
    if (!scoreEmpty && expected == null && got == null) return;
    out.push({
      field,
      where,
      expected: expected ?? null,
      got: got ?? null,
      ok: sameAs(kind, expected, got),
      expectedPage: expected == null ? null : expectedPage,
      gotPage: got == null ? null : cite(pointer),
      pointer,
    });
  };
  const docKind = String(label.doc_kind ?? 'unknown');
  if ('certificate_holder' in label || 'insurers' in label) scoreCertificate(label, data, add);
  else scoreDeclarations(label, data, add);
  return { docKind, comparisons: out };
}

type Add = (
  field: string,
  where: string,
  kind: CompareKind,
  expected: unknown,
  got: unknown,
  pointer: string | null,
  expectedPage: number | null,
  scoreEmpty?: boolean,
) => void;

function personName(p: { first_name: string | null; last_name: string | null; organization: string | null }): string | null {
  if (p.first_name || p.last_name) return [p.first_name, p.last_name].filter(Boolean).join(' ');
  return p.organization;
}

function scoreDeclarations(label: Obj, data: ExtractedData, add: Add) {
  const pol = obj(label.policy);
  const page = (...k: string[]) => pageOf(label, ...k);
  if ('provider' in pol) add('policy.provider', 'policy.provider', 'name', pol.provider, data.policy.provider, '/policy/provider', page('provider'));
  if ('policy_number' in pol)
    add('policy.policy_number', 'policy.policy_number', 'id', pol.policy_number, data.policy.policy_number, '/policy/policy_number', page('policy_number'));
  if ('effective_date' in pol)
    add(
      'policy.effective_date',
      'policy.effective_date',
      'date',
      pol.effective_date,
      data.policy.effective_date,
      '/policy/effective_date',
      page('effective_date'),
    );
  if ('expiration_date' in pol)
    add(
      'policy.expiration_date',
      'policy.expiration_date',
      'date',
      pol.expiration_date,
      data.policy.expiration_date,
      '/policy/expiration_date',
      page('expiration_date', 'effective_date'),
    );
  if ('policyholder' in label) {
    const ph = obj(label.policyholder);
    const ex = data.policyholder;
    // A person is right when first and last name match (a middle initial is not asked for); an organisation by its name.
    const expected = ph.organization ?? ([ph.first_name, ph.last_name].filter(Boolean).join(' ') || null);
    let got: string | null;
    if (ph.organization) got = ex.organization ?? personName(ex);
    else got = ex.first_name || ex.last_name ? [ex.first_name, ex.last_name].filter(Boolean).join(' ') : ex.organization;
    add('policyholder', 'policyholder', 'name', expected, got, ex.last_name ? '/policyholder/last_name' : '/policyholder/organization', page('policyholder'));
  }
  if ('address' in label)
    add('policyholder.address', 'address', 'address', label.address, data.policyholder.address, '/policyholder/address', page('address', 'policyholder'));
  if ('liability_limit' in label) {
    const { value, pointer } = liabilityLimit(data);
    add('liability_limit', 'liability_limit', 'money', label.liability_limit, value, pointer, page('liability_limit'));
  }
  const prop = obj(label.property);
  for (const k of ['dwelling', 'personal_property', 'loss_of_use', 'medical_payments', 'deductible']) {
    if (k in prop) add(`property.${k}`, `property.${k}`, 'money', prop[k], data.property?.[k as 'dwelling'] ?? null, `/property/${k}`, page('property', k));
  }
  const auto = obj(label.auto);
  if ('auto' in label) {
    const lim = autoLimits(data);
    for (const k of ['bi_per_person', 'bi_per_accident', 'pd_per_accident'] as const) {
      if (k in auto) add(`auto.${k}`, `auto.${k}`, 'money', auto[k], lim[k].value, lim[k].pointer, page(k, 'auto', 'liability'));
    }
    const vehicles = Array.isArray(auto.vehicles) ? (auto.vehicles as Obj[]) : [];
    vehicles.forEach((v, i) => {
      // Vehicles are matched by VIN; a vehicle whose VIN is not shown (redacted) by its place in the list, when the
      // extracted vehicle there has no VIN either.
      let j = data.vehicles.findIndex((x) => x.vin && typeof v.vin === 'string' && reviewerId(x.vin) === reviewerId(v.vin));
      if (j < 0 && typeof v.vin !== 'string' && data.vehicles[i] && !data.vehicles[i].vin) j = i;
      const got = j >= 0 ? data.vehicles[j] : undefined;
      const p = j >= 0 ? `/vehicles/${j}` : null;
      add('vehicle.vin', `auto.vehicles[${i}].vin`, 'id', v.vin, got?.vin, p && `${p}/vin`, page('vehicles'));
      add('vehicle.year', `auto.vehicles[${i}].year`, 'money', v.year, got?.year, p && `${p}/year`, page('vehicles'));
      add('vehicle.make', `auto.vehicles[${i}].make`, 'name', v.make, got?.make, p && `${p}/make`, page('vehicles'));
    });
  }
  if (Array.isArray(label.interested_parties)) {
    const got = data.interested_parties.filter((p) => p.role !== 'certificate_holder').map((p) => p.name);
    add(
      'interested_parties',
      'interested_parties',
      'names',
      label.interested_parties,
      got,
      got.length ? '/interested_parties/0/name' : null,
      page('interested_parties'),
    );
  }
}

/** Personal liability (Coverage E) for home and renters, else the CGL each-occurrence limit. */
function liabilityLimit(data: ExtractedData): { value: number | null; pointer: string | null } {
  if (data.property?.personal_liability != null) return { value: data.property.personal_liability, pointer: '/property/personal_liability' };
  const i = data.coverages.findIndex(
    (c) =>
      typeof c.limit === 'number' &&
      /(?:each|per)\s+occurrence|occurrence\s+limit|general\s+liability|personal\s+liability|liability\s*[-–]\s*(?:each|per)\s+occurrence/i.test(c.name),
  );
  if (i >= 0) return { value: data.coverages[i].limit as number, pointer: `/coverages/${i}/limit` };
  return { value: null, pointer: null };
}

/** Bodily injury per person / per accident and property damage from the auto coverages. */
function autoLimits(data: ExtractedData): Record<'bi_per_person' | 'bi_per_accident' | 'pd_per_accident', { value: number | null; pointer: string | null }> {
  const none = { value: null, pointer: null };
  const out = { bi_per_person: none, bi_per_accident: none, pd_per_accident: none } as Record<
    'bi_per_person' | 'bi_per_accident' | 'pd_per_accident',
    { value: number | null; pointer: string | null }
  >;
  data.coverages.forEach((c, i) => {
    const pointer = `/coverages/${i}/limit`;
    const parts = typeof c.limit === 'string' ? c.limit.split('/').map(Number) : typeof c.limit === 'number' ? [c.limit] : [];
    if (/bodily\s+injury/i.test(c.name) && out.bi_per_person.value === null && parts.length >= 2) {
      out.bi_per_person = { value: parts[0], pointer };
      out.bi_per_accident = { value: parts[1], pointer };
      if (parts.length >= 3 && out.pd_per_accident.value === null) out.pd_per_accident = { value: parts[2], pointer };
    } else if (/property\s+damage|damage\s+to\s+someone/i.test(c.name) && out.pd_per_accident.value === null && parts.length === 1) {
      out.pd_per_accident = { value: parts[0], pointer };
    }
  });
  return out;
}

function scoreCertificate(label: Obj, data: ExtractedData, add: Add) {
  const cert = data.certificate;
  const page = (...k: string[]) => pageOf(label, ...k);
  if ('producer' in label) add('certificate.producer', 'producer', 'name', label.producer, cert?.producer, '/certificate/producer', page('producer'));
  if ('insured' in label) add('certificate.insured', 'insured', 'name', label.insured, cert?.insured, '/certificate/insured', page('insured'));
  if ('certificate_holder' in label)
    add(
      'certificate.certificate_holder',
      'certificate_holder',
      'name',
      label.certificate_holder,
      cert?.certificate_holder,
      '/certificate/certificate_holder',
      page('certificate_holder'),
    );
  for (const [letter, name] of Object.entries(obj(label.insurers))) {
    const i = cert?.insurers.findIndex((x) => x.letter === letter) ?? -1;
    add(
      'certificate.insurer',
      `insurers.${letter}`,
      'name',
      name,
      i >= 0 ? cert!.insurers[i].name : null,
      i >= 0 ? `/certificate/insurers/${i}/name` : null,
      page('insurers'),
    );
  }
  const expected = Array.isArray(label.coverages) ? (label.coverages as Obj[]) : [];
  const got = cert?.coverages ?? [];
  const used = new Set<number>();
  expected.forEach((e, n) => {
    const type = COVERAGE_TYPE[String(e.type)] ?? 'other';
    // The extracted row of the same type, preferring the one with the same policy number.
    const same = got.map((g, i) => ({ g, i })).filter(({ g, i }) => g.type === type && !used.has(i));
    const pick =
      same.find(({ g }) => typeof e.policy_number === 'string' && g.policy_number && reviewerId(g.policy_number) === reviewerId(e.policy_number as string)) ??
      same[0];
    if (pick) used.add(pick.i);
    const g = pick?.g as Record<string, unknown> | undefined;
    const p = pick ? `/certificate/coverages/${pick.i}` : null;
    add('coverage.type', `coverages[${n}].type`, 'name', type, g?.type, p && `${p}/type`, page('coverages'));
    for (const [k, kind] of CERT_COVERAGE_FIELDS) {
      if (!(k in e)) continue;
      add(`coverage.${k}`, `coverages[${n}].${k}`, kind, e[k], g?.[k], p && `${p}/${k}`, page('coverages'), false);
    }
  });
}

export interface Tally {
  n: number;
  ok: number;
}

/** Accuracy per field over many documents' comparisons. */
export function tallyByField(comparisons: FieldComparison[]): Record<string, Tally> {
  const out: Record<string, Tally> = {};
  for (const c of comparisons) {
    const t = (out[c.field] ??= { n: 0, ok: 0 });
    t.n++;
    if (c.ok) t.ok++;
  }
  return out;
}

export const accuracy = (t: Tally) => (t.n === 0 ? 1 : t.ok / t.n);
