// Assemble extracted_data from grounded candidates: pick one candidate per pointer, keep whole array items
// together, renumber them, fill the documented shape and record a citation per value.
import type { Candidate } from './candidates.ts';
import { setByPointer } from './candidates.ts';
import { emptyExtractedData, extractedDataSchema, REVIEW_THRESHOLD, type DocumentKind, type ExtractedData } from './schema.ts';

// `required`: the fields an item must have; `orRequired`: another set that also makes an item (a vehicle with its VIN
// redacted is still a vehicle when its year and make are printed).
const ARRAYS: Record<string, { required: string[]; orRequired?: string[]; template: Record<string, unknown> }> = {
  '/coverages': { required: ['name'], template: { name: null, limit: null, deductible: null, premium: null } },
  '/vehicles': { required: ['vin'], orRequired: ['year', 'make'], template: { year: null, make: null, model: null, vin: null } },
  '/drivers': { required: ['name'], template: { name: null, first_name: null, last_name: null } },
  '/interested_parties': { required: ['name', 'role'], template: { name: null, role: null, address: null } },
  '/certificate/insurers': { required: ['letter', 'name'], template: { letter: null, name: null, naic: null } },
  '/certificate/coverages': {
    required: ['type'],
    template: {
      type: null,
      insurer_letter: null,
      policy_number: null,
      effective_date: null,
      expiration_date: null,
      each_occurrence: null,
      general_aggregate: null,
      combined_single_limit: null,
      umbrella_each_occurrence: null,
      wc_statutory: null,
      el_each_accident: null,
      additional_insured: null,
      subrogation_waived: null,
    },
  },
};

const arrayOf = (pointer: string) => {
  for (const a of Object.keys(ARRAYS)) {
    const m = new RegExp(`^${a}/(\\d+)/(.+)$`).exec(pointer);
    if (m) return { array: a, index: Number(m[1]), field: m[2] };
  }
  return undefined;
};

export interface Built {
  data: ExtractedData;
  issues: string[];
}

/** Build the record from kept candidates (already grounded and merged: at most one per pointer). */
export function buildExtractedData(kind: DocumentKind, kept: Candidate[]): Built {
  const data = emptyExtractedData(kind) as unknown as Record<string, unknown>;
  const citations: ExtractedData['citations'] = {};
  if (kind === 'homeowners' || kind === 'renters' || kept.some((c) => c.pointer.startsWith('/property/'))) {
    data.property = {
      address: null,
      dwelling: null,
      other_structures: null,
      personal_property: null,
      loss_of_use: null,
      personal_liability: null,
      medical_payments: null,
      deductible: null,
    };
  }
  if (kind === 'certificate' || kept.some((c) => c.pointer.startsWith('/certificate/'))) {
    data.certificate = { producer: null, insured: null, certificate_holder: null, insurers: [], coverages: [] };
  }
  // Group array members by item; items missing a required field are dropped whole.
  const items = new Map<string, Map<number, Candidate[]>>();
  for (const c of kept) {
    const a = arrayOf(c.pointer);
    if (!a) {
      setByPointer(data, c.pointer, c.value);
      if (c.value !== null)
        citations[c.pointer] = {
          page: c.page,
          text: c.text.slice(0, 500),
          confidence: round(c.confidence),
          source: c.source,
          ...(c.rule ? { rule: c.rule } : {}),
        };
      continue;
    }
    const byIndex = items.get(a.array) ?? new Map<number, Candidate[]>();
    items.set(a.array, byIndex);
    const list = byIndex.get(a.index) ?? [];
    byIndex.set(a.index, list);
    list.push(c);
  }
  for (const [array, byIndex] of items) {
    const spec = ARRAYS[array];
    let n = 0;
    for (const index of [...byIndex.keys()].sort((a, b) => a - b)) {
      const list = byIndex.get(index)!;
      const fields = new Map(list.map((c) => [arrayOf(c.pointer)!.field, c]));
      const has = (fs: string[]) => fs.every((f) => fields.get(f)?.value !== null && fields.get(f)?.value !== undefined);
      if (!has(spec.required) && !(spec.orRequired && has(spec.orRequired))) continue;
      setByPointer(data, `${array}/${n}`, { ...spec.template });
      for (const [field, c] of fields) {
        const pointer = `${array}/${n}/${field}`;
        setByPointer(data, pointer, c.value);
        if (c.value !== null)
          citations[pointer] = {
            page: c.page,
            text: c.text.slice(0, 500),
            confidence: round(c.confidence),
            source: c.source,
            ...(c.rule ? { rule: c.rule } : {}),
          };
      }
      n++;
    }
  }
  data.citations = citations;
  data.needs_review = Object.entries(citations)
    .filter(([, c]) => c.confidence < REVIEW_THRESHOLD || c.flagged)
    .map(([p]) => p)
    .sort();
  const parsed = extractedDataSchema.safeParse(data);
  if (parsed.success) return { data: parsed.data, issues: [] };
  // Drop the offending values rather than fail the document.
  const issues = parsed.error.issues.map((i) => `/${i.path.join('/')}: ${i.message}`);
  for (const i of parsed.error.issues) {
    const pointer = `/${i.path.join('/')}`;
    setByPointer(data, pointer, null);
    delete citations[pointer];
  }
  const again = extractedDataSchema.safeParse(data);
  return { data: again.success ? again.data : (emptyExtractedData(kind) as ExtractedData), issues };
}

const round = (x: number) => Math.round(x * 100) / 100;
