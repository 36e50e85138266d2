// Labelled entries of a lease: a basic-lease-information table (label and value in either order or columns),
// numbered inline items ("1.4 Commencement Date: …") and a definitions article, each with its page.
import type { PageText } from '../documents/layout.ts';
import { FOLIO, pageLines, type Clause } from './text.ts';

export interface LabelledEntry {
  label: string;
  value: string;
  page: number;
  /** The lines the entry was read from. */
  text: string;
}

const SECTION_START = /^\s*(?:\d{1,2}(?:\.\d+)*[.)]\s*[A-Z(]|\d{1,2}(?:\.\d+)+\s*[A-Z(]|\([a-zA-Z0-9]{1,4}\)|ARTICLE\b|Section\s+\d)/;
const LABEL_TEXT = /^[A-Z][A-Za-z0-9’'&/().,\- ]{1,60}$/;
const LABEL_VERBS = /\b(?:shall|will|must|may|is|are|agrees?|has|have|was|were|be|hereby|following)\b/i;
const KNOWN_LABEL =
  /^(?:name of\s+)?(?:landlord|lessor|owner|tenants?|lessees?|residents?|managing agent|property manager|management company|premises|property|property address|premises address|leased premises|rental unit|unit address|address of (?:the )?premises|building|project|commencement date|lease commencement date|start date|lease start(?: date)?|expiration date|termination date|end date|lease end(?: date)?|lease expiration|lease begins|lease ends|term|lease term|move-in date)(?:\(s\))?(?:'s|’s)?(?:\s+names?)?$/i;

/** A summary item's list marker before its label: "(c) ", "c. ", "1.1(e) ", "Section 1.1(g) ". */
const LIST_MARKER = /^\s*(?:Section\s+)?(?:\d{1,2}(?:\.\d{1,2})*\s*)?(?:\([a-z0-9]{1,4}\)|[a-z][.)])\s+(?=[A-Z])/;

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
    // Labelled cells side by side: "Landlord: Elm Ridge LLC      Tenant: Owen Price".
    const pairs = cells.length >= 2 && l.text.indexOf(':') !== l.text.lastIndexOf(':') ? cells.map((c) => /^([^:]{2,40}):\s+(\S.*)$/.exec(c)) : [];
    if (pairs.length && pairs.every((p) => p && isLabel(p[1]))) {
      for (const p of pairs) out.push({ label: p![1].trim(), value: p![2].trim(), page: l.page, text: l.text });
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
    // "(c) Building: …", "1.1(e) Commencement Date: …": the list marker is not part of the label.
    const m = /^\s*([^:]{2,62}):\s*(.*)$/.exec(l.text.replace(LIST_MARKER, ''));
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
    // A label's qualifier is no part of it: "TENANTS (jointly and severally liable)".
    // A role in the label's parentheses is its label: "Service Member (Resident)".
    const label = m[1]
      .trim()
      .replace(/^.*\((tenants?|residents?|lessees?|landlords?|owners?|lessors?)\)$/i, '$1')
      .replace(/\s+\([^()]{3,60}\)$/, '');
    if (parts.length) out.push({ label, value: parts.join('\n'), page, text: onPage.join('\n') });
  }
  return out;
}

const MONTH_DATE = String.raw`(?:Jan(?:uary)?|Feb(?:ruary)?|Mar(?:ch)?|Apr(?:il)?|May|June?|July?|Aug(?:ust)?|Sep(?:t(?:ember)?)?|Oct(?:ober)?|Nov(?:ember)?|Dec(?:ember)?)\.?\s+\d{1,2},?\s+\d{4}`;
/** A numbered item of a summary run on within a line: "2.1 Building: 1825 South Grant Street … 2.2 Premises: …". */
const INLINE_ITEM = /(?:^|\s)\d{1,2}(?:\.\d{1,2})?\.?\s+([A-Z][A-Za-z’'&/\-, ]{1,50}?)(?:\s*\([^)]{0,30}\))?\.?:\s+/g;
/** Its label wrapped in a cell and flattened round the value: "3.2 Lease Commencement March 1, 2020. Date:". */
const WRAPPED_ITEM = new RegExp(String.raw`(?:^|\s)\d{1,2}\.\d{1,2}\.?\s+([A-Z][A-Za-z ]{2,40}?)\s+(${MONTH_DATE})\.?\s+([A-Z][a-z]+):`, 'g');
/** A summary item on insurance, kept for the clauses that refer to it for their limits. */
const INSURANCE_LABEL = /\binsurance\b|\bliability\b|\blimits?\b|\bcoverage\b/i;
const NEXT_ITEM = /\s\d{1,2}(?:\.\d{1,2})?\.?\s+[A-Z][A-Za-z’'&/\-, ]{1,50}?(?:\s*\([^)]{0,30}\))?\.?:\s/;

/**
 * The entries of a summary whose table was flattened into running text (an EDGAR or OCR text: "2. Premises
 * (Article 1). 2.1 Building: 1825 South Grant Street San Mateo, California 94402 2.2 Premises: …"). Only the
 * labels the lease facts are read from are kept, and the insurance items a clause may refer to ("1.9 Tenant's
 * Liability Insurance: $1,000,000 …", followed from "the limits set forth in Section 1.9").
 */
export function inlineEntries(pages: PageText[]): LabelledEntry[] {
  const out: LabelledEntry[] = [];
  const wanted = (l: string) => KNOWN_LABEL.test(l) || START_LABEL.test(l) || END_LABEL.test(l) || PREMISES_LABEL.test(l) || INSURANCE_LABEL.test(l);
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

export const PREMISES_LABEL =
  /^(?:the\s+)?(?:property address|premises address|address of (?:the )?(?:premises|property)|leased premises|demised premises|premises|property|rental (?:unit|address|property)|unit address|dwelling(?: address)?|apartment(?: address)?|(?:community|home|house|residence|site|street) address|(?:house|home|unit|apartment|dwelling|property|premises) rented|house|home|building|project|location)$/i;
export const START_LABEL =
  /^(?:lease\s+|term\s+)?(?:commencement|start|beginning)\s+date$|^(?:date of\s+)?commencement$|^move[- ]in(?: date)?$|^(?:lease |term |tenancy )?(?:begins|starts|commences)(?: on)?$|^lease (?:start|commencement)$/i;
export const END_LABEL =
  /^(?:lease\s+|term\s+)?(?:expiration|termination|end|ending|expiry)\s+date$|^(?:lease |term |tenancy )?(?:ends|expires|terminates)(?: on)?$|^lease (?:expiration|end|termination)$|^move[- ]out date$/i;
