// A citation is the value's own words: the shortest run of cells on the cited page (within one line, or two
// lines in a row for a value printed over two, like an address) whose text holds the value, cut to the value's
// characters when they sit inside one cell, with its box in page coordinates (points from the top-left corner).
// Classifications (a coverage type, a role, a tick) have no words of their own and get no span.
import type { Cell, Line, PageText } from '../documents/layout.ts';
import { normaliseText, moneyTokens, dateTokens } from './normalise.ts';

export interface ValueSpan {
  span: string;
  box: { x: number; y: number; w: number; h: number };
}

const CLASSIFICATION = /\/(role|type|insurer_letter|additional_insured|subrogation_waived|wc_statutory)$/;
/** Longest run of cells tried within a line. */
const MAX_RUN = 10;
/** A value this short (an insurer letter, a state) is found only as a whole word. */
const SHORT_VALUE = 3;

const compact = (s: string) => normaliseText(s).replace(/ /g, '');

/** Whether `text` holds `value` after normalising money, dates, case and spacing (as grounding does). */
export function spanHolds(text: string, value: unknown): boolean {
  if (typeof value === 'number') return moneyTokens(text).some((n) => Math.abs(n - value) < 0.005);
  if (typeof value !== 'string' || value === '') return false;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) return dateTokens(text).some((d) => d.iso === value);
  if (/^\d+(\.\d+)?(\/\d+(\.\d+)?)+$/.test(value)) {
    const money = moneyTokens(text);
    return value.split('/').every((p) => money.some((n) => Math.abs(n - Number(p)) < 0.005));
  }
  const v = compact(value);
  if (v.length <= SHORT_VALUE) return ` ${normaliseText(text)} `.includes(` ${normaliseText(value)} `);
  return v !== '' && compact(text).includes(v);
}

const boxOf = (cells: Pick<Cell, 'x' | 'y' | 'w' | 'h'>[]) => {
  const x = Math.min(...cells.map((c) => c.x));
  const y = Math.min(...cells.map((c) => c.y));
  const r = Math.max(...cells.map((c) => c.x + c.w));
  const b = Math.max(...cells.map((c) => c.y + c.h));
  return { x: r1(x), y: r1(y), w: r1(r - x), h: r1(b - y) };
};
const r1 = (n: number) => Math.round(n * 10) / 10;

/** The value's characters inside one cell, when they are printed as they read (case and spacing aside). */
function cutCell(cell: Cell, value: unknown): ValueSpan | undefined {
  const per = cell.w / Math.max(1, cell.text.length);
  const cut = (index: number, s: string): ValueSpan => ({ span: s, box: { x: r1(cell.x + index * per), y: r1(cell.y), w: r1(s.length * per), h: r1(cell.h) } });
  if (typeof value === 'number') {
    // An amount printed after its caption in the same cell ("E.L. EACH ACCIDENT $500,000"): the amount alone.
    for (const m of cell.text.matchAll(/\$?\s?\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\$\s?\d+(?:\.\d{1,2})?/g))
      if (m[0].length < cell.text.length && spanHolds(m[0], value)) return cut(m.index, m[0]);
    return undefined;
  }
  if (typeof value !== 'string') return undefined;
  if (/^\d{4}-\d{2}-\d{2}$/.test(value)) {
    // A date inside a period ("01/15/2025 to 07/15/2025"): the date alone.
    const d = dateTokens(cell.text).find((x) => x.iso === value);
    return d && d.text.length < cell.text.length ? cut(d.index, d.text) : undefined;
  }
  const words = value
    .trim()
    .split(/\s+/)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const m = new RegExp(`(?<![A-Za-z0-9])${words.join('[\\s,]*')}(?![A-Za-z0-9])`, 'i').exec(cell.text);
  if (!m || m[0].length === cell.text.length) return undefined;
  return cut(m.index, m[0]);
}

/** The shortest run of cells in `cells` (in reading order) whose joined text holds the value. */
function shortestRun(cells: Cell[], value: unknown): Cell[] | undefined {
  let best: Cell[] | undefined;
  for (let i = 0; i < cells.length; i++)
    for (let j = i; j < Math.min(cells.length, i + MAX_RUN); j++) {
      const run = cells.slice(i, j + 1);
      if (!spanHolds(run.map((c) => c.text).join(' '), value)) continue;
      if (!best || run.length < best.length || (run.length === best.length && text(run).length < text(best).length)) best = run;
      break;
    }
  return best;
}
const text = (cells: Cell[]) => cells.map((c) => c.text).join(' ');

/**
 * Where on `page` the value was read: lines of the cited text first (the rule's source), then any line of the
 * page; a value over two lines (an address) from a line and the next. Undefined when no run of cells holds it.
 */
export function locateValue(page: PageText, pointer: string, value: unknown, cited: string): ValueSpan | undefined {
  if (value === null || typeof value === 'boolean' || CLASSIFICATION.test(pointer)) return undefined;
  // The cited text's own lines first, the longest first (a short line can sit inside a long row by chance).
  const c = compact(cited);
  const inCited = (l: Line) => c.includes(compact(l.text)) || compact(l.text).includes(c);
  const lines = [...page.lines.filter(inCited).sort((a, b) => b.text.length - a.text.length), ...page.lines.filter((l) => !inCited(l))];
  for (const line of lines) {
    const run = shortestRun(line.cells, value);
    if (!run) continue;
    if (run.length === 1) return cutCell(run[0], value) ?? { span: run[0].text, box: boxOf(run) };
    return { span: text(run), box: boxOf(run) };
  }
  // Two lines in a row (a name and its address, a value wrapped in its box).
  for (const k of page.lines.keys()) {
    const next = page.lines[k + 1];
    if (!next || next.y - page.lines[k].y > page.lines[k].h * 3) continue;
    const cells = [...page.lines[k].cells, ...next.cells];
    const run = shortestRun(cells, value);
    if (run) return { span: text(run), box: boxOf(run) };
  }
  return undefined;
}
