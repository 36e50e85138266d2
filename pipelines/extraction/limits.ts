// Limits read from the line that names them: "Bodily Injury Liability  $30,000 each person/$60,000 each
// accident", "COVERAGE-E-PERSONAL LIABILITY  $300,000", "Family Liability Protection  $100,000 each occurrence".
// Shared by the declarations extractors when no coverage table was found or the table missed a limit.
import type { PageText, Line } from '../documents/layout.ts';
import type { Candidate } from './candidates.ts';
import { cleanValue } from './normalise.ts';

type Emit = (c: Omit<Candidate, 'source' | 'confidence'> & Partial<Pick<Candidate, 'source' | 'confidence'>>) => void;

export interface LineAmounts {
  page: PageText;
  line: Line;
  /** Amounts printed after the label, in order (premiums with cents left out). */
  amounts: { value: number; text: string; words: string }[];
  text: string;
}

// "$30,000", "30,000", "$1,000,000", "$500", "100/300" (thousands), not "$439.70" (a premium).
const AMOUNT = /\$?\s?(\d{1,3}(?:,\d{3})+|\d+)(\.\d{2})?(?![\d,])/g;

/** Amounts in a piece of text, with the words that follow each ("each person", "each accident"). */
export function amountsIn(text: string, min = 0): LineAmounts['amounts'] {
  const out: LineAmounts['amounts'] = [];
  let skippedPair = 0;
  for (const m of text.matchAll(AMOUNT)) {
    if (m[2] && m[2] !== '.00') continue;
    const hasMoneyShape = m[0].includes('$') || m[1].includes(',');
    const value = Number(m[1].replace(/,/g, ''));
    if (!hasMoneyShape && value < 1000) continue;
    if (value < min) continue;
    // "State Minimum $15,000/$30,000" is a reference beside the limit, not the limit.
    const before = text.slice(Math.max(0, (m.index ?? 0) - 12), m.index);
    if (/minimum\s*$/i.test(before) || (skippedPair && /^\s*\/\s*$/.test(text.slice(skippedPair, m.index)))) {
      skippedPair = (m.index ?? 0) + m[0].length;
      continue;
    }
    skippedPair = 0;
    const words = text.slice((m.index ?? 0) + m[0].length, (m.index ?? 0) + m[0].length + 24).toLowerCase();
    out.push({ value, text: m[0], words });
  }
  return out;
}

/**
 * Whether a line is a row of a change summary ("Before / After", "From / To" columns, "Deductible Changed"): its amounts
 * are an old and a new value side by side, not the policy's current limit, which the declarations print elsewhere.
 */
export function isChangeRow(page: PageText, i: number): boolean {
  if (/\bchanged?\b/i.test(page.lines[i].text)) return true;
  for (let k = i; k >= Math.max(0, i - 8); k--) {
    const cells = page.lines[k].cells.map((c) => c.text.trim());
    if (cells.some((c) => /^(before|prior|previous|old|from)$/i.test(c)) && cells.some((c) => /^(after|new|revised|to)$/i.test(c))) return true;
  }
  return false;
}

/**
 * The part of a row the label and its amount were read from: up to the end of the cell holding the first amount.
 * The cells after it are another column ("COVERAGE C  $46,000  the deductible stated." beside a notice), so the words
 * that rule a row out are looked for in this part only. Without an amount on the row, the whole line.
 */
function readPart(line: Line, afterAt: number, after: string, amounts: LineAmounts['amounts']): string {
  if (!amounts.length) return line.text;
  const idx = after.indexOf(amounts[0].text);
  if (idx < 0) return line.text;
  const end = afterAt + idx + amounts[0].text.length;
  // Cells are joined by two spaces: cut at the end of the cell the amount ends in.
  const cut = line.text.indexOf('  ', end);
  return cut < 0 ? line.text : line.text.slice(0, cut);
}

/** The first line naming `label` (and not `not`) with amounts after the label; the next line is read when this one has none. */
export function findLineAmounts(pages: PageText[], label: RegExp, opts: { not?: RegExp; min?: number; pages?: number[] } = {}): LineAmounts | undefined {
  for (const page of pages) {
    if (opts.pages && !opts.pages.includes(page.page)) continue;
    for (let i = 0; i < page.lines.length; i++) {
      const line = page.lines[i];
      const m = label.exec(line.text);
      if (!m || isChangeRow(page, i)) continue;
      // Only what follows the label: a limit printed before it belongs to the previous row.
      const after = line.text.slice((m.index ?? 0) + m[0].length);
      let amounts = amountsIn(after, opts.min);
      if (opts.not && opts.not.test(readPart(line, (m.index ?? 0) + m[0].length, after, amounts))) continue;
      let text = line.text;
      // The limits may sit on the next lines of the row ("Each Person/Each Occurrence", then the amounts).
      for (let k = 1; k <= 2 && amounts.length === 0; k++) {
        const next = page.lines[i + k];
        const prev = page.lines[i + k - 1];
        if (!next || next.y - (prev.y + prev.h) > line.h * 1.2) break;
        // A line that names something else before its amount is the next row, not ours.
        const prefix = next.text.split(/\$|\d/)[0];
        if (label.test(next.text) || (/[a-z]{3,}/i.test(prefix) && !/^\s*(each|per\b|state\s+minimum|limits?\b|up\s+to|coverage\s+limit)/i.test(prefix))) break;
        amounts = amountsIn(next.text, opts.min);
        text = page.lines
          .slice(i, i + k + 1)
          .map((l) => l.text)
          .join('\n');
      }
      if (amounts.length) return { page, line, amounts, text };
    }
  }
  return undefined;
}

const conf = (p: PageText) => (p.source === 'ocr' ? 0.7 : 0.8);
const src = (p: PageText) => (p.source === 'ocr' ? 'ocr' : 'rules') as Candidate['source'];

/** Split-limit thousands ("100/300", "25/50/25") to dollars. */
function thousands(s: string): number[] | undefined {
  const m = /\b(\d{2,4})\s?\/\s?(\d{2,4})(?:\s?\/\s?(\d{2,4}))?\b/.exec(s);
  if (!m) return undefined;
  const parts = [m[1], m[2], m[3]].filter(Boolean).map(Number);
  return parts.every((p) => p >= 5 && p <= 5000) ? parts.map((p) => p * 1000) : undefined;
}

/** "each accident" / "each occurrence", also as a letter-spaced text layer prints it ("Each A ccident"). */
const ACCIDENT = /a\s?ccident|occurrence/;

/**
 * Personal auto liability limits: bodily injury per person / per accident and property damage, each as a
 * coverage (`Bodily Injury Liability` with a split limit "a/b", `Property Damage Liability`).
 * Returns how many coverage items it emitted, starting at index `start`.
 */
export function autoLiability(pages: PageText[], emit: Emit, start: number, want = { bi: true, pd: true }): number {
  let n = start;
  const notOther = /uninsured|underinsured|\bum\b|\buim\b|medical|caused by|optional|umbrella|excess/i;
  // Massachusetts prints the compulsory "Bodily Injury to Others" (Part 1) and, above it, the "Optional Bodily Injury
  // to Others" (Part 5) that sets the policy's real limits: the optional row wins when it has amounts.
  const bi =
    findLineAmounts(pages, /optional\s+bodily\s*injury(?:\s+to\s+others)?/i, { not: /uninsured|underinsured|caused by|medical|umbrella|excess/i, min: 5000 }) ??
    findLineAmounts(pages, /bodily\s*injury(?:\s+liability)?|\bBI\b/i, { not: notOther, min: 5000 });
  let biPair: number[] | undefined;
  let where: { page: PageText; text: string } | undefined;
  if (bi) {
    const per = bi.amounts.find((a) => /person/.test(a.words)) ?? bi.amounts[0];
    const acc = bi.amounts.find((a) => ACCIDENT.test(a.words) && a !== per) ?? bi.amounts.find((a) => a !== per && a.value > per.value);
    where = { page: bi.page, text: bi.text };
    if (acc) biPair = [per.value, acc.value];
    else {
      // "$25,000 each person" with the per-accident (or "each occurrence") limit on the next line.
      const li = bi.page.lines.indexOf(bi.line);
      const next = bi.page.lines[li + 1];
      const more = next ? amountsIn(next.text, 5000).find((a) => ACCIDENT.test(a.words)) : undefined;
      if (more) {
        biPair = [per.value, more.value];
        where = { page: bi.page, text: `${bi.line.text}\n${next!.text}` };
      }
    }
  }
  if (!biPair) {
    const t = findLineAmountsRaw(pages, /bodily\s*injury/i, notOther);
    const th = t ? thousands(t.line.text.slice(t.index)) : undefined;
    if (t && th && th.length >= 2) {
      biPair = th.slice(0, 2);
      where = { page: t.page, text: t.line.text };
    }
  }
  if (biPair && where && want.bi) {
    const base = { page: where.page.page, text: where.text, confidence: conf(where.page), source: src(where.page) };
    // The coverage's name as printed ("Bodily Injury", "BODILY INJURY LIABILITY"), so a reviewer finds it on the page.
    const printed = /bodily\s*injury(?:\s+liability)?/i.exec(where.text)?.[0].replace(/\s+/g, ' ');
    emit({ pointer: `/coverages/${n}/name`, value: printed ?? 'Bodily Injury Liability', ...base });
    emit({ pointer: `/coverages/${n}/limit`, value: biPair.join('/'), ...base });
    emit({ pointer: `/coverages/${n}/deductible`, value: null, ...base });
    emit({ pointer: `/coverages/${n}/premium`, value: null, ...base });
    n++;
  }
  // "Damage to Someone Else's Property" is Massachusetts' property damage liability (Part 4).
  const pd = findLineAmounts(pages, /property\s*damage(?:\s+liability)?|damage\s+to\s+someone(?:\s+else'?s\s+property)?/i, { not: notOther, min: 5000 });
  if (pd && want.pd) {
    const base = { page: pd.page.page, text: pd.text, confidence: conf(pd.page), source: src(pd.page) };
    const printed = /property\s*damage(?:\s+liability)?|damage\s+to\s+someone(?:\s+else'?s\s+property)?/i.exec(pd.text)?.[0].replace(/\s+/g, ' ');
    emit({ pointer: `/coverages/${n}/name`, value: printed ?? 'Property Damage Liability', ...base });
    emit({ pointer: `/coverages/${n}/limit`, value: pd.amounts[0].value, ...base });
    emit({ pointer: `/coverages/${n}/deductible`, value: null, ...base });
    emit({ pointer: `/coverages/${n}/premium`, value: null, ...base });
    n++;
  }
  return n;
}

function findLineAmountsRaw(pages: PageText[], label: RegExp, not: RegExp): { page: PageText; line: Line; index: number } | undefined {
  for (const page of pages)
    for (const line of page.lines) {
      const m = label.exec(line.text);
      if (m && !not.test(line.text)) return { page, line, index: (m.index ?? 0) + m[0].length };
    }
  return undefined;
}

/** Home, condo and renters limits by their usual names, for the fields a coverage table did not give. */
export const PROPERTY_LINES: { field: string; label: RegExp; not?: RegExp; min: number }[] = [
  {
    field: 'dwelling',
    label: /coverage\s*[-–]?\s*a\b[\s\-–:.]*(?:dwelling)?|dwelling(?:\s*protection|\s*coverage)?\b/i,
    not: /other structures|extension|replacement cost|construction|occupied|located|dwelling\s*(?:is|of)|additional|roof/i,
    min: 10000,
  },
  {
    field: 'personal_property',
    label: /coverage\s*[-–]?\s*c\b[\s\-–:.]*(?:personal property)?|personal\s*property(?:\s*protection)?|contents\b/i,
    not: /replacement|scheduled|theft|away|special|limited|deductible/i,
    min: 1000,
  },
  { field: 'loss_of_use', label: /coverage\s*[-–]?\s*d\b[\s\-–:.]*(?:loss of use)?|loss\s*of\s*use|additional\s*living\s*expenses?/i, min: 500 },
  {
    field: 'personal_liability',
    label:
      /coverage\s*[-–]?\s*e\b[\s\-–:.]*(?:personal liability)?|personal\s*liability|family\s*liability(?:\s*protection)?|\bliability\b(?=\s*(?:\(each occurrence\)|[-–]\s*each occurrence|\$|\s*\$|$))/i,
    not: /umbrella|excess|\binjury\b(?!\s+and\s+property\s+damage)|waterbed|animal|limited/i,
    min: 10000,
  },
  {
    field: 'medical_payments',
    label: /coverage\s*[-–]?\s*f\b[\s\-–:.]*(?:medical)?|medical\s*payments?(?:\s*to\s*others)?|guest\s*medical(?:\s*protection)?/i,
    min: 250,
  },
];

/** Fill the property limits a table did not give from the lines that name them. */
export function propertyLines(pages: PageText[], emit: Emit, done: Set<string>): void {
  for (const spec of PROPERTY_LINES) {
    if (done.has(spec.field)) continue;
    const f = findLineAmounts(pages, spec.label, { not: spec.not, min: spec.min });
    if (!f) continue;
    done.add(spec.field);
    emit({ pointer: `/property/${spec.field}`, value: f.amounts[0].value, page: f.page.page, text: f.text, confidence: conf(f.page), source: src(f.page) });
  }
  if (!done.has('deductible')) propertyDeductible(pages, emit, done);
}

const OTHER_PERIL = /wind|hail|hurricane|earthquake|water\s*back|named storm|theft|identity|\bmold\b|flood|sinkhole/i;

/**
 * The all-other-perils (Section I) deductible, in the order of how specific the wording is: "$1,000 Deductible" /
 * "$500 All peril" printed as the row's own caption, then a deductible caption followed by its amount. A wind, hail or
 * hurricane deductible is never it, nor a row of a change summary. A table of deductibles by peril names the all-perils
 * row "All Losses" or "Other Losses" (beside "Wind or Hail"); such a row starts its line.
 */
function propertyDeductible(pages: PageText[], emit: Emit, done: Set<string>): void {
  for (const page of pages)
    for (let i = 0; i < page.lines.length; i++) {
      const line = page.lines[i];
      for (const cell of line.cells) {
        const m = /^[•\-–*\s]*\$\s?(\d{1,3}(?:,\d{3})*|\d+)\s*(?:(all\s+(?:other\s+)?(?:covered\s+)?perils?|aop)(?:\s+deductible)?|deductible)\b/i.exec(
          cell.text.trim(),
        );
        if (!m || OTHER_PERIL.test(line.text) || isChangeRow(page, i)) continue;
        const value = Number(m[1].replace(/,/g, ''));
        if (value < 100 || value > 50000) continue;
        done.add('deductible');
        emit({
          pointer: '/property/deductible',
          value,
          page: page.page,
          text: line.text,
          confidence: conf(page) * (m[2] ? 0.9 : 0.95),
          source: src(page),
          rule: m[2] ? 'deductible: "$N All perils" caption' : 'deductible: "$N Deductible" row',
        });
        return;
      }
    }
  const d = findLineAmounts(
    pages,
    /all\s+(?:other\s+)?(?:covered\s+)?perils?(?:\s+deductible)?|^(?:all\s+(?:other\s+)?|other\s+)losses\b|(?:section\s+i|aop|policy|property)\s+deductible|deductible\s*[-–:]?\s*(?:all\s+(?:other\s+)?perils?)?|losses covered under section i are subject to a deductible of/i,
    { not: OTHER_PERIL, min: 100 },
  );
  if (d && d.amounts[0].value <= 50000) {
    done.add('deductible');
    emit({
      pointer: '/property/deductible',
      value: d.amounts[0].value,
      page: d.page.page,
      text: d.text,
      confidence: conf(d.page) * 0.9,
      source: src(d.page),
      rule: 'deductible: amount after its caption',
    });
    return;
  }
  // "Coverage C  $15,000  • $500 All peril": the all-perils amount printed in a deductible column after the limit.
  for (const page of pages)
    for (let i = 0; i < page.lines.length; i++) {
      const line = page.lines[i];
      const m = /\$\s?(\d{1,3}(?:,\d{3})*)\s*(?:all\s+(?:other\s+)?(?:covered\s+)?perils?|aop)\b/i.exec(line.text);
      if (!m || isChangeRow(page, i)) continue;
      done.add('deductible');
      emit({
        pointer: '/property/deductible',
        value: Number(m[1].replace(/,/g, '')),
        page: page.page,
        text: line.text,
        confidence: conf(page) * 0.9,
        source: src(page),
        rule: 'deductible: "$N All perils" beside a limit',
      });
      return;
    }
}

/** The each-occurrence caption as carriers word it: "Each Occurrence (Limit)", "Per Occurrence", "Occurrence Limit". */
export const OCCURRENCE_CAPTION = /(?:each|per)\s+occurrence(?:\s+limit)?|occurrence\s+limit/i;

/**
 * CGL / BOP each-occurrence liability limit as a coverage item, named by its row's caption as printed ("Liability
 * and Medical Expenses - Per Occurrence", "Each Occurrence Limit"). Returns the next coverage index.
 */
export function eachOccurrence(pages: PageText[], emit: Emit, start: number): number {
  const f = findLineAmounts(pages, OCCURRENCE_CAPTION, {
    not: /umbrella|excess|damage to|fire/i,
    min: 25000,
  });
  if (!f) return occurrenceAfterAmount(pages, emit, start);
  const base = { page: f.page.page, text: f.text, confidence: conf(f.page), source: src(f.page) };
  const caption = cleanValue(f.line.text.split(/\$|\d/)[0]).replace(/[\s:.\-–]+$/, '');
  emit({
    pointer: `/coverages/${start}/name`,
    value: OCCURRENCE_CAPTION.test(caption) ? caption : (OCCURRENCE_CAPTION.exec(f.line.text)?.[0] ?? 'Each Occurrence'),
    ...base,
  });
  emit({ pointer: `/coverages/${start}/limit`, value: f.amounts[0].value, ...base });
  emit({ pointer: `/coverages/${start}/deductible`, value: null, ...base });
  emit({ pointer: `/coverages/${start}/premium`, value: null, ...base });
  return start + 1;
}

/**
 * The each-occurrence limit named after its amount: "Liability And Medical Expenses  $ 1,000,000 Per Occurrence",
 * "Bodily injury and property damage  $1,000,000 Each / occurrence" (the basis wrapped onto the next line). The coverage
 * is named by the row's caption and the basis as printed.
 */
function occurrenceAfterAmount(pages: PageText[], emit: Emit, start: number): number {
  for (const page of pages)
    for (let i = 0; i < page.lines.length; i++) {
      const line = page.lines[i];
      const caption = line.cells[0]?.text.trim() ?? '';
      if (!/[a-z]{3}/i.test(caption) || /umbrella|excess|damage to|fire|medical expense payments|aggregate/i.test(caption) || isChangeRow(page, i)) continue;
      const next = page.lines[i + 1];
      for (const a of amountsIn(line.text.slice(caption.length), 25000)) {
        const after = line.text.slice(line.text.indexOf(a.text, caption.length) + a.text.length); // as printed
        let basis = /^\s*((?:each|per)\s+occurrence)\b/i.exec(after)?.[1];
        let text = line.text;
        if (!basis && /^\s*(each|per)\s*$/i.test(after) && next && /^occurrence\b/i.test(next.text.trim())) {
          basis = `${after.trim()} ${next.text.trim().split(/\s+/)[0]}`;
          text = `${line.text}\n${next.text}`;
        }
        if (!basis) continue;
        const base = {
          page: page.page,
          text,
          confidence: conf(page) * 0.95,
          source: src(page),
          rule: 'liability: the amount printed with "each/per occurrence"',
        };
        emit({ pointer: `/coverages/${start}/name`, value: `${caption} - ${basis.replace(/\s+/g, ' ')}`, ...base });
        emit({ pointer: `/coverages/${start}/limit`, value: a.value, ...base });
        emit({ pointer: `/coverages/${start}/deductible`, value: null, ...base });
        emit({ pointer: `/coverages/${start}/premium`, value: null, ...base });
        return start + 1;
      }
    }
  return start;
}
