// The lease term: commencement and expiration when stated as calendar dates; a date defined by an event or a
// formula is reported as its rule, never as a date read from another clause.
import type { PageText } from '../documents/layout.ts';
import { dateTokens } from '../extraction/normalise.ts';
import { pageLines, type Clause } from './text.ts';
import type { Cited } from './schema.ts';
import { START_LABEL, END_LABEL, type LabelledEntry } from './lease_entries.ts';
import { chosenOptions } from './lease_requirements.ts';

/** A date the lease defines by an event or a formula ("the later of…", "the last day of the 37th full calendar month"). */
const RULE_WORDS =
  /\b(?:later of|earlier of|after|following|upon|on which|last day|first day|month|anniversary|determined|defined|set forth|substantial completion|delivery|deliver|occur|until|subject to)\b/i;

const MONTH = '(January|February|March|April|May|June|July|August|September|October|November|December)';
const ORDINAL_WORDS = [
  'first',
  'second',
  'third',
  'fourth',
  'fifth',
  'sixth',
  'seventh',
  'eighth',
  'ninth',
  'tenth',
  'eleventh',
  'twelfth',
  'thirteenth',
  'fourteenth',
  'fifteenth',
  'sixteenth',
  'seventeenth',
  'eighteenth',
  'nineteenth',
  'twentieth',
  'twenty-first',
  'twenty-second',
  'twenty-third',
  'twenty-fourth',
  'twenty-fifth',
  'twenty-sixth',
  'twenty-seventh',
  'twenty-eighth',
  'twenty-ninth',
  'thirtieth',
  'thirty-first',
];
const DAY_OF_MONTH = new RegExp(
  String.raw`\b(?:the\s+)?(?:(\d{1,2})(?:st|nd|rd|th)|(${ORDINAL_WORDS.join('|')})(?:\s*\(\d{1,2}(?:st|nd|rd|th)?\))?)\s+(?:day\s+)?of\s+${MONTH},?\s+(\d{4})\b`,
  'gi',
);

const LAST_DAY_OF = new RegExp(String.raw`\b(?:the\s+)?last\s+day\s+of\s+${MONTH},?\s+(\d{4})\b`, 'gi');
const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/**
 * A date written as a form writes it, "the 1st day of October, 2026", "the first (1st) day of June, 2026", as
 * "October 1, 2026"; "the last day of January, 2046" as "January 31, 2046".
 */
export function writtenDates(s: string): string {
  // Most lines hold no such date: a cheap look first (the full pattern is long).
  if (!/\bof\s+[A-S][a-z]{2}/i.test(s)) return s;
  return s
    .replace(DAY_OF_MONTH, (_m, n: string | undefined, word: string | undefined, month: string, year: string) => {
      const day = n ? Number(n) : ORDINAL_WORDS.indexOf(word!.toLowerCase()) + 1;
      return `${month} ${day}, ${year}`;
    })
    .replace(LAST_DAY_OF, (_m, month: string, year: string) => {
      const last = new Date(Date.UTC(Number(year), MONTHS.indexOf(month.toLowerCase()) + 1, 0)).getUTCDate();
      return `${month} ${last}, ${year}`;
    });
}

/** "for a period of twelve (12) months beginning on March 1, 2026": the months or years and the start. */
const DURATION_FROM = new RegExp(
  String.raw`\b(?:for\s+)?(?:a|the)\s+(?:period|term)\s+of\s+(?:[a-z-]+\s+)?\(?(\d{1,2})\)?\s+(months?|years?)\s*,?\s+(?:beginning|commencing|starting)\s+(?:on\s+)?(${MONTH}\s+\d{1,2},?\s+\d{4}|\d{1,2}\/\d{1,2}\/\d{2,4})`,
  'i',
);

/** The start and the end a clause's duration gives ("for a period of twelve (12) months beginning on March 1, 2026"), or null. */
function durationTerm(text: string): { start: string; end: string } | null {
  const span = DURATION_FROM.exec(writtenDates(text));
  const from = span && dateTokens(span[3])[0];
  return from ? { start: from.iso, end: lastDayOfTerm(from.iso, Number(span[1]) * (/^year/i.test(span[2]) ? 12 : 1)) } : null;
}
/** The end a clause's duration and start give, or null. */
export const durationEnd = (text: string) => durationTerm(text)?.end ?? null;

/** The day before the same date `n` months on: a term of 12 months from March 1, 2026 ends February 28, 2027. */
function lastDayOfTerm(iso: string, months: number): string {
  const [y, m, d] = iso.split('-').map(Number);
  const end = new Date(Date.UTC(y, m - 1 + months, d) - 86400000);
  return end.toISOString().slice(0, 10);
}
const dates = (s: string) => dateTokens(writtenDates(s));

/** An option's letter before or after its box ("B. [X] Lease:", "[X] A. Lease:"): the box says whether it is chosen, the letter nothing. */
const OPTION_LETTER = /\b[A-Z][.)]\s*(?=\[\s*[xX✓✔]?\s*\]|[☐□❑☑☒])|(?<=\[\s*[xX✓✔]?\s*\]|[☐□❑☑☒])\s*[A-Z][.)](?=\s)/g;
const BOXED = /\[\s*[xX✓✔]?\s*\]|[☐□❑☑☒]/;
/**
 * A term clause as a form's ticked choices and captions leave it: "The term begins on (date) June 1, 2026, (Check A or
 * B): A. [ ] Month-to-Month … B. [X] Lease: and shall terminate on (date) May 31, 2027" reads "The term begins on
 * June 1, 2026, (Check A or B): Lease: and shall terminate on May 31, 2027".
 */
const termText = (s: string) => writtenDates(BOXED.test(s) ? chosenOptions(s.replace(OPTION_LETTER, '')) : s).replace(/\(date\)\s*/gi, '');

/**
 * What a scan's OCR does to a form's term: a space inside a numeric date ("05/3 1/2027"), and a checkbox read as
 * nothing or as a bare X after its option's letter ("A.  Month-to-Month …", "B. X Lease: …"): when one option of a
 * lettered list has its X, the boxes are put back, ticked where the X is.
 */
export function ocrTermText(s: string): string {
  let t = s.replace(/\b(\d{1,2}) ?\/ ?(\d) (\d) ?\/ ?(\d{4})\b/g, '$1/$2$3/$4').replace(/\b(\d) (\d) ?\/ ?(\d{1,2}) ?\/ ?(\d{4})\b/g, '$1$2/$3/$4');
  if (!BOXED.test(t) && /\b[A-H]\.\s+[Xx]\s+(?=[A-Z])/.test(t))
    t = t.replace(/\b([A-H])\.\s+(?:([Xx])\s+)?(?=[A-Z])/g, (_m, letter: string, x: string | undefined) => `${letter}. [${x ? 'X' : ' '}] `);
  return t;
}

const TERM_LABEL = /^(?:(?:the|lease|rental|initial|primary|fixed)\s+)?(?:term|period)(?:\s+of\s+(?:the\s+)?(?:lease|tenancy))?$/i;

/** A labelled date: stated when the value begins with a calendar date; a rule when it defines the date otherwise. */
function labelledDate(entries: LabelledEntry[], label: RegExp): { date: Cited<string> | null; rule: Cited<string> | null } {
  for (const e of entries) {
    if (!label.test(e.label)) continue;
    const v = e.value.replace(/\s+/g, ' ').trim();
    // A blank form's line is no date and no rule.
    if (/^_{3,}/.test(v)) continue;
    const d = dates(v)[0];
    if (d && /^(?:on\s+|as of\s+)?$/i.test(v.slice(0, d.index).trim())) return { date: { value: d.iso, page: e.page, text: e.text }, rule: null };
    if (RULE_WORDS.test(v) || !d) return { date: null, rule: { value: v.slice(0, 300), page: e.page, text: e.text } };
  }
  return { date: null, rule: null };
}

export function leaseDates(pages: PageText[], all: Clause[], entries: LabelledEntry[]) {
  const s = labelledDate(entries, START_LABEL);
  const e = labelledDate(entries, END_LABEL);
  let start = s.date;
  let end = e.date;
  let openTerm: Cited<string> | null = null;
  let startRule: Cited<string> | null = null;
  // "Lease Start Date: 01/01/2026" on one line, the label first.
  const startLine = /^\s*(?:lease\s+)?(?:commencement|start|beginning)\s+date\s*[:\-–]?\s*(?:on\s+)?$|^\s*move[- ]in\s+date\s*[:\-–]?\s*$/i;
  const endLine = /^\s*(?:lease\s+)?(?:expiration|termination|end|ending)\s+date\s*[:\-–]?\s*(?:on\s+)?$/i;
  for (const l of pageLines(pages)) {
    const text = writtenDates(l.text);
    for (const d of dateTokens(text)) {
      const before = text.slice(0, d.index);
      if (!start && !s.rule && startLine.test(before)) start = { value: d.iso, page: l.page, text: l.text };
      if (!end && !e.rule && endLine.test(before)) end = { value: d.iso, page: l.page, text: l.text };
      // "Start Date: 01/01/2026   End Date: 12/31/2026" on one line.
      const cell = before.split(/\s{2,}/).pop() ?? '';
      if (!start && !s.rule && startLine.test(cell)) start = { value: d.iso, page: l.page, text: l.text };
      if (!end && !e.rule && endLine.test(cell)) end = { value: d.iso, page: l.page, text: l.text };
    }
  }
  // "The term of this Lease shall commence on January 1, 2026 and end on December 31, 2026": the lease's own
  // term only (not a tax or fiscal year that also "commences" and "expires"), and never over a date the lease
  // defines by a rule.
  if (!(start && end) && !s.rule && !e.rule) {
    // A "Term:" entry of the summary ("from 3/1/26 to 2/28/27") is the lease's own term; a clause must say so.
    const termEntries = entries
      .filter((x) => TERM_LABEL.test(x.label))
      .map((x) => ({ text: writtenDates(ocrTermText(x.value.replace(/\s+/g, ' '))), page: x.page, cite: x.text, entry: true }));
    // A form's options are sentences of their own: a paragraph with checkboxes is read whole as well.
    const boxedParagraphs = [...new Set(all.filter((x) => BOXED.test(ocrTermText(x.text))).map((x) => x.para))].map((para) => {
      const own = all.filter((x) => x.para === para);
      const whole = own.map((x) => x.text).join(' ');
      return { text: termText(ocrTermText(whole)), page: own[0].page, cite: whole, entry: false };
    });
    const sentences = all.map((x) => ({ text: termText(ocrTermText(x.text)), page: x.page, cite: x.text, entry: false }));
    const extended = all.some((x) => /\b(?:new|extended|renewal) term\b/i.test(x.text));
    for (const c of [...termEntries, ...sentences, ...boxedParagraphs]) {
      if (
        !c.entry &&
        !/\b(?:the|this|a|lease|original|initial|rental|primary|fixed)\s+term\b|\bmonth[- ]to[- ]month\s+(?:tenancy|rental|lease|agreement)\b|\bperiod\s+(?:commencing|beginning|starting)\b|\b(?:a|the)\s+(?:period|term)\s+of\s+(?:[a-z-]+\s+)?\(?\d{1,2}\)?\s+(?:months?|years?)\b|\b(?:lease|sublease|tenancy|agreement)\s+runs\b|\b(?:tenancy|lease|agreement)\s+(?:is|shall be)\s+for\b|\b(?:new|extended|renewal) term\b|^\s*how long\b|\bterm of (?:this|the) (?:lease|agreement|tenancy)\b|\blease (?:term|period)\b|\b(?:the|this) (?:tenancy|lease|sublease|agreement) (?:shall |will )?(?:begin|commence|start)|^(?:lease\s+)?term\s*:/i.test(
          c.text,
        )
      )
        continue;
      // The lease's own term, not a renewal's: what follows an option to extend or renew is cut off.
      const own = c.text.split(/\b(?:options?\s+to\s+(?:extend|renew)|(?:renewal|extension)\s+(?:options?|terms?|periods?)|options?)\b/i)[0];
      // An extension agreement restates the original term: its new term is the lease's.
      if (extended && /\boriginal (?:lease|term)\b|\b(?:prior|expiring|existing) lease\b/i.test(own)) continue;
      if (/\b(?:fiscal|tax year|calendar year|lease year)\b/i.test(own)) continue;
      let m =
        /\b(?:commenc\w*|begin\w*|start\w*|from)\s+(?:on\s+)?(\d{4}-\d{2}-\d{2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}|.{6,24}?\d{4})\b[^.]*?\b(?:end\w*|terminat\w*|expir\w*|through|until|to)\s+(?:on,?\s+)?(?:and\s+including,?\s+)?(?:on\s+)?(?:at\s+(?:\d{1,2}(?::\d{2})?\s*)?(?:[ap]\.?\s?m\.?|o['’]clock|noon|midnight)\s*(?:on\s+)?|at\s+[^,]*,\s*)?(\d{4}-\d{2}-\d{2}|\d{1,2}[-/.]\d{1,2}[-/.]\d{2,4}|.{6,24}?\d{4})/i.exec(
          own,
        );
      // "Lease term: November 1, 2026 through October 31, 2027": the dates right after the term's name.
      m ??=
        /\b(?:term|period)\b[^.\d]{0,20}?((?:[A-Z][a-z]+\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4})|\d{1,2}\/\d{1,2}\/\d{2,4})\s*(?:through|thru|to|until|-|–)\s*((?:[A-Z][a-z]+\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4})|\d{1,2}\/\d{1,2}\/\d{2,4})/.exec(
          own,
        );
      // A "Lease Period:" entry's value is the two dates alone: "August 15, 2026 through July 31, 2027".
      if (c.entry)
        m ??=
          /^\s*(?:from\s+)?((?:[A-Z][a-z]+\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4})|\d{1,2}\/\d{1,2}\/\d{2,4})\s*(?:through|thru|to|until|-|–)\s*((?:[A-Z][a-z]+\.?\s+\d{1,2}(?:st|nd|rd|th)?,?\s+\d{4})|\d{1,2}\/\d{1,2}\/\d{2,4})/.exec(
            c.text,
          );
      // "for a period of twelve (12) months beginning on the first day of March, 2026": the end follows from the start.
      const span = m ? null : durationTerm(own);
      if (span) {
        start ??= { value: span.start, page: c.page, text: c.cite.slice(0, 400) };
        end ??= { value: span.end, page: c.page, text: c.cite.slice(0, 400) };
        break;
      }
      // A start set by a rule and an end stated as a date: "shall commence on the later of (i) … and (ii) …, and shall
      // expire on May 30, 2029".
      const expires = m ? null : /\b(?:later|earlier) of\b[^.]*?\b(?:shall|will)\s+(?:expire|end|terminate)\s+on\s+(.{6,24}?\d{4})\b/i.exec(own);
      const until = expires && dateTokens(expires[1])[0];
      if (until) {
        end ??= { value: until.iso, page: c.page, text: c.cite.slice(0, 400) };
        startRule = { value: own.slice(0, 300), page: c.page, text: c.cite.slice(0, 400) };
        break;
      }
      if (!m) {
        // "The tenancy shall begin on 04/01/2026 and continue on a month-to-month basis": a start and no end.
        // Or the other way round: "This is a month-to-month tenancy beginning October 15, 2026".
        const open =
          /\b(?:begin\w*|commenc\w*|start\w*)\s+(?:on\s+)?(.{6,24}?\d{4})\b[^.]*\bmonth[- ]to[- ]month\b/i.exec(c.text) ??
          /\bmonth[- ]to[- ]month\s+(?:tenancy|rental|lease|agreement)\b[^.]{0,40}?\b(?:begin\w*|commenc\w*|start\w*)\s+(?:on\s+)?(.{6,24}?\d{4})\b/i.exec(
            c.text,
          );
        const a = open && dateTokens(open[1])[0];
        // "(Check A or B): [ ] Month-to-Month": an option not chosen (the paragraph read whole says which is).
        const declined = /(?:\[\s*\]|[☐□❑])\s*[^.[☐□❑]{0,40}\bmonth[- ]to[- ]month\b/i.test(c.text);
        if (a && !start && !end && !declined) {
          start = { value: a.iso, page: c.page, text: c.cite.slice(0, 400) };
          break;
        }
        continue;
      }
      const a = dateTokens(m[1])[0];
      const b = dateTokens(m[2])[0];
      if (a && b && b.iso > a.iso) {
        start ??= { value: a.iso, page: c.page, text: c.cite.slice(0, 400) };
        end ??= { value: b.iso, page: c.page, text: c.cite.slice(0, 400) };
        break;
      }
    }
  }
  // A tenancy from month to month has no expiration to read (not a holdover's month-to-month after the term).
  if (!end && !e.rule) {
    for (const c of all) {
      // An unticked "[ ] Month-to-Month" option is no month-to-month tenancy.
      const text = BOXED.test(c.text) ? chosenOptions(c.text.replace(OPTION_LETTER, '')) : c.text;
      const m = /\bmonth[- ]to[- ]month\b/i.exec(text);
      if (!m || /\bhold\w*\s*over|\bholdover\b|remains? in possession|after the (?:expiration|end|termination)/i.test(text)) continue;
      if (!/\b(?:tenancy|term|lease|agreement|rental)\b/i.test(text)) continue;
      openTerm = { value: m[0], page: c.page, text: c.text.slice(0, 400) };
      break;
    }
  }
  return { start, end, openTerm, rules: { start: start ? null : (s.rule ?? startRule), end: end ? null : e.rule } };
}
