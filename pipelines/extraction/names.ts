// Carrier and named insured: who underwrites the policy and who holds it, shared by every declarations kind.
//  - Carrier: every insurer-shaped legal name in the document ("… Insurance Company", "… Casualty Corp.",
//    "… Reciprocal Exchange", "State Farm Lloyds") is scored (legal suffix, "issued by"/"underwritten by"
//    context, repetition, a known US insurer brand); agencies and generic phrases are refused. A brand alone
//    ("GEICO", "Farmers Insurance") is the fallback when no legal name is printed.
//  - Named insured: each labelled occurrence is tried in turn (rest of the label's cell, the cell below, the
//    cell beside) until a value reads like a name; otherwise the first name of the mailing-address block.
import type { PageText, Line, Cell } from '../documents/layout.ts';
import type { Candidate } from './candidates.ts';
import { cellSource, cellsBelow } from './layout_query.ts';
import { cleanValue, isCityState, isCityStateZip, isOrganisation, mendStateCode, splitPersonName } from './normalise.ts';
import { INSURER_BRANDS, isKnownInsurer } from './insurers.ts';

type Emit = (c: Omit<Candidate, 'source' | 'confidence'> & Partial<Pick<Candidate, 'source' | 'confidence'>>) => void;

/** Common US insurer brands (groups and direct writers), from the built-in list in insurers.ts. */
export { INSURER_BRANDS };
const BRAND_RE = new RegExp(`\\b(${INSURER_BRANDS.map((b) => b.replace(/[.*+?^${}()|[\]\\-]/g, '\\$&')).join('|')})\\b`, 'i');

const SUFFIX_WORD = /^(insurance|casualty|indemnity|assurance|underwriters|reciprocal|lloyds|lloyd's|mutual|exchange|surety|guaranty)$/i;
const LEGAL_TAIL = /^(company|co\.?|corporation|corp\.?|exchange|association|inc\.?|lloyds|reciprocal)$/i;
const CONNECTOR = /^(and|&|of|the|for)$/i;
const LEAD_STOP =
  /^(the|by|issued|provided|underwritten|written|coverage|your|our|this|policy|is|from|with|company:?|insurer:?|carrier:?|president,?|at|a|an|to|in|for|and|of|&|thank|you|by:)$/i;
const NOT_CARRIER =
  /\b(limits?|certificate|evidence|declarations?|schedule|notice|proof|statement|agency|agent|agents|group|services|brokers?|brokerage|associates|financial|network|solutions|center|centre|department|division|claims?|plan|program|package|bundle|discount|savings|policy|policies|coverage|premium|identification|card|information|score|fraud|rights|law|guaranty fund|department of insurance)\b/i;
const GENERIC =
  /^(the\s+)?((property|home|homeowners|auto|automobile|renters|life|flood|title|umbrella|personal|commercial|business|health|your)\s+)*(insurance|mutual|casualty)(\s+(company|co\.?))?$/i;

interface CarrierCandidate {
  name: string;
  score: number;
  page: number;
  text: string;
  line: Line;
  count: number;
}

/** Insurer-shaped names in a line: words ending in an insurer word, with an optional legal tail. */
export function insurerNamesIn(text: string): string[] {
  const words = text
    .replace(/[“”"()]/g, ' ')
    .split(/\s+/)
    .filter(Boolean);
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const w = words[i].replace(/[,;:]+$/, '');
    if (!SUFFIX_WORD.test(w)) continue;
    // Extend right over further insurer words and a legal tail ("Insurance Company of America").
    let end = i;
    while (end + 1 < words.length) {
      const n = words[end + 1].replace(/[,;:]+$/, '');
      if (SUFFIX_WORD.test(n) || LEGAL_TAIL.test(n) || SUFFIX_WORD.test(n.replace(/\.$/, ''))) {
        end++;
        if (/[,;:]$/.test(words[end])) break;
        continue;
      }
      if (/^of$/i.test(n) && words[end + 2] && /^[A-Z]/.test(words[end + 2]) && LEGAL_TAIL.test(words[end].replace(/[,;:]+$/, ''))) {
        end += 2;
        if (words[end + 1] && /^[A-Z][a-z]+$/.test(words[end + 1]) && !LEAD_STOP.test(words[end + 1])) end++;
        break;
      }
      break;
    }
    // Extend left over capitalised words and connectors.
    let start = i;
    while (start - 1 >= 0) {
      const p = words[start - 1];
      if (/[.;:!?]$/.test(p) && !/^(co|corp|inc|st)\.$/i.test(p)) break;
      if (/^[A-Z0-9][\w'’.&-]*,?$/.test(p) || CONNECTOR.test(p)) {
        if (/,$/.test(p)) break;
        start--;
        continue;
      }
      break;
    }
    while (start < i && (LEAD_STOP.test(words[start].replace(/[,:]$/, '')) || CONNECTOR.test(words[start]))) start++;
    // "SOCIETY INSURANCE, A MUTUAL COMPANY": the company's styled legal name keeps its "a mutual/stock company" tail.
    if (
      /,$/.test(words[end]) &&
      /^a$/i.test(words[end + 1] ?? '') &&
      /^(mutual|stock)$/i.test(words[end + 2] ?? '') &&
      /^company\b/i.test(words[end + 3] ?? '')
    )
      end += 3;
    const name = cleanValue(
      words
        .slice(start, end + 1)
        .join(' ')
        .replace(/[,;:]+$/, '')
        .replace(/(?<!\b(?:co|corp|inc|ltd))\.$/i, ''),
    );
    if (name.split(/\s+/).length >= 2 && /^[A-Z0-9]/.test(name)) out.push(name);
    i = end;
  }
  return out;
}

/** Score every insurer-shaped name in the document and emit the best as /policy/provider. */
export function findCarrier(pages: PageText[], emit: Emit): void {
  const byName = new Map<string, CarrierCandidate>();
  // Positions count among the pages read: a located packet's declarations are its first page read.
  pages.slice(0, 12).forEach((page, k) => {
    for (const line of page.lines) {
      // Names are read cell by cell: two blocks side by side ("Maple & Vine Florists LLC" under INSURED, the carrier
      // under COMPANY) are one line of text but never one name. A name found in no single cell is read from the line.
      const inCells = line.cells.flatMap((c) => insurerNamesIn(c.text));
      for (const name of inCells.length ? inCells : insurerNamesIn(line.text)) {
        if (NOT_CARRIER.test(name) || GENERIC.test(name) || name.length > 80) continue;
        const key = name
          .toLowerCase()
          .replace(/[^a-z0-9]+/g, ' ')
          .trim();
        const prev = byName.get(key);
        if (prev) {
          prev.count++;
          continue;
        }
        let score = 0;
        const last = name.split(/\s+/).pop()!;
        // "… Company of America" is a legal name; "Limit of Insurance" is not.
        if (
          LEGAL_TAIL.test(last) ||
          /lloyds|exchange|reciprocal/i.test(last) ||
          /\b(company|corporation|insurance|assurance|casualty|indemnity) of [A-Z]/i.test(name)
        )
          score += 3;
        if (BRAND_RE.test(name)) score += 2;
        // One of the built-in legal names (insurers.ts): a carrier, wherever it is printed.
        if (isKnownInsurer(name)) score += 3;
        if (
          /issued by|underwritten by|written by|provided by|insurer|insurance company:|company:|carrier|president|a stock|a mutual|is a member/i.test(line.text)
        )
          score += 2;
        if (/agent|agency|producer|broker/i.test(line.text)) score -= 2;
        if (k <= 2) score += 1;
        // A name standing alone in the page header is the letterhead.
        if (k <= 1 && line.y < page.height * 0.2 && line.cells.some((c) => cleanValue(c.text) === name)) score += 2;
        byName.set(key, { name, score, page: page.page, text: line.text, line, count: 1 });
      }
    }
  });
  const ranked = [...byName.values()].map((c) => ({ ...c, total: c.score + Math.min(3, c.count - 1) })).sort((a, b) => b.total - a.total || a.page - b.page);
  let best = ranked[0];
  // A brand ("Liberty Mutual") that begins a legal name found elsewhere ("Liberty Mutual Insurance Company") is
  // that company's short form: the legal name is the carrier.
  if (best && !LEGAL_TAIL.test(best.name.split(/\s+/).pop()!)) {
    const key = best.name.toLowerCase();
    const longer = ranked.find((c) => c !== best && c.name.toLowerCase().startsWith(`${key} `) && LEGAL_TAIL.test(c.name.split(/\s+/).pop()!) && c.total >= 3);
    if (longer) best = longer;
  }
  if (best && best.total >= 3) {
    const page = pages.find((p) => p.page === best.page)!;
    emit({
      pointer: '/policy/provider',
      value: best.name,
      page: best.page,
      text: best.text,
      confidence: Math.min(0.95, 0.6 + best.total * 0.04) * (page.source === 'ocr' ? 0.9 : 1),
      rule: `carrier: insurer legal name, best of ${ranked.length} scored (legal suffix, issuer wording, known brand, header, repetition)`,
      source: page.source === 'ocr' ? 'ocr' : 'rules',
    });
    return;
  }
  // No legal name printed: the brand at the top of the first pages.
  for (const page of pages.slice(0, 3)) {
    for (const line of page.lines) {
      if (line.y > page.height * 0.5) break;
      for (const cell of line.cells) {
        const t = cleanValue(cell.text);
        // (A home office's city, "Hartford, Connecticut", names a brand but is a place.)
        if (
          t.length > 40 ||
          isCityState(t) ||
          /policy|declaration|page|agent|agency|call|visit|contact|\b(dear|hotline|claims|member|customer|service|phone)\b/i.test(t)
        )
          continue;
        const m = BRAND_RE.exec(t);
        if (!m) continue;
        const value = /insurance$/i.test(t) || t.split(/\s+/).length <= 3 ? t.replace(/[’'`®™]+$/, '') : m[1];
        emit({
          pointer: '/policy/provider',
          value,
          page: page.page,
          text: cell.text,
          confidence: 0.55,
          source: cellSource(page, cell),
          rule: 'carrier: brand in the page header (no legal name printed)',
        });
        return;
      }
    }
  }
}

const LABEL_WORDS =
  /\b(page|vehicles?|information|address|location|named|insured|policy|coverages?|premium|agent|agency|discount|number|date|period|effective|expiration|mailing|phone|total|drivers?|description|property|limits?|deductible|dear|thank|your|schedule|endorsements?|forms?|none|n\/a|applicant|yes|no|see|attached|customer|member|account|billing|residence|household|underwritten|issuing)\b/i;

/** Whether a text reads like a person's or an organisation's name (not a label, a sentence or an address). */
export function looksLikeName(s: string): boolean {
  const t = cleanValue(s);
  if (t.length < 3 || t.length > 70 || /^\(|^\d|[:@]|https?:|\.com\b/i.test(t) || isCityStateZip(t)) return false;
  if (!/^[A-Z]/.test(t)) return false;
  if (isOrganisation(t)) return !/^(page|policy|coverage)\b/i.test(t);
  if (LABEL_WORDS.test(t)) return false;
  const words = t.split(/\s+/);
  return words.length >= 2 && words.length <= 6 && words.every((w) => /^[A-Z][A-Za-z'’.-]*,?$|^(and|&)$|^[A-Z]\.?$/.test(w));
}

const NAMED_INSURED_LABEL =
  /^mailing\s+name\s+and\s+address(?:\s+(?:for|of)\s+(?:the\s+)?insured)?|^named\s+[il]nsured'?s\s+(?:full\s+)?name|^(?:first\s+)?named\s+insured(?:\(s\))?(?:\s+and\s+(?:mailing\s+)?address)?|^insured(?:'s)?\s+name|^name\s+of\s+insured|^name\s+and\s+(?:mailing\s+)?address\s+of\s+(?:the\s+)?(?:named\s+)?insured|^policy\s*holder(?:\(s\))?(?:\s+name)?|^primary\s+insured|^applicant(?:\s+name)?|^insured(?:\s+and\s+mailing\s+address)?(?=\s*:|\s*$)/i;

interface NameHit {
  name: string;
  page: PageText;
  cell: Cell;
  line: Line;
  text: string;
  confidence: number;
  rule: string;
}

/** The first labelled named insured whose value reads like a name. */
function labelledInsured(pages: PageText[]): NameHit | undefined {
  for (const page of pages.slice(0, 6)) {
    for (const line of page.lines) {
      for (let ci = 0; ci < line.cells.length; ci++) {
        const cell = line.cells[ci];
        const m = NAMED_INSURED_LABEL.exec(cell.text);
        if (!m) continue;
        const tries: { text: string; cell: Cell; line: Line; conf: number }[] = [];
        const rest = cleanValue(cell.text.slice(m[0].length).replace(/^[\s:?]+/, ''));
        if (rest) tries.push({ text: rest, cell, line, conf: 0.9 });
        const next = line.cells[ci + 1];
        const below = cellsBelow(page, line, cell, 2.5, 14).slice(0, 2);
        // A row of column captions ("NAME AND ADDRESS OF INSURED    Insurer"): the next cell heads its own column,
        // with its value under it, and the insured's name is under the label.
        const header = !rest && next !== undefined && below.length > 0 && cellsBelow(page, line, next, 2.5, 14).length > 0;
        if (next && next.x - (cell.x + cell.w) < 150 && !header) tries.push({ text: next.text, cell: next, line, conf: 0.85 });
        for (const b of below) tries.push({ text: b.cell.text, cell: b.cell, line: b.line, conf: 0.85 });
        for (const t of tries) {
          const v = cleanValue(t.text.replace(/^\d+[.)]\s+/, ''));
          // Under an explicit insured-name caption a one-word business name ("SENSIBLE") is a name too.
          const oneWord = /^[A-Z][A-Za-z&'-]{2,}$/.test(v) && !LABEL_WORDS.test(v) && /name/i.test(m[0]);
          if (looksLikeName(v) || oneWord)
            return {
              name: v,
              page,
              cell: t.cell,
              line: t.line,
              text: `${cell.text}\n${t.text}`,
              confidence: (page.source === 'ocr' ? 0.8 : 1) * t.conf,
              rule: `named insured: value of the label "${m[0].trim()}"`,
            };
        }
      }
    }
  }
  return undefined;
}

/** The insured's own "Mailing address" caption, a cell of its own ("Lienholder mailing address" is not it). */
const MAILING_ADDRESS_LABEL = /^(?:(?:named\s+)?insured'?s?\s+|policyholder'?s?\s+)?mailing\s+address\s*:?$/i;

/** The first "Mailing address" caption of the document's first pages, as a place to read an address under. */
function mailingAddressLabel(pages: PageText[]): NameHit | undefined {
  for (const page of pages.slice(0, 6))
    for (const line of page.lines)
      for (const cell of line.cells)
        if (MAILING_ADDRESS_LABEL.test(cell.text.trim()))
          return {
            name: '',
            page,
            cell,
            line,
            text: cell.text,
            confidence: page.source === 'ocr' ? 0.8 : 1,
            rule: `named insured: label "${cell.text.trim()}"`,
          };
  return undefined;
}

/** The mailing-address block's first line: a name above a street line and a "City, ST 12345" line. */
function addressBlockInsured(pages: PageText[]): NameHit | undefined {
  for (const page of pages.slice(0, 3)) {
    for (let i = 0; i < page.lines.length; i++) {
      for (const cz of page.lines[i].cells) {
        if (!isCityStateZip(cz.text)) continue;
        // Walk up the same column: street line(s), then the name.
        const col: { cell: Cell; line: Line }[] = [];
        let blockTop = cz.y;
        for (let k = i - 1; k >= Math.max(0, i - 8) && col.length < 4; k--) {
          const c = page.lines[k].cells.find((x) => Math.abs(x.x - cz.x) < 10);
          if (!c) {
            // A line of the column beside ("Policy Period: …") printed between two lines of the block: step over it
            // while it stays within the block's line spacing.
            if (blockTop - page.lines[k].y <= 2.5 * cz.h) continue;
            break;
          }
          col.push({ cell: c, line: page.lines[k] });
          blockTop = c.y;
        }
        const streetAt = col.findIndex((c) => /^\d+\s+\w|^p\.?\s*o\.?\s*box/i.test(c.cell.text));
        if (streetAt < 0) continue;
        const above = col.slice(streetAt + 1);
        // The first named insured is the top-most name line of the block.
        const names = above.filter(
          (c) =>
            looksLikeName(c.cell.text) &&
            !/insurance|casualty|indemnity|assurance|underwriters|mutual|lloyds|agency|\bagy\b|agent|claims|payment/i.test(c.cell.text),
        );
        const around = page.lines
          .slice(Math.max(0, i - 6), i + 1)
          .map((l) => l.text)
          .join(' ');
        if (names.length === 0 || /agent|agency|producer|remit|payment|mail to|claims|correspondence/i.test(around)) continue;
        const top = names[names.length - 1];
        return {
          name: cleanValue(top.cell.text),
          page,
          cell: top.cell,
          line: top.line,
          text: [
            top.cell.text,
            ...col
              .slice(0, streetAt + 1)
              .reverse()
              .map((c) => c.cell.text),
            cz.text,
          ].join('\n'),
          confidence: 0.6,
          rule: 'named insured: first name line of the unlabelled mailing-address block',
        };
      }
    }
  }
  return undefined;
}

/** A line that ends an address with only the state and ZIP ("MI 48775": the city stayed on the street line). */
const STATE_ZIP = /^[A-Z]{2}\.?,?\s+\d{5}(?:-\d{4})?$/;

/** The address printed under a name: street line(s) down to "City, ST 12345" (or "ST 12345"). */
function addressBelow(hit: NameHit): { address: string; cite: { page: number; text: string; source: Candidate['source']; rule: string } } | undefined {
  const below = cellsBelow(hit.page, hit.line, hit.cell, 2.5, 14)
    .slice(0, 5)
    .map((b) => mendStateCode(b.cell.text));
  const addr: string[] = [];
  for (const l of below) {
    const end = isCityStateZip(l) || STATE_ZIP.test(l.trim());
    if (/^\d+\s+\w|^p\.?\s*o\.?\s*box|^(apt|unit|suite|ste)\b/i.test(l) || (addr.length > 0 && end)) addr.push(cleanValue(l));
    else if (addr.length === 0 && looksLikeName(l))
      continue; // a second named insured
    else break;
    if (end) break;
  }
  if (!(addr.length >= 2 || (addr.length === 1 && isCityStateZip(addr[0])))) return undefined;
  return {
    address: addr.join(', '),
    cite: {
      page: hit.page.page,
      text: [hit.text, ...below].join('\n'),
      source: cellSource(hit.page, hit.cell),
      rule: `address: lines under ${hit.rule.replace(/^named insured: /, '')}`,
    },
  };
}

/** Emit the named insured (person split into first/last, or organisation) and its mailing address when beside it. */
/**
 * An insurer's letter names the insured in a sentence: "This letter confirms that Jordan Lee is insured under …",
 * "we certify that Northwind Analytics, Inc. has a renters policy". Weaker evidence than a caption.
 */
const INSURED_SENTENCE =
  /\b(?:confirms?|certif(?:y|ies)|verif(?:y|ies)|states?)\s+that\s+([A-Z][A-Za-z.'’&-]*(?:,?\s+(?:[A-Z][A-Za-z.'’&-]*|of|and|&)){1,6}?)\s+(?:is|are|was|were|has|have)\s+(?:been\s+)?(?:insured|covered|(?:an?\s+)?(?:active\s+)?(?:renters|homeowners|tenants?|insurance)\s+(?:insurance\s+)?polic)/;
function sentenceInsured(pages: PageText[]): NameHit | undefined {
  for (const page of pages.slice(0, 2))
    for (const line of page.lines)
      for (const cell of line.cells) {
        const m = INSURED_SENTENCE.exec(cell.text);
        if (!m || !(looksLikeName(m[1]) || isOrganisation(m[1]))) continue;
        return {
          name: cleanValue(m[1]),
          page,
          cell,
          line,
          text: line.text,
          confidence: page.source === 'ocr' ? 0.5 : 0.6,
          rule: 'named insured: named in a sentence',
        };
      }
  return undefined;
}

export function findNamedInsured(pages: PageText[], emit: Emit): boolean {
  const hit = labelledInsured(pages) ?? addressBlockInsured(pages) ?? sentenceInsured(pages);
  if (!hit) return false;
  const base = { page: hit.page.page, text: hit.text, confidence: hit.confidence, source: cellSource(hit.page, hit.cell), rule: hit.rule };
  const name = hit.name;
  if (isOrganisation(name)) emit({ pointer: '/policyholder/organization', value: name, ...base });
  else {
    const p = splitPersonName(name);
    if (p) {
      emit({ pointer: '/policyholder/first_name', value: p.first_name, ...base });
      emit({ pointer: '/policyholder/last_name', value: p.last_name, ...base });
    } else emit({ pointer: '/policyholder/organization', value: name, ...base, confidence: base.confidence * 0.7 });
  }
  // The address: lines below the name in its column, street first, down to "City, ST 12345". When the labelled name has
  // none below it (a "Named Insured" list beside the drivers), the unlabelled mailing-address block gives it.
  // A "Mailing address" caption of the declarations comes before an unlabelled block (a cover letter's window
  // address may be a sample's or an old one): the labelled box is what a reviewer reads.
  let where = addressBelow(hit);
  if (!where && hit.rule.startsWith('named insured: value')) {
    const labelled = mailingAddressLabel(pages);
    where = labelled && addressBelow(labelled);
  }
  if (!where && hit.rule.startsWith('named insured: value')) {
    const block = addressBlockInsured(pages);
    if (block) where = addressBelow(block);
  }
  if (where) emit({ pointer: '/policyholder/address', value: where.address, ...base, ...where.cite, confidence: base.confidence * 0.9 });
  return true;
}
