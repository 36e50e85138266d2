// The coverage grid of an ACORD 25-style certificate: its columns located from the header words, one coverage per
// line holding a policy period, its type from the standard band it sits in (or the row's own words), and its
// policy number, limits and ADDL INSD / SUBR WVD answers read from the row and its band.
import type { PageText, Cell, Line } from '../documents/layout.ts';
import type { Emit } from './kinds/types.ts';
import { cleanValue, dateTokens, parseMoney } from './normalise.ts';

export type CertificateCoverageType = 'general_liability' | 'automobile_liability' | 'umbrella_liability' | 'workers_compensation' | 'property' | 'other';

/** A coverage row the grid emitted. */
export interface GridRow {
  type: CertificateCoverageType;
  letter: string | null;
  policyNumber: string | null;
  /** Effective and expiration dates (the expiration null when the row was read without it). */
  dates: [string, string | null];
  /** The row's line (its citation). */
  text: string;
}

// Offsets in page points (a letter-size page is 612 × 792).
/** Header caption lines belong to the header row when within this distance above it. */
const HEADER_SPAN = 16;
/** The policy-period dates may start this far left of the POLICY EFF column's header word. */
const DATE_SLACK = 80;
/** A cell left of this distance before the POLICY EFF column is in the type-of-insurance or policy-number part. */
const TYPE_PART_END = 40;
/** A policy number may start this far left of its column's header (scans shift it). */
const NUMBER_SLACK = 60;
/** An answer mark belongs to a Y/N column when its centre is within this distance of the column's header word. */
const MARK_NEAR = 12;
/** With its captions lost, ADDL INSD sits this far left of SUBR WVD. */
const ADDL_LEFT_OF_SUBR = 16;
/** How many lines above a bare policy row a section caption (PROPERTY, INLAND MARINE) may stand. */
const CAPTION_LOOKBACK = 6;
/** Amounts under this are not limits (a count, a year). */
const MIN_LIMIT = 1000;

/** An answer in a Y/N column: Y, N, X, N/A, YES, NO (a scan's box border around it taken off first). */
const ANSWER_MARK = /^(Y|N|X|N\s*\/\s*A|YES|NO)$/i;
const bareMark = (t: string) => t.trim().replace(/^[[|(]+|[\]|)]+$/g, '');
/** One or two tick-column answers (X, Y, N, N/A) before a policy number in the same cell. */
export const LEADING_MARKS = /^(?:(?:[XYN]|N\/A)\s+){1,2}(?=[A-Z0-9-]*\d[A-Z0-9-]*\d)/i;
/** A check mark as printed or read from a scan. */
export const MARK = /^[Xx✓✔✗✘√64ü■●]$/;

const COI_TYPES: [RegExp, CertificateCoverageType][] = [
  [/commercial general liability|general liability/i, 'general_liability'],
  [/automobile liability|auto liability|business auto/i, 'automobile_liability'],
  [/umbrella liab|excess liab|excess\/umbrella/i, 'umbrella_liability'],
  [/workers\s*'?\s*compensation|workers' compensation|employers' liability/i, 'workers_compensation'],
];
/** Words that belong to each standard band's type-of-insurance column (anything else on a policy row is another line). */
const BAND_WORDS: Record<CertificateCoverageType, RegExp> = {
  general_liability: /general|liab|claims|occur|aggregate|policy|project|loc\b|other/i,
  automobile_liability: /auto|owned|hired|scheduled|liab/i,
  umbrella_liability: /umbrella|excess|occur|claims|ded|retention|liab/i,
  workers_compensation: /worker|employers|proprietor|officer|excluded|mandatory|describe|y\s*\/\s*n|n\s*\/\s*a|^[YN]$|^[YN]\s/i,
  property: /./,
  other: /./,
};

/**
 * A cell of answers only, read into one ("[N] N/A": a Y/N box of the type column, then the ADDL INSD column's
 * printed N/A, a word-gap apart), is one mark per answer, each placed by its characters' share of the cell's width.
 * Any other cell is itself.
 */
export function markCells(c: Cell): Cell[] {
  const text = c.text.trim().replace(/\bN\s*\/\s*A\b/gi, 'N/A');
  // The ADDL INSD / SUBR WVD answers run into the policy number's cell ("Y BLS57854924"): the marks are read apart.
  const lead = LEADING_MARKS.exec(text);
  if (lead) {
    const per = c.w / text.length;
    return [...lead[0].matchAll(/\S+/g)].map((m) => ({ ...c, text: m[0], x: c.x + per * m.index, w: per * m[0].length }));
  }
  const toks = [...text.matchAll(/\S+/g)];
  if (toks.length < 2 || !toks.every((m) => ANSWER_MARK.test(bareMark(m[0])))) return [c];
  const per = c.w / text.length;
  return toks.map((m) => ({ ...c, text: m[0], x: c.x + per * m.index, w: per * m[0].length }));
}

/** The x-centre of a header word (e.g. "SUBR" inside a "ADDL SUBR" cell), estimated from its character offset. */
export function wordCentre(cell: Cell, word: RegExp): number | undefined {
  const m = word.exec(cell.text);
  if (!m) return undefined;
  const per = cell.w / Math.max(1, cell.text.length);
  return cell.x + per * (m.index + m[0].length / 2);
}

/** Where the grid's columns are, from its header row, and the lines of the grid below it. */
interface Columns {
  lines: Line[];
  addlX: number | undefined;
  subrX: number | undefined;
  pnCell: Cell | undefined;
  effX: number;
  limitsX: number;
  typeX: number;
}

/** A caption's left edge in its cell, estimated by its place among the cell's characters (a scan read "INSR TYPE OF
 * INSURANCE" as one cell, and the INSR LTR letter stands left of the type). */
function captionLeft(c: Cell | undefined, re: RegExp): number | undefined {
  if (!c) return undefined;
  const at = Math.max(0, c.text.search(re));
  return c.x + (c.w * at) / Math.max(1, c.text.length);
}

function locateColumns(page: PageText): Columns | undefined {
  const headerIdx = page.lines.findIndex((l) => /policy\s*number/i.test(l.text) && /type of insurance|limits/i.test(l.text));
  if (headerIdx < 0) return undefined;
  const header = page.lines[headerIdx];
  const headerLines = page.lines
    .slice(Math.max(0, headerIdx - 2), headerIdx + 1)
    .filter(
      (l) =>
        header.y - l.y < HEADER_SPAN &&
        /\bINSR\b|ADD'?L|POLICY\s+(EFF|EXP|NUMBER)|\bLTR\b|TYPE OF INSURANCE/i.test(l.text) &&
        !/CERTIFY|SHOWN MAY/i.test(l.text),
    );
  const colOf = (re: RegExp) => {
    for (const l of headerLines)
      for (const c of l.cells) {
        const x = wordCentre(c, re);
        if (x !== undefined) return x;
      }
    return undefined;
  };
  const pnCell = header.cells.find((c) => /policy\s*number/i.test(c.text));
  const effX = colOf(/POLICY\s*EFF|\(MM\/DD/i) ?? (pnCell ? pnCell.x + pnCell.w + 20 : page.width * 0.55);
  const endIdx = page.lines.findIndex(
    (l, i) => i > headerIdx && /^(description of operations\s*\/|certificate holder|special provisions\b(?!\s+below))/i.test(l.cells[0]?.text ?? ''),
  );
  const cols: Columns = {
    lines: page.lines.slice(headerIdx + 1, endIdx > 0 ? endIdx : undefined),
    addlX: colOf(/\bADD'?L\b|\bADDL\b/i) ?? colOf(/\bINSR?D\b/i),
    subrX: colOf(/\bSUBR\b/i) ?? colOf(/\bWVD\b/i),
    pnCell,
    effX,
    limitsX: colOf(/^LIMITS$|\bLIMITS\b/i) ?? page.width * 0.7,
    typeX:
      captionLeft(
        header.cells.find((c) => /type of insurance/i.test(c.text)),
        /type of insurance/i,
      ) ?? 60,
  };
  if (cols.addlX === undefined || cols.subrX === undefined) answerColumnsFromRows(cols);
  return cols;
}

/**
 * A scan whose header lost the ADDL INSD / SUBR WVD captions: the two answer columns sit side by side between the
 * type of insurance and the policy number; find them from rows answering both (Y/N marks), or from the one caption read.
 */
function answerColumnsFromRows(cols: Columns): void {
  const pnLeft = cols.pnCell?.x ?? cols.effX - 90;
  for (const l of cols.lines) {
    const ms = l.cells.filter((c) => /^[YN]$/i.test(c.text.trim()) && c.x > (cols.typeX + pnLeft) / 2 && c.x < pnLeft + 5);
    if (ms.length !== 2) continue;
    cols.addlX ??= ms[0].x + ms[0].w / 2;
    cols.subrX ??= ms[1].x + ms[1].w / 2;
    break;
  }
  // SUBR WVD came with ADDL INSD (2010 and later editions); the 2001 edition has ADDL only, so not the reverse.
  if (cols.addlX === undefined && cols.subrX !== undefined) cols.addlX = cols.subrX - ADDL_LEFT_OF_SUBR;
}

type Band = { i: number; type: CertificateCoverageType };

/** Band starts: the first line naming each standard type of insurance. */
function bandStarts(cols: Columns): Band[] {
  const starts: Band[] = [];
  cols.lines.forEach((l, i) => {
    const left = l.cells
      .filter((c) => c.x < cols.effX - TYPE_PART_END)
      .map((c) => c.text)
      .join(' ');
    const t = COI_TYPES.find(([re]) => re.test(left));
    if (t && !starts.some((s) => s.type === t[1])) starts.push({ i, type: t[1] });
  });
  return starts;
}

/**
 * Policy rows: lines holding a policy period (two dates left of the limits column), or a policy number and one date
 * under POLICY EFF when the expiration date was lost (a scan's OCR may drop a column), `partial`.
 */
function policyRows(cols: Columns): { i: number; dates: [string, string | null]; partial?: boolean }[] {
  const rows: { i: number; dates: [string, string | null]; partial?: boolean }[] = [];
  cols.lines.forEach((l, i) => {
    const inDates = l.cells.filter((c) => c.x > cols.effX - DATE_SLACK && c.x < cols.limitsX - 5);
    const ds = dateTokens(inDates.map((c) => c.text).join(' '));
    if (ds.length >= 2) rows.push({ i, dates: [ds[0].iso, ds[1].iso] });
    else if (ds.length === 1 && rowPolicyNumber(l, cols)) {
      const at = inDates.find((c) => dateTokens(c.text).length);
      if (at && Math.abs(at.x - cols.effX) <= EFF_NEAR) rows.push({ i, dates: [ds[0].iso, null], partial: true });
    }
  });
  return rows;
}

/** How far from POLICY EFF's caption a row's lone date may start to be taken for its effective date. */
const EFF_NEAR = 20;
/** The share of its confidence a row read without its expiration date keeps. */
const PARTIAL_ROW = 0.75;

/** Where the type-of-insurance column ends on a row: before the ADDL INSD answers, else before the policy number. */
const typeColumnEnd = (cols: Columns) => (cols.addlX !== undefined && cols.addlX > cols.typeX ? cols.addlX - 8 : (cols.pnCell?.x ?? cols.effX)) - 6;

/** The row's own words in the type-of-insurance column, without its insurer letter, check marks and Y/N answers. */
function ownTypeWords(row: Line, cols: Columns): string {
  const right = typeColumnEnd(cols);
  // (A policy number printed a little left of its column, as scans often are, is not a type word.)
  return (
    row.cells
      .filter((c) => c.x + c.w > cols.typeX - 25 && c.x < right && !/\d{3,}/.test(c.text))
      .map((c) => c.text)
      .join(' ')
      .replace(/^[A-F]\s+/, '')
      .replace(/(^|\s)[Xx✓✔6](?=\s|$)/g, ' ')
      // ADDL INSD / SUBR WVD answers (Y, N) read into the type column when their header was not found.
      .replace(/(^|\s)[YN](?=\s|$)/g, ' ')
      .trim()
  );
}

/** The row's policy number: in its column, not a date or an amount, with the answer marks run into it taken off. */
function rowPolicyNumber(row: Line, cols: Columns): string | undefined {
  let pn: string | undefined;
  for (const c of row.cells) {
    if (pn || c.x < (cols.pnCell?.x ?? 0) - NUMBER_SLACK || c.x > cols.effX - 15 || dateTokens(c.text).length || /\$/.test(c.text)) continue;
    const v = cleanValue(
      c.text
        .trim()
        .replace(/\bN\s*\/\s*A\b/gi, 'N/A')
        .replace(LEADING_MARKS, ''),
    );
    if (/^[A-Z0-9][A-Z0-9\- ]{3,28}$/i.test(v) && (v.match(/\d/g) ?? []).length >= 2 && v.replace(/\W/g, '').length >= 5) pn = v;
  }
  return pn;
}

/** The amount after a limit's caption in the band: in the caption's cell, or the next cell holding digits. */
function amountAfter(bandLines: Line[], re: RegExp): number | undefined {
  for (const l of bandLines) {
    const i = l.cells.findIndex((c) => re.test(c.text));
    if (i < 0) continue;
    const inCell = /\$\s?[\d,]{3,}/.exec(l.cells[i].text.replace(re, ''));
    if (inCell) return parseMoney(inCell[0]);
    const next = l.cells.slice(i + 1).find((c) => /\d/.test(c.text));
    if (next) {
      const n = parseMoney(next.text);
      if (n !== undefined && n >= MIN_LIMIT) return n;
    }
    return undefined;
  }
  return undefined;
}

/** A liability row with its limits in one box, "Occ / Agg  $1M/$2M" (ACORD 24 and 27 rows have no limit captions). */
function occurrenceSlashAggregate(bandLines: Line[]): [number, number] | undefined {
  for (const l of bandLines) {
    const i = l.cells.findIndex((c) => /\bocc(?:urrence)?\s*\/\s*agg(?:regate)?\b/i.test(c.text));
    if (i < 0) continue;
    const rest = l.cells
      .slice(i)
      .map((c) => c.text)
      .join(' ')
      .replace(/^.*?agg(?:regate)?\b/i, '');
    const m = /\$?\s?(\d[\d,.]*\s?(?:k|m|mm)?)\s*\/\s*\$?\s?(\d[\d,.]*\s?(?:k|m|mm)?)\b/i.exec(rest);
    const a = m ? parseMoney(m[1]) : undefined;
    const b = m ? parseMoney(m[2]) : undefined;
    if (a !== undefined && b !== undefined && a >= MIN_LIMIT && b >= a) return [a, b];
  }
  return undefined;
}

/**
 * The auto section's first limit box is COMBINED SINGLE LIMIT (Ea accident): found by its caption (which a scan
 * may read scrambled, "COMBINED(Ea accident)SINGLE"), or, when OCR lost the caption, as the one amount on the
 * section's caption line ("AUTOMOBILE LIABILITY  $1,000,000") with no other limit named there.
 */
function combinedSingleLimit(bandLines: Line[], lines: Line[]): number | null {
  const byCaption = amountAfter(bandLines, /combined\s*(?:\(ea\.? accident\)\s*)?single/i);
  if (byCaption !== undefined) return byCaption;
  // The caption in two rows of its box, "COMBINED SINGLE" above "(Ea accident)  $ 1,000,000" (the first row may
  // sit above the policy row's band).
  for (const l of bandLines) {
    const ea = l.cells.findIndex((c) => /^\(ea\.?\s*accident\)/i.test(c.text.trim()));
    const above = lines[lines.indexOf(l) - 1];
    if (ea < 0 || !above?.cells.some((c) => /^combined(?:\s+single)?(?:\s+limit)?$/i.test(c.text.trim()))) continue;
    const n = parseMoney(l.cells[ea].text.replace(/^\(ea\.?\s*accident\)/i, '')) ?? parseMoney(l.cells.slice(ea + 1).find((c) => /\d/.test(c.text))?.text);
    if (n !== undefined && n >= MIN_LIMIT) return n;
  }
  const caption = bandLines.find((l) => /auto(?:mobile)?\s+liab/i.test(l.text));
  if (!caption || /bodily|property damage|per (?:person|accident)|each|aggregate/i.test(caption.text)) return null;
  const amounts = caption.cells.filter((c) => /^\$\s?\d{1,3}(?:,\d{3})+$/.test(c.text.trim()));
  const n = amounts.length === 1 ? parseMoney(amounts[0].text) : undefined;
  return n !== undefined && n >= MIN_LIMIT ? n : null;
}

/**
 * A row of another line of business (professional, crime) with its limits named after their amounts in its own row,
 * "$1,000,000 Occurrence  $1,000,000 Aggregate": the amounts are that row's occurrence and aggregate.
 */
function namedRowLimits(row: Line): { occ: number; agg: number | null } | undefined {
  const rowText = row.cells.map((c) => c.text).join('  ');
  const named = (word: string) => {
    const m = new RegExp(`\\$\\s?(\\d{1,3}(?:,\\d{3})+)\\s+(?:per\\s+|each\\s+)?${word}\\b`, 'i').exec(rowText);
    return m ? (parseMoney(m[1]) ?? null) : null;
  };
  const o = named('occurrence');
  const a = named('aggregate');
  if (o === null || o < MIN_LIMIT) return undefined;
  return { occ: o, agg: a !== null && a >= o ? a : null };
}

/** Workers' compensation: PER STATUTE marked in the band. */
function statutoryMarked(bandLines: Line[]): boolean {
  return bandLines.some((l) =>
    l.cells.some((c, i) => {
      if (/^[Xx✓✔6]\s+(per|statu|wc\s+statu)/i.test(c.text)) return true;
      return /^per\b|statu/i.test(c.text) && MARK.test(l.cells[i - 1]?.text.trim() ?? '');
    }),
  );
}

/** A Y/N column's answer: Y, X or YES is yes, N or NO no, N/A not asked (null); anything else is no answer (undefined). */
export function answerOf(text: string): boolean | null | undefined {
  const t = bareMark(text).replace(/\s/g, '').toUpperCase();
  if (!ANSWER_MARK.test(t)) return undefined;
  return t === 'N/A' ? null : t === 'Y' || t === 'X' || t === 'YES';
}

/**
 * ADDL INSD / SUBR WVD: the mark nearest each column's header word (Y or X: yes; N or blank: no; N/A: not asked).
 * A scan reads the box's border into the mark ("N/A|", "[N]"): the border is not part of it.
 */
function answerFlags(lines: Line[], cols: Columns): { additional: boolean | null; waived: boolean | null } {
  const marks = lines.flatMap((l) => l.cells.flatMap(markCells)).filter((c) => ANSWER_MARK.test(bareMark(c.text)));
  const flag = (x: number | undefined, other: number | undefined) => {
    if (x === undefined) return null;
    const near = marks.filter((c) => {
      const cx = c.x + c.w / 2;
      const d = Math.abs(cx - x);
      return d < MARK_NEAR && (other === undefined || d <= Math.abs(cx - other));
    });
    const answer = near.length ? answerOf(near[0].text) : undefined;
    return answer === undefined ? false : answer;
  };
  return { additional: flag(cols.addlX, cols.subrX), waived: flag(cols.subrX, cols.addlX) };
}

/**
 * Read the grid: one coverage per policy row, emitted under /certificate/coverages/N with the band's lines as its
 * citation; the first row also gives the policy-level provider, number and period.
 */
export function readCoverageGrid(page: PageText, emit: Emit, insurerNames: Record<string, string>, conf: number, src: 'rules' | 'ocr'): GridRow[] {
  const out: GridRow[] = [];
  const cols = locateColumns(page);
  if (!cols) return out;
  const { lines } = cols;
  const starts = bandStarts(cols);
  const rows = policyRows(cols);
  const bandOf = (i: number) => [...starts].reverse().find((s) => s.i <= i) ?? starts.find((s) => s.i <= i + 3);
  const usedBands = new Set<number>();
  rows.forEach((r, k) => {
    const row = lines[r.i];
    let band = bandOf(r.i);
    // A second policy row in the same band (or one above every band) is a line of its own: "other".
    let type: CertificateCoverageType;
    let from: number;
    let to: number;
    const nextStart = starts.find((s) => s.i > r.i)?.i ?? lines.length;
    const own = ownTypeWords(row, cols);
    const fitsBand = (t: CertificateCoverageType) => !own || BAND_WORDS[t].test(own);
    if (band && !usedBands.has(band.i) && fitsBand(band.type)) {
      usedBands.add(band.i);
      type = band.type;
      from = band.i;
      to = Math.min(nextStart, rows[k + 1] && bandOf(rows[k + 1].i) === band ? rows[k + 1].i : nextStart);
    } else {
      band = undefined;
      // A row printed without type words (its number and dates centred in a tall section, as on the ACORD 24):
      // the section caption above it in the type column names it.
      let words = own;
      for (let j = r.i - 1; !words && j >= Math.max(0, r.i - CAPTION_LOOKBACK); j--) {
        const cap = lines[j].cells.find((c) => c.x < typeColumnEnd(cols) && /^(x\s+)?(property|inland marine|crime|boiler)/i.test(c.text.trim()));
        if (cap) words = cap.text;
      }
      type = /property|earthquake|flood|building|earth movement/i.test(words) ? 'property' : 'other';
      from = r.i;
      to = Math.min(nextStart, rows[k + 1]?.i ?? lines.length);
    }
    const bandLines = lines.slice(Math.min(from, r.i), Math.max(to, r.i + 1));
    const base = {
      page: page.page,
      text: bandLines.map((l) => l.text).join('\n'),
      confidence: r.partial ? conf * PARTIAL_ROW : conf,
      source: src,
      rule: `ACORD coverage grid: ${band ? `${type} band` : 'policy row'}, columns located from the header`,
    } as const;
    const p = `/certificate/coverages/${out.length}`;
    emit({ pointer: `${p}/type`, value: type, ...base });
    const first = row.cells[0];
    const lm = first && first.x < cols.typeX - 5 ? /^([A-F])(?:\s|$)/.exec(first.text.trim()) : null;
    const letter = lm ? lm[1] : null;
    emit({ pointer: `${p}/insurer_letter`, value: letter, ...base });
    const pn = rowPolicyNumber(row, cols);
    emit({ pointer: `${p}/policy_number`, value: pn ?? null, ...base });
    emit({ pointer: `${p}/effective_date`, value: r.dates[0], ...base });
    emit({ pointer: `${p}/expiration_date`, value: r.dates[1], ...base });
    const isUmb = type === 'umbrella_liability';
    const isWc = type === 'workers_compensation';
    const gl = type === 'general_liability';
    let occ = band && !isUmb && !isWc && type !== 'automobile_liability' ? (amountAfter(bandLines, /each occurrence/i) ?? null) : null;
    let agg = gl ? (amountAfter(bandLines, /general aggregate/i) ?? null) : null;
    if (gl && occ === null && agg === null) [occ, agg] = occurrenceSlashAggregate(bandLines) ?? [null, null];
    if (!band && occ === null && agg === null) ({ occ, agg } = namedRowLimits(row) ?? { occ, agg });
    emit({ pointer: `${p}/each_occurrence`, value: occ, ...base });
    emit({ pointer: `${p}/general_aggregate`, value: agg, ...base });
    emit({ pointer: `${p}/combined_single_limit`, value: type === 'automobile_liability' ? combinedSingleLimit(bandLines, lines) : null, ...base });
    emit({ pointer: `${p}/umbrella_each_occurrence`, value: isUmb ? (amountAfter(bandLines, /each occurrence/i) ?? null) : null, ...base });
    emit({ pointer: `${p}/wc_statutory`, value: isWc ? statutoryMarked(bandLines) : null, ...base });
    emit({ pointer: `${p}/el_each_accident`, value: isWc ? (amountAfter(bandLines, /e\.?\s?l\.?\s*each\s+acc\s?i?\s?dent/i) ?? null) : null, ...base });
    const answers = answerFlags(band ? bandLines : [row], cols);
    emit({ pointer: `${p}/additional_insured`, value: answers.additional, ...base });
    emit({ pointer: `${p}/subrogation_waived`, value: answers.waived, ...base });
    if (out.length === 0) {
      const ins = letter ? insurerNames[letter] : Object.values(insurerNames)[0];
      if (ins) emit({ pointer: '/policy/provider', value: ins, ...base });
      if (pn) emit({ pointer: '/policy/policy_number', value: pn, ...base });
      emit({ pointer: '/policy/effective_date', value: r.dates[0], ...base });
      emit({ pointer: '/policy/expiration_date', value: r.dates[1], ...base });
    }
    out.push({ type, letter, policyNumber: pn ?? null, dates: r.dates, text: row.text });
  });
  return out;
}
