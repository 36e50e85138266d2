// Mortgagees, lienholders, loss payees, additional insureds and interests: the parties a declarations page lists
// under a caption or in a column of its own.
import type { PageText, Line } from '../documents/layout.ts';
import type { Emit } from './kinds/types.ts';
import { looksLikeName } from './names.ts';
import { findLabelledBlock, fromFound } from './layout_query.ts';
import { cleanValue, isCityStateZip } from './normalise.ts';

/** A line that is part of an address: a street number, a PO box, a suite, or a city-state-ZIP line. */
export const ADDRESS_LINE = (s: string) => /^\d+\s+\w|^p\.?\s*o\.?\s*box|^suite|^apt|^unit/i.test(s) || isCityStateZip(s);

// A party caption may go on with words that are not the party ("Mortgagee Name and Address", "MORTGAGEE INFORMATION",
// "Mortgagee and Additional Interests"): the caption takes them, so the name is looked for beside or under it.
// Or with a designation after a dash, up to a colon ("Additional Insured - Lessor of Premises: …").
const CAPTION_TAIL = String.raw`(?:\s*\(s\))?(?:\s+and\s+additional\s+interests?)?(?:\s+(?:information|names?(?:\s+and\s+address(?:es)?)?))?(?:\s*[-–—]\s*[A-Za-z][A-Za-z ,'/&]{2,60}?(?=\s*:))?`;
const PARTY_LABELS: [RegExp, string][] = (
  [
    [/(?:first\s+|second\s+|1st\s+|2nd\s+)?mortgagee|mortgage\s+holder/i, 'mortgagee'],
    [/lien\s*holder|lienholder|finance\s+company/i, 'lienholder'],
    [/loss\s+payee/i, 'loss_payee'],
    [/additional\s+insured/i, 'additional_insured'],
    [/additional\s+interests?/i, 'additional_interest'],
    [/interested\s+part(?:y|ies)/i, 'interested_party'],
  ] as [RegExp, string][]
).map(([re, role]) => [new RegExp(`(?:${re.source})${CAPTION_TAIL}`, 'i'), role]);

/** A row of a forms list: a form's title beside its edition date or number ("Additional Insured  03/01/2008"). */
const formsRow = (line: Line) =>
  line.cells.length >= 2 && line.cells.some((c) => /^\d{1,2}\/\d{2}(?:\/\d{2,4})?$|^[A-Z][A-Z0-9 -]*\d\s?\d{2}[\s-]\d{2}$/.test(c.text.trim()));
/**
 * The party's name without its list number ("1. OLD NATIONAL BANK") or the designation before it when a scan parted
 * that from its caption ("Additional Insured" | "Lessor of Premises: Lincolnway Properties LLC").
 */
const partyName = (s: string) => cleanValue(s.replace(/^\d{1,2}[.)]\s+/, '').replace(/^[-–—\s]*[A-Za-z][A-Za-z ,'/&]{2,60}:\s+(?=\S)/, ''));
const LENDER = /^[A-Z][\w&.,'’ -]+\b(bank|mortgage|financ\w*|credit|lending|servicing|acceptance|accept|leasing|motor)\b/i;
/** A lender's or interest's name, not a caption fragment ("ed Party - None", "Name and Address", "and Additional Interests"). */
function isPartyName(name: string): boolean {
  if (!name || /^\d/.test(name) || /endorse|provisions|if the certificate|^(and|or|none|the following)\b/i.test(name)) return false;
  // A document's title in a list of attached forms ("Disclosure Notice") is not a party.
  if (/\b(notice|disclosure|exclusion|endorsement|coverage|policy|terms|statement|conditions|schedule|form)s?\b/i.test(name)) return false;
  if ((LENDER.test(name) && !/[:/]/.test(name)) || looksLikeName(name)) return true;
  // A title-case name with "of" or "the" in it ("The Avenues of Kennesaw", "Bank of the West").
  const words = name.split(/\s+/);
  return words.length >= 2 && words.length <= 7 && /^[A-Z]/.test(name) && words.every((w) => /^[A-Z][A-Za-z'’.&-]*,?$|^(of|the|and|&|at|on|de|la)$/.test(w));
}
/**
 * "ISAOA/ATIMA" (its successors and/or assigns, as their interests may appear) belongs to the lender's name above it.
 * A scan may read its O as Q or 0 ("ISAQA/ATIMA"): the fixed term is written as it is spelled.
 */
const SUCCESSORS = /^(isa[oq0]a|atima|its\s+successors)\b/i;
const successorsTerm = (s: string) => s.replace(/^(isa)[q0](a)\b/i, (_m, a: string, b: string) => `${a}${a === a.toUpperCase() ? 'O' : 'o'}${b}`);

/**
 * A party written with its address on the same line ("Oak Street Properties LLC, 100 Main Street, Springfield, IL
 * 62701"): the name before the comma that a street number or PO box follows, and the address after it.
 */
export function nameAndAddress(s: string): { name: string; address: string | null } {
  const m = /^(.+?),\s+(\d+\s+[A-Za-z].*|p\.?\s*o\.?\s*box\b.*)$/i.exec(s.trim());
  return m ? { name: m[1], address: cleanValue(m[2]) } : { name: s, address: null };
}

/** A role written after a party's name: "Acme Bank, Loss Payee", "Acme Bank - Mortgagee", "Acme Bank (Lienholder)". */
const STATED_ROLE =
  /^(.+?)\s*(?:,|\s[-–]\s|\()\s*(?:as\s+)?(?:first\s+|second\s+)?(mortgagee|loss\s+payee|lien\s*holder|additional\s+insured|additional\s+interest)s?\s*\)?\.?$/i;
/** Captions that name no particular role: a role the party's line states is the more exact. */
const GENERAL_ROLES = new Set(['additional_interest', 'interested_party']);
/** The share of its confidence a role keeps when the party's line states one other than its caption's. */
const ROLE_DISAGREES = 0.85;

/** A party's name without the role written after it, and that role. */
export function statedRole(s: string): { name: string; role: string | null } {
  const m = STATED_ROLE.exec(s.trim());
  if (!m) return { name: s, role: null };
  const said = m[2].toLowerCase().replace(/\s+/g, ' ');
  const role = /mortgagee/.test(said) ? 'mortgagee' : /loss/.test(said) ? 'loss_payee' : /lien/.test(said) ? 'lienholder' : said.replace(' ', '_');
  return { name: cleanValue(m[1]), role };
}

export function parties(pages: PageText[], emit: Emit, startAt = 0): number {
  let n = startAt;
  const seen = new Set<string>();
  for (const [re, role] of PARTY_LABELS) {
    const f = findLabelledBlock(pages, re, 3, { skipLine: formsRow, accept: (s) => isPartyName(partyName(nameAndAddress(s).name)) });
    if (!f) continue;
    const [first, ...rest] = f.value;
    const one = nameAndAddress(first);
    const stated = statedRole(one.name);
    let name = partyName(stated.name);
    if (rest[0] && SUCCESSORS.test(rest[0].trim())) name = `${name} ${successorsTerm(cleanValue(rest.shift()!))}`;
    seen.add(name.toLowerCase());
    const base = { ...fromFound(f), rule: `${role}: the name under or beside its caption` };
    emit({ pointer: `/interested_parties/${n}/name`, value: name, ...base });
    // A role the line states goes before its caption's; against a caption of another role, less surely.
    const disagrees = stated.role !== null && stated.role !== role && !GENERAL_ROLES.has(role);
    emit({
      pointer: `/interested_parties/${n}/role`,
      value: stated.role ?? role,
      ...base,
      confidence: disagrees ? base.confidence * ROLE_DISAGREES : base.confidence,
    });
    const addr = [...(one.address ? [one.address] : []), ...rest.filter(ADDRESS_LINE).map(cleanValue)];
    emit({ pointer: `/interested_parties/${n}/address`, value: addr.length ? addr.join(', ') : null, ...base });
    n++;
  }
  return columnParties(pages, emit, n, seen);
}

/**
 * Lienholders and mortgagees in a column of a vehicle or location table: "Vehicles | VIN | Vehicle Location | Finance
 * Company/ Lienholder", "Prem. No. | Bldg. No. | Mortgageholder Name: | Mortgageholder Address:", one name per row, a
 * long name wrapped onto the next line of the same column.
 */
function columnParties(pages: PageText[], emit: Emit, startAt: number, seen: Set<string>): number {
  let n = startAt;
  for (const page of pages) {
    for (let li = 0; li < page.lines.length; li++) {
      const header = page.lines[li];
      const col = header.cells.find((c) =>
        /^(?:finance\s+company\s*\/?\s*)?(?:lien\s*holder|lienholder|loss\s+payee)s?$|^finance\s+company\s*\/?$|^(?:mortgage\s*holder|mortgagee)(?:'s)?\s+name:?$/i.test(
          c.text.trim(),
        ),
      );
      if (!col || header.cells.length < 3) continue;
      const others = header.cells.filter((c) => c !== col).map((c) => c.x);
      const inCol = (x: number) => Math.abs(x - col.x) <= 15;
      let last: { name: string; text: string[] } | undefined;
      const found: { name: string; text: string[] }[] = [];
      for (let k = li + 1; k < page.lines.length; k++) {
        const line = page.lines[k];
        const aligned = line.cells.filter((c) => others.some((x) => Math.abs(c.x - x) <= 15)).length;
        const cell = line.cells.find((c) => inCol(c.x));
        if (aligned >= 2) {
          // A row of the table: its name in the column, if any.
          last = cell ? { name: cell.text, text: [line.text] } : undefined;
          if (last) found.push(last);
        } else if (cell && line.cells.length === 1) {
          // The header's second line ("Lienholder"), or a name wrapped onto the next line.
          if (last && line.y - (page.lines[k - 1].y + page.lines[k - 1].h) < line.h * 1.5) {
            last.name = `${last.name} ${cell.text}`;
            last.text.push(line.text);
          }
        } else break;
      }
      const role = /mortgage/i.test(col.text) ? 'mortgagee' : /loss\s+payee/i.test(col.text) ? 'loss_payee' : 'lienholder';
      for (const f of found) {
        const name = partyName(f.name);
        if (!isPartyName(name) || seen.has(name.toLowerCase())) continue;
        seen.add(name.toLowerCase());
        const base = {
          page: page.page,
          text: f.text.join('\n'),
          confidence: page.source === 'ocr' ? 0.7 : 0.8,
          source: page.source === 'ocr' ? 'ocr' : 'rules',
          rule: `${role}: the "${col.text.trim()}" column of the table`,
        } as const;
        emit({ pointer: `/interested_parties/${n}/name`, value: name, ...base });
        emit({ pointer: `/interested_parties/${n}/role`, value: role, ...base });
        emit({ pointer: `/interested_parties/${n}/address`, value: null, ...base });
        n++;
      }
      if (found.length) return n;
    }
  }
  return n;
}
