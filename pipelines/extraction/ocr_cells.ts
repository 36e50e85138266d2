// Words an OCR engine read twice. On a scan, tesseract may file the end of a long name under the next engine line
// as well ("Amer can Insurance Compan" on one line, "pany" on the next, at the same height and overlapping it):
// the fragment is not a word of its own, and the name cut there is not found on the page. The two cells are one
// word read twice; they are joined on the letters they share, before any rule reads the page (so the rules and the
// grounding see the same text). Text-layer pages are never touched.
import { buildBlocks, lineOf, type PageText, type Cell, type Line } from '../documents/layout.ts';

/** The number of letters `a` ends with that `b` starts with (at least 2, case-insensitive), or 0. */
export function sharedLetters(a: string, b: string): number {
  const x = a.toLowerCase();
  const y = b.toLowerCase();
  for (let k = Math.min(x.length, y.length); k >= 2; k--) if (/^[a-z]+$/.test(y.slice(0, k)) && x.endsWith(y.slice(0, k))) return k;
  return 0;
}

/** Whether cell `b` (of another line) is the end of cell `a`'s last word read a second time. */
function doubleRead(a: Cell, b: Cell): number {
  if (a.source !== 'ocr' || b.source !== 'ocr') return 0;
  const vOverlap = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  if (vOverlap < 0.5 * Math.min(a.h, b.h)) return 0;
  // b starts inside a's box and ends past it.
  if (!(b.x > a.x && b.x < a.x + a.w && b.x + b.w > a.x + a.w - 1)) return 0;
  const k = sharedLetters(a.text.trim(), b.text.trim());
  return k >= 2 && k < b.text.trim().length ? k : 0;
}

/** A page with words read twice joined (the page itself when there are none). */
export function joinDoubleReadWords(page: PageText): PageText {
  if (page.source !== 'ocr') return page;
  const joined = new Map<Cell, Cell>();
  const dropped = new Set<Cell>();
  const all = page.lines.flatMap((l) => l.cells.map((c) => ({ c, l })));
  for (const { c: a, l: la } of all)
    for (const { c: b, l: lb } of all) {
      if (la === lb || dropped.has(a) || dropped.has(b) || joined.has(b)) continue;
      const k = doubleRead(joined.get(a) ?? a, b);
      if (!k) continue;
      const base = joined.get(a) ?? a;
      joined.set(a, { ...base, text: base.text.trimEnd() + b.text.trim().slice(k), w: b.x + b.w - base.x, conf: Math.min(base.conf, b.conf) });
      dropped.add(b);
    }
  if (dropped.size === 0) return page;
  const lines: Line[] = page.lines
    .map((l) => {
      const cells = l.cells.filter((c) => !dropped.has(c)).map((c) => joined.get(c) ?? c);
      if (cells.length === l.cells.length && !l.cells.some((c) => joined.has(c))) return l;
      if (cells.length === 0) return undefined;
      return lineOf(cells);
    })
    .filter((l): l is Line => l !== undefined);
  // Blocks are built from the lines top to bottom.
  const blocks = buildBlocks([...lines].sort((a, b) => a.y - b.y || a.x - b.x));
  return { ...page, lines, blocks, text: lines.map((l) => l.text).join('\n') };
}

/** Cells `a` and `b` (b right of a) as one cell: the union of their boxes, their texts a space apart, the weaker confidence. */
export const joinCells = (a: Cell, b: Cell): Cell => {
  const y = Math.min(a.y, b.y);
  return { ...a, text: `${a.text.trim()} ${b.text.trim()}`, y, w: b.x + b.w - a.x, h: Math.max(a.y + a.h, b.y + b.h) - y, conf: Math.min(a.conf, b.conf) };
};
