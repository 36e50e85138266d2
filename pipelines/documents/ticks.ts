// Tick boxes whose mark is drawn, not typed. An ACORD certificate's "PER STATUTE" box is often ticked with
// an X drawn as lines (born-digital) or read by OCR as box borders ("|X|", or not at all): the text says
// nothing, the rendered page shows the tick. For each tick-box label without a typed mark before it, the box
// left of the label is looked at on the page image; when it holds ink besides its borders, an "X" cell is
// put in front of the label, as a reader would see it. The page then lists `drawn_ticks` in its repairs.
import { buildBlocks, type Cell, type PageText } from './layout.ts';

/** A one-channel page image and its scale. */
export interface GrayPage {
  px: Uint8Array;
  width: number;
  height: number;
  /** Points per pixel. */
  ptPerPx: number;
}

/** Labels that sit right of a tick box on the forms we read (ACORD 25 workers' compensation: PER STATUTE). */
const TICK_LABEL = /^(PER$|PER STATUTE\b|STATUTE\b|WC STATU)/i;
/** A typed tick, or what OCR makes of a tick inside box borders. */
export const TYPED_MARK = /^[[(|]?\s*[Xx✓✔✗✘√■●]\s*[\])|]?$/;

interface Region {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** Label cells on the page that may have a tick box left of them, with the region (points) to look at. */
export function tickBoxCandidates(page: PageText): { line: number; cell: number; region: Region }[] {
  const out: { line: number; cell: number; region: Region }[] = [];
  page.lines.forEach((line, li) => {
    line.cells.forEach((c, ci) => {
      if (!TICK_LABEL.test(c.text)) return;
      // "PER" alone must have STATUTE under it (PER PERSON, PER ACCIDENT are limits, not boxes)
      const below = (d: Cell) => d.y > c.y && d.y < c.y + 2.5 * c.h && /^ST|STATUTE/i.test(d.text) && d.x < c.x + 2 * c.h && d.x + d.w > c.x - 2 * c.h;
      // (or OCR lost STATUTE but read the OTH-ER box's label beside it).
      const other = line.cells.some((d) => /^OTH/i.test(d.text) && d.x > c.x && d.x < c.x + 15 * c.h);
      if (/^PER$/i.test(c.text.trim()) && !other && !page.lines.some((l) => l.cells.some(below))) return;
      const prev = line.cells[ci - 1];
      if (prev && TYPED_MARK.test(prev.text.trim()) && c.x - (prev.x + prev.w) < 3 * c.h) return;
      const h = Math.min(c.h, 14);
      const stacked = /^STATUTE/i.test(c.text);
      const region = { x: c.x - 2.6 * h, y: stacked ? c.y - 1.4 * h : c.y - 0.4 * h, w: 2.45 * h, h: 3 * h };
      // A word typed inside the region means it is not a tick box, unless it is what OCR made of the tick
      // itself ("X|" read into another line). A long cell only passing through (two columns that line
      // assembly ran together) does not count.
      const typed = page.lines.some((l) =>
        l.cells.some(
          (d) =>
            d !== c &&
            !TYPED_MARK.test(d.text.trim()) &&
            d.x > region.x - h &&
            d.x + d.w < region.x + region.w + h &&
            d.y < region.y + region.h &&
            d.y + d.h > region.y,
        ),
      );
      // One box, one tick: STATUTE under a PER already taken looks at the same box.
      const same = out.some(
        (o) => o.region.x < region.x + region.w && region.x < o.region.x + o.region.w && o.region.y < region.y + region.h && region.y < o.region.y + o.region.h,
      );
      if (!typed && !same) out.push({ line: li, cell: ci, region });
    });
  });
  return out;
}

/**
 * Share of ink inside a region, not counting its box: rows and columns that are mostly ink (the box's
 * borders, form rules) are left out.
 */
export function inkInside(img: GrayPage, r: Region, inkBelow = 140): number {
  const x0 = Math.max(0, Math.floor(r.x / img.ptPerPx));
  const y0 = Math.max(0, Math.floor(r.y / img.ptPerPx));
  const x1 = Math.min(img.width, Math.ceil((r.x + r.w) / img.ptPerPx));
  const y1 = Math.min(img.height, Math.ceil((r.y + r.h) / img.ptPerPx));
  const w = x1 - x0;
  const h = y1 - y0;
  if (w < 4 || h < 4) return 0;
  const rowInk = new Uint32Array(h);
  const colInk = new Uint32Array(w);
  for (let y = 0; y < h; y++)
    for (let x = 0; x < w; x++)
      if (img.px[(y0 + y) * img.width + x0 + x] < inkBelow) {
        rowInk[y]++;
        colInk[x]++;
      }
  // A rule is a row or column at least 60% ink; its neighbours (anti-aliasing, thickness) go with it.
  const ruleRow = new Uint8Array(h);
  const ruleCol = new Uint8Array(w);
  for (let y = 0; y < h; y++) if (rowInk[y] >= 0.6 * w) for (let k = Math.max(0, y - 1); k <= Math.min(h - 1, y + 1); k++) ruleRow[k] = 1;
  for (let x = 0; x < w; x++) if (colInk[x] >= 0.6 * h) for (let k = Math.max(0, x - 1); k <= Math.min(w - 1, x + 1); k++) ruleCol[k] = 1;
  let ink = 0;
  let area = 0;
  for (let y = 0; y < h; y++) {
    if (ruleRow[y]) continue;
    for (let x = 0; x < w; x++) {
      if (ruleCol[x]) continue;
      area++;
      if (img.px[(y0 + y) * img.width + x0 + x] < inkBelow) ink++;
    }
  }
  return area > 0 ? ink / area : 0;
}

/** Put an "X" cell before each tick-box label whose box is inked on the image. Returns how many were added. */
export function addDrawnTicks(page: PageText, img: GrayPage, minInk = 0.03): number {
  const found = tickBoxCandidates(page).filter((t) => inkInside(img, t.region) >= minInk);
  for (const t of found.reverse()) {
    const line = page.lines[t.line];
    const label = line.cells[t.cell];
    const size = Math.min(label.h, 14);
    const tick: Cell = {
      text: 'X',
      x: t.region.x + t.region.w / 2 - size * 0.4,
      y: label.y,
      w: size * 0.8,
      h: label.h,
      conf: 0.9,
      source: label.source,
    };
    line.cells.splice(t.cell, 0, tick);
    const right = Math.max(...line.cells.map((c) => c.x + c.w));
    line.x = Math.min(line.x, tick.x);
    line.w = right - line.x;
    line.text = line.cells
      .map((c) => c.text)
      .filter(Boolean)
      .join('  ');
  }
  if (found.length > 0) {
    page.text = page.lines.map((l) => l.text).join('\n');
    page.blocks = buildBlocks(page.lines);
    page.repairs = [...(page.repairs ?? []), 'drawn_ticks'];
  }
  return found.length;
}
