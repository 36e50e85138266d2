// The party blocks of a certificate laid out freely: a producer / insured / holder caption ("Agent:", "NAME OF
// INSURED", "Issued To") with its block beside it (inline) or under it (boxed), in its column when two blocks stand
// side by side; the words of one value a scan read apart joined, and the residue it left beside them dropped.
import type { PageText, Cell, Line } from '../documents/layout.ts';
import { cleanValue, oneEditApart } from './normalise.ts';
import { DISCLAIMER } from './certificate.ts';

/** "… and Address", "… Name and Mailing Address": what a caption may add after the party's name. */
const AND_ADDRESS = String.raw`(?:\s+name)?(?:\s+(?:and|&)\s+(?:mailing\s+)?address)?`;
const caption = (words: string) => new RegExp(String.raw`^(?:${words})${AND_ADDRESS}\b\s*:?`, 'i');
// A member or program certificate names the insured as the member and the producer as the program's administrator; a
// professional employer organisation's certificate names the insured as its client company.
const PARTY_LABELS = {
  producer: caption(String.raw`producer|agent\s*\/\s*broker|agent|agency|broker|issued\s+by|program\s+(?:administrator|manager)`),
  insured: caption(
    String.raw`named\s+insured|first\s+named\s+insured|insured(?:'s)?\s+name|name\s+of\s+(?:the\s+)?insured|insured|policyholder|member(?:'s)?\s+name|member(?=\s*(?::|$))|client\s+(?:company|name)`,
  ),
  holder: caption(String.raw`certificate\s+holder|certificate\s+issued\s+to|issued\s+to|holder`),
} as const;
export type Party = keyof typeof PARTY_LABELS;

/** Each party's captions as words, for a caption a scan read with one letter wrong ("ISSURD BY", "Ingured:"). */
const CAPTION_WORDS: Record<Party, string[]> = {
  producer: ['producer', 'issued by', 'agent/broker', 'program administrator'],
  insured: ['named insured', 'insured', 'name of insured', 'insured name'],
  holder: ['certificate holder', 'certificate issued to', 'issued to'],
};
/** Captions of other things one letter from a party's ("Insurer", a column's). */
const NOT_PARTY = /^(?:insurer|insureds?)$/i;
/** How far right of a caption standing alone its value may stand on the caption's line. */
const INLINE_REACH = 160;
/** The shortest caption read with a letter wrong that is still taken for one. */
const MISREAD_MIN = 6;

/**
 * A party caption a scan misread by one letter, standing alone or before a colon: the match as `exec` gives it (the
 * caption and its colon). "Insurer" is another caption, never the insured's.
 */
function misreadCaption(party: Party, text: string): RegExpExecArray | null {
  const m = /^([A-Za-z][A-Za-z/ ]*[A-Za-z])\s*(:\s*|$)/.exec(text);
  if (!m || NOT_PARTY.test(m[1])) return null;
  const said = m[1].toLowerCase().replace(/\s+/g, ' ');
  return CAPTION_WORDS[party].some((w) => w.length >= MISREAD_MIN && said !== w && oneEditApart(said, w)) ? m : null;
}

/** A cell that is only a caption (a party label, the coverages heading, a table header). */
export const ANY_CAPTION = new RegExp(
  `${Object.values(PARTY_LABELS)
    .map((r) => r.source)
    .join('|')}|^coverages?\\b|^description\\b|^authori[sz]ed|^should any|^this certificate|^date issued`,
  'i',
);

export interface PartyBlock {
  lines: string[];
  cell: Cell;
  text: string;
}

/** All cells of the page with their line, in reading order. */
function cellsOf(page: PageText): { cell: Cell; line: Line; li: number }[] {
  return page.lines.flatMap((line, li) => line.cells.map((cell) => ({ cell, line, li })));
}

/** The block a party label introduces: the words beside it (inline) or under it (boxed), in its column. */
export function partyBlock(page: PageText, party: Party): PartyBlock | undefined {
  const label = PARTY_LABELS[party];
  const all = cellsOf(page);
  for (const { cell, line, li } of all) {
    const m = label.exec(cell.text.trim()) ?? misreadCaption(party, cell.text.trim());
    if (!m || DISCLAIMER.test(cell.text)) continue;
    // "Insured" is a caption only when it stands alone or has a colon (not "Insured Location", "Insurer").
    const rest = cleanValue(cell.text.trim().slice(m[0].length));
    if (!/:\s*$/.test(m[0]) && rest && /^[a-z]/.test(rest)) continue;
    // The column: up to the next caption to the right on this line (a block beside this one), else the page edge.
    const beside = page.lines
      .filter((l) => Math.abs(l.y - line.y) <= Math.max(4, line.h))
      .flatMap((l) => l.cells)
      .filter((c) => c.x > cell.x + cell.w + 20 && ANY_CAPTION.test(c.text.trim()) && !DISCLAIMER.test(c.text))
      .sort((a, b) => a.x - b.x)[0];
    let right = beside ? beside.x - 4 : page.width;
    const lines: string[] = [];
    const used: string[] = [cell.text];
    let valueX: number;
    let lastY = line.y;
    const lh = Math.max(line.h, 6);
    if (rest) {
      lines.push(rest);
      valueX = cell.x + (cell.w * (cell.text.length - cell.text.trimStart().length + m[0].length)) / Math.max(1, cell.text.length);
    } else {
      const next = line.cells.find((c) => c.x > cell.x + cell.w && c.x < right && c.x - (cell.x + cell.w) < INLINE_REACH);
      if (next) {
        lines.push(cleanValue(next.text));
        used.push(next.text);
        valueX = next.x;
      } else {
        valueX = Number.NaN;
        // A caption alone with words far to its right on its line ("Certificate Holder" … "Additional Insured
        // Status"): another box's caption stands there, whatever it says, and this block ends before it.
        const far = line.cells.find((c) => c.x >= cell.x + cell.w + INLINE_REACH && c.x < right);
        if (far) right = far.x - 4;
      }
    }
    for (let k = li + 1; k < page.lines.length && lines.length < 5; k++) {
      const l = page.lines[k];
      if (l.y - lastY > lh * 2.4) break;
      const inCol = l.cells.filter((c) => c.x >= cell.x - 6 && c.x < right && c.x + c.w <= right + 40);
      if (inCol.some((c) => ANY_CAPTION.test(c.text.trim()) || DISCLAIMER.test(c.text))) break;
      // Under the value (its estimated left edge may be a little off), not under a neighbouring label.
      // Before the value's edge is known, its first word is the line's leftmost in the column: a scan may have lost the
      // caption of a box beside this one, and that box's words far right on the line are not the value's.
      const leftmost = [...inCol].sort((a, b) => a.x - b.x).slice(0, 1);
      const start = Number.isNaN(valueX) ? leftmost : inCol.filter((c) => c.x <= valueX + 18 && c.x >= Math.min(cell.x, valueX - 18));
      // With the words that continue it along the line ("Chicago,"  "IL 60607" read apart).
      const near = withoutResidue(start.length ? [...new Set([...start, ...continued(start[start.length - 1], inCol, lh)])] : [], lh);
      if (!near.length) {
        if (lines.length) break;
        continue;
      }
      if (Number.isNaN(valueX)) valueX = near[0].x;
      lines.push(cleanValue(near.map((c) => c.text).join(' ')));
      used.push(near.map((c) => c.text).join(' '));
      lastY = l.y;
    }
    const kept = lines.filter((s) => /[a-z]/i.test(s));
    if (!kept.length) continue;
    return { lines: kept, cell, text: used.join('\n') };
  }
  return undefined;
}

/** How far apart (in line heights) two words of one value may stand: a scan parts "CUP" "9033306" in fixed pitch. */
const VALUE_GAP_LINES = 2;

/** `start` and the cells that continue it along its line, each within `VALUE_GAP_LINES` of the end of the one before. */
export function continued(start: Cell, cells: Cell[], lh: number): Cell[] {
  const out = [start];
  for (const c of [...cells].sort((a, b) => a.x - b.x)) {
    const last = out[out.length - 1];
    if (c.x <= last.x) continue;
    if (c.x - (last.x + last.w) > VALUE_GAP_LINES * lh) break;
    out.push(c);
  }
  return out;
}

/** The OCR confidence under which a short word far right of a block's text is a scan's residue, not the block's. */
const RESIDUE_CONF = 0.5;
/** How far (in line heights) right of the words before it such a residue stands. */
const RESIDUE_GAP_LINES = 3;

/** A block line's cells without the residue a scan leaves beside it ("Riverside Auto Body Inc   Ah"). */
function withoutResidue(cells: Cell[], lh: number): Cell[] {
  const kept: Cell[] = [];
  for (const c of cells) {
    const prev = kept[kept.length - 1];
    const far = prev && c.x - (prev.x + prev.w) > RESIDUE_GAP_LINES * lh;
    if (far && c.conf < RESIDUE_CONF && c.text.trim().length <= 3) continue;
    kept.push(c);
  }
  return kept;
}

/** An agency's words in a letterhead's name ("… Insurance Agency", "… Risk Partners", "… Brokerage Group"). */
const AGENCY_WORDS = /\b(?:agency|agents?|brokerage|brokers?|risk|partners|insurance\s+services|associates|advisors|consultants)\b/i;
/** A carrier's words: a carrier-branded evidence of insurance heads the page with the carrier, not the producer. */
const CARRIER_WORDS = /\b(?:casualty|indemnity|mutual|assurance|underwriters|insurance\s+company|fire)\b/i;
/** The certificate's title line, under which no letterhead stands. */
const TITLE_LINE = /\b(?:of|for)\s+(?:liability\s+)?(?:insurance|coverage)\b/i;
/** The top of the page (a share of its height) where a letterhead stands. */
const LETTERHEAD_BAND = 0.15;

/** A producer printed only as a letterhead: an agency's name at the top of the page, over the title, with no caption. */
export function letterhead(page: PageText): { name: string; cell: Cell; text: string } | undefined {
  for (const line of page.lines) {
    if (line.y > page.height * LETTERHEAD_BAND || TITLE_LINE.test(line.text)) return undefined;
    const name = cleanValue(line.cells[0]?.text ?? '');
    if (AGENCY_WORDS.test(name) && !CARRIER_WORDS.test(name) && !/\d/.test(name) && !ANY_CAPTION.test(name))
      return { name, cell: line.cells[0], text: line.text };
  }
  return undefined;
}
