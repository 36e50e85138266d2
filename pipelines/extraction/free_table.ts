// The coverage table of a certificate laid out freely: its header (column captions by vocabulary, run together,
// stacked over or under the header line, or read with errors on a scan), the cells of a row cut at its columns, and
// what a row's cells say: its answer marks and its limits by caption.
import type { PageText, Cell, Line } from '../documents/layout.ts';
import { dateTokens, parseMoney } from './normalise.ts';
import { answerOf } from './certificate_grid.ts';

export interface Column {
  role: 'policy' | 'insurer' | 'eff' | 'exp' | 'limits' | 'type' | 'letter' | 'addl' | 'subr' | 'answers';
  x: number;
  /** The caption's left edge was estimated from its character offset in a cell of several captions. */
  estimated?: boolean;
}
/** Column captions, tried at each word of a header line (a header cell may hold several captions run together). */
const HEADER_PHRASES: [RegExp, Column['role']][] = [
  // The insurer's letter ("CO LTR", "LTR", "CO") and the two answer columns ("ADDL INSD", "AI" (a scan reads "Al");
  // "SUBR WVD", "WOS").
  [/^(?:co|ins(?:r|urer)?)\.?\s*ltr\b|^ltr\b|^co\.?(?=\s|$)/i, 'letter'],
  // One column for both answers ("AI/WS", "ADDL/SUBR"), each row "Y/N"; a scan reads "AI/" as "AU".
  [/^(?:a\.?[il1|]\.?\s*\/|au|addl\.?(?:\s*insd)?\s*\/)\s*(?:w\.?s\.?|wos|subr\.?(?:\s*wvd)?|wvd)(?=\s|$)/i, 'answers'],
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
    if (ANSWER_ROLES.has(col.role)) return onMarks(col, columns, cells);
    const under = cells
      .filter((c) => c.x >= col.x - ESTIMATE_SLACK && c.x < col.x - CELL_BEFORE_CAPTION)
      .filter((c) => !columns.some((o) => o !== col && o.x >= c.x - CELL_BEFORE_CAPTION && o.x < col.x))
      .sort((a, b) => b.x - a.x)[0];
    return under ? { ...col, x: under.x } : col;
  });
}

const ANSWER_ROLES = new Set<Column['role']>(['addl', 'subr', 'answers']);
/** How far an answer column's estimated caption edge may stand from the marks under it (a short caption set small). */
const MARK_SLACK = 2 * ESTIMATE_SLACK;

/**
 * An answer column moved onto the marks under it: the nearest answer mark (or "Y/N" pair) within `MARK_SLACK`,
 * unless another answer column stands nearer to it.
 */
function onMarks(col: Column, columns: Column[], cells: Cell[]): Column {
  const marks = cells.filter((c) => answerOf(c.text) !== undefined || /^\S{1,3}\/\S{1,3}$/.test(c.text.trim()));
  const mark = marks.filter((c) => Math.abs(c.x - col.x) <= MARK_SLACK).sort((a, b) => Math.abs(a.x - col.x) - Math.abs(b.x - col.x))[0];
  if (!mark) return col;
  const rival = columns.some((o) => o !== col && ANSWER_ROLES.has(o.role) && Math.abs(o.x - mark.x) < Math.abs(col.x - mark.x));
  return rival ? col : { ...col, x: mark.x };
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

/** The longest word under an answer column that is taken for a mark the scan garbled ("Yo", "2X"), not a neighbour's. */
const GARBLED_MARK = /^\S{1,3}$/;

/**
 * A table row's answer in a Y/N column (ADDL INSD, SUBR WVD): the mark under the column's caption (Y, X: yes; N: no;
 * N/A: not asked); a blank cell under a printed column is no, a short word that is no mark is unread (null). A table
 * without the column says nothing (null).
 */
export function columnAnswer(marks: Cell[], col: Column | undefined, nextX: number | undefined): { value: boolean | null; blank: boolean } {
  if (!col) return { value: null, blank: false };
  const under = marks.filter((x) => x.x >= col.x - CELL_BEFORE_CAPTION && x.x < (nextX ?? col.x + 40) - CELL_BEFORE_CAPTION);
  const at = under.find((x) => answerOf(x.text) !== undefined);
  if (at) return { value: answerOf(at.text) ?? null, blank: false };
  // A word under the column that is no mark was a mark the scan garbled: what it said is not known.
  if (under.some((x) => GARBLED_MARK.test(x.text.trim()))) return { value: null, blank: false };
  return { value: false, blank: true };
}

const AMOUNT = /\$?\s?(\d{1,3}(?:,\d{3})+|\d{4,})/;
/**
 * The end of a limit's caption wrapped onto the next line before its amount ("Combined Single" / "Limit $1,000,000"):
 * a word or two that name no other limit.
 */
const CAPTION_END = /^(?!.*\b(?:each|aggregate|occurrence|accident|statutory|per|disease|policy)\b)[A-Za-z.()]+(?:\s+[A-Za-z.()]+)?\s*:?\s*\$?\s?\d/i;

/**
 * A limit by its caption: the amount in the caption's cell, in a later cell of its line, or (its caption wrapped) at
 * the start of the cell under the caption on the next line.
 */
export function limitAfter(ls: Line[], re: RegExp): number | undefined {
  for (const [k, l] of ls.entries())
    for (let i = 0; i < l.cells.length; i++) {
      const cell = l.cells[i];
      const m = re.exec(cell.text);
      if (!m) continue;
      const inCell = AMOUNT.exec(cell.text.slice(m.index + m[0].length));
      if (inCell) return parseMoney(inCell[0]);
      const next = l.cells.slice(i + 1).find((x) => /\d/.test(x.text));
      const v = next ? AMOUNT.exec(next.text) : null;
      if (v) return parseMoney(v[0]);
      const under = ls[k + 1]?.cells.find((x) => Math.abs(x.x - cell.x) <= CELL_BEFORE_CAPTION && CAPTION_END.test(x.text.trim()));
      const wrapped = under ? AMOUNT.exec(under.text) : null;
      if (wrapped) return parseMoney(wrapped[0]);
    }
  return undefined;
}

/** "Y/N" under a column of both answers ("AI/WS"): each answer, as `columnAnswer` gives it. */
export function pairAnswer(marks: Cell[], col: Column, nextX: number | undefined): Record<'addl' | 'subr', { value: boolean | null; blank: boolean }> {
  const under = marks.filter((x) => x.x >= col.x - CELL_BEFORE_CAPTION && x.x < (nextX ?? col.x + 40) - CELL_BEFORE_CAPTION);
  const pair = under
    .map((x) => /^(\S{1,3})\s*\/\s*(\S{1,3})$/.exec(x.text.trim()))
    .find((m) => m && answerOf(m[1]) !== undefined && answerOf(m[2]) !== undefined);
  if (pair) return { addl: { value: answerOf(pair[1]) ?? null, blank: false }, subr: { value: answerOf(pair[2]) ?? null, blank: false } };
  // Unread, or blank.
  const said = under.length ? { value: null, blank: false } : { value: false, blank: true };
  return { addl: said, subr: said };
}

/** A stanza's labelled answer: a line "Additional Insured: Yes" (caption and answer in one cell or several). */
export function labelledAnswer(ls: Line[], re: RegExp): boolean | null | undefined {
  for (const l of ls) {
    const m = re.exec(l.cells.map((x) => x.text.trim()).join(' '));
    if (m?.[1]) return answerOf(m[1]);
  }
  return undefined;
}
