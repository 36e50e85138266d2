// Queries over positioned text: label → value (same cell, next cell, or the cell below), multi-line blocks,
// and tables located by their header row.
import type { PageText, Line, Cell } from '../documents/layout.ts';
import type { CandidateSource } from './candidates.ts';

export interface Found<T> {
  value: T;
  page: number;
  /** Source text: the label's line and the value's cell. */
  text: string;
  confidence: number;
  source: CandidateSource;
  /** Where the value cell is (for follow-up queries). */
  cell: Cell;
  line: Line;
}

export const cellSource = (page: PageText, cell: Cell): CandidateSource => (cell.source === 'acroform' ? 'acroform' : page.source === 'ocr' ? 'ocr' : 'rules');
const confOf = (page: PageText, cell: Cell) => (page.source === 'ocr' ? Math.min(0.85, 0.9 * cell.conf) : 0.9);

/** Any known label, to stop multi-line values before the next label. */
export const ANY_LABEL =
  /^(policy|named insured|insured|policyholder|mailing address|address|effective|expiration|term|coverage|premium|total|agent|producer|company|insurer|vehicle|driver|mortgagee|lienholder|loss payee|additional|interested|deductible|residence|location|form|endorsement|discount|date|phone|naic|certificate|property address|e-?mail|name of|start date|expires|email)\b/i;

interface FindOptions {
  /** Pages to search (1-based); all by default. */
  pages?: number[];
  /** How far below the label a value may be (in line heights). */
  below?: number;
  /** Lines whose label does not count (e.g. a form title in a forms list that reads like a caption). */
  skipLine?: (line: Line) => boolean;
}

const unstackedCache = new WeakMap<PageText, Line[]>();

/**
 * The page's lines with every stacked cell (one whose items sit on two or more baselines, because a neighbouring
 * column's captions chained the rows together: "Some Company12345 Main St LLC") split back into one cell per
 * baseline, each on its own line at its own height. Pages without stacked cells give their lines unchanged.
 */
export function unstackedLines(page: PageText): Line[] {
  const hit = unstackedCache.get(page);
  if (hit) return hit;
  let out = page.lines;
  if (page.lines.some((l) => l.cells.some((c) => c.items?.length))) {
    const lines: Line[] = [];
    for (const line of page.lines) {
      if (!line.cells.some((c) => c.items?.length)) {
        lines.push(line);
        continue;
      }
      const rows: Cell[][] = [];
      for (const cell of line.cells) {
        const parts = cell.items?.length ? splitStacked(cell) : [cell];
        parts.forEach((p) => {
          const row = rows.find((r) => r.some((c) => overlapShare(c, p) >= 0.5));
          if (row) row.push(p);
          else rows.push([p]);
        });
      }
      for (const cells of rows) {
        cells.sort((a, b) => a.x - b.x);
        const x = Math.min(...cells.map((c) => c.x));
        const y = Math.min(...cells.map((c) => c.y));
        lines.push({
          text: cells.map((c) => c.text).join('  '),
          x,
          y,
          w: Math.max(...cells.map((c) => c.x + c.w)) - x,
          h: Math.max(...cells.map((c) => c.y + c.h)) - y,
          cells,
        });
      }
    }
    out = lines.sort((a, b) => a.y - b.y || a.x - b.x);
  }
  unstackedCache.set(page, out);
  return out;
}

/** How much of the shorter of two boxes' heights they share. */
function overlapShare(a: { y: number; h: number }, b: { y: number; h: number }): number {
  const o = Math.min(a.y + a.h, b.y + b.h) - Math.max(a.y, b.y);
  return o / Math.max(1e-6, Math.min(a.h, b.h));
}

/** A stacked cell's items grouped by baseline (each row's extent fixed by its first item), as cells. */
function splitStacked(cell: Cell): Cell[] {
  const items = [...(cell.items ?? [])].sort((a, b) => a.y - b.y || a.x - b.x);
  const rows: (typeof items)[] = [];
  for (const it of items) {
    const row = rows.find((r) => overlapShare(r[0], it) >= 0.5);
    if (row) row.push(it);
    else rows.push([it]);
  }
  return rows.map((row) => {
    row.sort((a, b) => a.x - b.x);
    const h = Math.max(...row.map((i) => i.h));
    let text = '';
    row.forEach((it, k) => {
      if (k > 0 && it.x - (row[k - 1].x + row[k - 1].w) > 0.15 * h && !text.endsWith(' ')) text += ' ';
      text += it.text;
    });
    const x = row[0].x;
    const y = Math.min(...row.map((i) => i.y));
    return {
      text: text.replace(/\s+/g, ' ').trim(),
      x,
      y,
      w: Math.max(...row.map((i) => i.x + i.w)) - x,
      h: Math.max(...row.map((i) => i.y + i.h)) - y,
      conf: row.reduce((a, i) => a + (i.conf ?? 1), 0) / row.length,
      source: cell.source,
    };
  });
}

/** The cells below `cell` (same column) within `maxGap` line heights, in order. */
export function cellsBelow(page: PageText, line: Line, cell: Cell, maxGap = 2.5, xTolerance = 12, stopAtLeftCell = false): { line: Line; cell: Cell }[] {
  const out: { line: Line; cell: Cell }[] = [];
  const li = page.lines.indexOf(line);
  let lastBottom = line.y + line.h;
  // After the first hit, later lines must line up with that hit (a value indented under its label's value).
  let anchor = cell.x;
  for (let k = li + 1; k < page.lines.length; k++) {
    const l = page.lines[k];
    if (l.y - lastBottom > maxGap * Math.max(cell.h, 6)) break;
    // A cell further left than the value column starts the next labelled row.
    if (stopAtLeftCell && out.length > 0 && l.cells.some((c) => c.x < anchor - xTolerance && c.x + c.w > anchor - 200)) break;
    const c = l.cells.find((c) => Math.abs(c.x - anchor) <= xTolerance || (c.x >= cell.x - 2 && c.x < cell.x + Math.max(cell.w, 40) && out.length === 0));
    if (c) {
      out.push({ line: l, cell: c });
      anchor = c.x;
      lastBottom = l.y + l.h;
    }
  }
  return out;
}

/** Find the first value for a label: text after the label in the same cell, the next cell, or the cell below. */
export function findLabelled<T>(pages: PageText[], label: RegExp, parse: (s: string) => T | undefined, opts: FindOptions = {}): Found<T> | undefined {
  const re = new RegExp(`^\\s*(?:${label.source})\\s*[:#.]?\\s*`, 'i');
  // A caption in parentheses to the right of its value ("GL 4471209    (Policy Number)").
  const inParens = new RegExp(`^\\s*\\((?:${label.source})\\s*[:#.]?\\)\\s*$`, 'i');
  for (const page of pages) {
    if (opts.pages && !opts.pages.includes(page.page)) continue;
    /** The value `v` read in cell `at` of line `atLine`, `text` the label and value as they read, its confidence weighed. */
    const found = (v: T, at: Cell, atLine: Line, text: string, weight = 1): Found<T> => ({
      value: v,
      page: page.page,
      text,
      confidence: confOf(page, at) * weight,
      source: cellSource(page, at),
      cell: at,
      line: atLine,
    });
    for (const line of page.lines) {
      if (opts.skipLine?.(line)) continue;
      for (let ci = 0; ci < line.cells.length; ci++) {
        const cell = line.cells[ci];
        const paren = inParens.test(cell.text);
        const m = paren ? ([''] as unknown as RegExpExecArray) : re.exec(cell.text);
        if (!m) continue;
        if (paren) {
          // The value is the cell before it on the line, however far (the captions stand in their own column).
          const prev = line.cells[ci - 1];
          const v = prev ? parse(prev.text) : undefined;
          if (prev && v !== undefined) return found(v, prev, line, `${prev.text} ${cell.text}`, 0.85);
          continue;
        }
        const rest = cell.text.slice(m[0].length).trim();
        if (rest) {
          const v = parse(rest);
          if (v !== undefined) return found(v, cell, line, cell.text);
          continue; // the label is followed by something else (e.g. "Policy Number Prefix")
        }
        const next = line.cells[ci + 1];
        if (next) {
          const v = parse(next.text);
          if (v !== undefined) return found(v, next, line, `${cell.text} ${next.text}`);
          // A designation of its own between the caption and the value ("Additional Insured" | "Lessor of Premises:" |
          // the name): the value is the cell after it.
          const after = line.cells[ci + 2];
          const w = after && /^[A-Za-z][A-Za-z ,'/&-]{2,60}:$/.test(next.text.trim()) ? parse(after.text) : undefined;
          if (after && w !== undefined) return found(w, after, line, `${cell.text} ${next.text} ${after.text}`);
        }
        for (const b of cellsBelow(page, line, cell, opts.below ?? 2.5).slice(0, 1)) {
          const v = parse(b.cell.text);
          if (v !== undefined) return found(v, b.cell, b.line, `${cell.text} ${b.cell.text}`, 0.95);
        }
        // A form's caption printed under its value, on the rule the value was typed on ("GL 4471209" over "POLICY NUMBER"):
        // a bare caption (no colon, nothing after it) with the value just above it, starting where it starts.
        if (!/:\s*$/.test(cell.text.trim()) && cell.text.trim() === m[0].trim()) {
          const li = page.lines.indexOf(line);
          const above = li > 0 ? page.lines[li - 1] : undefined;
          // OCR boxes are ink high (capitals about 0.7 of the type size), text-layer boxes type high.
          const typeHigh = Math.max(line.h, above?.h ?? 0) / (page.source === 'ocr' ? 0.7 : 1);
          const over = above && line.y - above.y <= typeHigh * 2.4 ? above.cells.find((c) => Math.abs(c.x - cell.x) <= 6) : undefined;
          // Set as a caption: smaller than the value, or in capitals under a value that is not ("Finance Company/"
          // over "Lienholder" is a two-line column header, not a value and its caption).
          const caption = over && (cell.h < over.h * 0.92 || (cell.text === cell.text.toUpperCase() && /[a-z\d]/.test(over.text)));
          const v = over && caption ? parse(over.text) : undefined;
          if (over && above && v !== undefined) return found(v, over, above, `${over.text}\n${cell.text}`, 0.85);
        }
        // Some forms print the value first and its caption to the right ("$10,400   Personal Property").
        const prev = line.cells[ci - 1];
        if (prev && cell.x - (prev.x + prev.w) < 120) {
          const v = parse(prev.text);
          if (v !== undefined) return found(v, prev, line, `${prev.text} ${cell.text}`, 0.85);
        }
      }
    }
  }
  return undefined;
}

/** A labelled multi-line value (a name and its address lines). */
export function findLabelledBlock(
  pages: PageText[],
  label: RegExp,
  maxLines = 4,
  opts: FindOptions & { accept?: (first: string) => boolean } = {},
): Found<string[]> | undefined {
  const first = findLabelled(pages, label, (s) => (/[a-z]/i.test(s) && !ANY_LABEL.test(s) && (opts.accept?.(s) ?? true) ? s : undefined), opts);
  if (!first) return undefined;
  const page = pages.find((p) => p.page === first.page)!;
  const lines = [first.value];
  const texts = [first.text];
  for (const b of cellsBelow(page, first.line, first.cell, 1.8, 10, true)) {
    if (lines.length >= maxLines) break;
    if (ANY_LABEL.test(b.cell.text) && !/^\d/.test(b.cell.text)) break;
    lines.push(b.cell.text);
    texts.push(b.cell.text);
  }
  return { ...first, value: lines, text: texts.join('\n') };
}

export interface TableColumn {
  role: string;
  x: number;
  right: number;
}
export interface TableRow {
  page: PageText;
  line: Line;
  /** Cells assigned to each role (several cells may share a role). */
  byRole: Record<string, Cell[]>;
}

/**
 * Rows of a table found by its header line. `roles` maps a role name to the header-cell pattern; the
 * first role is the row label. Rows run until a line matching `stop`, a big vertical gap or `maxRows`.
 */
export function findTable(pages: PageText[], roles: Record<string, RegExp>, required: string[], stop: RegExp, maxRows = 30): TableRow[] {
  const roleNames = Object.keys(roles);
  const rows: TableRow[] = [];
  for (const page of pages) {
    for (let li = 0; li < page.lines.length; li++) {
      const header = page.lines[li];
      const cols: TableColumn[] = [];
      for (const c of header.cells) {
        const role = roleNames.find((r) => roles[r].test(c.text) && !cols.some((k) => k.role === r));
        if (role) cols.push({ role, x: c.x, right: c.x + c.w });
      }
      if (!required.every((r) => cols.some((c) => c.role === r)) || cols.length < 2) continue;
      cols.sort((a, b) => a.x - b.x);
      const labelRole = roleNames[0];
      let lastBottom = header.y + header.h;
      for (let k = li + 1; k < page.lines.length && rows.length < maxRows + 1000; k++) {
        const line = page.lines[k];
        if (line.y - lastBottom > 3 * Math.max(line.h, 8)) break;
        if (stop.test(line.text)) break;
        const byRole: Record<string, Cell[]> = {};
        for (const cell of line.cells) {
          // The column whose header starts closest to the left of (or a little right of) the cell.
          let best: TableColumn | undefined;
          for (const col of cols) if (cell.x >= col.x - 25) best = col;
          const role = best?.role ?? labelRole;
          (byRole[role] ??= []).push(cell);
        }
        rows.push({ page, line, byRole });
        lastBottom = line.y + line.h;
      }
      li = page.lines.length; // one table per page for a given header
    }
  }
  return rows;
}

/** The citation fields of a found value, to spread into an emitted candidate. */
export const fromFound = <T>(f: Found<T>) => ({ page: f.page, text: f.text, confidence: f.confidence, source: f.source });
