// Lease facts: the parties, the premises, the term and every insurance requirement the lease states, each
// with the page it is on. Rules over clauses and labelled lines; values that cannot be grounded are dropped.
import type { PageText } from '../documents/layout.ts';
import { cleanValue, dateTokens } from '../extraction/normalise.ts';
import { clauses, pageLines, amountsIn, cite, type Clause } from './text.ts';
import type { LeaseFacts, LeaseRequirement, RequirementKind, Cited } from './schema.ts';

// Case spelled out: the name before the role must start with a capital letter.
const ROLE = {
  landlord: /Landlord|LANDLORD|Lessor|LESSOR|Owner|OWNER/,
  tenant: /Tenants?|TENANTS?|Lessees?|LESSEES?|Residents?|RESIDENTS?/,
};

/** A party's name from "Landlord: Oak Street Properties LLC" (same line) or the next line. */
function labelledParty(pages: PageText[], label: RegExp): Cited<string> | null {
  const re = new RegExp(`^\\s*(?:name of\\s+)?(?:${label.source})(?:\\(s\\))?(?:'s)?(?:\\s+name)?\\s*[:\\-–]\\s*(.*)$`, 'i');
  for (const l of pageLines(pages)) {
    const m = re.exec(l.text);
    if (!m) continue;
    const v = cleanName(m[1] || l.next);
    if (v) {
      const c = cite(pages, v, l.page, m[1] ? l.text : `${l.text}\n${l.next}`);
      if (c) return c;
    }
  }
  return null;
}

function cleanName(s: string): string | undefined {
  // A blank form's underscores are not a name.
  if (/_{3,}/.test(s)) return undefined;
  const v = cleanValue(
    s
      .split(/\s{2,}/)[0]
      .replace(/\s*\((?:the\s+)?["“]?[A-Za-z ]+["”]?\)\s*$/, '')
      .replace(/^(?:is|are)\s+/i, ''),
  );
  if (!v || v.length > 120 || /^\d/.test(v) || !/[A-Za-z]{2}/.test(v)) return undefined;
  return v;
}

/** "between Oak Street Properties LLC ("Landlord") and John Smith ("Tenant")". */
function partyFromPreamble(all: Clause[], role: RegExp): Cited<string> | null {
  const named = new RegExp(
    `([A-Z][A-Za-z0-9.,&'’\\- ]{2,100}?)\\s*(?:,\\s*an? [A-Za-z ]{3,60}?,?\\s*)?,?\\s*\\(\\s*(?:(?:hereinafter|herein)\\s+(?:called|referred to as|the)\\s+)?(?:the\\s+)?["“']{0,2}(?:${role.source})["”']{0,2}\\s*\\)`,
  );
  const asRole = new RegExp(`([A-Z][A-Za-z0-9.,&'’\\- ]{2,100}?),\\s+as\\s+(?:the\\s+)?(?:${role.source})\\b`);
  for (const c of all.slice(0, 60)) {
    for (const re of [named, asRole]) {
      const m = re.exec(c.text);
      if (!m) continue;
      const v = cleanName(m[1].replace(/^.*\b(?:between|and|by)\s+/, '').replace(/^(?:by and between|between|and)\s+/i, ''));
      if (v && !/^(this|the|said)\b/i.test(v)) return { value: v, page: c.page, text: c.text.slice(0, 400) };
    }
  }
  return null;
}

function propertyAddress(pages: PageText[], all: Clause[]): Cited<string> | null {
  const label =
    /^\s*(?:property address|premises address|address of (?:the )?premises|leased premises|premises|property|rental (?:unit|address|property)|unit address|dwelling address|apartment address)\s*[:\-–]\s*(.*)$/i;
  for (const l of pageLines(pages)) {
    const m = label.exec(l.text);
    if (!m) continue;
    let v = cleanValue(m[1].split(/\s{2,}/)[0]);
    // The address may continue on the next line ("Springfield, IL 62701").
    if (v && !/\b\d{5}\b/.test(v) && /^[A-Za-z .'-]+,?\s+[A-Z]{2}\s+\d{5}/.test(l.next.trim())) v = `${v}, ${cleanValue(l.next)}`;
    if (!v && /^\d/.test(l.next.trim())) v = cleanValue(l.next);
    if (v && /\d/.test(v) && !/_{3,}/.test(v)) {
      const c = cite(pages, v, l.page, `${l.text}\n${l.next}`);
      if (c) return c;
    }
  }
  const located = /\b(?:located at|known as|commonly described as|address of|situated at)\s+(\d+[^;()]*?\b[A-Z]{2}\s+\d{5}(?:-\d{4})?)/;
  for (const c of all) {
    const m = located.exec(c.text);
    if (m) return { value: cleanValue(m[1]), page: c.page, text: c.text.slice(0, 400) };
  }
  return null;
}

function leaseDates(pages: PageText[], all: Clause[]): { start: Cited<string> | null; end: Cited<string> | null } {
  let start: Cited<string> | null = null;
  let end: Cited<string> | null = null;
  const startLabel = /(?:lease\s+)?(?:commencement|start|beginning)\s+date|term\s+(?:begins|starts|commences)|move[- ]in\s+date/i;
  const endLabel = /(?:lease\s+)?(?:expiration|termination|end|ending)\s+date|term\s+ends|lease\s+ends/i;
  for (const l of pageLines(pages)) {
    const d = dateTokens(l.text);
    if (!start && startLabel.test(l.text) && d[0]) start = { value: d[0].iso, page: l.page, text: l.text };
    if (!end && endLabel.test(l.text)) {
      const k = startLabel.test(l.text) ? d[1] : d[0];
      if (k) end = { value: k.iso, page: l.page, text: l.text };
    }
  }
  if (start && end) return { start, end };
  // "The term ... shall commence on January 1, 2026 and end on December 31, 2026."
  for (const c of all) {
    if (!/\b(term|commenc|begin|beginning|start)/i.test(c.text)) continue;
    const m =
      /\b(?:commenc\w*|begin\w*|start\w*|from)\s+(?:on\s+)?(.{6,24}?\d{4})\b[^.]*?\b(?:end\w*|terminat\w*|expir\w*|through|until|to)\s+(?:on\s+)?(?:at\s+[^,]*,\s*)?(.{6,24}?\d{4})/i.exec(
        c.text,
      );
    if (!m) continue;
    const a = dateTokens(m[1])[0];
    const b = dateTokens(m[2])[0];
    if (a && b && b.iso > a.iso) {
      start ??= { value: a.iso, page: c.page, text: c.text.slice(0, 400) };
      end ??= { value: b.iso, page: c.page, text: c.text.slice(0, 400) };
      break;
    }
  }
  return { start, end };
}

/** Each requirement: what names it in a clause. */
const REQUIREMENT_TERMS: [RequirementKind, RegExp][] = [
  ['renters', /\brenters?['’]?s?\s+insurance|\brenter['’]s\s+insurance|\bHO-?4\b|\bcontents insurance/i],
  [
    'propertyDamage',
    /\bproperty damage(?: liability)?|damage to (?:the )?(?:rented |leased )?premises|damage to (?:the )?property of others|fire legal liability|legal liability for damage/i,
  ],
  ['liability', /\b(?:commercial general liability|general liability|personal liability|liability insurance|liability coverage|public liability)\b/i],
  ['workersComp', /\bworkers['’]?\s+comp(?:ensation)?\b|\bworker['’]s\s+comp/i],
  ['umbrella', /\bumbrella\b|\bexcess liability\b/i],
  ['auto', /\b(?:business |commercial )?(?:auto|automobile|motor vehicle|vehicle)\s+(?:liability|insurance)\b|\bbusiness auto\b/i],
  ['professional', /\bprofessional liability\b|\berrors (?:and|&) omissions\b|\bE\s?&\s?O\b/i],
  ['additionalInsured', /\badditional(?:ly)? insureds?\b/i],
  ['interestedParty', /\binterested part(?:y|ies)\b|\badditional interests?\b/i],
  ['certificateHolder', /\bcertificate holder\b|\bcertificates? of (?:liability )?insurance\b|\bevidence of (?:such )?insurance\b/i],
  ['waiverOfSubrogation', /\bwaiver of subrogation\b|\bwaive\w*\s+(?:all\s+)?(?:rights?\s+(?:of\s+)?)?subrogation\b|\bsubrogation\b/i],
  ['primaryNonContributory', /\bprimary\s+(?:and|&)\s+non-?\s?contributory\b|\bprimary and not contributing\b|\bnon-?contributory\b/i],
];

const OBLIGATION = /\b(shall|must|will|agrees? to|required|requires|obtain|maintain|carry|keep|provide|name|naming|list|include)\b/i;
const NEGATED =
  /\b(?:is|are)\s+not\s+required\b|\bnot\s+required\s+to\b|\bneed not\b|\bis optional\b|\bencouraged but not required\b|\bno\s+(?:renters?|insurance)\s+(?:insurance\s+)?is\s+required/i;

/** Money after the requirement's words in the clause, preferring "per occurrence"/"each occurrence" amounts. */
function amountFor(text: string, at: number, kind: RequirementKind): number | null {
  const after = text.slice(at);
  // Stop at the next coverage named in the same sentence.
  let stop = after.length;
  for (const [k, re] of REQUIREMENT_TERMS) {
    if (k === kind || k === 'additionalInsured' || k === 'certificateHolder' || k === 'waiverOfSubrogation' || k === 'primaryNonContributory') continue;
    const m = new RegExp(re.source, 'ig');
    m.lastIndex = 12;
    const hit = m.exec(after);
    if (hit && hit.index < stop && hit.index > 10) stop = hit.index;
  }
  const window = after.slice(0, stop);
  const found = amountsIn(window);
  if (found.length) return found[0].value;
  // "... not less than $1,000,000 for commercial general liability": an amount just before.
  const before = amountsIn(text.slice(Math.max(0, at - 60), at));
  return before.length ? before[before.length - 1].value : null;
}

function requirements(all: Clause[]): Partial<Record<RequirementKind, LeaseRequirement>> {
  const out: Partial<Record<RequirementKind, LeaseRequirement>> = {};
  // Only clauses about insurance (or about the additional insured, subrogation...) are read.
  for (const c of all) {
    if (!/insur|subrogation|liability|coverage|policy|policies|workers/i.test(c.text)) continue;
    for (const [kind, re] of REQUIREMENT_TERMS) {
      const m = re.exec(c.text);
      if (!m) continue;
      if (kind === 'liability' && /\bproperty damage liability\b/i.test(m[0])) continue;
      // "subrogation" alone counts only as a mutual waiver clause.
      if (kind === 'waiverOfSubrogation' && /^subrogation$/i.test(m[0]) && !/waive/i.test(c.text)) continue;
      const negated = NEGATED.test(c.text) && kind === 'renters';
      if (!negated && !OBLIGATION.test(c.text)) continue;
      const prev = out[kind];
      const amount = ['additionalInsured', 'interestedParty', 'certificateHolder', 'waiverOfSubrogation', 'primaryNonContributory', 'renters'].includes(kind)
        ? null
        : amountFor(c.text, m.index + m[0].length, kind);
      const statutory = kind === 'workersComp' && /statutory/i.test(c.text);
      // The first clause wins unless a later one gives the amount the first lacked.
      if (prev && !(prev.amount === null && amount !== null && prev.required)) continue;
      out[kind] = { kind, required: !negated, amount, statutory, clause: c.text.slice(0, 600), page: c.page };
    }
  }
  // A residential lease requiring personal liability in the renters clause has both requirements.
  const r = out.renters;
  if (r?.required && !out.liability) {
    const m = /\b(?:personal\s+)?liability\b/i.exec(r.clause);
    const a = m ? amountFor(r.clause, m.index + m[0].length, 'liability') : null;
    if (a !== null) out.liability = { kind: 'liability', required: true, amount: a, statutory: false, clause: r.clause, page: r.page };
  }
  return out;
}

/** Read the lease's facts from its pages. */
export function leaseFacts(pages: PageText[]): LeaseFacts {
  const all = clauses(pages);
  // The preamble ("between X ("Landlord") and Y ("Tenant")") first: labelled lines also occur at the signatures.
  const landlord = partyFromPreamble(all, ROLE.landlord) ?? labelledParty(pages, /landlord|lessor|owner\/landlord|owner|property owner/);
  const tenant = partyFromPreamble(all, ROLE.tenant) ?? labelledParty(pages, /tenants?|lessees?|residents?/);
  const manager = labelledParty(pages, /managing agent|property manager|management company|manager|agent for (?:the )?landlord/);
  const { start, end } = leaseDates(pages, all);
  const text = pages.map((p) => p.text).join('\n');
  const commercial =
    /\bcommercial\b|\boffice lease\b|\bretail\b|\bindustrial\b|\bpermitted use\b|\brentable square feet\b|\bbusiness\b.*\bpremises\b/i.test(text) &&
    !/\bresidential\b|\bapartment\b|\bdwelling unit\b/i.test(text.slice(0, 3000));
  return {
    type: commercial ? 'commercial' : 'residential',
    propertyAddress: propertyAddress(pages, all),
    landlord,
    manager,
    tenant,
    leaseStart: start,
    leaseEnd: end,
    requirements: requirements(all),
  };
}
