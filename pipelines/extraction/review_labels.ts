// A reviewed extraction as a label in the corpus labels' schema (the one `svc eval --labels` scores): only the
// fields a person reviewed are labelled, with the value the review left (a confirmation, a correction, or null
// for "not on the document"), so the engine is scored on real traffic where it was unsure and nowhere else.
import type { ExtractedData } from './schema.ts';

export interface ReviewDecision {
  pointer: string;
  action: 'confirmed' | 'corrected' | 'not_on_document';
  reviewer_name: string;
  reviewed_at: string;
}

type Obj = Record<string, unknown>;

/** Our certificate coverage types → the labels' (the scorer maps them back). */
const LABEL_COVERAGE_TYPE: Record<string, string> = {
  general_liability: 'commercial_general_liability',
  automobile_liability: 'automobile_liability',
  umbrella_liability: 'umbrella_liability',
  workers_compensation: 'workers_compensation',
  property: 'property',
  other: 'other',
};

const DEC_KIND: Record<string, string> = {
  personal_auto: 'auto_dec',
  homeowners: 'home_dec',
  renters: 'renters_dec',
  businessowners: 'bop_dec',
};

const at = (data: unknown, pointer: string): unknown =>
  pointer
    .slice(1)
    .split('/')
    .reduce<unknown>((v, p) => (v && typeof v === 'object' ? (v as Obj)[p] : undefined), data);

/**
 * The label of one reviewed extraction, or null when none of its reviewed fields is one the labels' schema has.
 * `file` is the document's path relative to the exported documents folder.
 */
export function labelOfReview(o: { file: string; extractionId: string; entityType: string; data: ExtractedData; reviews: ReviewDecision[] }): Obj | null {
  const { data } = o;
  const reviewed = [...new Set(o.reviews.map((r) => r.pointer))];
  const pages: Obj = {};
  const page = (pointer: string) => data.citations[pointer]?.page ?? null;
  const certificate = data.document_kind === 'certificate';
  const label: Obj = {
    file: o.file,
    doc_kind: certificate
      ? /ACORD\s*(\d+)/i.exec(data.policy_type)?.[1]
        ? `acord${/ACORD\s*(\d+)/i.exec(data.policy_type)![1]}`
        : 'noncord_certificate'
      : (DEC_KIND[data.document_kind] ?? 'other'),
    entity_type: o.entityType,
  };
  let fields = 0;
  if (certificate) {
    // A certificate label is told apart by its insurers (the scorer's rule), even when none was reviewed.
    const insurers: Obj = {};
    const coverages = new Map<number, Obj>();
    for (const p of reviewed) {
      let m: RegExpExecArray | null;
      if ((m = /^\/certificate\/(producer|insured|certificate_holder)$/.exec(p))) {
        label[m[1]] = at(data, p) ?? null;
        pages[m[1]] = page(p);
        fields++;
      } else if ((m = /^\/certificate\/insurers\/(\d+)\/name$/.exec(p))) {
        const ins = data.certificate?.insurers[Number(m[1])];
        if (ins) {
          insurers[ins.letter] = ins.name;
          pages.insurers = page(p);
          fields++;
        }
      } else if ((m = /^\/certificate\/coverages\/(\d+)\/([a-z_]+)$/.exec(p)) && m[2] !== 'type' && m[2] !== 'insurer_letter') {
        const c = data.certificate?.coverages[Number(m[1])];
        if (c) {
          const row = coverages.get(Number(m[1])) ?? { type: LABEL_COVERAGE_TYPE[c.type] ?? 'other', policy_number: c.policy_number };
          row[m[2]] = (c as Obj)[m[2]] ?? null;
          coverages.set(Number(m[1]), row);
          pages.coverages = page(p);
          fields++;
        }
      }
    }
    label.insurers = insurers;
    if (coverages.size) label.coverages = [...coverages.entries()].sort(([a], [b]) => a - b).map(([, r]) => r);
  } else {
    const policy: Obj = {};
    for (const p of reviewed) {
      let m: RegExpExecArray | null;
      if ((m = /^\/policy\/(provider|policy_number|effective_date|expiration_date)$/.exec(p))) {
        policy[m[1]] = at(data, p) ?? null;
        pages[m[1]] = page(p);
        fields++;
      } else if (/^\/policyholder\/(first_name|last_name|organization)$/.test(p)) {
        const ph = data.policyholder;
        label.policyholder = { first_name: ph.first_name, last_name: ph.last_name, organization: ph.organization };
        pages.policyholder = page(p);
        fields++;
      } else if (p === '/policyholder/address') {
        label.address = data.policyholder.address;
        pages.address = page(p);
        fields++;
      } else if ((m = /^\/property\/(dwelling|personal_property|loss_of_use|medical_payments|deductible)$/.exec(p))) {
        const property = (label.property ??= {}) as Obj;
        property[m[1]] = at(data, p) ?? null;
        pages[m[1]] = page(p);
        fields++;
      }
    }
    if (Object.keys(policy).length) label.policy = policy;
  }
  if (!fields) return null;
  label.pages = pages;
  const who = [...new Set(o.reviews.map((r) => r.reviewer_name))].join(', ');
  label.notes = `Exported from the human review of extraction ${o.extractionId}: only the ${fields} field(s) a reviewer checked (${who}) are labelled; other values were not looked at.`;
  label.reviews = o.reviews.map((r) => ({ pointer: r.pointer, action: r.action, reviewed_at: r.reviewed_at }));
  return label;
}
