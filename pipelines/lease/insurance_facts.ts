// Insurance facts: the extraction engine's record (carrier, number, insured, period, coverages, certificate
// grid) plus what the lease checks need that it does not read: damage to rented premises, professional
// liability, named parties, waiver of subrogation, primary & non-contributory, the insured premises and the
// words that make a document a binder, a quote or a cancelled policy.
import type { PageText } from '../documents/layout.ts';
import { detectKind, extractByRules, describePolicyType } from '../extraction/rules.ts';
import { parsePolicyNumber } from '../extraction/declarations.ts';
import { findLabelled } from '../extraction/layout_query.ts';
import { ground, indexPages } from '../extraction/grounding.ts';
import { buildExtractedData } from '../extraction/build.ts';
import { cleanValue, parseMoney } from '../extraction/normalise.ts';
import type { ExtractedData } from '../extraction/schema.ts';
import type { Candidate } from '../extraction/candidates.ts';
import { clauses, pageLines, amountsIn, cite, type Clause } from './text.ts';
import type { InsuranceFacts, CitedLimit, PartyMention, Cited, PolicyMarker } from './schema.ts';

export interface PolicyRecord {
  data: ExtractedData;
  ungrounded: { pointer: string; value: unknown; page: number; reason: string }[];
}

/** The rule-based extraction record of a document already read (the same engine as `svc extract`). */
export function extractPolicy(pages: PageText[]): PolicyRecord {
  const kind = detectKind(pages);
  const index = indexPages(pages);
  const ungrounded: PolicyRecord['ungrounded'] = [];
  const kept: Candidate[] = [];
  const seen = new Set<string>();
  for (const c of extractByRules(pages, kind)) {
    const v = ground(c, index);
    if (!v.ok) {
      ungrounded.push({ pointer: c.pointer, value: c.value, page: c.page, reason: v.reason ?? 'not grounded' });
      continue;
    }
    // One candidate per pointer: the first grounded one (the extractors emit the best first).
    if (seen.has(c.pointer) && !/\/\d+\//.test(c.pointer)) continue;
    seen.add(c.pointer);
    kept.push(c);
  }
  const built = buildExtractedData(kind, kept);
  built.data.policy_type = describePolicyType(kind, pages);
  return { data: built.data, ungrounded };
}

const citeOf = (d: ExtractedData, pointer: string) => d.citations[pointer];

function fromRecord<T extends string | number>(d: ExtractedData, pointer: string, value: T | null | undefined): Cited<T> | null {
  const c = citeOf(d, pointer);
  if (value === null || value === undefined || !c) return null;
  return { value, page: c.page, text: c.text.slice(0, 400) };
}

/** A limit written on a line after a label: "Damage to Rented Premises   $100,000". */
function labelledLimit(pages: PageText[], label: RegExp): CitedLimit | null {
  for (const l of pageLines(pages)) {
    const m = label.exec(l.text);
    if (!m) continue;
    const after = l.text.slice(m.index + m[0].length);
    const a = amountsIn(after)[0] ?? (/^\s*$/.test(after) ? amountsIn(l.next)[0] : undefined);
    if (!a) continue;
    const c = cite(pages, a.value, l.page, l.text.includes(a.text) ? l.text : `${l.text}\n${l.next}`);
    if (c) return { ...c, label: cleanValue(m[0]) };
  }
  return null;
}

function firstNumber(v: number | string | null | undefined): number | null {
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return parseMoney(v.split('/')[0]) ?? null;
  return null;
}

function coverageLimit(d: ExtractedData, name: RegExp, pick: (v: number | string) => number | null = firstNumber): CitedLimit | null {
  const i = d.coverages.findIndex((c) => name.test(c.name) && c.limit !== null);
  if (i < 0) return null;
  const c = d.citations[`/coverages/${i}/limit`];
  const v = pick(d.coverages[i].limit!);
  if (!c || v === null) return null;
  return { value: v, page: c.page, text: c.text, label: d.coverages[i].name };
}

function certLimit(
  d: ExtractedData,
  type: string,
  field: 'each_occurrence' | 'general_aggregate' | 'combined_single_limit' | 'umbrella_each_occurrence' | 'el_each_accident',
  label: string,
): CitedLimit | null {
  const cert = d.certificate;
  if (!cert) return null;
  const i = cert.coverages.findIndex((c) => c.type === type);
  if (i < 0) return null;
  const cov = cert.coverages[i];
  const cit = d.citations[`/certificate/coverages/${i}/${field}`] ?? d.citations[`/certificate/coverages/${i}/type`];
  if (!cit) return null;
  let value = cov[field];
  if (value === null && field !== 'el_each_accident' && field !== 'general_aggregate') {
    // OCR may run the label's words together ("EACHOCCURRENCE"): read the amount after it in the band.
    const band = d.citations[`/certificate/coverages/${i}/type`]?.text ?? '';
    const m = /each\s*occurrence|combined\s*single\s*limit/i.exec(band);
    if (m) value = amountsIn(band.slice(m.index + m[0].length).split('\n')[0])[0]?.value ?? null;
  }
  return { value, page: cit.page, text: cit.text.slice(0, 400), label, statutory: type === 'workers_compensation' ? (cov.wc_statutory ?? false) : undefined };
}

const PARTY_LABELS: [RegExp, PartyMention['role']][] = [
  [/additional insureds?(?:\s*\(s\))?/i, 'additional_insured'],
  [/additional interests?(?:\s*\(s\))?/i, 'additional_interest'],
  [/interested part(?:y|ies)/i, 'interested_party'],
  [/certificate holder/i, 'certificate_holder'],
  [/loss payee/i, 'loss_payee'],
  [/mortgagee/i, 'mortgagee'],
];

/** The end of a company's name: "LLC", "L.P.", "Inc.", "Corporation", "Trust". */
const ENTITY_END = /\b(?:LLC|L\.L\.C|Inc|Corp|Corporation|LP|L\.P|LLP|Ltd|Company|Co|Trust|Partners(?:hip)?|Associates|Holdings)\.?$/i;

/** Parties named on the document: labelled blocks and "X is (named as) additional insured" sentences. */
function parties(pages: PageText[], d: ExtractedData, all: Clause[]): PartyMention[] {
  const out: PartyMention[] = [];
  const add = (p: PartyMention) => {
    if (!out.some((q) => q.role === p.role && q.value.toLowerCase() === p.value.toLowerCase())) out.push(p);
  };
  for (const ip of d.interested_parties) {
    const k = d.interested_parties.indexOf(ip);
    const c = d.citations[`/interested_parties/${k}/name`];
    if (c) add({ value: ip.name, role: ip.role as PartyMention['role'], page: c.page, text: c.text.slice(0, 400) });
  }
  for (const l of pageLines(pages)) {
    for (const [re, role] of PARTY_LABELS) {
      const m = new RegExp(`^\\s*(?:${re.source})\\s*[:\\-–]\\s*(.*)$`, 'i').exec(l.text);
      if (!m) continue;
      const v = cleanValue((m[1] || l.next).split(/\s{2,}/)[0]);
      // A line starting with a number is an address, unless it ends as a company's name does ("410 East 84th Street LLC").
      if (!v || (/^\d/.test(v) && !ENTITY_END.test(v)) || v.length > 100 || /^(yes|no|none|n\/a|x|y|n)$/i.test(v)) continue;
      const c = cite(pages, v, l.page, `${l.text}\n${l.next}`);
      if (c) add({ ...c, role });
    }
  }
  const holder = d.certificate?.certificate_holder;
  for (const c of all) {
    // "Oak Street Properties LLC is named as additional insured", "X is additional insured", "X has been added to
    // the policy as an interested party" (an insurer's letter), "...naming X as additional insured".
    const m =
      /([A-Z][A-Za-z0-9.,&'’\- ]{2,80}?)\s+(?:is|are|has been|have been)\s+(?:hereby\s+)?(?:(?:named|included|added|listed|shown)(?:\s+(?:to|on)\s+(?:the|this|their|your)\s+(?:\w+\s+)?policy)?\s+as\s+)?(?:an?\s+)?(additional insureds?|additional interests?|interested part(?:y|ies)|loss payee)/.exec(
        c.text,
      ) ??
      /\bnam(?:ing|es)\s+([A-Z][A-Za-z0-9.,&'’\- ]{2,80}?)\s+as\s+(?:an?\s+)?(additional insureds?|additional interests?|interested part(?:y|ies))/.exec(
        c.text,
      );
    if (!m) continue;
    // A capture that runs on from an address ("..., OH 43215, Oak LLC is named") keeps only the name; a number of
    // the name's own ("ARE-San Diego No. 12, LLC") is no address.
    let who = cleanValue(m[1].replace(/^.*\b\d{5}(?:-\d{4})?[^A-Za-z]*?[,.]\s+(?=[A-Z])/, '').replace(/^(?:the|and)\s+/i, ''));
    const role = /insured/i.test(m[2])
      ? 'additional_insured'
      : /interest(?!ed)/i.test(m[2])
        ? 'additional_interest'
        : /payee/i.test(m[2])
          ? 'loss_payee'
          : 'interested_party';
    if (/^certificate holder$/i.test(who)) {
      if (!holder) continue;
      who = holder;
    }
    if (/^(?:no|none|not)$/i.test(who)) continue;
    add({ value: who, role, page: c.page, text: c.text.slice(0, 400) });
  }
  return out;
}

/** Shown (true), explicitly not (false) or not on the document (null). */
function endorsement(all: Clause[], re: RegExp): Cited<boolean> | null {
  const no = new RegExp(
    `(?:${re.source})\\s*[:\\-–]?\\s*(?:no\\b|none\\b|not\\s+(?:included|provided|applicable|available)|excluded|n\\/a\\b)|\\b(?:no|without|not|excludes?)\\s+(?:a\\s+)?(?:${re.source})`,
    'i',
  );
  for (const c of all) {
    if (no.test(c.text)) return { value: false, page: c.page, text: c.text.slice(0, 400) };
  }
  for (const c of all) {
    if (re.test(c.text)) return { value: true, page: c.page, text: c.text.slice(0, 400) };
  }
  return null;
}

const MARKERS: [RegExp, PolicyMarker][] = [
  [
    /\b(?:notice of cancell?ation|cancell?ation notice|(?:policy\s+)?(?:has been|was|is)\s+cancell?ed|cancell?ed\s+(?:effective|as of|on)|cancell?ation effective(?: date)?|status\s*[:\-]?\s*cancell?ed)\b/i,
    'cancelled',
  ],
  [/\b(?:insurance\s+binder|binder\s+(?:of insurance|number|no\.?|#)|temporary insurance|this binder|binder\b)/i, 'binder'],
  // A quote says so of itself: its number or date, "this is a quote", a title ("RENTERS INSURANCE QUOTE"), or that
  // it is not a policy. The word alone is everywhere on policies: discounts ("Early Quote Discount", "ADVANCED
  // QUOTE"), privacy notices ("when we quote or sell a policy"), "you may quote different limits".
  [
    /\b(?:quote|quotation)\s*(?:number|no\.?|#|id|date|reference)\b|\bthis\s+is\s+(?:a|an|only\s+a)\s+(?:\w+\s+){0,2}(?:quote|quotation|proposal)\b|\b(?:renters|homeowners?|tenants?|condo(?:minium)?|auto|liability|property|insurance|policy|coverage)\s+(?:insurance\s+)?(?:quote|quotation)\b(?!\s+discount)|\b(?:premium indication|proposal of insurance|insurance proposal|this is not a policy|not a contract of insurance|not bound)\b/i,
    'quote',
  ],
  [
    /\bapplication for (?:renters |homeowners |tenant |liability )?insurance\b|\b(?:insurance|renters|homeowners?|tenants?|condo(?:minium)?|auto(?:mobile)?|liability|property)\s+application\b/i,
    'application',
  ],
  [/\bstatus\s*[:\-]?\s*pending\b|\bpending\s+(?:underwriting|approval|issuance|review|payment)\b|\bcoverage is pending\b/i, 'pending'],
];

/** A cancellation spoken of as a condition, not a fact: "(will be notified) if the policy is cancelled". */
const CONDITIONAL = /\b(?:if|should|when|whenever|unless|in the event(?: that)?|in case|before|upon|until|prior to)\b[^.;:]{0,60}$/i;
/** A notice of cancellation as something sent or received (an interested party's right), not the document's title. */
const NOTICE_AS_RIGHT = /\b(?:receives?|send|sent|mail(?:ed)?|provide[sd]?|give[sn]?|days?'?s?|advance|written|prior|no|any|each)\s+(?:\w+\s+){0,3}$/i;

/**
 * When a match of a marker's words speaks of something else than this document (`before` and `after` are the
 * clause's words around the match): a declarations page says "please quote your policy number", "replaces any
 * binder previously issued", "based on the information in your application", "a claim pending review".
 */
const NOT_STATED: Record<PolicyMarker, (before: string, match: string, after: string) => boolean> = {
  cancelled: (b, m, a) =>
    CONDITIONAL.test(b) || /^\s+(?:when|if|upon|once|should|unless|in the event)\b/i.test(a) || (/^notice of cancel/i.test(m) && NOTICE_AS_RIGHT.test(b)),
  binder: (b, m, a) =>
    /^binder$/i.test(m) && (/\b(?:any|a|previous|prior|earlier|your)\s+$/i.test(b) || /^\s+(?:previously|issued before|you may have)\b/i.test(a)),
  quote: (b, m, a) =>
    (/(?:quote|quotation)$/i.test(m) && /\b(?:please|get|request|for|free|obtain|ask for|compare|another|new)\s+(?:a\s+|an\s+)?(?:\w+\s+)?$/i.test(b)) ||
    (/^not bound$/i.test(m) && /^\s+until\b/i.test(a)),
  application: (b) => /\b(?:your|the|in|on|with|from|of)\s+(?:\w+\s+)?$/i.test(b) && !/^\s*(?:this\s+(?:is\s+)?(?:an?\s+)?)?$/i.test(b),
  pending: (b, m) => /^pending\s+(?:review|payment)$/i.test(m) && !/\b(?:policy|coverage|insurance|application)\b[^.;]{0,30}$/i.test(b),
};

/** Whether a match of a marker states it of this document (not as a condition, a reference or another matter). */
function stated(kind: PolicyMarker, text: string, re: RegExp): boolean {
  for (const m of text.matchAll(new RegExp(re.source, 'gi'))) {
    const at = m.index ?? 0;
    if (!NOT_STATED[kind](text.slice(0, at), m[0], text.slice(at + m[0].length))) return true;
  }
  return false;
}

function markers(all: Clause[]): Cited<PolicyMarker>[] {
  const out: Cited<PolicyMarker>[] = [];
  for (const c of all) {
    // Certificates always say what happens "should any of the above policies be cancelled": not a marker.
    if (/should any of the above|be cancell?ed before|in accordance with the policy provisions|confers no rights/i.test(c.text)) continue;
    for (const [re, kind] of MARKERS) {
      if (!out.some((o) => o.value === kind) && stated(kind, c.text, re)) out.push({ value: kind, page: c.page, text: c.text.slice(0, 400) });
    }
  }
  return out;
}

function premisesAddress(pages: PageText[], d: ExtractedData, all: Clause[]): InsuranceFacts['propertyAddress'] {
  const pa = d.property?.address;
  if (pa) {
    const c = citeOf(d, '/property/address');
    if (c) return { value: pa, page: c.page, text: c.text, from: 'premises' };
  }
  const label =
    /^\s*(?:residence premises|insured (?:location|premises|property)|location(?: of premises)?|premises(?: address)?|property address|rental (?:address|unit)|risk address|described location|location address)\s*(?:#\s*\d+\s*)?[:\-–]\s*(.*)$/i;
  for (const l of pageLines(pages)) {
    const m = label.exec(l.text);
    if (!m) continue;
    let v = cleanValue((m[1] || l.next).split(/\s{2,}/)[0]);
    if (v && !/\b\d{5}\b/.test(v) && /^[A-Za-z .'-]+,?\s+[A-Z]{2}\s+\d{5}/.test(l.next.trim())) v = `${v}, ${cleanValue(l.next)}`;
    if (v && /^\d/.test(v)) {
      const c = cite(pages, v, l.page, `${l.text}\n${l.next}`);
      if (c) return { ...c, from: 'premises' };
    }
  }
  for (const c of all) {
    const m =
      /\b(?:location|premises|property)\s*(?:#\s*\d+\s*)?[:\-–]\s*(\d+[^;]*?\b[A-Z]{2}\s+\d{5})/i.exec(c.text) ??
      /\b(?:located at|rented premises at|apartment at|unit at)\s+(\d+[^;]*?\b[A-Z]{2}\s+\d{5})/i.exec(c.text);
    if (m) return { value: cleanValue(m[1]), page: c.page, text: c.text.slice(0, 400), from: 'premises' };
  }
  const addr = d.policyholder.address;
  const c = citeOf(d, '/policyholder/address');
  if (addr && c) return { value: addr, page: c.page, text: c.text, from: 'mailing' };
  return null;
}

/** A binder's or quote's number stands in for the policy number it does not have yet. */
function otherNumber(pages: PageText[]): Cited<string> | null {
  const f = findLabelled(pages, /(?:binder|quote|quotation|certificate|reference)\s*(?:number|no\.?|#)/i, parsePolicyNumber);
  return f ? { value: f.value, page: f.page, text: f.text } : null;
}

/** Read the insurance document's facts from its pages and its extraction record. */
export function insuranceFacts(pages: PageText[], rec: PolicyRecord): InsuranceFacts {
  const d = rec.data;
  const all = clauses(pages);
  const person = [d.policyholder.first_name, d.policyholder.last_name].filter(Boolean).join(' ');
  // The insured as written on the document (a joint "John & Jane Smith" stays whole).
  const insuredPointer = d.certificate?.insured
    ? '/certificate/insured'
    : d.policyholder.organization
      ? '/policyholder/organization'
      : '/policyholder/last_name';
  const insuredCite = citeOf(d, insuredPointer);
  let insured: Cited<string> | null = null;
  if (insuredCite) {
    const first =
      insuredCite.text
        .split('\n')
        .map((s) => s.trim())
        .find((s) => s && !/^(named insured|insured|policyholder)/i.test(s)) ?? '';
    const asWritten = cleanValue(
      first.replace(/^.*?(?:named insured(?:\(s\))?|insured(?:'s)? name|policyholder(?:\(s\))?|insured)\s*[:\-]?\s*/i, '').split(/\s{2,}/)[0],
    );
    const whole =
      d.certificate?.insured ??
      d.policyholder.organization ??
      (asWritten && person && asWritten.toLowerCase().includes(d.policyholder.last_name!.toLowerCase()) ? asWritten : person);
    if (whole) insured = { value: whole, page: insuredCite.page, text: insuredCite.text.slice(0, 400) };
  }
  const numbers = new Set<string>();
  if (d.policy.policy_number) numbers.add(d.policy.policy_number);
  const fallback = d.policy.policy_number ? null : otherNumber(pages);
  if (fallback) numbers.add(fallback.value);
  for (const c of d.certificate?.coverages ?? []) if (c.policy_number) numbers.add(c.policy_number);
  const kind = d.document_kind;
  const personal = kind === 'renters' || kind === 'homeowners';
  // General liability: personal liability on a renters/homeowners policy, each occurrence on CGL/BOP/COI.
  const liability =
    (personal && d.property?.personal_liability != null
      ? { ...fromRecord(d, '/property/personal_liability', d.property.personal_liability)!, label: 'Personal Liability' }
      : null) ??
    certLimit(d, 'general_liability', 'each_occurrence', 'General Liability Each Occurrence') ??
    coverageLimit(
      d,
      /personal liability|each occurrence|general liability|liability\s*[-–]\s*each|coverage e\b|^liability$|bodily injury (?:and|&) property damage/i,
    ) ??
    labelledLimit(
      pages,
      /\b(?:personal liability|each occurrence(?: limit)?|liability\s*[-–]?\s*each occurrence|coverage e\s*[-–]?\s*personal liability)\b[^$\d]{0,30}/i,
    );
  // Damage to the landlord's property; an auto policy's "property damage liability" is not that.
  const propertyDamage = labelledLimit(
    pages,
    /\b(?:damage to (?:the )?rented premises(?:\s*\((?:ea|each) occurrence\))?|damage to premises rented to you|damage to (?:the )?property of others|fire legal liability|tenant(?:'s|s)? legal liability)\b[^$\d]{0,30}/i,
  );
  const workersComp =
    certLimit(d, 'workers_compensation', 'el_each_accident', "Workers' Compensation / E.L. Each Accident") ??
    (kind === 'workers_comp'
      ? (labelledLimit(pages, /\b(?:each accident|employers'? liability)\b[^$\d]{0,30}/i) ??
        (() => {
          const c = all.find((x) => /statutory/i.test(x.text));
          return c ? { value: null, page: c.page, text: c.text, label: "Workers' Compensation", statutory: true } : null;
        })())
      : null);
  const umbrella =
    certLimit(d, 'umbrella_liability', 'umbrella_each_occurrence', 'Umbrella Each Occurrence') ??
    (kind === 'umbrella' || kind === 'commercial_umbrella' ? coverageLimit(d, /umbrella|excess|each occurrence|liability/i) : null) ??
    labelledLimit(pages, /\b(?:umbrella|excess)\s+liability\b[^$\d]{0,30}/i);
  const auto =
    certLimit(d, 'automobile_liability', 'combined_single_limit', 'Auto Combined Single Limit') ??
    (kind === 'personal_auto' || kind === 'commercial_auto'
      ? coverageLimit(d, /bodily injury|liability|combined single/i, (v) => (typeof v === 'string' ? (parseMoney(v.split('/')[1] ?? v) ?? null) : v))
      : null);
  const professional = labelledLimit(pages, /\b(?:professional liability|errors (?:and|&) omissions)\b[^$\d]{0,30}/i);
  const subr = d.certificate?.coverages.findIndex((c) => c.subrogation_waived === true) ?? -1;
  let waiverOfSubrogation = endorsement(all, /waiver of subrogation|subrogation (?:is )?waived|waive(?:s|d)? (?:all )?(?:rights of )?subrogation/i);
  if (subr >= 0 && waiverOfSubrogation?.value !== false) {
    const c = d.citations[`/certificate/coverages/${subr}/subrogation_waived`] ?? d.citations[`/certificate/coverages/${subr}/type`];
    if (c) waiverOfSubrogation = { value: true, page: c.page, text: c.text.slice(0, 400) };
  }
  const primaryNonContributory = endorsement(all, /primary\s*(?:and|&)\s*non-?\s?contributory|primary and non-contributing|primary\/non-?contributory/i);
  return {
    kind,
    policyType: d.policy_type,
    carrier: fromRecord(d, '/policy/provider', d.policy.provider),
    policyNumber: fromRecord(d, '/policy/policy_number', d.policy.policy_number) ?? fallback,
    policyNumbers: [...numbers],
    insured,
    effectiveDate: fromRecord(d, '/policy/effective_date', d.policy.effective_date),
    expirationDate: fromRecord(d, '/policy/expiration_date', d.policy.expiration_date),
    liability,
    liabilityAggregate:
      certLimit(d, 'general_liability', 'general_aggregate', 'General Liability General Aggregate') ??
      (personal ? null : labelledLimit(pages, /\bgeneral aggregate(?: limit)?\b[^$\d]{0,30}/i)),
    propertyDamage,
    workersComp,
    umbrella,
    auto,
    professional,
    parties: parties(pages, d, all),
    hasCertificateHolderSection: !!d.certificate || /certificate holder/i.test(pages.map((p) => p.text).join('\n')),
    waiverOfSubrogation,
    primaryNonContributory,
    propertyAddress: premisesAddress(pages, d, all),
    markers: markers(all),
  };
}
