// Text helpers of the lease checker: clauses with their page, amounts, party names and addresses compared the
// way the product's decision rules say (case, punctuation, LLC/Inc., c/o; St/Street, Apt/#/Unit).
import type { PageText } from '../documents/layout.ts';
import { normaliseText, parseMoney, STREET_ABBREVIATIONS } from '../extraction/normalise.ts';
import { ground, indexPages } from '../extraction/grounding.ts';
import type { Cited } from './schema.ts';

export interface Clause {
  text: string;
  page: number;
  /** The paragraph (numbered across the document) the clause is a sentence of. */
  para: number;
}

const PARAGRAPH_START =
  /^\s*(?:\d{1,2}(?:\.\d+)*[.)]\s|\d{1,2}(?:\.\d+)+\s?[A-Z]|[A-Z][A-Z &'/-]{3,}[:.]?\s*(?:\n|$)|\([a-zA-Z0-9]{1,4}\)\s?[A-Za-z]|ARTICLE\s|Section\s+\d)/;

/** A section number ("10.3.1 Commercial …", "8.04 Tenant's …") after a sentence end, within a line. */
const INLINE_SECTION = /(?<=[.;:])\s+(?=\d{1,2}(?:\.\d{1,2}){1,3}\.?\s+[A-Z])/;

/** A page's running folio ("Page 17", "Page 3 of 20", "- 4 -", "21", "iii"): no part of the text it interrupts. */
export const FOLIO = /^\s*(?:page\s+\d{1,3}(?:\s+of\s+\d{1,3})?|-\s*\d{1,3}\s*-|page\s+[ivxlc]{1,6}|[ivxlc]{1,6}|\d{1,3})\s*$/i;

/**
 * A fill-in form's caption under or after a blank: "(street address)", "(city)", "(zip code)", "(list all people
 * signing the Lease Contract)", "(name of apartment community or title holder)". No part of what was filled in.
 */
const FORM_CAPTION =
  /\s*\((?:list all [^()]{0,80}|name of [^()]{0,80}|street address|city|state|zip(?: code)?|county|unit(?: no\.?| number)?|apartment (?:no\.?|number)|print(?:ed)? names?[^()]{0,40})\)/gi;

/**
 * The sentences of a document, each with the page it starts on. Lines of a page are joined (hyphenated line
 * ends mended) and split at sentence ends and at headings, so a clause wrapped over lines reads as one. A page's
 * folio is left out, so a sentence a page break cuts continues in the page's next clause.
 */
export function clauses(pages: PageText[]): Clause[] {
  const out: Clause[] = [];
  let para = 0;
  for (const p of pages) {
    const text = p.lines
      .filter((l) => !FOLIO.test(l.text))
      .map((l) => l.text.replace(/\s{2,}/g, '  '))
      .join('\n');
    // A new paragraph: an empty-ish break, a numbered heading or an ALL CAPS heading line.
    // A list marker may run into its text ("(a)Commercial general liability", "4.2.4Insurance"); "Section 5" starts
    // a paragraph only after a sentence ends (mid-sentence it is a cross-reference wrapped onto a new line).
    const paras = text.split(
      /\n(?=\s*(?:\d{1,2}(?:\.\d+)*[.)]\s|\d{1,2}(?:\.\d+)+\s?[A-Z]|[A-Z][A-Z &'/-]{3,}[:.]?\s*(?:\n|$)|\([a-zA-Z0-9]{1,4}\)\s?[A-Za-z]|ARTICLE\s))|(?<=[.:;"”]\s*)\n(?=\s*Section\s+\d)/,
    );
    for (const [k, chunk] of paras.entries()) {
      // A page's first lines continue the paragraph the page before ended in, unless they start a new one.
      if (!(k === 0 && out.length && !PARAGRAPH_START.test(chunk))) para++;
      const joined = chunk
        .replace(/-\n(?=[a-z])/g, '')
        .replace(/\s*\n\s*/g, ' ')
        .replace(/\s{2,}/g, ' ')
        .replace(FORM_CAPTION, '')
        .trim();
      const filled = filledBlanks(joined);
      // A text whose lines were flattened runs its numbered sections on within a line ("… appropriate. 10.3.1
      // Commercial General Liability …"): a section number after a sentence end starts a paragraph too.
      for (const [n, section] of filled.split(INLINE_SECTION).entries()) {
        if (n > 0) para++;
        // Not after abbreviations ("Inc.", "St.", "No.") and not before a parenthesis ("Inc. (\"Tenant\")").
        for (const s of section.split(/(?<!\b[A-Z][a-z]{0,2}\.)(?<=[.;])\s+(?=[A-Z])/)) {
          const t = s.trim();
          if (t.length >= 3) out.push({ text: t, page: p.page, para });
        }
      }
    }
  }
  return out;
}

/** The lines of every page with their page number. */
export function pageLines(pages: PageText[]): { text: string; page: number; next: string }[] {
  return pages.flatMap((p) => p.lines.map((l, i) => ({ text: filledBlanks(l.text), page: p.page, next: filledBlanks(p.lines[i + 1]?.text ?? '') })));
}

/** A form's blank filled in by typing over its line: "___Dorothy M. Feldman___" is "Dorothy M. Feldman". */
// The typing touches the line on both sides; a blank left empty ("Apt #____ Hastings") is no filled one.
export const filledBlanks = (s: string) => (s.includes('__') ? s.replace(/_{2,}([^_\s](?:[^_\n]{0,158}[^_\s])?)_{2,}/g, '$1') : s);

// After a "$", OCR may read a thousands separator as a space or a dot ("$5 000,000").
const MONEY =
  /\$\s?\d{1,3}(?:[, .]\d{3})+(?:\.\d{2})?|\$\s?\d+(?:\.\d{2})?(?:\s?(?:k|m|mm|million)\b)?|\b\d{1,3}(?:,\d{3}){1,3}\b|\b\d+(?:\.\d+)?\s?(?:million|mm)\b/gi;

/** The amounts in a text, in order (only those written like money: "$", thousands separators or "million"). */
export function amountsIn(text: string): { value: number; index: number; text: string }[] {
  const out: { value: number; index: number; text: string }[] = [];
  for (const m of text.matchAll(MONEY)) {
    const v = parseMoney(m[0].replace(/\s+(?=million|mm)/i, ' '));
    if (v !== undefined && v >= 100) out.push({ value: v, index: m.index ?? 0, text: m[0] });
  }
  return out;
}

/** "$300,000". */
export function money(n: number): string {
  return `$${n.toLocaleString('en-US', { maximumFractionDigits: 0 })}`;
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
/** "Jan 1, 2026" — the text shape SPEC §2.8 gives the dates. */
export function shortDate(iso: string): string {
  const [y, m, d] = iso.split('-').map(Number);
  return `${MONTHS[m - 1]} ${d}, ${y}`;
}

const ENTITY_WORDS = /\b(llc|l l c|inc|incorporated|corp|corporation|co|company|ltd|limited|lp|llp|pllc|pc|plc|the|a|an)\b/g;

/** The parties a name stands for: "Oak Street Properties LLC c/o Acme Management" is both. */
export function partiesOf(name: string): string[] {
  return name
    .replace(/\b([A-Za-z])\.(?=\s?[A-Za-z]\.)/g, '$1') // "L.P." → "LP.", "L.L.C." → "LLC."
    .replace(PARTY_TAIL, '')
    .split(/\bc\s*\/\s*o\b|\bcare of\b|\bas agent for\b|\bon behalf of\b|\bmanaged by\b/i)
    .map((p) =>
      normaliseText(p)
        .replace(ENTITY_WORDS, ' ')
        .split(/\s+/)
        .map((w) => NAME_ABBREVIATIONS[w] ?? w)
        .join(' ')
        .replace(/\s+/g, ' ')
        .trim(),
    )
    .filter((p) => p.length > 1);
}

/** What follows a party's name on a certificate or in a lease without naming another: "…, its successors and assigns", "ISAOA/ATIMA", "and its property manager". */
const PARTY_TAIL =
  /,?\s*(?:(?:and\s+)?(?:its|their)\s+(?:successors|assigns|affiliates|subsidiaries|officers|directors|employees|agents|members|managers|property manager|managing agent)\b.*|\b(?:ISAOA|ATIMA)\b.*|\bas\s+(?:its|their)\s+interests?\s+may\s+appear\b.*|and\s+(?:the\s+)?Landlord\s+Parties\b.*)$/i;
/** Words a name is written both ways with. */
const NAME_ABBREVIATIONS: Record<string, string> = {
  street: 'st',
  avenue: 'ave',
  apartments: 'apts',
  apartment: 'apt',
  management: 'mgmt',
  associates: 'assoc',
  brothers: 'bros',
  international: 'intl',
  national: 'natl',
  center: 'ctr',
  centre: 'ctr',
  mount: 'mt',
  saint: 'st',
};

/** Same party after normalising case, punctuation, LLC/Inc. and c/o (either side may name a c/o party). */
export function sameParty(a: string | null | undefined, b: string | null | undefined): boolean {
  if (!a || !b) return false;
  const pa = partiesOf(a);
  const pb = partiesOf(b);
  if (pa.some((x) => pb.some((y) => x === y || x.replace(/ /g, '') === y.replace(/ /g, '')))) return true;
  // A couple written two ways: "Earl Tidwell and Doris Tidwell" is "Earl and Doris Tidwell".
  const couple = /\s(?:and|&)\s/i;
  if (!couple.test(a) || !couple.test(b)) return false;
  const words = (s: string) =>
    [
      ...new Set(
        normaliseText(s)
          .split(' ')
          .filter((w) => w.length > 1 && w !== 'and'),
      ),
    ]
      .sort()
      .join(' ');
  return words(a) === words(b);
}

/** The people or organisations in a list of names ("John Smith and Mary Jones", "A; B"). */
export function splitNames(s: string): string[] {
  return s
    .split(/\s*(?:;|\band\b|&|,\s*(?=[A-Z][a-z]+\s+[A-Z]))\s*/)
    .map((x) => x.trim())
    .filter((x) => x.length > 1);
}

/**
 * Whether the insured names cover one of the tenants: an organisation by `sameParty`, a person when their
 * first and last name are among the insured's words ("John & Jane Smith" covers "Jane Smith").
 */
export function insuredCoversTenant(insured: string | null | undefined, tenant: string | null | undefined): boolean {
  if (!insured || !tenant) return false;
  if (sameParty(insured, tenant)) return true;
  const words = new Set(normaliseText(insured).split(' '));
  for (const t of splitNames(tenant)) {
    if (sameParty(insured, t)) return true;
    const parts = normaliseText(t)
      .replace(ENTITY_WORDS, ' ')
      .split(' ')
      .filter((w) => w.length > 1);
    if (parts.length >= 2 && words.has(parts[0]) && words.has(parts[parts.length - 1])) return true;
  }
  return false;
}

/**
 * Whether an insured that is not the tenant still shares a name with them ("LEE" read for "LEE, JORDAN" off a
 * photo, "Kevin Lopez" for the tenant Maria Lopez): a word of three letters or more in common, not an entity word.
 */
export function sharesAName(insured: string | null | undefined, tenant: string | null | undefined): boolean {
  if (!insured || !tenant) return false;
  const words = (s: string) =>
    normaliseText(s)
      .replace(ENTITY_WORDS, ' ')
      .split(' ')
      .filter((w) => w.length >= 3);
  const own = new Set(words(insured));
  return words(tenant).some((w) => own.has(w));
}

const SUFFIXES: Record<string, string> = {
  ...STREET_ABBREVIATIONS,
  str: 'st',
  av: 'ave',
  trail: 'trl',
  square: 'sq',
  suite: 'unit',
  ste: 'unit',
  apartment: 'unit',
  apt: 'unit',
  unit: 'unit',
  no: 'unit',
  number: 'unit',
  building: 'unit',
  bldg: 'unit',
  route: 'rte',
  rt: 'rte',
  first: '1st',
  second: '2nd',
  third: '3rd',
  fourth: '4th',
  fifth: '5th',
  sixth: '6th',
  seventh: '7th',
  eighth: '8th',
  ninth: '9th',
  tenth: '10th',
  floor: 'fl',
  fl: 'fl',
  way: 'way',
};

export interface AddressParts {
  number: string | null;
  street: string | null;
  unit: string | null;
  zip: string | null;
}

/** Street number, street (suffixes abbreviated), unit (Apt/#/Unit/Suite) and ZIP of a one-line US address. */
export function addressParts(s: string): AddressParts {
  const zip = /\b(\d{5})(?:-\d{4})?\s*$/.exec(s.trim())?.[1] ?? /\b[A-Z]{2}\s+(\d{5})\b/.exec(s)?.[1] ?? null;
  // "Unit 4-B" is unit 4b.
  const t = s
    .replace(/#\s*/g, ' unit ')
    .toLowerCase()
    .replace(/[.,]/g, ' ')
    .replace(/\b(\d+)-([a-z])\b/g, '$1$2');
  const m = /\b(\d+[a-z]?(?:-\d+)?)\s+([a-z0-9 ]+)/.exec(t);
  if (!m) return { number: null, street: null, unit: null, zip };
  const words = m[2]
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => SUFFIXES[w] ?? w);
  // The street runs to its suffix; a unit follows "unit" ("Unit No. 407": the words that say unit, then the unit);
  // the city starts after that.
  const unitAfter = (i: number) => {
    while (words[i] === 'unit') i++;
    return words[i] ?? null;
  };
  const street: string[] = [];
  let unit: string | null = null;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    // A retail "Space 14" or "Store 5" is a unit only with its number ("Space Center Blvd" is a street).
    if (w === 'unit' || (/^(?:space|store)$/.test(w) && /^\d/.test(words[i + 1] ?? ''))) {
      unit = w === 'unit' ? unitAfter(i) : words[i + 1];
      break;
    }
    street.push(w);
    // "Route 9", "Hwy 42": the road's number ends the street.
    if (/^(?:rte|hwy)$/.test(w) && /^\d+$/.test(words[i + 1] ?? '')) {
      street.push(words[i + 1]);
      const nxt = words[i + 2];
      if (nxt === 'unit') unit = unitAfter(i + 2);
      break;
    }
    if (/^(st|ave|rd|dr|ln|blvd|ct|pl|pkwy|hwy|cir|ter|trl|sq|way)$/.test(w)) {
      // "12 Oak St Apt 4" or "12 Oak St 4B" (a bare unit right after the suffix).
      const nxt = words[i + 1];
      if (nxt === 'unit') unit = unitAfter(i + 1);
      else if (/^(?:space|store)$/.test(nxt ?? '') && /^\d/.test(words[i + 2] ?? '')) unit = words[i + 2];
      else if (nxt && /^\d+[a-z]?$|^[a-z]\d*$/.test(nxt) && nxt.length <= 4 && !/^\d{5}$/.test(nxt)) unit = nxt;
      break;
    }
    if (street.length >= 6) break;
  }
  if (!unit) unit = /\bunit\s+(?:unit\s+)*([a-z0-9-]+)/.exec(words.join(' '))?.[1] ?? null;
  return { number: m[1], street: street.join(' ') || null, unit, zip };
}

/** Check a value against the text of its page with the extraction engine's grounding. */
export function groundedOn(pages: PageText[], value: string | number | boolean, page: number, text: string): boolean {
  const p = pages.find((x) => x.page === page);
  if (!p) return false;
  // Normalising a page's text is the costly part: once per page object.
  let index = pageIndexes.get(p);
  if (!index) pageIndexes.set(p, (index = indexPages([p])));
  return ground({ pointer: '/v', value, page, text, confidence: 1, source: 'rules' }, index).ok;
}
const pageIndexes = new WeakMap<PageText, ReturnType<typeof indexPages>>();

/** A cited value, or null when the value cannot be found on the page it was read from. */
export function cite<T extends string | number | boolean>(
  pages: PageText[],
  value: T | null | undefined,
  page: number,
  text: string,
  groundAs?: string | number | boolean,
): Cited<T> | null {
  if (value === null || value === undefined) return null;
  return groundedOn(pages, groundAs ?? value, page, text) ? { value, page, text: text.slice(0, 400) } : null;
}
