// The fields every declarations kind reads (carrier, policy number, period, premium, named insured, coverage
// table) and the deeper reads some kinds add: auto liability limits, the each-occurrence limit, homeowners and
// renters Section I/II limits with the residence address. The kind modules under kinds/ compose them.
import type { PageText, Cell } from '../documents/layout.ts';
import type { Emit } from './kinds/types.ts';
import { autoLiability, propertyLines, eachOccurrence, OCCURRENCE_CAPTION } from './limits.ts';
import { findCarrier, findNamedInsured, looksLikeName } from './names.ts';
import { findLabelled, findLabelledBlock, findTable, cellsBelow, fromFound } from './layout_query.ts';
import { parseMoney, parseDate, dateTokens, cleanValue, isOrganisation, splitPersonName } from './normalise.ts';
import { ADDRESS_LINE } from './parties.ts';
import { vehicles, drivers } from './vehicles.ts';

const POLICY_NUMBER = /^[A-Z0-9][A-Z0-9\- ]{3,28}$/i;
export function parsePolicyNumber(s: string): string | undefined {
  const v = cleanValue(s.split(/\s{2,}/)[0]);
  if (!POLICY_NUMBER.test(v) || !/\d/.test(v) || /^\d{1,2}\/\d/.test(v) || /\b(page|of|date|phone|fax)\b/i.test(v)) return undefined;
  return v;
}

/** The period's captions in a policy box ("Starts", "Ends"), bare or with a colon, or in parentheses. */
const POLICY_BOX_CAPTION = /^\(?(?:starts|ends)\)?\s*:?(?:\s|$)/i;

export function policyNumber(pages: PageText[], emit: Emit) {
  // "Policy Number: …", and a bare "Policy: MI 45332234" (the colon makes it a caption, not a word of a sentence).
  const f = findLabelled(pages, /policy\s*(?:number|no\.?|#|num\.?)|policy\s*id|policy(?=\s*:)/i, parsePolicyNumber);
  // A policy box captioned "Number", "Starts", "Ends" (a renters policy's): "Number" is the policy's there.
  const boxed = !f && pages.some((p) => p.lines.some((l) => l.cells.some((c) => POLICY_BOX_CAPTION.test(c.text.trim()))));
  const n = f ?? (boxed ? findLabelled(pages, /number/i, parsePolicyNumber) : undefined);
  if (n) {
    emit({ pointer: '/policy/policy_number', value: n.value, ...fromFound(n) });
    return;
  }
  // No captioned number (the declarations' box redacted or drawn): one quoted in a sentence ("type in your policy
  // number 6036152786341 and product code …", an insurer's letter: "insured under renters policy HIC-R-4471902"),
  // weaker evidence.
  for (const page of pages)
    for (const line of page.lines) {
      const m = /\bpolicy\s+(?:(?:number|no\.?|#)\s*:?\s*)?((?:[A-Z]{1,5}-){0,2}[A-Z]{0,4}[-\s]?\d[\dA-Z-]{5,24})\b/i.exec(line.text);
      if (!m || (m[1].match(/\d/g) ?? []).length < 6 || /^\d{1,2}\/\d/.test(m[1])) continue;
      emit({
        pointer: '/policy/policy_number',
        value: m[1].trim(),
        page: page.page,
        text: line.text,
        confidence: page.source === 'ocr' ? 0.5 : 0.6,
        source: page.source === 'ocr' ? 'ocr' : 'rules',
        rule: 'policy number: quoted in a sentence (no captioned number)',
      });
      return;
    }
}

const daysBetween = (a: string, b: string) => (Date.parse(b) - Date.parse(a)) / 86_400_000;

export function period(pages: PageText[], emit: Emit) {
  // "Policy Period: 01/15/2025 to 07/15/2025" (possibly on the next line).
  for (const page of pages) {
    for (let i = 0; i < page.lines.length; i++) {
      const line = page.lines[i];
      // An insurer's letter says it in a sentence: "the policy is in effect from February 1, 2026 to February 1, 2027".
      // A "Term:" cell may follow another on its line ("Premises: 12 Oak Street …  Term: 02/01/2026 - 02/01/2027").
      if (
        !/policy period|coverage period|policy term|term of (the )?policy|period of insurance|^term\b|(?:^|\s{2})term\s*:|coverage begins|\bin (?:effect|force) from\b|\bis in (?:effect|force)$/i.test(
          line.text,
        )
      )
        continue;
      // The dates may follow the caption over two more lines ("Policy period / Beginning December 19, 2021
      // through / June 19, 2022"), or stand left of their own captions above and below it ("08/01/2021 Effective
      // Date / 12 months - Policy Period / 08/01/2022 Expiration of Policy Period").
      let text = [line.text, page.lines[i + 1]?.text ?? ''].join('\n');
      let dates = dateTokens(text);
      if (dates.length < 2) {
        text = page.lines
          .slice(Math.max(0, i - 1), i + 3)
          .map((l) => l.text)
          .join('\n');
        dates = dateTokens(text);
      }
      if (dates.length >= 2 && dates[1].iso > dates[0].iso && daysBetween(dates[0].iso, dates[1].iso) <= 400) {
        const src = text.startsWith(line.text) && dates[1].index < line.text.length ? line.text : text;
        const conf = page.source === 'ocr' ? 0.8 : 0.9;
        const source = page.source === 'ocr' ? 'ocr' : 'rules';
        emit({ pointer: '/policy/effective_date', value: dates[0].iso, page: page.page, text: src, confidence: conf, source });
        emit({ pointer: '/policy/expiration_date', value: dates[1].iso, page: page.page, text: src, confidence: conf, source });
        return;
      }
    }
  }
  const eff = findLabelled(pages, /(?:policy\s+)?effective(?:\s+date)?|(?:policy\s+)?inception(?:\s+date)?|(?:policy\s+)?start\s+date|starts|from/i, parseDate);
  const exp = findLabelled(
    pages,
    /(?:policy\s+)?expiration(?:\s+date)?|(?:policy\s+)?expiry(?:\s+date)?|(?:policy\s+)?expires(?:\s+on)?|(?:policy\s+)?end\s+date|expiration\s+of\s+policy\s+period|ends|to/i,
    parseDate,
  );
  if (eff) emit({ pointer: '/policy/effective_date', value: eff.value, ...fromFound(eff) });
  if (exp && (!eff || exp.value > eff.value)) emit({ pointer: '/policy/expiration_date', value: exp.value, ...fromFound(exp) });
  if (eff || exp) return;
  // Last resort: the first "date to date" on the first page.
  for (const page of pages.slice(0, 1)) {
    for (const line of page.lines) {
      const m = /(.{6,20}?)\s+(?:to|through|thru|-|–)\s+(.{6,20})/.exec(line.text);
      const d = dateTokens(line.text);
      if (m && d.length >= 2 && d[1].iso > d[0].iso) {
        emit({ pointer: '/policy/effective_date', value: d[0].iso, page: page.page, text: line.text, confidence: 0.6 });
        emit({ pointer: '/policy/expiration_date', value: d[1].iso, page: page.page, text: line.text, confidence: 0.6 });
        return;
      }
    }
  }
}

function premium(pages: PageText[], emit: Emit) {
  const label =
    /total\s+(?:estimated\s+)?(?:annual\s+|advance\s+|policy\s+|term\s+|6[- ]month\s+|12[- ]month\s+)?premium|(?:annual|policy|term|full[- ]term)\s+premium|total\s+(?:policy\s+)?(?:cost|charges)|premium\s+total|total\s+due/i;
  // "Total premium for 2010 DODGE" is one vehicle's (or coverage's) premium, and its "2010" a year: not the policy's.
  const policyLabel = new RegExp(`(?:${label.source})(?!\\s*(?:for|per)\\b)`, 'i');
  const f = findLabelled(pages, policyLabel, (s) => {
    const amount = PREMIUM_AMOUNT.exec(s);
    return amount ? parseMoney(amount[0]) : undefined;
  });
  if (f) emit({ pointer: '/policy/premium', value: f.value, ...fromFound(f) });
}

/** A premium is printed as money: a dollar sign, thousands separators or cents, never a bare number (a year, a count). */
const PREMIUM_AMOUNT = /\$\s?\d[\d,]*(?:\.\d{2})?|\b\d{1,3}(?:,\d{3})+(?:\.\d{2})?\b|\b\d+\.\d{2}\b/;

function namedInsured(pages: PageText[], emit: Emit) {
  const f = findLabelledBlock(
    pages,
    /named\s+insured(?:\(s\))?(?:\s+and\s+(?:mailing\s+)?address)?|insured(?:'s)?\s+name|policyholder(?:\(s\))?|policy\s+holder(?:\(s\))?|insured(?:\s+and\s+mailing\s+address)?|first\s+named\s+insured/i,
    4,
  );
  if (!f) return;
  const base = fromFound(f);
  let [name, ...rest] = f.value;
  name = cleanValue(name);
  if (!name || /^\d/.test(name) || !looksLikeName(name)) return;
  if (isOrganisation(name)) {
    emit({ pointer: '/policyholder/organization', value: name, ...base });
  } else {
    const p = splitPersonName(name);
    if (p) {
      emit({ pointer: '/policyholder/first_name', value: p.first_name, ...base });
      emit({ pointer: '/policyholder/last_name', value: p.last_name, ...base });
    } else emit({ pointer: '/policyholder/organization', value: name, ...base, confidence: base.confidence * 0.7 });
  }
  // A co-insured on the second line ("Jane Smith") is skipped; address lines start with a number or are City, ST ZIP.
  const addr: string[] = [];
  for (const l of rest) {
    if (ADDRESS_LINE(l)) addr.push(cleanValue(l));
    else if (addr.length) break;
  }
  if (addr.length) emit({ pointer: '/policyholder/address', value: addr.join(', '), ...base });
}

function splitLimit(s: string): number | string | undefined {
  const parts = s.split(/\s*\/\s*/).map((p) => (/\d/.test(p) ? parseMoney(p) : undefined));
  if (parts.length >= 2 && parts.every((p) => p !== undefined)) return parts.join('/');
  return /\d/.test(s) ? parseMoney(s) : undefined;
}

/** The coverage table (name, limit, deductible, premium) located by its header. */
function coverages(pages: PageText[], emit: Emit, start = 0, skip?: RegExp): { name: string; limit?: number | string; page: number; text: string }[] {
  const rows = findTable(
    pages,
    {
      name: /^(coverages?|description|coverage\s+type|coverages?\s+and\s+limits)\b/i,
      limit: /^(limits?(\s+of\s+(liability|insurance))?|amount\s+of\s+insurance|maximum\s+amount|coverage\s+amount|amount|limits?\s+and\/or)/i,
      deductible: /^deductibles?/i,
      premium: /^(premium|annual premium|cost)\b/i,
    },
    ['name'],
    /^(total|deductible\s*-|all perils|drivers?\b|veh\b|year\b|lienholder|mortgagee|additional|interested|forms?\b|endorsements?|discounts?|(policy|annual|total)\s+premium)|premium:/i,
  );
  const out: { name: string; limit?: number | string; page: number; text: string }[] = [];
  let n = start;
  for (const r of rows) {
    const name = cleanValue((r.byRole.name ?? []).map((c) => c.text).join(' '));
    if (!name || !/[a-z]{3}/i.test(name) || /^\$?[\d,.]+$/.test(name) || skip?.test(name)) continue;
    const txt = (cells?: Cell[]) => (cells ?? []).map((c) => c.text).join(' ');
    const limit = r.byRole.limit ? splitLimit(txt(r.byRole.limit)) : undefined;
    const deductible = r.byRole.deductible ? splitLimit(txt(r.byRole.deductible)) : undefined;
    const prem = r.byRole.premium ? parseMoney(txt(r.byRole.premium)) : undefined;
    if (limit === undefined && deductible === undefined && prem === undefined) continue;
    const conf = r.page.source === 'ocr' ? 0.75 : 0.85;
    const src = r.page.source === 'ocr' ? 'ocr' : 'rules';
    const base = { page: r.page.page, text: r.line.text, confidence: conf, source: src } as const;
    emit({ pointer: `/coverages/${n}/name`, value: name, ...base });
    emit({ pointer: `/coverages/${n}/limit`, value: limit ?? null, ...base });
    emit({ pointer: `/coverages/${n}/deductible`, value: deductible ?? null, ...base });
    emit({ pointer: `/coverages/${n}/premium`, value: prem ?? null, ...base });
    out.push({ name, limit, page: r.page.page, text: r.line.text });
    n++;
  }
  return out;
}

const PROPERTY_MAP: [RegExp, string][] = [
  [/coverage\s*a\b|\bdwelling\b/i, 'dwelling'],
  [/coverage\s*b\b|other\s+structures/i, 'other_structures'],
  [/coverage\s*c\b|personal\s+property|contents/i, 'personal_property'],
  [/coverage\s*d\b|loss\s+of\s+use|additional\s+living/i, 'loss_of_use'],
  [/coverage\s*e\b|personal\s+liability|liability\s*-\s*each\s+occurrence/i, 'personal_liability'],
  [/coverage\s*f\b|medical\s+payments/i, 'medical_payments'],
];

function property(pages: PageText[], covs: ReturnType<typeof coverages>, emit: Emit, renters: boolean) {
  // A renters policy has no dwelling or other-structures limit.
  const done = new Set<string>(renters ? ['dwelling', 'other_structures'] : []);
  for (const cv of covs) {
    for (const [re, field] of PROPERTY_MAP) {
      if (done.has(field) || !re.test(cv.name) || typeof cv.limit !== 'number') continue;
      done.add(field);
      emit({ pointer: `/property/${field}`, value: cv.limit, page: cv.page, text: cv.text, confidence: 0.85 });
      break;
    }
  }
  // Limits written as "Coverage A - Dwelling $350,000" outside a table.
  for (const [re, field] of PROPERTY_MAP) {
    if (done.has(field)) continue;
    const f = findLabelled(pages, new RegExp(`(?:coverage\\s*[a-f]\\s*[-–:]?\\s*)?(?:${re.source})[^$\\d]{0,30}`, 'i'), (s) => {
      const n = /\d/.test(s) ? parseMoney(s) : undefined;
      return n !== undefined && n >= 100 ? n : undefined; // a limit, not an age or a count
    });
    if (f) {
      done.add(field);
      emit({ pointer: `/property/${field}`, value: f.value, ...fromFound(f) });
    }
  }
  propertyLines(pages, emit, done);
  if (done.has('deductible')) return addressOf(pages, emit);
  const ded = findLabelled(
    pages,
    /(?:all\s+(?:other\s+)?perils\s+deductible|deductible\s*[-–]\s*all\s+(?:other\s+)?perils|section\s+i\s+deductible|aop\s+deductible|policy\s+deductible|deductible)/i,
    (s) => (/\d/.test(s) ? parseMoney(s) : undefined),
  );
  if (ded) emit({ pointer: '/property/deductible', value: ded.value, ...fromFound(ded) });
  addressOf(pages, emit);
}

function addressOf(pages: PageText[], emit: Emit) {
  const addr = findLabelled(
    pages,
    /residence\s+premises|insured\s+(?:location|address)|property\s+(?:address|location)|location\s+of\s+(?:residence|property|premises)|dwelling\s+location|described\s+location|insured\s+property|rental\s+address|risk\s+(?:address|location)/i,
    (s) => (/\d/.test(s) && s.length > 8 ? cleanValue(s) : undefined),
  );
  if (!addr) return;
  let value = addr.value.replace(/,$/, '');
  let text = addr.text;
  // The street on one line and "Saint Louis, Missouri 63131" under it: the address goes on to its ZIP.
  if (!/\b\d{5}(?:-\d{4})?$/.test(value)) {
    const page = pages.find((p) => p.page === addr.page)!;
    const next = cellsBelow(page, addr.line, addr.cell, 1.8, 12)[0];
    if (next && /^[A-Za-z][A-Za-z .'-]+,?\s+[A-Za-z][A-Za-z .]*\s+\d{5}(?:-\d{4})?$/.test(next.cell.text.trim())) {
      value = `${value}, ${cleanValue(next.cell.text)}`;
      text = `${text}\n${next.cell.text}`;
    }
  }
  emit({ pointer: '/property/address', value, ...fromFound(addr), text });
}

export type TableCoverages = ReturnType<typeof coverages>;

/** The common core every declarations kind reads: carrier, policy number, period, premium, named insured, coverage table. */
export function declarationCore(pages: PageText[], emit: Emit): TableCoverages {
  findCarrier(pages, emit);
  policyNumber(pages, emit);
  period(pages, emit);
  premium(pages, emit);
  if (!findNamedInsured(pages, emit)) namedInsured(pages, emit);
  return coverages(pages, emit);
}

/** Auto kinds: liability limits the coverage table did not give (read from the lines naming them), vehicles, drivers. */
export function autoFields(pages: PageText[], covs: TableCoverages, emit: Emit): void {
  const bi = covs.some((c) => /bodily\s+injury/i.test(c.name) && !/uninsured|underinsured/i.test(c.name) && typeof c.limit === 'string');
  const pd = covs.some((c) => /property\s+damage/i.test(c.name) && !/uninsured|underinsured/i.test(c.name) && typeof c.limit === 'number');
  if (!bi || !pd) autoLiability(pages, emit, covs.length, { bi: !bi, pd: !pd });
  vehicles(pages, emit);
  drivers(pages, emit);
}

/** Businessowners / CGL: the each-occurrence limit when the coverage table did not give it. */
export function liabilityFields(pages: PageText[], covs: TableCoverages, emit: Emit): void {
  // A limits table that has the row under any of its captions ("Per Occurrence", "Occurrence Limit") has it already.
  if (!covs.some((c) => OCCURRENCE_CAPTION.test(c.name) && typeof c.limit === 'number')) eachOccurrence(pages, emit, covs.length);
}

/** Homeowners and renters: the Section I/II limits, deductible and residence address. */
export function propertyFields(pages: PageText[], covs: TableCoverages, emit: Emit, renters: boolean): void {
  property(pages, covs, emit, renters);
}

/** Mortgagees, lienholders, loss payees, additional insureds and interests. */
