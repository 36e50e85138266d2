// Run-together text layers: some PDFs place every glyph without a space character ("StateFarmLloyds",
// "EffectiveDates: MAR302022toMAR302023"), so no label or name matches. A page is treated when most of its long
// tokens run words together; its cells are re-spaced at case and letter/digit boundaries and after the words a
// reader expects to stand alone. Clean pages are not touched (the check is one pass over the page's tokens).
import type { PageText, Cell, Line } from '../documents/layout.ts';

const MONTH = /\b(JAN|FEB|MAR|APR|MAY|JUN|JUL|AUG|SEP|SEPT|OCT|NOV|DEC)[A-Z]*\s?(\d{1,2})\s?(\d{4})\b/gi;

/** Whether a page's text layer runs its words together (most long tokens hold several capitalised words). */
export function isRunTogether(page: PageText): boolean {
  const tokens = page.text.split(/\s+/).filter((t) => t.length >= 12);
  if (tokens.length < 8) return false;
  const joined = tokens.filter((t) => (t.match(/[a-z][A-Z]/g) ?? []).length >= 1 || /[a-z]{14,}/.test(t));
  return joined.length / tokens.length > 0.5;
}

/** Re-space one run-together string: "StateFarmLloyds" → "State Farm Lloyds", "MAR302022toMAR302023" → "MAR 30, 2022 to MAR 30, 2023". */
export function segmentWords(s: string): string {
  return s
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, (m, a: string, b: string) => (a.length >= 2 ? `${a} ${b}` : m))
    .replace(/([a-z])(\d)/gi, '$1 $2')
    .replace(/(\d)([a-z]{2,})/gi, (m, d: string, w: string) => (/^(st|nd|rd|th|am|pm)$/i.test(w) ? m : `${d} ${w}`))
    .replace(/([:;,])(?=[A-Za-z$])/g, '$1 ') // not inside "240,900" or "12:01"
    .replace(/\b(to|and|of|by|for|in)(?=[A-Z])/g, '$1 ')
    .replace(MONTH, (_m, mon: string, d: string, y: string) => `${mon} ${d}, ${y}`)
    .replace(/\s{2,}/g, ' ')
    .trim();
}

/** Pages with run-together text re-spaced (others returned as they are), and the page numbers treated. */
export function segmentRunTogetherPages(pages: PageText[]): { pages: PageText[]; treated: number[] } {
  const treated: number[] = [];
  const out = pages.map((p) => {
    if (p.source === 'ocr' || !isRunTogether(p)) return p;
    treated.push(p.page);
    const cell = (c: Cell): Cell => ({ ...c, text: segmentWords(c.text) });
    const lines: Line[] = p.lines.map((l) => {
      const cells = l.cells.map(cell);
      return { ...l, cells, text: cells.map((c) => c.text).join('  ') };
    });
    const blocks = p.blocks.map((b) => ({ ...b, text: segmentWords(b.text) }));
    return { ...p, lines, blocks, text: lines.map((l) => l.text).join('\n') };
  });
  return { pages: out, treated };
}
