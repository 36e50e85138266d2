// Places of a scanned page where the full-page OCR visibly lost text, read again. The page's own cells show them:
// - hidden_line: a word box as tall as two lines of text, with nothing else of its column in its lower half (the
//   engine drew one box over a name and the line under it, "YourCompany.com An" over "Network Member");
// - lost_lead: a line of a left-aligned column that starts well right of the column's edge, the line under it
//   starting at the edge (the first word, "NEWREZ" of "NEWREZ MORTGAGE LLC", was merged into the line above);
// - amount_fragment: a limit read as a piece of an amount (",000," for "$ 1,000,000");
// - weak_words: words the engine found but read with so little confidence that the layout left them out (see
//   PageText.weak: "Source,Inc." at 0.00 on a 144-ppi image, so the line's next words, an address, came first);
//   their place is read at twice the size, another look for the engine, and kept only when read confidently;
// - period_start: a policy period read as one date that starts well right of its caption's left edge (the caption
//   over it or before it on its line), "05/20/2026" under "POLICY PERIOD" where "05/20/2025 - 05/20/2026" is printed:
//   the line from the caption's edge is read at twice the size, kept when it gives the two dates, the one read among
//   them;
// - digit_count: a number whose width does not fit its count of digits, at the digit width of the confident numbers
//   of its column ("60839060", 8 digits in the width of the 7-digit "6089057" above it: a digit read twice); read
//   at twice the size, kept when read confidently with a count of digits that fits its width.
// Each place is cut out of the page image and all of a page's cut-outs are read in one engine call; what they give
// is merged back only when it is better than what the page had (more lines of text, a first word, a whole amount).
// Text-layer pages (also those OCR completed) are never touched; a page without such a place is not rendered again.
import {
  rasterPdfPage,
  normaliseImage,
  buildBlocks,
  cellGap,
  readOptionsSchema,
  stageClock,
  type StageClock,
  type DocumentText,
  type PageText,
  type ReadOptions,
  type TextItem,
  type Line,
  type Cell,
  type NormalisedImage,
  lineOf,
} from '../documents/index.ts';
import { readPixelBoxes } from '../documents/ocr/boxes.ts';
import type { PageRegion } from './region_ocr.ts';
import { joinCells } from './ocr_cells.ts';
import { dateTokens } from './normalise.ts';

export type SuspectKind = 'hidden_line' | 'lost_lead' | 'amount_fragment' | 'weak_words' | 'digit_count' | 'period_start';

export interface Suspect {
  kind: SuspectKind;
  region: PageRegion;
  /** Read at this size (2 = twice as large); 1 when absent. */
  scale?: number;
  /** digit_count: the width of one digit in the cell's column. */
  digitWidth?: number;
  /** The cell the place is about (the tall cell, the line's first cell, the fragment). */
  cell: Cell;
  line: Line;
}

/** At most this many places of one page are read again. */
export const MAX_SUSPECTS = 12;
/** Words read again count only with at least this confidence. */
export const REREAD_MIN_CONF = 0.6;

const letters = (s: string) => (s.match(/[A-Za-z]/g) ?? []).length;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
/** An amount or number as printed whole: "1,000,000", "1 000 000", "$5,000", "4818", "1.00". */
const WHOLE_NUMBER = /^\$?\s?(?:\d{1,3}(?:,\d{3})+|\d{1,3}(?: \d{3})+|\d+)(?:\.\d{1,2})?$/;
const vOverlap = (a: { y: number; h: number }, b: { y: number; h: number }) => Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
type Box = { x: number; y: number; w: number; h: number };
const overlap = (a: Box, b: Box) => Math.max(0, Math.min(a.x + a.w, b.x + b.w) - Math.max(a.x, b.x)) * Math.max(0, vOverlap(a, b));

/** The places of an OCR'd page where text was visibly lost (see the file comment). */
export function suspectRegions(page: PageText): Suspect[] {
  // A text-layer page completed by OCR (missing_text) had its own second reading of uncovered ink.
  if (page.source !== 'ocr' || page.ocrAssisted) return [];
  const all = page.lines.flatMap((line) => line.cells.map((cell) => ({ cell, line })));
  const med = median(all.filter(({ cell }) => /[A-Za-z]/.test(cell.text)).map(({ cell }) => cell.h));
  if (!med) return [];
  const out: Suspect[] = [];
  for (const { cell: c, line } of all) {
    if (c.source !== 'ocr') continue;
    const text = c.text.trim();
    // hidden_line (a check box beside a caption makes its cell tall too: a cell with a mark is not one).
    if (c.h >= 1.8 * med && c.conf < 0.85 && /[A-Za-z]{5}/.test(text) && !/(^|\s)[Xx✓✔](\s|$)/.test(text)) {
      const below = all.some(
        (o) => o.line !== line && o.cell.x < c.x + c.w && c.x < o.cell.x + o.cell.w && o.cell.y > c.y + 0.3 * c.h && o.cell.y < c.y + c.h - 1,
      );
      if (!below) out.push({ kind: 'hidden_line', cell: c, line, region: { page: page.page, x: c.x - 2, y: c.y - 2, w: c.w + 4, h: c.h + 4 } });
    }
    // amount_fragment: digits and separators that do not make a number (",000,"), on a row with a caption before it.
    if (/\d/.test(text) && /^[\d.,]+$/.test(text) && !WHOLE_NUMBER.test(text) && line.cells.some((o) => o.x < c.x && letters(o.text) >= 3)) {
      const x = c.x - 16;
      const y = c.y - med;
      out.push({ kind: 'amount_fragment', cell: c, line, region: { page: page.page, x, y, w: c.w + 40, h: c.h + 2.6 * med } });
    }
  }
  // lost_lead: the first cell of a line set close between two lines (a block of text: a name and its address) that
  // both start well left of it at the same edge, the line under reaching under it, and nothing of this row between.
  for (const line of page.lines) {
    const f = line.cells[0];
    if (!f || f.source !== 'ocr' || letters(f.text) < 2) continue;
    // A line's cell at the column's edge: nothing of its own line just left of it (another column may be far left).
    const edge = (o: Cell, l: Line) => {
      const prev = l.cells[l.cells.indexOf(o) - 1];
      return l !== line && (!prev || o.x - (prev.x + prev.w) > 2 * f.h) && o.x < f.x - 3 * f.h && f.x - o.x < 160;
    };
    const under = all.find(({ cell: o, line: l }) => edge(o, l) && o.y > f.y + 0.6 * f.h && o.y - (f.y + f.h) < 0.8 * f.h && o.x + o.w > f.x - f.h);
    const above =
      under && all.find(({ cell: o, line: l }) => edge(o, l) && o.y < f.y - 0.6 * f.h && f.y - (o.y + o.h) < 0.8 * f.h && Math.abs(o.x - under.cell.x) <= 3);
    if (!under || !above) continue;
    const gap = { x: under.cell.x - 2, y: f.y - 1, w: f.x - 1 - (under.cell.x - 2), h: f.h + 2 };
    const taken = all.some(({ cell: o }) => o !== f && vOverlap(o, f) > 0.3 * f.h && o.x < gap.x + gap.w && o.x + o.w > gap.x);
    if (!taken) out.push({ kind: 'lost_lead', cell: f, line, region: { page: page.page, ...gap } });
  }
  // digit_count: a one-number cell of 4+ digits, not confident, whose width is a digit off its count of digits.
  const numbers = all.filter(({ cell: c }) => c.source === 'ocr' && /^\d{4,}$/.test(c.text.trim()));
  for (const { cell: c, line } of numbers) {
    if (c.conf >= DIGIT_COUNT_BELOW) continue;
    const adv = digitWidth(
      numbers.map((n) => n.cell).filter((o) => o !== c && o.conf >= 0.9 && Math.min(o.x + o.w, c.x + c.w) - Math.max(o.x, c.x) >= 0.5 * Math.min(o.w, c.w)),
    );
    if (!adv || Math.abs(c.w / adv - c.text.trim().length) < 0.6) continue;
    out.push({ kind: 'digit_count', cell: c, line, scale: 2, digitWidth: adv, region: { page: page.page, x: c.x - 3, y: c.y - 2, w: c.w + 6, h: c.h + 4 } });
  }
  // period_start: a lone date under or after a period's caption, starting well right of the caption's left edge.
  for (const { cell: c, line } of all) {
    if (c.source !== 'ocr' || dateTokens(c.text).length !== 1 || c.text.trim().length > 14) continue;
    const li = page.lines.indexOf(line);
    const over = page.lines[li - 1]?.cells.find(
      (o) => PERIOD_CAPTION.test(o.text.trim()) && o.x < c.x - 2 * c.h && o.x + o.w > c.x - 4 * c.h && line.y - page.lines[li - 1].y < 3 * c.h,
    );
    const before = line.cells.find((o) => o !== c && o.x < c.x && PERIOD_CAPTION.test(o.text.trim()) && c.x - (o.x + o.w) > 3 * c.h);
    const from = over ? over.x : before ? before.x + before.w + 2 : undefined;
    if (from === undefined || line.cells.some((o) => o !== c && o !== before && o.x + o.w > from && o.x < c.x)) continue;
    out.push({ kind: 'period_start', cell: c, line, scale: 2, region: { page: page.page, x: from - 2, y: c.y - 2, w: c.x + c.w + 4 - from, h: c.h + 4 } });
  }
  // weak_words: runs of words left out for low confidence, side by side on a row, with 3 letters or more.
  for (const run of weakRuns(page.weak ?? [])) {
    const cell = cellOf(run);
    if (letters(cell.text) < 3) continue;
    // The run belongs to the page line it shares a row with (its place among that line's cells), if any.
    const line = page.lines.find((l) => l.cells.some((c) => vOverlap(c, cell) >= 0.5 * Math.min(c.h, cell.h))) ?? lineOf([cell]);
    // The cut-out takes in the line's cells a word-gap either side (the engine reads a word better in its phrase),
    // and the row's height, not a weak box's (a box reaching into the next line brings its ink in).
    let x0 = cell.x;
    let x1 = cell.x + cell.w;
    for (const c of [...line.cells].sort((a, b) => a.x - b.x)) if (c.x > x1 - 1 && c.x - x1 <= 1.5 * c.h) x1 = c.x + c.w;
    for (const c of [...line.cells].sort((a, b) => b.x - a.x)) if (c.x + c.w < x0 + 1 && x0 - (c.x + c.w) <= 1.5 * c.h) x0 = c.x;
    const row = line.cells.filter((c) => c.x < x1 && c.x + c.w > x0 && c !== cell);
    const y0 = row.length ? Math.min(...row.map((c) => c.y)) : cell.y;
    const y1 = row.length ? Math.max(...row.map((c) => c.y + c.h)) : cell.y + cell.h;
    const pad = 0.35 * Math.min(y1 - y0, med);
    out.push({ kind: 'weak_words', cell, line, scale: 2, region: { page: page.page, x: x0 - 2, y: y0 - pad, w: x1 - x0 + 4, h: y1 - y0 + 2 * pad } });
  }
  return out.slice(0, MAX_SUSPECTS);
}

/** A policy period's caption ("POLICY PERIOD", "Policy Term:", "Coverage Period"). */
const PERIOD_CAPTION = /^(?:policy\s+|coverage\s+)?(?:period|term)\b\s*:?$/i;

/** A word the first reading could not read counts, read again, only with this confidence. */
export const WEAK_REREAD_MIN_CONF = 0.8;

/** A number cell below this confidence may be read again when its width does not fit its digits. */
export const DIGIT_COUNT_BELOW = 0.85;

/** The width of one digit, from one-number cells of a column (the median per-digit width), or 0 with fewer than 2. */
export function digitWidth(cells: Cell[]): number {
  if (cells.length < 2) return 0;
  return median(cells.map((c) => c.w / c.text.trim().length));
}

/** Weak words (see PageText.weak) in runs: on one row, less than a word-gap and a half apart. */
function weakRuns(weak: TextItem[]): TextItem[][] {
  const runs: TextItem[][] = [];
  for (const w of [...weak].sort((a, b) => a.x - b.x)) {
    const run = runs.find((r) => {
      const last = r[r.length - 1];
      return vOverlap(last, w) >= 0.5 * Math.min(last.h, w.h) && w.x - (last.x + last.w) < 1.5 * Math.min(last.h, w.h);
    });
    if (run) run.push(w);
    else runs.push([w]);
  }
  return runs;
}

/** Read regions of one page image (in page points) in one engine call; the words of each region, in page points. */
export async function readRegionsOfImage(
  img: NormalisedImage,
  regions: PageRegion[],
  options: ReadOptions = {},
  scales: (number | undefined)[] = [],
): Promise<TextItem[][]> {
  const o = readOptionsSchema.parse(options);
  if (o.ocr === false || regions.length === 0) return regions.map(() => []);
  const s = img.ptPerPx;
  const boxes = regions.map((r, k) => ({ x0: r.x / s, y0: r.y / s, x1: (r.x + r.w) / s, y1: (r.y + r.h) / s, scale: scales[k] ?? 1 }));
  // One engine call per size: text of two sizes in one strip reads worse than either alone.
  const out: TextItem[][] = regions.map(() => []);
  for (const scale of [...new Set(boxes.map((b) => b.scale))]) {
    const ks = boxes.flatMap((b, k) => (b.scale === scale ? [k] : []));
    const read = await readPixelBoxes(
      img,
      ks.map((k) => boxes[k]),
      o.ocr,
    );
    ks.forEach((k, i) => (out[k] = read[i]));
  }
  return out;
}

const cellOf = (words: TextItem[]): Cell => {
  const ws = [...words].sort((a, b) => a.x - b.x);
  const x = ws[0].x;
  const y = Math.min(...ws.map((w) => w.y));
  return {
    text: ws.map((w) => w.text.trim()).join(' '),
    x,
    y,
    w: Math.max(...ws.map((w) => w.x + w.w)) - x,
    h: Math.max(...ws.map((w) => w.y + w.h)) - y,
    conf: ws.reduce((a, w) => a + (w.conf ?? 0), 0) / ws.length,
    source: 'ocr',
  };
};

/** Words grouped into rows by vertical overlap, top to bottom. */
function rowsOf(words: TextItem[]): TextItem[][] {
  const rows: TextItem[][] = [];
  for (const w of [...words].sort((a, b) => a.y - b.y || a.x - b.x)) {
    const row = rows.find((r) => r.some((o) => vOverlap(o, w) >= 0.5 * Math.min(o.h, w.h)));
    if (row) row.push(w);
    else rows.push([w]);
  }
  return rows;
}

/**
 * The page with what was read at its suspect places merged in, or undefined when nothing was better:
 * a hidden line's cell is replaced by the rows read in its box when there are two or more of them with more letters;
 * a lost first word joins its line's first cell; an amount fragment is replaced by the whole amount read nearest it.
 */
export function mergeRereads(page: PageText, suspects: Suspect[], words: TextItem[][]): PageText | undefined {
  const replace = new Map<Cell, Cell[]>();
  const extraLines: Line[] = [];
  suspects.forEach((s, k) => {
    const got = words[k].filter((w) => (w.conf ?? 0) >= REREAD_MIN_CONF && /[A-Za-z0-9]{2}|\d/.test(w.text));
    if (got.length === 0 || replace.has(s.cell)) return;
    if (s.kind === 'hidden_line') {
      const rows = rowsOf(got.filter((w) => /[A-Za-z0-9]{2}/.test(w.text)));
      const read = rows.reduce((a, r) => a + r.reduce((b, w) => b + letters(w.text), 0), 0);
      if (rows.length < 2 || read < letters(s.cell.text) + 3) return;
      replace.set(s.cell, [cellOf(rows[0])]);
      for (const r of rows.slice(1)) extraLines.push(lineOf([cellOf(r)]));
    } else if (s.kind === 'lost_lead') {
      const lead = got.filter((w) => /[A-Za-z0-9]{3}/.test(w.text) && w.x + w.w <= s.cell.x + 2 && vOverlap(w, s.cell) >= 0.5 * Math.min(w.h, s.cell.h));
      if (lead.length === 0) return;
      const c = cellOf(lead);
      replace.set(s.cell, s.cell.x - (c.x + c.w) <= cellGap(Math.max(s.cell.h, c.h)) ? [joinCells(c, s.cell)] : [c, s.cell]);
    } else if (s.kind === 'digit_count') {
      // Kept only when read confidently as one number, a digit more or fewer, whose count fits the cell's width
      // (at the column's digit width) better than the first reading's.
      const had = s.cell.text.trim().length;
      const digits = got.filter((w) => /^\d{4,}$/.test(w.text.trim()) && (w.conf ?? 0) >= DIGIT_COUNT_BELOW);
      if (digits.length !== 1 || !s.digitWidth) return;
      const n = digits[0].text.trim().length;
      const fit = s.cell.w / s.digitWidth;
      if (Math.abs(n - had) !== 1 || Math.abs(fit - n) >= Math.abs(fit - had)) return;
      // The other digits stay as first read: only the digit read twice goes (or a lost one comes back).
      const [long, short] = n > had ? [digits[0].text.trim(), s.cell.text.trim()] : [s.cell.text.trim(), digits[0].text.trim()];
      if (![...long].some((_, i) => long.slice(0, i) + long.slice(i + 1) === short)) return;
      replace.set(s.cell, [{ ...s.cell, text: digits[0].text.trim(), conf: digits[0].conf ?? s.cell.conf }]);
    } else if (s.kind === 'period_start') {
      // Kept only when the line now gives two dates, the one first read among them, both read confidently.
      const row = words[k].filter((w) => vOverlap(w, s.cell) >= 0.4 * Math.min(w.h, s.cell.h));
      const dates = [...new Set(dateTokens(row.map((w) => w.text).join(' ')).map((d) => d.iso))];
      const had = dateTokens(s.cell.text)[0]?.iso;
      if (dates.length !== 2 || !had || !dates.includes(had)) return;
      const kept = row.filter((w) => /\d/.test(w.text) || /^(?:-|–|to|thru|through)$/i.test(w.text.trim()));
      // A date read unsurely still counts when it stands a policy term (6 or 12 months) from the one read surely:
      // two readings that agree.
      const [a, b] = [...dates].sort();
      const months = (Number(b.slice(0, 4)) - Number(a.slice(0, 4))) * 12 + Number(b.slice(5, 7)) - Number(a.slice(5, 7));
      const term = a.slice(8) === b.slice(8) && (months === 6 || months === 12);
      if (!term && kept.some((w) => (w.conf ?? 0) < WEAK_REREAD_MIN_CONF)) return;
      replace.set(s.cell, [cellOf(kept)]);
    } else if (s.kind === 'weak_words') {
      // Words of the page's own cells that the cut-out reached into are not added twice.
      const fresh = got.filter(
        (w) =>
          (w.conf ?? 0) >= WEAK_REREAD_MIN_CONF &&
          /[A-Za-z0-9]{2}/.test(w.text) &&
          !page.lines.some((l) => l.cells.some((c) => overlap(c, w) >= 0.5 * w.w * w.h)),
      );
      if (fresh.length === 0 || letters(fresh.map((w) => w.text).join('')) < 3) return;
      const read = cellOf(fresh);
      const at = page.lines.includes(s.line) ? s.line : undefined;
      if (!at) {
        extraLines.push(lineOf([read]));
        return;
      }
      if (at.cells.some((c) => replace.has(c))) return;
      // Into its line as the layout would have put it: one cell with a neighbour a word-gap away, else its own.
      const cells = [...at.cells, read].sort((a, b) => a.x - b.x);
      const merged: Cell[] = [];
      for (const c of cells) {
        const prev = merged[merged.length - 1];
        if (prev && (prev === read || c === read) && c.x - (prev.x + prev.w) <= cellGap(Math.max(prev.h, c.h))) merged[merged.length - 1] = joinCells(prev, c);
        else merged.push(c);
      }
      // The line's first cell stands for the whole line (see below): its replacement is the merged row.
      replace.set(at.cells[0], merged);
      for (const c of at.cells.slice(1)) replace.set(c, []);
    } else {
      const mid = s.cell.y + s.cell.h / 2;
      const whole = got
        .filter(
          (w) =>
            WHOLE_NUMBER.test(w.text.trim()) &&
            /\d{1,3}(?:,\d{3})+/.test(w.text) &&
            w.x < s.cell.x + s.cell.w &&
            s.cell.x < w.x + w.w &&
            Math.abs(w.y + w.h / 2 - mid) <= Math.max(w.h, s.cell.h),
        )
        .sort((a, b) => Math.abs(a.y + a.h / 2 - mid) - Math.abs(b.y + b.h / 2 - mid))[0];
      if (!whole) return;
      replace.set(s.cell, [
        { ...cellOf([whole]), y: Math.min(s.cell.y, whole.y), h: Math.max(s.cell.y + s.cell.h, whole.y + whole.h) - Math.min(s.cell.y, whole.y) },
      ]);
    }
  });
  if (replace.size === 0) return undefined;
  // The page's lines keep their order (two lines at one height stay as the layout put them); a line read out of a
  // tall box goes before the first line below it.
  const lines = page.lines.map((l) => (l.cells.some((c) => replace.has(c)) ? lineOf(l.cells.flatMap((c) => replace.get(c) ?? [c])) : l));
  for (const extra of extraLines) {
    const at = lines.findIndex((l) => l.y > extra.y);
    lines.splice(at < 0 ? lines.length : at, 0, extra);
  }
  // Blocks are built from the lines top to bottom.
  const blocks = buildBlocks([...lines].sort((a, b) => a.y - b.y || a.x - b.x));
  return { ...page, lines, blocks, text: lines.map((l) => l.text).join('\n') };
}

/**
 * The document with its OCR'd pages' suspect places read again (see suspectRegions), or undefined when no page
 * had one or nothing read was better. Each page with places is rendered once and read in one engine call.
 */
export async function withSuspectRegionsReread(
  bytes: Uint8Array,
  doc: DocumentText,
  options: ReadOptions = {},
  clock: StageClock = stageClock('region OCR', undefined),
): Promise<DocumentText | undefined> {
  const o = readOptionsSchema.parse(options);
  if (o.ocr === false) return undefined;
  let changed = false;
  const pages: PageText[] = [];
  for (const page of doc.pages) {
    const suspects = suspectRegions(page);
    if (suspects.length === 0) {
      pages.push(page);
      continue;
    }
    let img: NormalisedImage;
    const opts = { dpi: o.ocr.dpi, maxInputPixels: o.ocr.maxInputPixels, removeFormLines: o.ocr.removeFormLines };
    if (doc.sniffed.kind === 'pdf') {
      const dpi = o.ocr.dpi;
      const r = await clock.step(() => rasterPdfPage(bytes, page.page, dpi, 12_000_000, clock.within(60_000)));
      img = await normaliseImage(r.data, { ...opts, pageWidthPt: r.pageWidth });
    } else img = await normaliseImage(bytes, opts);
    const ocr = o.ocr;
    const words = await clock.step(() =>
      readRegionsOfImage(
        img,
        suspects.map((s) => s.region),
        { ...options, ocr: { ...ocr, timeoutMs: clock.within(ocr.timeoutMs) } },
        suspects.map((s) => s.scale),
      ),
    );
    const merged = mergeRereads(page, suspects, words);
    if (merged) changed = true;
    pages.push(merged ?? page);
  }
  return changed ? { ...doc, pages } : undefined;
}
