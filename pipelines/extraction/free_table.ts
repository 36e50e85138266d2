// The coverage table of a certificate laid out freely: its header (column captions by vocabulary, run together,
// stacked over or under the header line, or read with errors on a scan) and the cells of a row cut at its columns.
import type { PageText, Cell, Line } from '../documents/layout.ts';
import { dateTokens } from './normalise.ts';

export interface Column {
  role: 'policy' | 'insurer' | 'eff' | 'exp' | 'limits' | 'type' | 'letter' | 'addl' | 'subr';
  x: number;
  /** The caption's left edge was estimated from its character offset in a cell of several captions. */
  estimated?: boolean;
}
/** Column captions, tried at each word of a header line (a header cell may hold several captions run together). */
const HEADER_PHRASES: [RegExp, Column['role']][] = [
  // The insurer's letter ("CO LTR", "LTR", "CO") and the two answer columns ("ADDL INSD", "AI" (a scan reads "Al");
  // "SUBR WVD", "WOS").
  [/^(?:co|ins(?:r|urer)?)\.?\s*ltr\b|^ltr\b|^co\.?(?=\s|$)/i, 'letter'],
  [/^add(?:itiona)?l\.?(?:\s*(?:insd|ins\.?|insured)\b)?|^a\.?[il1|]\.?(?=\s|$)/i, 'addl'],
  [/^subr(?:ogation)?\.?(?:\s*(?:wvd|waived|waiver)\b)?|^waiver(?:\s+of\s+subr(?:ogation|o\.?)?)?(?=\s|$)|^wos\b|^wvd\b/i, 'subr'],
  [/^(?:policy\s+)?eff(?:ective|ec\.?|\.)?(?:\s+date)?\b/i, 'eff'],
  [/^(?:policy\s+)?exp(?:iration|ires|\.)?(?:\s+date)?\b/i, 'exp'],
  // A scan may lose the first letter ("olicy No,").
  [/^p?olicy\s*(?:number|no\b[.,]?|num\.?|#)|^policy\b/i, 'policy'],
  [/^(?:insurance\s+)?(?:company|carrier|insurer)\b|^writing\s+company\b/i, 'insurer'],
  [/^limits?(?:\s+of\s+(?:liability|insurance))?\b/i, 'limits'],
  [/^type\s+of\s+(?:insurance|coverage)\b|^line\s+of\s+business\b|^coverage\b|^type\b/i, 'type'],
];

/** The column captions of one line, each at its estimated left edge; a role already in `columns` is not added again. */
function headerColumns(line: Line, columns: Column[] = []): Column[] {
  for (const c of line.cells) {
    // Captions set tight run together with no space ("Insurance CompanyEffective"): parted where a capital follows a small letter.
    const text = c.text.replace(/([a-z])([A-Z])/g, '$1 $2');
    const per = c.w / Math.max(1, text.length);
    const words = [...text.matchAll(/\S+/g)];
    for (let k = 0; k < words.length;) {
      const from = words[k].index ?? 0;
      const rest = text.slice(from);
      const hit = HEADER_PHRASES.map(([re, role]) => ({ m: re.exec(rest), role })).find((h) => h.m);
      if (!hit?.m) {
        k++;
        continue;
      }
      if (!columns.some((x) => x.role === hit.role)) columns.push({ role: hit.role, x: c.x + per * from, ...(from > 0 ? { estimated: true } : {}) });
      const end = from + hit.m[0].length;
      while (k < words.length && (words[k].index ?? 0) < end) k++;
    }
  }
  // "Insurance" alone right of the type's caption heads the insurer's column ("Insurance Company", its second word
  // lost on a scan or set under it).
  const type = columns.find((x) => x.role === 'type');
  const lone = line.cells.find((c) => /^insurance$/i.test(c.text.trim()) && type && c.x > type.x);
  if (lone && !columns.some((x) => x.role === 'insurer')) columns.push({ role: 'insurer', x: lone.x });
  return columns;
}

/**
 * How far left of its column's caption a cell may start and still be the column's: a caption's left edge is
 * estimated from its characters when captions run together in one cell, and the estimate may be a few points off.
 */
export const CELL_BEFORE_CAPTION = 6;

/** How far (in line heights) a header's caption stacked over or under its main line may stand ("CO" over "LTR"). */
const STACKED_CAPTION_LINES = 1.6;

/**
 * Whether a header line's captions make a table: four or more, one of them the policy number, or (a scan read the
 * policy number's caption into a neighbour's, "Type of Insuranielicy No.") one a date and one the type.
 */
function enoughCaptions(roles: Set<Column['role']>): boolean {
  return roles.size >= 4 && (roles.has('policy') || ((roles.has('eff') || roles.has('exp')) && roles.has('type')));
}

/**
 * A table header line: enough column captions (`enoughCaptions`). Captions set on two lines ("ADDL" over "INSD",
 * "CO" over "LTR") beside a one-line header join it; `last` is the header's last line.
 */
export function tableHeader(page: PageText): { li: number; last: number; columns: Column[] } | undefined {
  for (let li = 0; li < page.lines.length; li++) {
    const columns = headerColumns(page.lines[li]);
    const roles = new Set(columns.map((x) => x.role));
    if (!enoughCaptions(roles)) continue;
    const line = page.lines[li];
    const near = (k: number) => {
      const other = page.lines[k];
      // A caption line holds no date (the first row under the header does).
      return other && Math.abs(other.y - line.y) <= STACKED_CAPTION_LINES * Math.max(line.h, other.h) && !dateTokens(other.text).length;
    };
    let last = li;
    for (let k = li - 1; k >= li - 2 && near(k); k--) headerColumns(page.lines[k], columns);
    for (let k = li + 1; k <= li + 2 && near(k); k++) {
      headerColumns(page.lines[k], columns);
      last = k;
    }
    return { li, last, columns };
  }
  return undefined;
}

/**
 * How far right of the cells under it a caption's estimated edge may fall: a bold caption run into its neighbour
 * ("Policy Expiration Company") is wider per character than the estimate assumes, by a word's width at most.
 */
const ESTIMATE_SLACK = 16;

/**
 * The table's columns with each estimated caption edge moved onto the left edge of the cells under it, when a cell
 * of the rows' first lines starts within `ESTIMATE_SLACK` left of it and no other column starts between them.
 */
export function alignColumns(columns: Column[], rows: Line[]): Column[] {
  const cells = rows.flatMap((l) => l.cells);
  return columns.map((col) => {
    if (!col.estimated) return col;
    const under = cells
      .filter((c) => c.x >= col.x - ESTIMATE_SLACK && c.x < col.x - CELL_BEFORE_CAPTION)
      .filter((c) => !columns.some((o) => o !== col && o.x >= c.x - CELL_BEFORE_CAPTION && o.x < col.x))
      .sort((a, b) => b.x - a.x)[0];
    return under ? { ...col, x: under.x } : col;
  });
}

/** How near (in line heights) two lines' baselines stand when they are one row a skewed scan's engine read in two. */
const ROW_BAND = 0.5;

/** Whether two lines are one table row (a skewed scan splits a row into two lines at about the same height). */
export function sameRow(a: Line, b: Line): boolean {
  return Math.abs(a.y - b.y) < ROW_BAND * Math.max(a.h, b.h);
}

/**
 * A cell that spans several table columns, cut into one cell per column: each word goes to the column its
 * estimated left edge (from its character offset) falls in.
 */
export function splitAtColumns(cell: Cell, columnXs: number[]): Cell[] {
  const xs = [...columnXs].sort((a, b) => a - b);
  const colAt = (x: number) => xs.filter((c) => c <= x + CELL_BEFORE_CAPTION).length - 1;
  if (colAt(cell.x) === colAt(cell.x + cell.w - 2)) return [cell];
  const per = cell.w / Math.max(1, cell.text.length);
  const parts: { col: number; words: string[]; x: number; end: number }[] = [];
  // A date is one word: a column edge estimated inside "February 27, 2025" does not cut it.
  const dates = dateTokens(cell.text);
  const words: { 0: string; index: number }[] = [];
  for (const m of cell.text.matchAll(/\S+/g)) {
    const i = m.index ?? 0;
    const d = dates.find((x) => i >= x.index && i < x.index + x.text.length);
    if (d && i === d.index) words.push({ 0: d.text, index: i });
    else if (!d || !words.some((w) => w.index === d.index)) words.push({ 0: m[0], index: i });
  }
  for (const m of words) {
    const x = cell.x + per * (m.index ?? 0);
    const col = colAt(x);
    const last = parts[parts.length - 1];
    if (last && last.col === col) {
      last.words.push(m[0]);
      last.end = x + per * m[0].length;
    } else parts.push({ col, words: [m[0]], x, end: x + per * m[0].length });
  }
  if (parts.length < 2) return [cell];
  return parts.map((p) => ({ ...cell, text: p.words.join(' '), x: p.x, w: p.end - p.x, items: undefined }));
}
