// Grounding: a value is kept only if it can be found on the page it claims to come from, after normalising
// money, dates, case and spacing. Classifications (a role, a coverage type, a yes/no flag) are grounded
// through their source text instead.
import type { PageText } from '../documents/layout.ts';
import type { Candidate } from './candidates.ts';
import { normaliseText, moneyTokens, dateTokens } from './normalise.ts';
import { unstackedLines } from './layout_query.ts';
import { withoutThinGlyphs } from './insurers.ts';

export interface GroundingVerdict {
  ok: boolean;
  reason?: string;
}

interface PageIndex {
  norm: string;
  compact: string;
  /** OCR pages: the compact text with the glyphs OCR confuses folded together (see ocrFold); else undefined. */
  folded?: string;
  tokens: Set<string>;
  money: number[];
  dates: Set<string>;
}

/** Precomputed normalised forms of each page's text (and its form field values). */
export function indexPages(pages: PageText[]): Map<number, PageIndex> {
  const m = new Map<number, PageIndex>();
  for (const p of pages) {
    // A stacked cell (two rows of a column chained into one line) is also read split by baseline, as the boxes read it.
    const unstacked = unstackedLines(p);
    const split = unstacked === p.lines ? [] : unstacked.map((l) => l.text);
    const raw = [p.text, ...p.blocks.map((b) => b.text), ...p.fields.map((f) => f.value), ...split].join('\n');
    const norm = normaliseText(raw);
    m.set(p.page, {
      norm,
      compact: norm.replace(/ /g, ''),
      folded: p.source === 'ocr' ? ocrFold(norm.replace(/ /g, '')) : undefined,
      tokens: new Set(norm.split(' ')),
      money: moneyTokens(raw),
      dates: new Set(dateTokens(raw).map((d) => d.iso)),
    });
  }
  return m;
}

/** Glyphs a scan's OCR reads for one another (O, Q and 0; I, l, 1 and |) folded to one, for comparing. */
export const ocrFold = (s: string) => s.replace(/[q0]/g, 'o').replace(/[l1|]/g, 'i');

const CLASSIFICATION = /\/(role|type|insurer_letter|additional_insured|subrogation_waived|wc_statutory)$/;

function quoteOnPage(quote: string, idx: PageIndex): boolean {
  const q = normaliseText(quote);
  if (!q) return false;
  if (idx.norm.includes(q) || idx.compact.includes(q.replace(/ /g, ''))) return true;
  // A quote stitched from cells, or lightly re-spaced by an LLM: most of its words must be on the page.
  const words = q.split(' ').filter((w) => w.length > 1);
  if (words.length === 0) return false;
  const hits = words.filter((w) => idx.tokens.has(w)).length;
  return hits / words.length >= 0.8;
}

/** Check one candidate against its page. */
export function ground(c: Candidate, pages: Map<number, PageIndex>): GroundingVerdict {
  const idx = pages.get(c.page);
  if (!idx) return { ok: false, reason: `page ${c.page} does not exist` };
  if (c.value === null) return { ok: true };
  if (!quoteOnPage(c.text, idx)) return { ok: false, reason: `source text not found on page ${c.page}` };
  if (typeof c.value === 'boolean' || CLASSIFICATION.test(c.pointer)) return { ok: true };
  if (typeof c.value === 'number') {
    return idx.money.some((n) => Math.abs(n - (c.value as number)) < 0.005) ? { ok: true } : { ok: false, reason: `amount ${c.value} not on page ${c.page}` };
  }
  const v = c.value;
  if (/^\d{4}-\d{2}-\d{2}$/.test(v)) return idx.dates.has(v) ? { ok: true } : { ok: false, reason: `date ${v} not on page ${c.page}` };
  if (/^\d+(\.\d+)?(\/\d+(\.\d+)?)+$/.test(v)) {
    const parts = v.split('/').map(Number);
    return parts.every((p) => idx.money.some((n) => Math.abs(n - p) < 0.005)) ? { ok: true } : { ok: false, reason: `limit ${v} not on page ${c.page}` };
  }
  const n = normaliseText(v);
  if (!n) return { ok: false, reason: 'empty value' };
  if (idx.norm.includes(n) || idx.compact.includes(n.replace(/ /g, ''))) return { ok: true };
  // On a scanned page, a fixed term written as it is spelled ("ISAOA" read "ISAQA"): the same text but for look-alike glyphs.
  if (idx.folded !== undefined && idx.folded.includes(ocrFold(n.replace(/ /g, '')))) return { ok: true };
  // A coverage named from its row's caption and the limit's basis printed after the amount ("Liability And Medical
  // Expenses - Per Occurrence"): every word is in the cited row, which is on the page.
  if (/^\/coverages\/\d+\/name$/.test(c.pointer)) {
    const cited = new Set(normaliseText(c.text).split(' '));
    if (n.split(' ').every((w) => cited.has(w))) return { ok: true };
  }
  // A company's name wrapped within its table column ("Prairie Star Fire and Casualty" / "Company"): the cited
  // column lines, which are on the page, hold it in order.
  if (/^\/policy\/provider$|^\/certificate\/insurers\/\d+\/name$/.test(c.pointer) && /\n/.test(c.text)) {
    if (normaliseText(c.text).replace(/ /g, '').includes(n.replace(/ /g, ''))) return { ok: true };
  }
  // An insurer's name whose lost thin glyphs were restored (restoreThinGlyphs) reads as the page does without them.
  if (/^\/certificate\/insurers\/\d+\/name$/.test(c.pointer) && withoutThinGlyphs(idx.compact).includes(withoutThinGlyphs(n.replace(/ /g, '')))) {
    return { ok: true };
  }
  return { ok: false, reason: `"${v}" not on page ${c.page}` };
}
