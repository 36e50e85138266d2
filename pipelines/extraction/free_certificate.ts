// Certificates of insurance that are not ACORD forms (an agency system's own certificate, a carrier's evidence
// of insurance, a member or program certificate): no fixed boxes, no INSURER A–F, no grid. What they share is
// the vocabulary, and that is what is read here, by geometry rather than by position on a form:
//  - parties: a producer / insured / holder label ("Agent:", "NAME OF INSURED", "Issued To") with its block
//    beside it (inline) or under it (boxed), in its column when two blocks stand side by side;
//  - coverages: each starts at a line of insurance named at the left ("Commercial General Liability",
//    "Business Auto", "Umbrella", "Workers' Compensation") and runs to the next; within it, the policy number,
//    the two dates (the earlier is the effective date), the insurer, and the limits by their captions. A table
//    header, when there is one, says which column holds the policy number and the insurer.
import type { PageText, Cell, Line } from '../documents/layout.ts';
import type { Emit } from './kinds/types.ts';
import { cellSource } from './layout_query.ts';
import { statedRole } from './parties.ts';
import { addressOf, cleanValue, dateTokens, isCityStateZip, withTradeName } from './normalise.ts';
import { DISCLAIMER } from './certificate.ts';
import { LEADING_MARKS, markCells } from './certificate_grid.ts';
import {
  alignColumns,
  CELL_BEFORE_CAPTION,
  columnAnswer,
  labelledAnswer,
  limitAfter,
  pairAnswer,
  sameRow,
  splitAtColumns,
  tableHeader,
  type Column,
} from './free_table.ts';
import { ANY_CAPTION, continued, letterhead, partyBlock, type Party, type PartyBlock } from './free_parties.ts';

type CoverageType = 'general_liability' | 'automobile_liability' | 'umbrella_liability' | 'workers_compensation';

/** The line of insurance a coverage starts with, at the left of its row or as its heading. */
const COVERAGE_START: [RegExp, CoverageType][] = [
  // "Professional and General Liability": another line of liability named with it.
  [/^(?:[a-z]+\s+(?:and|&)\s+)?(?:commercial\s+)?general(?:\s+liab|$)|^c\.?g\.?l\b/i, 'general_liability'],
  [/^(?:business\s+|commercial\s+)?auto(?:mobile)?\b/i, 'automobile_liability'],
  [/^(?:commercial\s+)?umbrella\b|^excess\b/i, 'umbrella_liability'],
  [/^workers'?\s*(?:comp|compensation)\b|^work(?:ers|mens)'?\s*comp/i, 'workers_compensation'],
];

/** The line of insurance named anywhere in a table row's type column (its words may wrap over lines). */
const TYPE_WORDS: [RegExp, CoverageType][] = [
  [/workers'?\s*comp|compensation/i, 'workers_compensation'],
  [/umbrella|excess/i, 'umbrella_liability'],
  [/\bauto(?:mobile)?\b/i, 'automobile_liability'],
  [/general\s+liab|\bc\.?g\.?l\b|general/i, 'general_liability'],
];

/** The share of its confidence a holder's role keeps when its line states another ("Acme Bank, Loss Payee"). */
const ROLE_AFTER_NAME = 0.85;

/** The share of the page's confidence a producer read from a letterhead keeps. */
const LETTERHEAD_SHARE = 0.85;

/** The share of its confidence a coverage row keeps when its policy number or a date was not found in it. */
const BROKEN_ROW = 0.75;

const conf = (page: PageText) => (page.source === 'ocr' ? 0.72 : 0.85);

/**
 * Whether a page is a certificate laid out freely: no ACORD name, INSR LTR, INSURER(S) AFFORDING COVERAGE or NAIC #.
 * A list of insurers by letter ("Insurer A: …") is no marker: agency systems print one too.
 */
export function isFreeCertificate(text: string): boolean {
  return !/\bACORD\b|INSR\s*LTR|INSURER\s*\(?S?\)?\s*AFFORDING|\bNAIC\s*#/i.test(text);
}

/** "Company A: Longleaf Casualty", "CO. B  Outer Banks Indemnity", "Insurer C - …": the insurers a table names by letter. */
const LETTERED_INSURER = /^(?:company|co\.?|insurer|carrier)\s+([A-F])\s*(?:[:.\-–]\s*|\s\s*)(\S.*)$/i;

/** A list entry's letter without its name ("CO. A"), the name in the next cell. */
const LETTER_ONLY = /^(?:company|co\.?|insurer|carrier)\s+[A-F]\s*[:.\-–]?$/i;

function letteredInsurers(page: PageText): { letter: string; name: string; text: string; cell: Cell }[] {
  const out: { letter: string; name: string; text: string; cell: Cell }[] = [];
  for (const line of page.lines)
    for (const [i, cell] of line.cells.entries()) {
      // "CO. A" and the name may be two cells (a wide gap in fixed pitch): read as one.
      const next = line.cells[i + 1];
      const m = LETTERED_INSURER.exec(LETTER_ONLY.test(cell.text.trim()) && next ? `${cell.text.trim()}  ${next.text.trim()}` : cell.text.trim());
      const name = m ? cleanValue(m[2]) : '';
      if (!m || !/[a-z]{3}/i.test(name) || out.some((x) => x.letter === m[1].toUpperCase())) continue;
      out.push({ letter: m[1].toUpperCase(), name, text: line.text, cell });
    }
  return out;
}

/** A stanza's answer line: "Additional Insured: Yes", "Waiver of Subrogation: No". */
// The answer may go on with whom it is for ("Yes, in favor of the certificate holder").
const LABELLED_ANSWER = {
  addl: /^additional\s+insured\s*(?:status)?\s*:?\s*(yes|no|y|n|x|n\/a)(?:[,;]\s.*)?$/i,
  subr: /^(?:waiver\s+of\s+subrogation|subrogation\s+waived)\s*:?\s*(yes|no|y|n|x|n\/a)(?:[,;]\s.*)?$/i,
};

const LABELLED = {
  // A member or program certificate's one policy is the program's "Master Policy No." (or a group policy).
  policy: /^(?:(?:master|group)\s+)?policy\s*(?:number|no\.?|#)\s*:?\s*/i,
  // The colon may be lost on a scan when the caption is a cell of its own.
  insurer: /^(?:insurer|company|insurance company|carrier|insurance carrier|writing company)\s*(?::\s*|$)/i,
};

const POLICY_NO = /^[A-Z0-9][A-Z0-9\- ]{3,24}$/i;
function policyNumberOf(s: string): string | undefined {
  const v = cleanValue(s);
  if (!POLICY_NO.test(v) || (v.match(/\d/g) ?? []).length < 4 || dateTokens(v).length || /\$/.test(v)) return undefined;
  return v;
}

/** Read a certificate laid out freely: parties, then coverages. */
export function extractFreeCertificate(page: PageText, emit: Emit): void {
  const c = conf(page);
  const blocks: Partial<Record<Party, PartyBlock>> = {};
  for (const party of ['producer', 'insured', 'holder'] as const) {
    const b = partyBlock(page, party);
    if (!b) continue;
    blocks[party] = b;
    const base = { page: page.page, text: b.text, confidence: c, source: cellSource(page, b.cell), rule: `certificate party block: ${party}` } as const;
    // A role written after the name ("Acme Bank, Loss Payee") is not the name; on the holder it is another role.
    const stated = statedRole(b.lines[0]);
    const name = withTradeName(stated.name, b.lines[1]);
    if (party === 'producer') emit({ pointer: '/certificate/producer', value: name, ...base });
    if (party === 'insured') {
      emit({ pointer: '/certificate/insured', value: name, ...base });
      emit({ pointer: '/policyholder/organization', value: name, ...base });
      const addr = addressOf(b.lines);
      if (addr.length) emit({ pointer: '/policyholder/address', value: addr.join(', '), ...base, confidence: c * 0.9 });
    }
    if (party === 'holder') {
      emit({ pointer: '/certificate/certificate_holder', value: name, ...base });
      emit({ pointer: '/interested_parties/0/name', value: name, ...base });
      emit({ pointer: '/interested_parties/0/role', value: 'certificate_holder', ...base, confidence: stated.role ? c * ROLE_AFTER_NAME : c });
      const addr = addressOf(b.lines);
      emit({ pointer: '/interested_parties/0/address', value: addr.length ? addr.join(', ') : null, ...base });
    }
  }
  // No producer caption: an agency's letterhead over the title, less surely (it names no role).
  const head = blocks.producer ? undefined : letterhead(page);
  if (head)
    emit({
      pointer: '/certificate/producer',
      value: head.name,
      page: page.page,
      text: head.text,
      confidence: c * LETTERHEAD_SHARE,
      source: cellSource(page, head.cell),
      rule: 'certificate: producer by its letterhead',
    });
  // Insurers named by letter ("Company A: …"), which the table's letter column points to.
  const insurers: Record<string, string> = {};
  letteredInsurers(page).forEach((ins, i) => {
    insurers[ins.letter] = ins.name;
    const base = { page: page.page, text: ins.text, confidence: c, source: cellSource(page, ins.cell), rule: 'certificate: insurer named by letter' } as const;
    emit({ pointer: `/certificate/insurers/${i}/letter`, value: ins.letter, ...base });
    emit({ pointer: `/certificate/insurers/${i}/name`, value: ins.name, ...base });
    emit({ pointer: `/certificate/insurers/${i}/naic`, value: null, ...base });
  });
  coverages(page, emit, c, insurers);
}

interface Record_ {
  type: CoverageType;
  from: number;
  to: number;
  startX: number;
  /** Typed by its limits, no line of insurance named. */
  implied?: boolean;
}

/** The heading of a certificate's coverages ("COVERAGES", "Insurance Coverages", "COVERAGE PROVIDED TO THE MEMBER…"). */
const COVERAGES_HEADING = /^coverages?\b|^insurance coverages?\b/i;
/** A heading, not a sentence of prose that starts with "Coverage applies only to…": in capitals, or a few words. */
const isHeading = (s: string) => s === s.toUpperCase() || s.split(/\s+/).length <= 4;

/** General liability's own limit captions, which type a record that names no line of insurance. */
// (A scan may read "Occurrence" as "OCCUITENCE".)
const GL_LIMIT = /^(?:each|[a-z]ach)\s+occ[a-z]*(?:\s+limit)?\b/i;
const GL_AGGREGATE = /^general\s+aggregate\b|^products?[\s-]+completed\s+op/i;
/** The share of its confidence a record keeps that takes the page's one policy and period (not its own). */
const SHARED_POLICY = 0.9;
/** The share of its confidence a record keeps that is typed by its limits. */
const IMPLIED_TYPE = 0.9;

/** The share of its confidence an additional-insured answer read from a sentence keeps. */
const STATED_AI = 0.85;

/** The sentence of `text` that says the certificate holder is an additional insured (none that says it is not). */
export function statedAdditionalInsured(text: string): string | undefined {
  for (const sentence of text.split(/(?<=\.)\s+|\n/)) {
    if (!/\badditional\s+insured\b/i.test(sentence) || !/\bholder\b/i.test(sentence)) continue;
    if (/\b(?:not|no|never|unless|if\s+required|upon\s+request)\b/i.test(sentence)) return undefined;
    return sentence.trim();
  }
  return undefined;
}

/** The company a program's master policy is written by: "Underwritten by" with the name beside or under it. */
function underwriter(ls: Line[]): { name: string; text: string } | undefined {
  for (const [li, line] of ls.entries())
    for (const [i, x] of line.cells.entries()) {
      const m = /^(?:underwritten\s+by|underwriter|insurance\s+provided\s+by)\s*:?\s*/i.exec(x.text.trim());
      if (!m) continue;
      const rest = x.text.trim().slice(m[0].length);
      const beside = line.cells[i + 1] && line.cells[i + 1].x - (x.x + x.w) < 160 ? line.cells[i + 1] : undefined;
      const under = ls[li + 1]?.cells.find((c) => Math.abs(c.x - x.x) <= 12);
      const name = cleanValue(rest || beside?.text || under?.text || '');
      if (/[a-z]{3}/i.test(name) && !/\d{3}/.test(name)) return { name, text: rest || beside ? line.text : `${line.text}\n${ls[li + 1].text}` };
    }
  return undefined;
}

/** The policy numbers `ls` give by caption ("Policy No. …", "Master Policy No. …"), with their lines, in order. */
function labelledPolicies(ls: Line[]): { value: string; text: string }[] {
  const out: { value: string; text: string }[] = [];
  for (const line of ls)
    for (const [i, x] of line.cells.entries()) {
      const m = LABELLED.policy.exec(x.text.trim());
      if (!m) continue;
      const rest = x.text.trim().slice(m[0].length);
      const next = line.cells[i + 1];
      // The number may be read as two words ("CUP" "9033306"): with the words that continue it, else alone.
      const run = next ? continued(next, line.cells, Math.max(line.h, 6)) : [];
      const after = rest || run.map((c) => c.text).join(' ');
      const pn = after ? (policyNumberOf(after) ?? (next && !rest ? policyNumberOf(next.text) : undefined)) : undefined;
      if (pn) out.push({ value: pn, text: line.text });
    }
  return out;
}

function coverages(page: PageText, emit: Emit, c: number, insurers: Record<string, string>): void {
  const header = tableHeader(page);
  const lines = page.lines;
  // Where coverages start: after the table header, else after a COVERAGES heading, else anywhere.
  const begin = header ? header.last + 1 : Math.max(0, lines.findIndex((l) => COVERAGES_HEADING.test(l.text.trim()) && isHeading(l.text.trim())) + 1);
  const starts: Record_[] = [];
  if (header) {
    // A table: a row starts at a line holding a date (its period), and its type is what the type column holds from
    // there to the next such line (a long type wraps: "Commercial" / "General Liability").
    const anchors: number[] = [];
    for (let li = begin; li < lines.length; li++) {
      if (lines[li].cells.some((x) => DISCLAIMER.test(x.text) || (ANY_CAPTION.test(x.text.trim()) && !/^coverage/i.test(x.text.trim())))) break;
      // A row a skewed scan read as two lines at one height is one row (its first line is the anchor).
      const prev = anchors[anchors.length - 1];
      if (dateTokens(lines[li].text).length && !(prev !== undefined && sameRow(lines[prev], lines[li]))) anchors.push(li);
    }
    header.columns = alignColumns(
      header.columns,
      lines.filter((l) => anchors.some((a) => sameRow(lines[a], l))),
    );
    const typeCol = header.columns.find((x) => x.role === 'type');
    const nextX = typeCol ? [...header.columns].sort((a, b) => a.x - b.x).find((x) => x.x > typeCol.x + 1)?.x : undefined;
    anchors.forEach((li, k) => {
      const to = anchors[k + 1] ?? Math.min(lines.length, li + 4);
      const words = lines
        .slice(li, to)
        .flatMap((l) =>
          l.cells.filter(
            (x) => (typeCol ? x.x >= typeCol.x - CELL_BEFORE_CAPTION : x.x < page.width * 0.3) && x.x < (nextX ?? page.width * 0.3) - CELL_BEFORE_CAPTION,
          ),
        )
        .map((x) => x.text)
        .join(' ');
      const t = TYPE_WORDS.find(([re]) => re.test(words))?.[1];
      if (t) starts.push({ type: t, from: li, to, startX: lines[li].cells[0]?.x ?? 0 });
    });
  } else
    for (let li = begin; li < lines.length; li++) {
      const first = lines[li].cells[0];
      if (!first || /\$|\d{3,}|statutory|limit|aggregate/i.test(first.text)) continue;
      if (first.x > page.width * 0.3) continue;
      const t = COVERAGE_START.find(([re]) => re.test(first.text.trim()))?.[1];
      if (t) starts.push({ type: t, from: li, to: lines.length, startX: first.x });
    }
  // No line of insurance named, but general liability's limits listed ("Each Occurrence Limit", "General Aggregate
  // Limit"): one general liability record from the first of them.
  if (!header && !starts.length) {
    const first = lines.findIndex((l, li) => li >= begin && GL_LIMIT.test(l.cells[0]?.text.trim() ?? ''));
    if (first >= 0 && lines.slice(first).some((l) => GL_AGGREGATE.test(l.cells[0]?.text.trim() ?? '')))
      starts.push({ type: 'general_liability', from: first, to: lines.length, startX: lines[first].cells[0].x, implied: true });
  }
  // A record ends at the next start, at a party caption, or at the cancellation clause.
  starts.forEach((s, k) => {
    let to = starts[k + 1]?.from ?? lines.length;
    for (let li = s.from + 1; li < to; li++) {
      const l = lines[li];
      if (l.cells.some((x) => (ANY_CAPTION.test(x.text.trim()) && x.x <= s.startX + 10) || DISCLAIMER.test(x.text))) {
        to = li;
        break;
      }
    }
    s.to = to;
  });
  const outside = lines.filter((_, li) => !starts.some((r) => li >= r.from && li < r.to));
  const policies = [...new Map(labelledPolicies(outside).map((p) => [p.value, p])).values()];
  const sharedPolicy = policies.length === 1 ? policies[0] : undefined;
  const periods = [
    ...new Map(
      outside
        .map((l) => ({ dates: [...new Set(dateTokens(l.text).map((d) => d.iso))].sort(), text: l.text }))
        .filter((p) => p.dates.length === 2)
        .map((p) => [p.dates.join(), p] as const),
    ).values(),
  ];
  const sharedPeriod = periods.length === 1 ? periods[0] : undefined;
  const sharedInsurer = header ? undefined : underwriter(outside);
  const holderIsAdditional = statedAdditionalInsured(outside.map((l) => l.text).join(' '));
  const colOf = (role: Column['role']) => header?.columns.find((x) => x.role === role);
  const sortedCols = header ? [...header.columns].sort((a, b) => a.x - b.x) : [];
  const nextColX = (col: Column | undefined) => (col ? sortedCols.find((x) => x.x > col.x + 1)?.x : undefined);
  const answerColumns = !!(colOf('addl') || colOf('subr'));
  /** Cells of a record that fall in a header column (from its x to the next column's). */
  const inColumn = (ls: Line[], role: Column['role']) => {
    const col = colOf(role);
    if (!col) return [];
    const next = sortedCols.find((x) => x.x > col.x + 1);
    return ls.flatMap((l) => l.cells.filter((x) => x.x >= col.x - CELL_BEFORE_CAPTION && x.x < (next ? next.x - CELL_BEFORE_CAPTION : page.width)));
  };
  // Columns set close together run into one cell ("09/16/2024 Silver Creek Insurance"): cut at the header's columns.
  const rowLines = (r: Record_): Line[] =>
    lines.slice(r.from, r.to).map((l) =>
      header
        ? {
            ...l,
            cells: l.cells.flatMap((x) =>
              splitAtColumns(
                x,
                sortedCols.map((k) => k.x),
              ),
            ),
          }
        : l,
    );
  /** The answer marks of a row's first line (a row a skewed scan read as two lines at one height: both). */
  const rowMarks = (ls: Line[]) => (header ? ls.filter((l) => sameRow(l, ls[0])).flatMap((l) => l.cells.flatMap(markCells)) : []);
  // A table that prints N for no leaves no cell blank: on a scan, a blank there is a mark OCR lost, not a no.
  const printsNo = (role: 'addl' | 'subr') =>
    starts.some((r) => {
      const a = columnAnswer(rowMarks(rowLines(r)), colOf(role), nextColX(colOf(role)));
      return a.value === false && !a.blank;
    });
  // (Both answer columns print their answers one way: an N in either says so for both.)
  const lostMark = page.source === 'ocr' && (printsNo('addl') || printsNo('subr'));
  let n = 0;
  for (const r of starts) {
    const ls = rowLines(r);
    const text = ls.map((l) => l.text).join('\n');
    const cells = ls.flatMap((l) => l.cells);
    // Policy number: labelled, else in the header's column, else the one policy-number-shaped cell of the record.
    const own = labelledPolicies(ls)[0];
    let pn: string | undefined = own?.value;
    let pnText: string | undefined = own?.text;
    if (!pn)
      // A table whose policy number caption was lost: the one policy-number-shaped cell of the row, as in a stanza.
      for (const x of colOf('policy') ? inColumn(ls, 'policy') : cells) {
        // An answer mark run into the policy number's cell ("Y TMG 4471902") is the answer column's, not the number's.
        const v = policyNumberOf(answerColumns ? x.text.trim().replace(LEADING_MARKS, '') : x.text);
        if (v && !isCityStateZip(x.text)) {
          pn = v;
          pnText = x.text;
          break;
        }
      }
    // Dates: the record's two dates; the earlier is the effective date.
    const dates = [...new Set(dateTokens(text).map((d) => d.iso))].sort();
    let eff = dates.length >= 2 ? dates[0] : null;
    let exp = dates.length >= 2 ? dates[dates.length - 1] : null;
    // A record that states neither: the one policy and period the page states outside every record (a member
    // certificate's master policy), less surely.
    let shared = false;
    if (!pn && !eff && (sharedPolicy || sharedPeriod)) {
      shared = true;
      pn = sharedPolicy?.value;
      pnText = sharedPolicy?.text;
      [eff, exp] = sharedPeriod?.dates ?? [null, null];
    }
    // Insurer: labelled, else the header's column (a long name wraps within it).
    let insurer: string | undefined;
    let insurerText: string | undefined;
    // (In a table, a wrapped name's last word, "Company", is not a caption.)
    for (const x of header ? [] : cells) {
      const m = LABELLED.insurer.exec(x.text.trim());
      if (!m) continue;
      const rest = x.text.trim().slice(m[0].length);
      const line = ls.find((l) => l.cells.includes(x));
      insurer = cleanValue(rest || (line?.cells[line.cells.indexOf(x) + 1]?.text ?? '')) || undefined;
      insurerText = line?.text;
      if (insurer) break;
    }
    // A record that took the page's one policy takes its insurer too ("Underwritten by" over the name).
    if (!insurer && shared && sharedInsurer) ({ name: insurer, text: insurerText } = sharedInsurer);
    if (!insurer && colOf('insurer')) {
      const words = inColumn(ls, 'insurer')
        .map((x) => x.text.replace(/^['"‘’“”]+|['"‘’“”]+$/g, ''))
        .filter((t) => /[a-z]{2}/i.test(t) && !dateTokens(t).length && !/\$|\d{3}/.test(t));
      insurer = cleanValue(words.join(' ')) || undefined;
      // A name wrapped within its column is cited as its column's lines, the words that make it.
      insurerText = words.join('\n');
    }
    // Limits by caption: "Each Occurrence $1,000,000", the amount in the caption's cell or the next.
    const amount = (re: RegExp) => limitAfter(ls, re);
    const p = `/certificate/coverages/${n}`;
    // A row read without its policy number or its two dates was not read whole: what it does give is less sure.
    const rc = (pn && eff && exp ? c : c * BROKEN_ROW) * (shared ? SHARED_POLICY : 1) * (r.implied ? IMPLIED_TYPE : 1);
    const base = {
      page: page.page,
      text,
      confidence: rc,
      source: page.source === 'ocr' ? 'ocr' : 'rules',
      rule: 'certificate coverage block (free layout)',
    } as const;
    emit({ pointer: `${p}/type`, value: r.type, ...base });
    // The insurer's letter under the letter column ("CO LTR"), when the table has one and the letter is listed.
    const first = ls.filter((l) => sameRow(l, ls[0]));
    const letterCell = colOf('letter') ? inColumn(first, 'letter').find((x) => /^[A-F]$/i.test(x.text.trim())) : undefined;
    // A table whose letter caption the scan lost: a lone capital on the row's first line that the list names.
    const loneLetter =
      header && !colOf('letter') ? first.flatMap((l) => l.cells).find((x) => /^[A-F]$/.test(x.text.trim()) && insurers[x.text.trim()]) : undefined;
    const letter = (letterCell ?? loneLetter)?.text.trim().toUpperCase() ?? null;
    const letterConf = letter && !insurers[letter] ? rc * 0.8 : loneLetter ? rc * 0.9 : rc;
    emit({ pointer: `${p}/insurer_letter`, value: letter, ...base, confidence: letterConf });
    if (letter && insurers[letter] && !insurer) {
      insurer = insurers[letter];
      insurerText = letteredInsurers(page).find((x) => x.letter === letter)?.text;
    }
    // ADDL INSD / SUBR WVD: the table's answer columns on the row's first line, else a stanza's labelled answers.
    const marks = rowMarks(ls);
    for (const [role, key] of [
      ['addl', 'additional_insured'],
      ['subr', 'subrogation_waived'],
    ] as const) {
      const col = colOf(role);
      const both = colOf('answers');
      if (col || both) {
        const a = both ? pairAnswer(marks, both, nextColX(both))[role] : columnAnswer(marks, col, nextColX(col));
        // A blank cell is a weaker "no" than a printed N, and no answer at all where the column prints N.
        emit({ pointer: `${p}/${key}`, value: a.blank && lostMark ? null : a.value, ...base, confidence: a.blank ? rc * 0.85 : rc });
        continue;
      }
      const said = header ? undefined : labelledAnswer(ls, LABELLED_ANSWER[role]);
      if (said !== undefined) emit({ pointer: `${p}/${key}`, value: said, ...base });
      // No answer of its own: the holder's additional-insured status stated in the page's words, for general
      // liability (what such a sentence is about), less surely.
      else if (role === 'addl' && r.type === 'general_liability' && holderIsAdditional)
        emit({ pointer: `${p}/${key}`, value: true, ...base, text: holderIsAdditional, confidence: rc * STATED_AI });
    }
    emit({ pointer: `${p}/policy_number`, value: pn ?? null, ...base, text: pnText ?? text });
    emit({ pointer: `${p}/effective_date`, value: eff, ...base });
    emit({ pointer: `${p}/expiration_date`, value: exp, ...base });
    // (A scan may read "Each" as "Bach", "Occurrence" as "OCCUITENCE".)
    const occ = amount(/(?:each|per|[a-z]ach)\s+occ(?:[a-z]*|\.)\b|occurrence\s+limit/i) ?? null;
    const limits = {
      each_occurrence: r.type === 'general_liability' ? occ : null,
      general_aggregate: r.type === 'general_liability' ? (amount(/gen(?:eral|'l|\.)?\s+agg(?:regate|\.)?\b|aggregate/i) ?? null) : null,
      combined_single_limit: r.type === 'automobile_liability' ? (amount(/combined\s+single|\bcsl\b|each\s+accident/i) ?? null) : null,
      umbrella_each_occurrence: r.type === 'umbrella_liability' ? occ : null,
      // Not statutory only where the row's limits were read (a scan may lose the whole limits column).
      wc_statutory: r.type === 'workers_compensation' ? (/statutory/i.test(text) ? true : /\$\s?\d/.test(text) ? false : null) : null,
      el_each_accident:
        r.type === 'workers_compensation' ? (amount(/e\.?\s*l\.?\s*each\s+accident|employers'?\s+liability.*each\s+accident|each\s+accident/i) ?? null) : null,
    };
    for (const [k, v] of Object.entries(limits)) emit({ pointer: `${p}/${k}`, value: v, ...base });
    if (n === 0) {
      if (insurer)
        emit({ pointer: '/policy/provider', value: insurer, ...base, text: insurerText ?? text, rule: 'certificate: insurer of the first coverage' });
      if (pn) emit({ pointer: '/policy/policy_number', value: pn, ...base, text: pnText ?? text });
      if (eff) emit({ pointer: '/policy/effective_date', value: eff, ...base });
      if (exp) emit({ pointer: '/policy/expiration_date', value: exp, ...base });
    }
    n++;
  }
}
