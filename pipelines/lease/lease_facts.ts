// Lease facts: the parties, the premises, the term and every insurance requirement the lease states, each
// with the page it is on. Rules over clauses and labelled lines; values that cannot be grounded are dropped.
import type { PageText } from '../documents/layout.ts';
import { cleanValue, dateTokens } from '../extraction/normalise.ts';
import { clauses, pageLines, amountsIn, sameParty, type Clause } from './text.ts';
import type { LeaseFacts, LeaseRequirement, RequirementKind, Cited } from './schema.ts';

// Case spelled out: the name before the role must start with a capital letter (or a street number: "2430 N. Halsted, LLC").
const ROLE = {
  landlord: /Landlord|LANDLORD|Lessor|LESSOR|Owner|OWNER/,
  tenant: /Tenants?|TENANTS?|Lessees?|LESSEES?|Residents?|RESIDENTS?/,
};
const ROLE_LABEL = {
  landlord: /^(?:name of\s+)?(?:landlord|lessor|owner|owner\/landlord|property owner)(?:'s|’s)?(?:\s+name)?$/i,
  tenant: /^(?:name of\s+)?(?:tenants?|lessees?|residents?)(?:\(s\))?(?:'s|’s)?(?:\s+names?)?$/i,
  manager: /^(?:managing agent|property manager|management company|manager|agent for (?:the )?landlord)$/i,
};
/** A value that only points elsewhere ("As listed on the cover page", "See Section 1.1") is never a value. */
const POINTER =
  /^(?:as|see)\b|\b(?:as\s+)?(?:listed|set forth|stated|shown|provided|defined|described|identified|named)\s+(?:on|in|above|below)\b|\bcover page\b|^(?:the\s+)?(?:person|party|entity)\s+(?:named|identified)\b/i;
/** A role word alone ("TENANT") is a table heading, not a party. */
const ROLE_WORD = /^(?:the\s+)?(?:landlord|lessor|owner|tenants?|lessees?|residents?|manager|agent|property manager)s?$/i;
/** Words of a sentence, not of a name ("paying an", "Resident shall not allow any utility"). */
const NOT_A_NAME =
  /\b(?:so long|provided|shall|will|must|may|not|allow|agrees?|pay|paying|pays|is|are|be|has|have|hereby|which|who|whom|that|this|such|any|each|if|when|under|upon)\b/i;
/** "…, a Delaware corporation" after a party's name is its description, not its name. */
const ENTITY_TAIL =
  /,?\s+an?\s+(?:[A-Z][A-Za-z.]*\s+){0,3}(?:limited liability company|corporation|limited partnership|general partnership|partnership|company|trust|banking association|non-?profit corporation|professional corporation|public body|statutory trust|real estate investment trust|LLC|L\.L\.C\.)\b.*$/i;

function cleanName(s: string): string | undefined {
  // A blank form's underscores are not a name.
  if (/_{3,}/.test(s)) return undefined;
  const v = cleanValue(
    s
      .split(/\s{2,}/)[0]
      .replace(ENTITY_TAIL, '')
      .replace(/\s*\((?:the\s+)?["“]?[A-Za-z ]+["”]?\)\s*$/, '')
      .replace(/^(?:is|are)\s+/i, ''),
  );
  if (!v || v.length > 120 || !/[A-Za-z]{2}/.test(v) || POINTER.test(v) || ROLE_WORD.test(v)) return undefined;
  // A street number may start an entity's name, never a person's: "2430 N. Halsted, LLC".
  if (/^\d/.test(v) && !/\b(?:LLC|L\.L\.C|Inc|LP|L\.P|LLP|Corp|Corporation|Company|Trust|Partners(?:hip)?)\b/i.test(v)) return undefined;
  if (NOT_A_NAME.test(v) || !/^[A-Z0-9]/.test(v) || v.split(/\s+/).length > 12) return undefined;
  return v;
}

/** A labelled entry of a summary table, a basic-lease-information block or a definitions article. */
export interface LabelledEntry {
  label: string;
  value: string;
  page: number;
  /** The lines the entry was read from. */
  text: string;
}

// A page's running footer or folio ("Page 17", "21", "iii") inside a block of entries.
const FOLIO = /^\s*(?:page\s+)?(?:[ivxlc]{1,6}|\d{1,3})\s*$/i;
const SECTION_START = /^\s*(?:\d{1,2}(?:\.\d+)*[.)]\s*[A-Z(]|\d{1,2}(?:\.\d+)+\s*[A-Z(]|\([a-zA-Z0-9]{1,4}\)|ARTICLE\b|Section\s+\d)/;
const LABEL_TEXT = /^[A-Z][A-Za-z0-9’'&/().,\- ]{1,60}$/;
const LABEL_VERBS = /\b(?:shall|will|must|may|is|are|agrees?|has|have|was|were|be|hereby|following)\b/i;
const KNOWN_LABEL =
  /^(?:name of\s+)?(?:landlord|lessor|owner|tenants?|lessees?|residents?|managing agent|property manager|management company|premises|property|property address|premises address|leased premises|rental unit|unit address|address of (?:the )?premises|building|project|commencement date|lease commencement date|start date|lease start(?: date)?|expiration date|termination date|end date|lease end(?: date)?|term|lease term|move-in date)(?:'s|’s)?(?:\s+names?)?$/i;

const isLabel = (s: string) => LABEL_TEXT.test(s.trim()) && !LABEL_VERBS.test(s) && s.trim().split(/\s+/).length <= 8;

/**
 * The entries of summary tables and definition blocks, in document order: "Landlord: X" on one line, "Landlord:"
 * with X on the lines below (across a page break), two cells of a row in either order ("Landlord  X",
 * "X  Landlord"), and a row of role headings over a row of values ("LANDLORD  TENANT" / "A LLC  B Inc.").
 */
export function labelledEntries(pages: PageText[]): LabelledEntry[] {
  const lines = pageLines(pages).filter((l) => !FOLIO.test(l.text) && l.text.trim() !== '');
  const out: LabelledEntry[] = [];
  for (let i = 0; i < lines.length; i++) {
    const l = lines[i];
    const cells = l.text
      .trim()
      .split(/\s{2,}/)
      .map((c) => c.trim());
    const bare = (c: string) => c.replace(/[:\-–]\s*$/, '').trim();
    // A row of headings over a row of values.
    if (cells.length >= 2 && cells.every((c) => KNOWN_LABEL.test(bare(c))) && i + 1 < lines.length) {
      const below = lines[i + 1].text
        .trim()
        .split(/\s{2,}/)
        .map((c) => c.trim());
      if (below.length === cells.length && !below.some((c) => KNOWN_LABEL.test(bare(c))))
        cells.forEach((c, k) => out.push({ label: bare(c), value: below[k], page: lines[i + 1].page, text: `${l.text}\n${lines[i + 1].text}` }));
      continue;
    }
    // Two cells, label and value in either order, without a colon.
    if (cells.length === 2 && !/:/.test(cells[0])) {
      if (KNOWN_LABEL.test(bare(cells[0])) && !KNOWN_LABEL.test(bare(cells[1]))) {
        out.push({ label: bare(cells[0]), value: cells[1], page: l.page, text: l.text });
        continue;
      }
      if (KNOWN_LABEL.test(bare(cells[1])) && !KNOWN_LABEL.test(bare(cells[0]))) {
        out.push({ label: bare(cells[1]), value: cells[0], page: l.page, text: l.text });
        continue;
      }
    }
    const m = /^\s*([^:]{2,62}):\s*(.*)$/.exec(l.text);
    if (!m || !isLabel(m[1])) continue;
    // The value: the rest of the line, then the lines below up to the next entry or section.
    const parts = m[2].trim() ? [m[2].trim()] : [];
    const text = [l.text];
    let page = m[2].trim() ? l.page : (lines[i + 1]?.page ?? l.page);
    for (let j = i + 1; j < lines.length && j <= i + 8; j++) {
      const n = lines[j].text;
      const nm = /^\s*([^:]{2,62}):\s*(.*)$/.exec(n);
      if ((nm && isLabel(nm[1])) || SECTION_START.test(n)) break;
      if (parts.length === 0) page = lines[j].page;
      parts.push(n.trim());
      text.push(n);
      if (/[.;]\s*$/.test(n) && parts.join(' ').length > 200) break;
    }
    // The text cited is what stands on the value's page (a label may end the page before).
    const onPage = text.filter((_t, k) => (k === 0 ? l.page : lines[i + k].page) === page);
    if (parts.length) out.push({ label: m[1].trim(), value: parts.join('\n'), page, text: onPage.join('\n') });
  }
  return out;
}

const MONTH_DATE = String.raw`(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?\s+\d{1,2},?\s+\d{4}`;
/** A numbered item of a summary run on within a line: "2.1 Building: 1825 South Grant Street … 2.2 Premises: …". */
const INLINE_ITEM = /(?:^|\s)\d{1,2}(?:\.\d{1,2})?\.?\s+([A-Z][A-Za-z’'&/\-, ]{1,50}?)(?:\s*\([^)]{0,30}\))?\.?:\s+/g;
/** Its label wrapped in a cell and flattened round the value: "3.2 Lease Commencement March 1, 2020. Date:". */
const WRAPPED_ITEM = new RegExp(String.raw`(?:^|\s)\d{1,2}\.\d{1,2}\.?\s+([A-Z][A-Za-z ]{2,40}?)\s+(${MONTH_DATE})\.?\s+([A-Z][a-z]+):`, 'g');
const NEXT_ITEM = /\s\d{1,2}(?:\.\d{1,2})?\.?\s+[A-Z][A-Za-z’'&/\-, ]{1,50}?(?:\s*\([^)]{0,30}\))?\.?:\s/;

/**
 * The entries of a summary whose table was flattened into running text (an EDGAR or OCR text: "2. Premises
 * (Article 1). 2.1 Building: 1825 South Grant Street San Mateo, California 94402 2.2 Premises: …"). Only the
 * labels the lease facts are read from are kept.
 */
export function inlineEntries(pages: PageText[]): LabelledEntry[] {
  const out: LabelledEntry[] = [];
  const wanted = (l: string) => KNOWN_LABEL.test(l) || START_LABEL.test(l) || END_LABEL.test(l) || PREMISES_LABEL.test(l);
  for (const p of pages) {
    const text = p.lines
      .map((l) => l.text.trim())
      .join(' ')
      .replace(/\s+/g, ' ');
    for (const m of text.matchAll(INLINE_ITEM)) {
      const label = m[1].trim().replace(/,$/, '');
      if (!wanted(label)) continue;
      const from = (m.index ?? 0) + m[0].length;
      const rest = text.slice(from, from + 400);
      const end = NEXT_ITEM.exec(rest)?.index ?? rest.length;
      const value = rest.slice(0, end).trim();
      if (value) out.push({ label, value, page: p.page, text: `${m[0].trim()} ${value}` });
    }
    for (const m of text.matchAll(WRAPPED_ITEM)) {
      const label = `${m[1].trim()} ${m[3]}`;
      if (wanted(label)) out.push({ label, value: m[2], page: p.page, text: m[0].trim() });
    }
  }
  return out;
}

/** Definitions as entries: '"Landlord" means Brickyard Commons LP.', '"Commencement Date" shall mean the later of …'. */
export function definitionEntries(all: Clause[]): LabelledEntry[] {
  const out: LabelledEntry[] = [];
  const term = `["“]([A-Z][A-Za-z’' ]{2,40})["”]\\s+(?:means|shall mean|refers to|is defined as)\\s+`;
  // A definition runs to the next one ("1.2 "Tenant" means …") or to the end of the sentence.
  const re = new RegExp(`${term}(.+?)(?=\\s+(?:\\d{1,2}(?:\\.\\d+)+\\.?\\s+|\\([a-z0-9]{1,3}\\)\\s*)?${term.replace('([A-Z]', '(?:[A-Z]')}|$)`, 'g');
  for (const c of all) {
    for (const m of c.text.matchAll(re)) {
      const value = m[2].replace(/(?<!\b(?:Inc|Co|Corp|Ltd|Jr|Sr|No|St))\.$/, '');
      out.push({ label: m[1].trim(), value, page: c.page, text: c.text });
    }
  }
  return out;
}

/** A party from the entries labelled with its role (the first whose value is a name, not a pointer). */
function partyFromEntries(entries: LabelledEntry[], label: RegExp): Cited<string> | null {
  for (const e of entries) {
    if (!label.test(e.label)) continue;
    const v = cleanName(e.value.split('\n')[0]);
    if (v) return { value: v, page: e.page, text: e.text };
  }
  return null;
}

/** "between Oak Street Properties LLC ("Landlord") and John Smith ("Tenant")", "X, as Landlord". */
function partyFromPreamble(all: Clause[], role: RegExp): Cited<string> | null {
  const named = new RegExp(
    `([A-Z0-9][A-Za-z0-9.,&'’\\- ]{2,100}?)\\s*(?:,\\s*an? [A-Za-z ]{3,60}?,?\\s*)?,?\\s*\\(\\s*(?:(?:hereinafter|herein)\\s+(?:called|referred to as|the)\\s+)?(?:the\\s+)?["“']{0,2}(?:${role.source})["”']{0,2}\\s*\\)`,
  );
  const asRole = new RegExp(`([A-Z0-9][A-Za-z0-9.,&'’\\- ]{2,100}?),\\s+as\\s+(?:the\\s+)?(?:${role.source})\\b`);
  // "the Cairo Housing Authority, referred to as Landlord".
  const referred = new RegExp(
    `([A-Z0-9][A-Za-z0-9.&'’\\- ]{2,100}?),?\\s+(?:hereinafter\\s+)?(?:referred to|called|known)\\s+as\\s+(?:the\\s+)?["“]?(?:${role.source})\\b`,
  );
  for (const c of all.slice(0, 80)) {
    for (const re of [named, asRole, referred]) {
      const m = re.exec(c.text);
      if (!m) continue;
      const v = cleanName(
        m[1]
          .replace(/^.*\b(?:between|and|by|with|are|is)\s+(?:the\s+)?(?=[A-Z0-9])/, '')
          .replace(/^(?:by and between|between|and)\s+/i, '')
          .replace(/^(?:are|is)\s+(?:the\s+)?/i, '')
          .replace(/^the\s+(?=[A-Z])/, '')
          .replace(/\s+(?:LEASE|AGREEMENT)\b.*$/, ''),
      );
      if (v && !/^(this|the|said)\b/i.test(v)) return { value: v, page: c.page, text: c.text.slice(0, 400) };
    }
  }
  return null;
}

/** The cover page's "BDDC, INC., / AS LANDLORD, AND / BLUCORA, INC., / AS TENANT": the lines above each role. */
function partyFromCover(pages: PageText[], role: RegExp): Cited<string> | null {
  const roleLine = new RegExp(`^\\s*[,(]?\\s*(?:as\\s+)?(?:the\\s+)?["“]?(?:${role.source})["”]?\\s*[,)]?\\s*(?:,?\\s*and)?\\s*,?\\s*$`, 'i');
  for (const p of pages.slice(0, 2)) {
    const lines = p.lines.map((l) => l.text).filter((t) => t.trim() !== '');
    for (let i = 1; i < lines.length; i++) {
      if (!roleLine.test(lines[i])) continue;
      const name: string[] = [];
      for (let j = i - 1; j >= 0 && name.length < 3; j--) {
        const t = lines[j].trim();
        if (
          /^(?:by\s+and\s+)?between$|^and$|^by$|LEASE|AGREEMENT|^(?:dated|exhibit)\b/i.test(t) ||
          roleLine.test(t) ||
          /^\s*(?:as\s+)?(?:landlord|tenant|lessor|lessee)\b/i.test(t)
        )
          break;
        name.unshift(t);
      }
      const v = cleanName(name.join(' ').replace(/,\s*$/, ''));
      if (v) return { value: v, page: p.page, text: name.join('\n') };
    }
  }
  return null;
}

/** The party as the lease first states it: the earliest of the cover, the preamble and the summary entries. */
function party(pages: PageText[], all: Clause[], entries: LabelledEntry[], which: 'landlord' | 'tenant'): Cited<string> | null {
  const found = [partyFromPreamble(all, ROLE[which]), partyFromEntries(entries, ROLE_LABEL[which]), partyFromCover(pages, ROLE[which])].filter(
    (c): c is Cited<string> => !!c,
  );
  const first = found.sort((a, b) => a.page - b.page)[0];
  if (!first) return null;
  // A cover in capitals ("BDDC, INC.") names the party the preamble writes in normal case: report that spelling.
  const spelled =
    first.value === first.value.toUpperCase() ? found.find((c) => c.value !== c.value.toUpperCase() && sameParty(c.value, first.value)) : undefined;
  return spelled ? { ...first, value: spelled.value } : first;
}

const STATE_NAMES =
  'Alabama|Alaska|Arizona|Arkansas|California|Colorado|Connecticut|Delaware|District of Columbia|Florida|Georgia|Hawaii|Idaho|Illinois|Indiana|Iowa|Kansas|Kentucky|Louisiana|Maine|Maryland|Massachusetts|Michigan|Minnesota|Mississippi|Missouri|Montana|Nebraska|Nevada|New Hampshire|New Jersey|New Mexico|New York|North Carolina|North Dakota|Ohio|Oklahoma|Oregon|Pennsylvania|Rhode Island|South Carolina|South Dakota|Tennessee|Texas|Utah|Vermont|Virginia|Washington|West Virginia|Wisconsin|Wyoming';
const STREET_NO = String.raw`(?:\d{1,6}[A-Z]?(?:-\d{1,5})?|One|Two|Three|Four|Five|Six|Seven|Eight|Nine|Ten|Eleven|Twelve)`;
const STREET_SUFFIX = String.raw`(?:Street|St\.?|Avenue|Ave\.?|Boulevard|Blvd\.?|Road|Rd\.?|Drive|Dr\.?|Lane|Ln\.?|Way|Court|Ct\.?|Place|Pl\.?|Parkway|Pkwy\.?|Circle|Cir\.?|Plaza|Square|Sq\.?|Terrace|Ter\.?|Trail|Trl\.?|Center|Centre|Pike|Turnpike|Row|Wharf|Loop|Alley)`;
const DIRECTION = String.raw`(?:N|S|E|W|NE|NW|SE|SW|North|South|East|West)\.?`;
const HIGHWAY = String.raw`(?:Highway|Hwy\.?|Route|Rte\.?|State Road|U\.?S\.?)\s*\d{1,4}(?:\s+${DIRECTION}(?![A-Za-z]))?`;
const STREET = String.raw`${STREET_NO}\s+(?:(?:${DIRECTION}\s+)?(?:[A-Z0-9][A-Za-z0-9'’.-]*\s+){0,4}${STREET_SUFFIX}(?:\s+${DIRECTION}(?![A-Za-z]))?(?![A-Za-z])|${HIGHWAY})`;
const UNIT = String.raw`(?:(?:Suite|Ste\.?|Unit|Apartment|Apt\.?|Building|Bldg\.?)\s*(?:No\.?\s*|#\s*)?[A-Z0-9][A-Z0-9-]*|#\s*\d[A-Z0-9-]*)(?:(?:\s*,\s*(?:and\s+)?|\s+and\s+)\d[A-Z0-9-]*)*`;
const CITY_STATE = String.raw`([A-Z][A-Za-z.'’-]+(?:\s+[A-Z][A-Za-z.'’-]+){0,2}),?\s+(${STATE_NAMES}|[A-Z]{2})(?:,?\s+(\d{5}(?:-\d{4})?))?`;
const ADDRESS = new RegExp(String.raw`(${STREET})((?:,?\s*${UNIT})*)(?:,?\s+${CITY_STATE})?`);
const UNIT_ALONE = new RegExp(UNIT);

/** One line "street, unit, city, state ZIP" from a text holding a street address (the unit may stand elsewhere in it). */
function addressIn(text: string): string | null {
  // A blank form's unit ("Apt #________") is no unit, and must not hide the city, state and ZIP after it.
  const t = text.replace(/\s+/g, ' ').replace(/,?\s*(?:Apt\.?|Apartment|Unit|Suite|Ste\.?|No\.?|#)\s*(?:No\.?\s*)?#?\s*_{2,}/gi, '');
  const m = ADDRESS.exec(t);
  if (!m) return null;
  let unit = m[2].replace(/^,?\s*/, '') || UNIT_ALONE.exec(t.slice(0, m.index))?.[0] || UNIT_ALONE.exec(t.slice(m.index + m[0].length))?.[0] || '';
  // "the space known as Suite A … within the building located at 1325 Hwy 42 S., Building B": both units.
  const before = m[2] ? UNIT_ALONE.exec(t.slice(0, m.index))?.[0] : undefined;
  if (before && unitKind(before) !== unitKind(unit)) unit = `${unit}, ${before}`;
  const parts = [m[1].replace(/,$/, ''), unit, m[3] ?? ''].filter(Boolean);
  const stateZip = [m[4], m[5]].filter(Boolean).join(' ');
  return [...parts, stateZip].filter(Boolean).join(', ');
}

const unitKind = (u: string) => (/^(?:building|bldg)/i.test(u) ? 'building' : 'unit');

const PREMISES_LABEL =
  /^(?:the\s+)?(?:property address|premises address|address of (?:the )?(?:premises|property)|leased premises|premises|property|rental (?:unit|address|property)|unit address|dwelling(?: address)?|apartment(?: address)?|building|project|location)$/i;
const PREMISES_CLAUSE = /\b(?:located at|known as|commonly described as|street address is|situated at|address of which is|premises at)\b/i;

function propertyAddress(all: Clause[], entries: LabelledEntry[]): Cited<string> | null {
  // The premises or building entry of the summary, then the premises definition in the clauses, earliest first.
  const found: Cited<string>[] = [];
  for (const e of entries) {
    if (!PREMISES_LABEL.test(e.label)) continue;
    let v = addressIn(e.value);
    if (!v) continue;
    // "Building: 1825 South Grant Street …" with "Premises: … commonly known as Suite 725" beside it on the page.
    if (!UNIT_ALONE.test(v)) {
      const unit = entries
        .filter((x) => x !== e && x.page === e.page && /^(?:the\s+)?(?:leased\s+)?premises$/i.test(x.label))
        .map((x) => UNIT_ALONE.exec(x.value.replace(/\s+/g, ' '))?.[0])
        .find(Boolean);
      if (unit) {
        const [street, ...rest] = v.split(', ');
        v = [street, unit, ...rest].join(', ');
      }
    }
    found.push({ value: v, page: e.page, text: e.text });
    break;
  }
  for (const c of all) {
    if (!PREMISES_CLAUSE.test(c.text)) continue;
    const v = addressIn(c.text.slice(PREMISES_CLAUSE.exec(c.text)!.index));
    if (v) {
      found.push({ value: v, page: c.page, text: c.text.slice(0, 400) });
      break;
    }
  }
  // The earliest; of two statements of the same street on one page the fuller (a ZIP or a unit the other lacks),
  // and of two streets on one page the summary's ("Building: 1825 …", not the project's "1875 and 1855 …").
  const sameStreet = (a: string, b: string) => a.split(' ')[0] === b.split(' ')[0];
  return (
    found
      .map((f, k) => ({ f, k }))
      .sort((a, b) => a.f.page - b.f.page || (sameStreet(a.f.value, b.f.value) ? b.f.value.length - a.f.value.length : a.k - b.k))[0]?.f ?? null
  );
}

const START_LABEL =
  /^(?:lease\s+|term\s+)?(?:commencement|start|beginning)\s+date$|^(?:date of\s+)?commencement$|^move[- ]in date$|^term (?:begins|starts|commences)$/i;
const END_LABEL = /^(?:lease\s+|term\s+)?(?:expiration|termination|end|ending|expiry)\s+date$|^term ends$|^lease ends$/i;
/** A date the lease defines by an event or a formula ("the later of…", "the last day of the 37th full calendar month"). */
const RULE_WORDS =
  /\b(?:later of|earlier of|after|following|upon|on which|last day|first day|month|anniversary|determined|defined|set forth|substantial completion|delivery|deliver|occur|until|subject to)\b/i;

/** A labelled date: stated when the value begins with a calendar date; a rule when it defines the date otherwise. */
function labelledDate(entries: LabelledEntry[], label: RegExp): { date: Cited<string> | null; rule: Cited<string> | null } {
  for (const e of entries) {
    if (!label.test(e.label)) continue;
    const v = e.value.replace(/\s+/g, ' ').trim();
    // A blank form's line is no date and no rule.
    if (/^_{3,}/.test(v)) continue;
    const d = dateTokens(v)[0];
    if (d && /^(?:on\s+|as of\s+)?$/i.test(v.slice(0, d.index).trim())) return { date: { value: d.iso, page: e.page, text: e.text }, rule: null };
    if (RULE_WORDS.test(v) || !d) return { date: null, rule: { value: v.slice(0, 300), page: e.page, text: e.text } };
  }
  return { date: null, rule: null };
}

function leaseDates(pages: PageText[], all: Clause[], entries: LabelledEntry[]) {
  const s = labelledDate(entries, START_LABEL);
  const e = labelledDate(entries, END_LABEL);
  let start = s.date;
  let end = e.date;
  // "Lease Start Date: 01/01/2026" on one line, the label first.
  const startLine = /^\s*(?:lease\s+)?(?:commencement|start|beginning)\s+date\s*[:\-–]?\s*(?:on\s+)?$|^\s*move[- ]in\s+date\s*[:\-–]?\s*$/i;
  const endLine = /^\s*(?:lease\s+)?(?:expiration|termination|end|ending)\s+date\s*[:\-–]?\s*(?:on\s+)?$/i;
  for (const l of pageLines(pages)) {
    for (const d of dateTokens(l.text)) {
      const before = l.text.slice(0, d.index);
      if (!start && !s.rule && startLine.test(before)) start = { value: d.iso, page: l.page, text: l.text };
      if (!end && !e.rule && endLine.test(before)) end = { value: d.iso, page: l.page, text: l.text };
      // "Start Date: 01/01/2026   End Date: 12/31/2026" on one line.
      const cell = before.split(/\s{2,}/).pop() ?? '';
      if (!start && !s.rule && startLine.test(cell)) start = { value: d.iso, page: l.page, text: l.text };
      if (!end && !e.rule && endLine.test(cell)) end = { value: d.iso, page: l.page, text: l.text };
    }
  }
  // "The term of this Lease shall commence on January 1, 2026 and end on December 31, 2026": the lease's own
  // term only (not a tax or fiscal year that also "commences" and "expires"), and never over a date the lease
  // defines by a rule.
  if (!(start && end) && !s.rule && !e.rule) {
    for (const c of all) {
      if (!/\b(?:the|this|lease|original|initial|rental)\s+term\b|\bterm of (?:this|the) (?:lease|agreement|tenancy)\b|\blease (?:term|period)\b/i.test(c.text))
        continue;
      if (/\b(?:fiscal|tax year|calendar year|lease year|option|extension|renewal)\b/i.test(c.text)) continue;
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
  }
  return { start, end, rules: { start: start ? null : s.rule, end: end ? null : e.rule } };
}

/** Each requirement: what names it in a clause. */
const REQUIREMENT_TERMS: [RequirementKind, RegExp][] = [
  ['renters', /\brenters?['’]?s?\s+insurance|\brenter['’]s\s+insurance|\bHO-?4\b|\bcontents insurance/i],
  [
    'propertyDamage',
    /\bproperty damage(?: liability)?|damage to (?:the )?(?:rented|leased) premises|damage to (?:the )?property of others|fire legal liability|legal liability for damage/i,
  ],
  ['liability', /\b(?:commercial general liability|general liability|personal liability|liability insurance|liability coverage|public liability)\b/i],
  ['workersComp', /\bworkers?['’]?s?\s+comp(?:ensation)?\b/i],
  ['umbrella', /\bumbrella\b|\bexcess liability\b/i],
  ['auto', /\b(?:business |commercial )?(?:auto|automobile|motor vehicle|vehicle)\s+(?:liability|insurance)\b|\bbusiness auto\b/i],
  ['professional', /\bprofessional liability\b|\berrors (?:and|&) omissions\b|\bE\s?&\s?O\b/i],
  // "naming … Landlord … as additional insureds", or a policy "insuring Tenant, Landlord, …" (the landlord insured under it).
  ['additionalInsured', /\badditional(?:ly)? insureds?\b|\binsuring\s+(?:both\s+)?(?:Tenant\s*(?:,|and)\s*)?(?:the\s+)?Landlord\b/i],
  ['interestedParty', /\binterested part(?:y|ies)\b|\badditional interests?\b/i],
  [
    'certificateHolder',
    /\bcertificate holder\b|\bcertificates?\s+(?:of\s+(?:such\s+|all\s+such\s+|the\s+|its\s+|said\s+)?(?:liability\s+|renters?['’]?s?\s+)?(?:insurance|coverage|policies)|evidencing)\b|\bcertificates?\s+thereof\b|\bevidence of (?:such |the |said )?insurance\b/i,
  ],
  ['waiverOfSubrogation', /\bwaiver of subrogation\b|\bwaive\w*\s+(?:all\s+)?(?:rights?\s+(?:of\s+)?)?subrogation\b|\bsubrogation\b/i],
  [
    'primaryNonContributory',
    /\bprimary\s+(?:and|&)\s+non-?\s?contributory\b|\bprimary and not contributing\b|\bnon-?contributory\b|\b(?:shall|will)\s+(?:be|provide)\s+primary\b|\bprimary coverage\b|\bprimary (?:insurance|basis)\b/i,
  ],
];
const COVERAGES = new Set<RequirementKind>(['renters', 'liability', 'propertyDamage', 'workersComp', 'umbrella', 'auto', 'professional']);
const NO_AMOUNT = new Set<RequirementKind>([
  'additionalInsured',
  'interestedParty',
  'certificateHolder',
  'waiverOfSubrogation',
  'primaryNonContributory',
  'renters',
]);

const OBLIGATION = /\b(shall|must|will|agrees? to|required|requires|obtain|maintain|carry|keep|provide|name|naming|list|include)\b/i;
/** A coverage required of nobody named ("Liability coverage of at least $100,000 is required"). */
const COVERAGE_OBLIGATION =
  /\b(?:shall|must|will|agrees? to|is required to|are required to)\s+(?:\w+\s+){0,3}?(?:maintain|carry|obtain|procure|keep|provide|purchase|have|include)\b|\b(?:is|are|be)\s+required\b|\brequires?\b|\bmust\b|\bminimum\b/i;
const NEGATED =
  /\b(?:is|are)\s+not\s+required\b|\bnot\s+required\s+to\b|\bneed not\b|\bis optional\b|\bencouraged but not required\b|\bno\s+(?:renters?|insurance)\s+(?:insurance\s+)?is\s+required/i;

/** Whose insurance a sentence speaks of, from the duty it states. */
type Owner = 'tenant' | 'landlord' | 'contractor' | 'mutual';
const DUTIES: [Owner, RegExp][] = [
  [
    'contractor',
    /\b(?:contractors?|subcontractors?|vendors?|movers?|service providers?)\b[^.;]{0,60}?\b(?:to|shall|must|will)\s+(?:\w+\s+){0,3}?(?:carry|maintain|obtain|procure|keep|purchase)\b|\b(?:require|cause)\s+(?:that\s+)?(?:each|all|any|its|such|the)?\s*(?:of\s+its\s+)?(?:contractors?|subcontractors?)\b|\b(?:contractors?|subcontractors?)['’]s?\s+insurance\b|\b(?:contractors?|subcontractors?)\s+(?:carries|maintains|has|holds|obtains|procures)\b|\b(?:insurance|certificates?|polic(?:y|ies)|evidence)\s+(?:[\w’'-]+\s+){0,3}?from\s+(?:all\s+|any\s+|each\s+|its\s+|such\s+|the\s+)?(?:contractors?|subcontractors?|vendors?)\b/gi,
  ],
  ['landlord', /\bLandlord\s+(?:shall|will|must|agrees to)\s+(?:\w+\s+){0,4}?(?:maintain|carry|obtain|procure|keep|insure)\b|\bLandlord['’]s\s+Insurance\b/g],
  [
    'mutual',
    /\b(?:each party|either party|both parties|Landlord and Tenant|Tenant and Landlord|the parties)\b[^.;]{0,80}?\b(?:shall|will|must|waives?|hereby)\b/gi,
  ],
  [
    'tenant',
    /\b(?:Tenants?|Lessees?|Residents?|Occupants?)(?:\s*,[^,;.]{1,60},)?\s+(?:shall|must|will|agrees? to|is required to|are required to|covenants to)[\s,]+(?:[\w’'-]+[\s,]+){0,6}?(?:maintain|carry|obtain|procure|keep|provide|purchase|furnish|deliver|deposit|name|cause|have)\b|\bTenant['’]s\s+Insurance\b/g,
  ],
];

/** The duties of a clause with where each starts. */
function dutiesOf(text: string): { owner: Owner; at: number }[] {
  const out: { owner: Owner; at: number }[] = [];
  for (const [owner, re] of DUTIES) for (const m of text.matchAll(re)) out.push({ owner, at: m.index ?? 0 });
  return out.sort((a, b) => a.at - b.at);
}
const LIST_ITEM = /^\(?(?:[a-zA-Z]|[ivx]{1,4}|\d{1,2})[).]/;
/** "under all liability, excess and": policies named as those another requirement applies to. */
const UNDER_POLICIES =
  /\b(?:under|in|to)\s+(?:all|any|each|every|such)\s+(?:(?:of\s+)?(?:its|the|Tenant['’]s)\s+)?(?:(?!(?:shall|will|must|maintain|carry|obtain|keep|procure|provide|purchase)\b)[\w’'-]+,?\s+){0,4}?(?:(?:and|or)\s+)?$/i;
/** The text of the list item or clause part a coverage's words stand in: after the last "(E) " or ";". */
function ownItem(before: string): string {
  let from = before.lastIndexOf(';') + 1;
  for (const m of before.matchAll(/\((?:[a-zA-Z]|[ivx]{1,4}|\d{1,2})\)\s/g)) from = Math.max(from, m.index ?? 0);
  return before.slice(from);
}
/** A coverage the landlord may ask for later: whether it is required is not settled by the lease's words. */
const ON_REQUEST =
  /\bLandlord\s+may\s+(?:\w+\s+){0,5}?(?:require|request|demand)\b|\b(?:if|when|upon being)\s+(?:so\s+)?(?:requested|required)\s+by\s+Landlord\b|\bat\s+Landlord['’]s\s+(?:request|option|election)\b/i;
/** A coverage only permitted, not required ("may be maintained under an umbrella policy"). */
const PERMITTED = /\bmay\b(?![^.;]*\b(?:shall|must)\b)/i;
/** Amounts incorporated by reference: "at least equal to the limits set forth in Section 1.1". */
const BY_REFERENCE =
  /\b(?:limits?|amounts?|minimums?)\s+(?:(?:of\s+insurance\s+)?(?:set forth|specified|stated|provided|described|shown|listed|identified)\s+in|in)\s+(?:Section|Article|Paragraph|Item|Exhibit|the Basic|the Summary|the Reference|the Schedule)/i;
const REFERENCE_LABEL: Partial<Record<RequirementKind, RegExp>> = {
  liability: /\b(?:general\s+)?liability\b.*\b(?:insurance|limits?|amounts?|coverage)\b|\binsurance (?:limits?|amounts?)\b/i,
  umbrella: /\b(?:umbrella|excess)\b/i,
  auto: /\bauto(?:mobile)?\b/i,
  propertyDamage: /\bproperty damage\b/i,
};

/** The per-occurrence (or combined single) amount and the aggregate in a window of text. */
function limitsIn(window: string): { amount: number | null; aggregate: number | null; csl: boolean } {
  const found = amountsIn(window);
  if (!found.length) return { amount: null, aggregate: null, csl: false };
  const basis = (a: { index: number; text: string }) => window.slice(a.index + a.text.length, a.index + a.text.length + 40).toLowerCase();
  const aggregate = found.find((a) => /^[^$]{0,25}\baggregate\b/.test(basis(a)))?.value ?? null;
  const occ = found.find((a) =>
    /^[^$]{0,25}\b(?:per|each|any one)\s+(?:occurrence|accident|claim|person)\b|^[^$]{0,25}\bcombined single limit\b/.test(basis(a)),
  );
  const first = occ ?? found.find((a) => a.value !== aggregate) ?? found[0];
  const csl = /combined single limit|\bcsl\b/i.test(window.slice(Math.max(0, first.index - 40), first.index + first.text.length + 40));
  return { amount: first.value, aggregate: aggregate !== first.value ? aggregate : null, csl };
}

/** Words before "property damage" that make it the scope of a liability cover ("bodily injury, personal injury and"). */
const SCOPE_OF_LIABILITY = /\bbodily injury\b[^.;$]{0,40}$/i;

/** Money after the requirement's words in the clause, preferring "per occurrence"/"each occurrence" amounts. */
function amountFor(text: string, at: number, kind: RequirementKind): { amount: number | null; aggregate: number | null; csl: boolean } {
  const after = text.slice(at);
  // Stop at the next coverage named in the same sentence.
  let stop = after.length;
  for (const [k, re] of REQUIREMENT_TERMS) {
    if (k === kind || NO_AMOUNT.has(k)) continue;
    const m = new RegExp(re.source, 'ig');
    m.lastIndex = 12;
    let hit = m.exec(after);
    // "claims for bodily injury or death or property damage" is what a liability cover covers, not a coverage of its own.
    while (hit && k === 'propertyDamage' && kind !== 'propertyDamage' && SCOPE_OF_LIABILITY.test(after.slice(Math.max(0, hit.index - 50), hit.index)))
      hit = m.exec(after);
    if (hit && hit.index < stop && hit.index > 10) stop = hit.index;
  }
  const inWindow = limitsIn(after.slice(0, stop));
  if (inWindow.amount !== null) return inWindow;
  // "... not less than $1,000,000 for commercial general liability": an amount just before.
  // Not across a list item's start ("$2,000,000 each occurrence, and (d) workers' compensation").
  const before = amountsIn(ownItem(text.slice(Math.max(0, at - 60), at)));
  return { amount: before.length ? before[before.length - 1].value : null, aggregate: null, csl: false };
}

/** Another coverage's name around "liability insurance": "automobile liability insurance", "employers liability". */
const OTHER_LIABILITY =
  /\b(?:auto(?:mobile)?|(?:motor\s+)?vehicle|umbrella|excess|professional|pollution|environmental|employer['’]?s['’]?|liquor|cyber|product)\s+$/i;
const GLOBAL = new Map<RegExp, RegExp>();
/** The first words in a text naming the requirement: for liability, not those of another coverage's name. */
function termIn(kind: RequirementKind, re: RegExp, text: string): RegExpExecArray | null {
  if (kind !== 'liability') return re.exec(text);
  let g = GLOBAL.get(re);
  if (!g) GLOBAL.set(re, (g = new RegExp(re.source, `${re.flags}g`)));
  g.lastIndex = 0;
  for (let m = g.exec(text); m; m = g.exec(text)) {
    if (/\bproperty damage liability\b/i.test(m[0])) continue;
    if (OTHER_LIABILITY.test(text.slice(Math.max(0, m.index - 30), m.index))) continue;
    return m;
  }
  return null;
}

function requirements(all: Clause[], entries: LabelledEntry[]): Partial<Record<RequirementKind, LeaseRequirement>> {
  const out: Partial<Record<RequirementKind, LeaseRequirement>> = {};
  const weakCertificate = new Set<LeaseRequirement>();
  // Whose insurance a clause speaks of: its own duty, else the sentence before it in the paragraph, else (for a
  // list item) the text the list follows ("Tenant shall maintain the following insurance: (a) …").
  let paraOwner: Owner | null = null;
  let para = -1;
  for (const [ci, c] of all.entries()) {
    const duties = dutiesOf(c.text);
    // A list item keeps the owner the text before it ended with; any other paragraph starts afresh.
    if (c.para !== para) {
      para = c.para;
      if (!LIST_ITEM.test(c.text)) paraOwner = null;
    }
    const inherited = paraOwner;
    if (duties.length) paraOwner = duties[duties.length - 1].owner;
    if (!/insur|subrogation|liability|coverage|policy|policies|workers|certificate/i.test(c.text)) continue;
    for (const [kind, re] of REQUIREMENT_TERMS) {
      const m = termIn(kind, re, c.text);
      if (!m) continue;
      // "subrogation" alone counts only as a mutual waiver clause.
      // A heading ("Insurance, Subrogation, and Waiver of Claims") states no duty.
      if (
        kind === 'waiverOfSubrogation' &&
        /^subrogation$/i.test(m[0]) &&
        !(/\bwaiv(?:e|es|ed|ing)\b/i.test(c.text) || (/waive/i.test(c.text) && OBLIGATION.test(c.text)))
      )
        continue;
      // A coverage named as where another requirement applies ("as additional insureds under all liability, excess
      // and umbrella policies") is not itself required.
      if (
        COVERAGES.has(kind) &&
        UNDER_POLICIES.test(c.text.slice(Math.max(0, m.index - 60), m.index)) &&
        /^[^.;$]{0,40}?\bpolic(?:y|ies)\b/i.test(c.text.slice(m.index + m[0].length))
      )
        continue;
      // Whose: the last duty stated before the words, else the first after them, else the inherited one.
      const owner = [...duties].reverse().find((d) => d.at <= m.index)?.owner ?? duties[0]?.owner ?? inherited;
      if (owner === 'contractor' || owner === 'landlord') continue;
      // A contractor's or another party's policy named right beside the words.
      if (/\b(?:contractors?|subcontractors?|vendors?|movers?|each such party)\b/i.test(c.text.slice(Math.max(0, m.index - 60), m.index + m[0].length + 60)))
        continue;
      // Permission is read in the coverage's own item of a list ("… as their interests may appear, (E) workers'
      // compensation insurance …" is no permission for (E)).
      const item = ownItem(c.text.slice(0, m.index));
      if (COVERAGES.has(kind) && PERMITTED.test(item)) {
        // "Landlord may require Tenant to carry umbrella insurance": not required today, but not settled either.
        const at = ON_REQUEST.exec(item);
        if (at && !out[kind])
          out[kind] = {
            kind,
            required: false,
            uncertain: `the lease lets the landlord require it ("${at[0]}")`,
            amount: null,
            statutory: false,
            clause: c.text.slice(0, 600),
            page: c.page,
          };
        continue;
      }
      // A coverage to carry is named as insurance ("workers' compensation insurance"), not as a cost in a list.
      if (
        COVERAGES.has(kind) &&
        !/insur|liabilit|coverage|polic|limit|statutory|\$/i.test(`${m[0]} ${c.text.slice(m.index + m[0].length, m.index + m[0].length + 60)}`)
      )
        continue;
      // Its premiums or costs are an expense (operating costs), not a requirement.
      if (
        COVERAGES.has(kind) &&
        /^\W*(?:insurance\s+)?(?:premiums?|costs?|expenses?|charges?)\b/i.test(c.text.slice(m.index + m[0].length, m.index + m[0].length + 40))
      )
        continue;
      const negated = NEGATED.test(c.text) && kind === 'renters';
      if (!negated && owner !== 'tenant' && !(COVERAGES.has(kind) ? COVERAGE_OBLIGATION : OBLIGATION).test(c.text)) continue;
      const prev = out[kind];
      // "Evidence of insurance" in passing gives way to a clause on certificates.
      const weak = kind === 'certificateHolder' && /^evidence/i.test(m[0]);
      if (prev && kind === 'certificateHolder' && weakCertificate.has(prev) && !weak) out[kind] = undefined;
      let limits = NO_AMOUNT.has(kind) ? { amount: null, aggregate: null, csl: false } : amountFor(c.text, m.index + m[0].length, kind);
      let amountSource: LeaseRequirement['amountSource'];
      // A sentence cut by a page break states its limits on the next page ("… by Tenant" / "of not less than: $5,000,000").
      const next = all[ci + 1];
      if (limits.amount === null && !NO_AMOUNT.has(kind) && next && next.page > c.page && next.para === c.para && !/[.;:]["”]?$/.test(c.text)) {
        const joined = `${c.text} ${next.text}`;
        const more = amountFor(joined, m.index + m[0].length, kind);
        if (more.amount !== null) {
          limits = more;
          amountSource = { page: next.page, text: next.text.slice(0, 600), how: 'continued' };
        }
      }
      const label = REFERENCE_LABEL[kind];
      if (limits.amount === null && label && BY_REFERENCE.test(c.text)) {
        const e = entries.find((x) => label.test(x.label) && amountsIn(x.value).length);
        if (e) {
          limits = limitsIn(e.value);
          amountSource = { page: e.page, text: e.text, how: 'reference' };
        }
      }
      const statutory =
        kind === 'workersComp' &&
        /statutory|statutes|required by (?:applicable\s+)?(?:state\s+)?law|as required by|in the amount,? if any,? required|in amounts required by/i.test(
          c.text,
        );
      // The first clause wins unless a later one gives the amount the first lacked.
      // (A coverage the landlord only may ask for gives way to a clause that requires it.)
      const onRequest = out[kind] && !out[kind]!.required && !!out[kind]!.uncertain && !negated;
      if (out[kind] && !onRequest && !(out[kind]!.amount === null && limits.amount !== null && out[kind]!.required)) continue;
      // An option of a checkbox form whose box is not ticked ("☐ Tenant is required to maintain renter's insurance").
      const box = /([☐□❑]|\[\s\])\s*[^☐□❑☑☒✔✓\[]{0,120}$/.exec(c.text.slice(0, m.index + m[0].length));
      const ticked = /[☑☒✔✓]|\[[xX✓]\]/.test(c.text);
      out[kind] = {
        kind,
        required: !negated,
        ...(box && !ticked ? { uncertain: 'it is an option of a checkbox form and no box is ticked' } : {}),
        amount: limits.amount,
        aggregate: limits.aggregate,
        combinedSingleLimit: limits.csl,
        ...(amountSource ? { amountSource } : {}),
        statutory,
        clause: c.text.slice(0, 600),
        page: c.page,
      };
      if (weak) weakCertificate.add(out[kind]!);
    }
  }
  // A residential lease requiring personal liability in the renters clause has both requirements.
  const r = out.renters;
  if (r?.required && !out.liability) {
    const m = /\b(?:personal\s+)?liability\b/i.exec(r.clause);
    const a = m ? amountFor(r.clause, m.index + m[0].length, 'liability').amount : null;
    if (a !== null) out.liability = { kind: 'liability', required: true, amount: a, statutory: false, clause: r.clause, page: r.page };
  }
  return out;
}

/** Read the lease's facts from its pages. */
export function leaseFacts(pages: PageText[]): LeaseFacts {
  const all = clauses(pages);
  const entries = [...labelledEntries(pages), ...definitionEntries(all), ...inlineEntries(pages)].sort((a, b) => a.page - b.page);
  const landlord = party(pages, all, entries, 'landlord');
  const tenant = party(pages, all, entries, 'tenant');
  const manager = partyFromEntries(entries, ROLE_LABEL.manager);
  const { start, end, rules } = leaseDates(pages, all, entries);
  const text = pages.map((p) => p.text).join('\n');
  const commercial =
    /\bcommercial\b|\boffice lease\b|\bretail\b|\bindustrial\b|\bpermitted use\b|\brentable square feet\b|\bbusiness\b.*\bpremises\b/i.test(text) &&
    !/\bresidential\b|\bapartment\b|\bdwelling unit\b/i.test(text.slice(0, 3000));
  return {
    type: commercial ? 'commercial' : 'residential',
    propertyAddress: propertyAddress(all, entries),
    landlord,
    manager,
    tenant,
    leaseStart: start,
    leaseEnd: end,
    termRules: rules,
    requirements: requirements(all, entries),
  };
}
