// Positioned text: items (pdf.js text runs, AcroForm values or OCR words) grouped into cells, lines and
// blocks in reading order. Coordinates are PDF points with the origin at the top-left of the page.

export type TextSource = 'text' | 'acroform' | 'ocr';

export interface TextItem {
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
  source: TextSource;
  /** OCR word confidence 0..1; 1 for a text layer. */
  conf?: number;
  /** The OCR engine's line number: words of one engine line stay together. */
  line?: number;
}

/** A run of items on one line without a column-sized gap between them. */
export interface Cell {
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
  conf: number;
  source: TextSource;
  /**
   * Set only when the cell's text-layer items sit on more than one baseline (a neighbouring column's small captions
   * chained two rows of this column into one line): its items, so a reader can split it again by geometry.
   */
  items?: TextItem[];
}

export interface Line {
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
  cells: Cell[];
}

export interface Block {
  text: string;
  x: number;
  y: number;
  w: number;
  h: number;
  lines: Line[];
}

export interface FormField {
  name: string;
  value: string;
  x: number;
  y: number;
  w: number;
  h: number;
}

export interface PageText {
  /** 1-based page number. */
  page: number;
  width: number;
  height: number;
  source: 'text' | 'ocr' | 'empty';
  lines: Line[];
  blocks: Block[];
  /** Lines joined by newlines; cells separated by two spaces. */
  text: string;
  /** Mean OCR confidence 0..1 (1 for a text layer). */
  confidence: number;
  fields: FormField[];
  /** Text-layer repairs applied to this page (see repair.ts); absent when none were needed. */
  repairs?: ('doubled_glyphs' | 'letter_spacing' | 'reversed_numbers' | 'invisible_text' | 'run_together_words' | 'drawn_ticks' | 'missing_text')[];
  /** Set when OCR filled in values missing from this page's text layer. */
  ocrAssisted?: boolean;
  /**
   * OCR pages: words the engine found (letters or digits, text-high) but read with too little confidence for the
   * layout to use (below MIN_WORD_CONF); a later stage may read their places again. Absent when there are none.
   */
  weak?: TextItem[];
  /** A page of a located document (see page_roles.ts): its role and why it was read. */
  located?: { role: string; score: number; why: string };
}

/** OCR words below this confidence are left out of a page's lines (specks, rules read as glyphs). */
export const MIN_WORD_CONF = 0.25;

const median = (xs: number[]) => {
  if (xs.length === 0) return 0;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
};

/**
 * Group items into lines (by vertical overlap), cells (by horizontal gap) and blocks (by vertical gap). `blocks`
 * false leaves the blocks out (a PDF worker's pages: the reading thread builds them from the lines).
 */
export function layoutPage(
  page: number,
  width: number,
  height: number,
  items: TextItem[],
  source: PageText['source'],
  fields: FormField[] = [],
  blocks = true,
): PageText {
  let usable = items.filter((i) => i.text.trim() !== '' && i.h > 0);
  // OCR noise: low-confidence specks and boxes far taller than text would chain lines together.
  const typical = median(usable.map((i) => i.h)) || 10;
  const weak = usable.filter(
    (i) =>
      i.source === 'ocr' && (i.conf ?? 1) < MIN_WORD_CONF && (i.text.match(/[A-Za-z0-9]/g) ?? []).length >= 2 && i.h >= typical * 0.5 && i.h <= typical * 2.5,
  );
  usable = usable.filter(
    (i) =>
      i.source !== 'ocr' ||
      ((i.conf ?? 1) >= MIN_WORD_CONF &&
        (/[A-Za-z0-9$]/.test(i.text) || (/^\(?[&#]\)?:?$/.test(i.text.trim()) && (i.conf ?? 1) >= 0.6)) &&
        i.h <= typical * 3.5),
  );
  usable.sort((a, b) => a.y - b.y || a.x - b.x);
  const rows: TextItem[][] = usable.length > 0 && usable.every((i) => i.line !== undefined) ? rowsFromEngineLines(usable) : rowsByOverlap(usable);
  const built = buildPage(page, width, height, rows, source, fields, blocks);
  return weak.length > 0 ? { ...built, weak } : built;
}

/**
 * OCR: trust the engine's line segmentation (robust to skew and specks), then put engine lines whose
 * baselines agree on one row (a label and its value are often separate engine lines).
 */
function rowsFromEngineLines(items: TextItem[]): TextItem[][] {
  const byLine = new Map<number, TextItem[]>();
  for (const it of items) {
    const l = byLine.get(it.line!) ?? [];
    byLine.set(it.line!, l);
    l.push(it);
  }
  const segs = [...byLine.values()].map((words) => ({ words, bottom: median(words.map((w) => w.y + w.h)), h: median(words.map((w) => w.h)) }));
  segs.sort((a, b) => a.bottom - b.bottom);
  const rows: { words: TextItem[]; bottom: number; h: number }[] = [];
  for (const s of segs) {
    const last = rows[rows.length - 1];
    if (last && Math.abs(s.bottom - last.bottom) < 0.45 * Math.min(s.h, last.h)) last.words.push(...s.words);
    else rows.push({ ...s, words: [...s.words] });
  }
  return rows.map((r) => r.words);
}

function rowsByOverlap(usable: TextItem[]): TextItem[][] {
  const rows: TextItem[][] = [];
  const rowBox: { top: number; bottom: number }[] = [];
  for (const it of usable) {
    let placed = false;
    // Only the last few rows can overlap an item sorted by top.
    for (let r = rows.length - 1; r >= Math.max(0, rows.length - 4); r--) {
      const box = rowBox[r];
      const overlap = Math.min(box.bottom, it.y + it.h) - Math.max(box.top, it.y);
      if (overlap >= 0.5 * Math.min(it.h, box.bottom - box.top)) {
        rows[r].push(it);
        // Grow the row only by items of similar height, so one tall box cannot swallow the next line.
        if (it.h <= 1.3 * (box.bottom - box.top)) {
          box.top = Math.min(box.top, it.y);
          box.bottom = Math.max(box.bottom, it.y + it.h);
        }
        placed = true;
        break;
      }
    }
    if (!placed) {
      rows.push([it]);
      rowBox.push({ top: it.y, bottom: it.y + it.h });
    }
  }
  return rows;
}

/** The widest gap between two words of one cell, for text `h` high: a wider one starts the next cell. */
export const cellGap = (h: number) => Math.max(h * 1.1, 6);

/** A column edge needs this many lines in a row with a gap before the same x. */
export const COLUMN_EDGE_LINES = 3;

/**
 * Text-layer words that start a column set closer to the previous one than a cell gap: on COLUMN_EDGE_LINES
 * consecutive lines or more, a gap wider than a word space (0.75 of the text's height; a fixed-pitch font's space is 0.6) before words that start at
 * the same x (within 1 pt). A right-aligned amount column beside a left-aligned "Mailing address" column, 9 pt
 * apart, is two columns, not one cell "107.58 Lexington KY 43647"; a justified paragraph's wide spaces do not
 * line up from line to line.
 */
export function columnEdges(rows: TextItem[][]): Set<TextItem> {
  const starts = rows.map((row) => {
    const ws = [...row].sort((a, b) => a.x - b.x);
    const h = median(ws.map((i) => i.h));
    return ws.filter((it, k) => k > 0 && it.x - (ws[k - 1].x + ws[k - 1].w) >= 0.75 * h);
  });
  const edges = new Set<TextItem>();
  for (let r = 0; r < rows.length; r++)
    for (const it of starts[r]) {
      const at = (k: number) => starts[k]?.some((o) => Math.abs(o.x - it.x) <= 1);
      let lo = r;
      let hi = r;
      while (lo > 0 && at(lo - 1)) lo--;
      while (hi < rows.length - 1 && at(hi + 1)) hi++;
      if (hi - lo + 1 >= COLUMN_EDGE_LINES) edges.add(it);
    }
  return edges;
}

/** A fixed-pitch line's word widths fit `pitch × letters + c` within this share of the pitch (root mean square). */
const FIXED_PITCH_FIT = 0.1;
/** Word pairs whose start-to-start distance per letter is within this share of the fitted pitch measure it. */
const FIXED_PITCH_PAIR = 0.2;
const FIXED_PITCH_SPACE = 1.5;

/** The least-squares line through points (xs, ys): its slope and intercept; undefined when the xs are all one value. */
export function leastSquares(xs: number[], ys: number[]): { slope: number; intercept: number } | undefined {
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i] - mx) * (ys[i] - my);
    den += (xs[i] - mx) ** 2;
  }
  if (den === 0) return undefined;
  const slope = num / den;
  return { slope, intercept: my - slope * mx };
}

/**
 * The character pitch of each OCR engine line set in a fixed-pitch type (Courier): its words' widths grow by one
 * pitch a letter and its words start on one grid. There a word space is a whole character wide, plus the side
 * bearings of narrow glyphs ("Tulsa, OK": a comma's cell is mostly blank), wider than a cell gap reckoned from
 * the words' ink height, and the line's words would fall into separate cells. Needs three words of two letters
 * or more: proportional type fits a pitch no better than 0.2 of it.
 */
export function fixedPitchLines(items: TextItem[]): Map<number, number> {
  const byLine = new Map<number, TextItem[]>();
  for (const it of items) if (it.source === 'ocr' && it.line !== undefined) (byLine.get(it.line) ?? byLine.set(it.line, []).get(it.line)!).push(it);
  const pitches = new Map<number, number>();
  for (const [line, all] of byLine) {
    const ws = all.filter((w) => w.text.length >= 2 && (w.conf ?? 1) >= 0.6);
    if (ws.length < 3) continue;
    const xs = ws.map((w) => w.text.length);
    const ys = ws.map((w) => w.w);
    const fit = leastSquares(xs, ys);
    if (!fit) continue;
    const { slope: pitch, intercept: c } = fit;
    if (!(pitch > 0) || c > 0.3 * pitch || c < -pitch) continue;
    const rms = Math.sqrt(ys.reduce((a, y, i) => a + (y - (pitch * xs[i] + c)) ** 2, 0) / ys.length);
    if (rms > FIXED_PITCH_FIT * pitch) continue;
    // The fit's slope is rough with a few words; a word and the next one space on start one pitch past its
    // letters, whatever their glyphs' side bearings, so such pairs measure the pitch itself.
    const sorted = [...all].sort((a, b) => a.x - b.x);
    const perLetter = sorted
      .slice(1)
      .map((w, k) => (w.x - sorted[k].x) / (sorted[k].text.length + 1))
      .filter((q) => Math.abs(q - pitch) <= FIXED_PITCH_PAIR * pitch)
      .sort((a, b) => a - b);
    pitches.set(line, perLetter.length ? perLetter[Math.floor(perLetter.length / 2)] : pitch);
  }
  return pitches;
}

/** OCR words one overlapping the next by more than this share of the line's height are two words. */
const OCR_OVERSHOOT = 0.3;

/** White space that a cell's text folds to one space: two or more in a row, or any but a plain space. */
const FOLD_SPACES = /\s\s|[^\S ]/;

function buildPage(
  page: number,
  width: number,
  height: number,
  rows: TextItem[][],
  source: PageText['source'],
  fields: FormField[],
  withBlocks = true,
): PageText {
  const edges = source === 'text' ? columnEdges(rows) : new Set<TextItem>();
  const pitches = source === 'ocr' ? fixedPitchLines(rows.flat()) : new Map<number, number>();
  const lines: Line[] = rows.map((row) => {
    row.sort((a, b) => a.x - b.x);
    const h = median(row.map((i) => i.h));
    const cells: Cell[] = [];
    let cur: TextItem[] = [];
    const flush = () => {
      if (cur.length === 0) return;
      const x = cur[0].x;
      let right = -Infinity;
      let y = Infinity;
      let bottom = -Infinity;
      let highestBottom = Infinity;
      let lowestH = Infinity;
      let confs = 0;
      for (const i of cur) {
        right = Math.max(right, i.x + i.w);
        y = Math.min(y, i.y);
        bottom = Math.max(bottom, i.y + i.h);
        highestBottom = Math.min(highestBottom, i.y + i.h);
        lowestH = Math.min(lowestH, i.h);
        confs += i.conf ?? 1;
      }
      let text = '';
      for (let k = 0; k < cur.length; k++) {
        const t = cur[k].text;
        if (k > 0) {
          const gap = cur[k].x - (cur[k - 1].x + cur[k - 1].w);
          // Two OCR words far inside one another are two words whose box the engine overshot ("Name" boxed over
          // "of" in small type, once read "Nameof Insured"); a word it split at a narrow gap does not overlap.
          const bothOcr = cur[k].source === 'ocr' && cur[k - 1].source === 'ocr';
          const overshot = bothOcr && gap < -OCR_OVERSHOOT * h;
          // The engine splits a letter-spaced capitals heading into pieces ("IN SURANCE") at a narrow gap; a
          // lower-case letter on either side is running text, whose words a noisy scan's boxes set edge to edge.
          const lowerCase = bothOcr && /[a-z]/.test(cur[k - 1].text + t);
          if ((gap > 0.15 * h || overshot || lowerCase) && !text.endsWith(' ') && !t.startsWith(' ')) text += ' ';
        }
        text += t;
      }
      // Text-layer items only: OCR words follow the engine's lines, and a skewed scan's words drift within a line.
      const stacked = cur.every((i) => i.source !== 'ocr') && bottom - highestBottom > 0.6 * lowestH;
      cells.push({
        text: (FOLD_SPACES.test(text) ? text.replace(/\s+/g, ' ') : text).trim(),
        x,
        y,
        w: right - x,
        h: bottom - y,
        conf: confs / cur.length,
        source: cur.some((i) => i.source === 'acroform') ? 'acroform' : cur[0].source,
        ...(stacked ? { items: cur.map((i) => ({ text: i.text, x: i.x, y: i.y, w: i.w, h: i.h, source: i.source, conf: i.conf })) } : {}),
      });
      cur = [];
    };
    for (const it of row) {
      const prev = cur[cur.length - 1];
      if (prev) {
        const gap = it.x - (prev.x + prev.w);
        const pitch = it.line !== undefined && it.line === prev.line ? pitches.get(it.line) : undefined;
        const oneSpace = pitch !== undefined && it.x - prev.x - prev.text.length * pitch < FIXED_PITCH_SPACE * pitch;
        if ((gap > cellGap(h) && !oneSpace) || it.source !== prev.source || edges.has(it)) flush();
      }
      cur.push(it);
    }
    flush();
    const text = cells
      .map((c) => c.text)
      .filter(Boolean)
      .join('  ');
    return { text, ...boxOf(cells), cells };
  });
  const blocks = withBlocks ? buildBlocks(lines) : [];
  const confs = lines.flatMap((l) => l.cells.map((c) => c.conf));
  return {
    page,
    width,
    height,
    source: lines.length === 0 ? 'empty' : source,
    lines,
    blocks,
    text: lines.map((l) => l.text).join('\n'),
    confidence: confs.length ? confs.reduce((a, b) => a + b, 0) / confs.length : 0,
    fields,
  };
}

/** Whether a page's text layer is worth using (otherwise it goes to OCR). */
export function hasUsableText(items: TextItem[]): boolean {
  const chars = items.reduce((n, i) => n + i.text.replace(/\s/g, '').length, 0);
  return chars >= 25;
}

/** A line made of `cells`, its box the union of theirs and its text their texts joined as layout joins cells. */
export const lineOf = (cells: Cell[]): Line => ({ text: cells.map((c) => c.text).join('  '), ...boxOf(cells), cells });

/** The box around `cells`. */
function boxOf(cells: Cell[]): { x: number; y: number; w: number; h: number } {
  let x = Infinity;
  let y = Infinity;
  let right = -Infinity;
  let bottom = -Infinity;
  for (const c of cells) {
    x = Math.min(x, c.x);
    y = Math.min(y, c.y);
    right = Math.max(right, c.x + c.w);
    bottom = Math.max(bottom, c.y + c.h);
  }
  return { x, y, w: right - x, h: bottom - y };
}

/**
 * Blocks: runs of cells that continue one another vertically in the same column (so two columns make two
 * blocks, not one), put in reading order: a block comes after the blocks above it in its column and after
 * the blocks beside it on the left.
 */
export function buildBlocks(lines: Line[]): Block[] {
  interface Open {
    cells: Cell[];
    x: number;
    right: number;
    y: number;
    bottom: number;
    lastH: number;
  }
  const all: Open[] = [];
  for (const line of lines) {
    for (const cell of line.cells) {
      let best: Open | undefined;
      for (const b of all) {
        const gap = cell.y - b.bottom;
        const overlapX = Math.min(b.right, cell.x + cell.w) - Math.max(b.x, cell.x);
        if (gap > -0.5 * cell.h && gap < 1.0 * Math.max(cell.h, b.lastH) && (overlapX > 0 || Math.abs(cell.x - b.x) < 8)) {
          if (!best || b.bottom > best.bottom) best = b;
        }
      }
      if (best) {
        best.cells.push(cell);
        best.x = Math.min(best.x, cell.x);
        best.right = Math.max(best.right, cell.x + cell.w);
        best.bottom = Math.max(best.bottom, cell.y + cell.h);
        best.lastH = cell.h;
      } else {
        all.push({ cells: [cell], x: cell.x, right: cell.x + cell.w, y: cell.y, bottom: cell.y + cell.h, lastH: cell.h });
      }
    }
  }
  // Reading order: topological sort of "above in the same column" and "left of, side by side".
  const n = all.length;
  const before = all.map(() => new Set<number>());
  for (let i = 0; i < n; i++)
    for (let j = 0; j < n; j++) {
      if (i === j) continue;
      const a = all[i];
      const b = all[j];
      const overlapX = Math.min(a.right, b.right) - Math.max(a.x, b.x) > 0;
      const overlapY = Math.min(a.bottom, b.bottom) - Math.max(a.y, b.y) > 0;
      if ((overlapX && a.bottom <= b.y + 1) || (overlapY && a.right <= b.x + 1)) before[j].add(i);
    }
  const done = new Set<number>();
  const order: number[] = [];
  while (order.length < n) {
    let pick = -1;
    for (let k = 0; k < n; k++) {
      if (done.has(k) || [...before[k]].some((p) => !done.has(p))) continue;
      if (pick < 0 || all[k].y < all[pick].y - 1 || (Math.abs(all[k].y - all[pick].y) <= 1 && all[k].x < all[pick].x)) pick = k;
    }
    if (pick < 0) pick = [...Array(n).keys()].filter((k) => !done.has(k)).sort((p, q) => all[p].y - all[q].y || all[p].x - all[q].x)[0]; // cycle: fall back to top-left
    done.add(pick);
    order.push(pick);
  }
  return order.map((k) => {
    const b = all[k];
    const rows: Cell[][] = [];
    for (const c of b.cells) {
      const row = rows.find((r) => Math.abs(r[0].y - c.y) < 0.5 * c.h);
      if (row) row.push(c);
      else rows.push([c]);
    }
    const blines: Line[] = rows.map((r) => lineOf(r.sort((p, q) => p.x - q.x)));
    return { text: blines.map((l) => l.text).join('\n'), x: b.x, y: b.y, w: b.right - b.x, h: b.bottom - b.y, lines: blines };
  });
}
