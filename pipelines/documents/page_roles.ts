// The page locator of a long document (a policy packet as the carrier issued it: declarations for each coverage
// part near the front, then hundreds of pages of forms and endorsements). Every page's text layer is skimmed
// (text runs only, no operator list, no repairs) and scored as one role from its vocabulary and layout; only the
// pages that hold policy facts are then read in full and, when they have no text layer, OCR'd. Pure: runs inside
// the PDF worker thread on the skimmed runs.
import { hasUsableText, type TextItem } from './layout.ts';

export const pageRoles = ['declarations', 'certificate', 'schedule', 'forms_and_endorsements', 'other'] as const;
export type PageRole = (typeof pageRoles)[number];

/** One page's role as scored from its text layer. */
export interface PageScore {
  page: number;
  role: PageRole;
  /** The winning role's score (higher is surer; below 1 is no better than `other`). */
  score: number;
  /** Whether the page has a usable text layer (else it was scored `other` and needs OCR to be read). */
  text: boolean;
  /** The page says it continues or is continued ("… continued", "Continued on next page"). */
  continued?: boolean;
}

/** A page of a located document: its role, whether it is read in full, and why. */
export interface PageLocation extends PageScore {
  read: boolean;
  why: string;
}

/** Documents longer than this are located; shorter ones are read whole, as before. */
export const LOCATE_ABOVE_PAGES = 12;
/** The front of a packet, where declarations are printed; its pages without text are OCR'd when nothing else points. */
const FRONT_PAGES = 12;
/** At most this many pages are read in full (the highest-scoring; the rest are only skimmed). */
const MAX_READ_PAGES = 30;
/** A heading sits in the top part of the page and is short. */
const HEADING_BAND = 0.3;
const HEADING_MAX_WORDS = 9;
/** A prose line has this many words or more (forms and endorsements are prose). */
const PROSE_WORDS = 10;
/** Score of the `other` role: a page must beat it to be anything else. */
const OTHER_SCORE = 1;

const DECLARATIONS_HEADING = /\bdeclarations?\b|\bdec(laration)?s? page\b|\binformation page\b|\bpolicy summary\b/i;
const SCHEDULE_HEADING = /\bschedule\b|\bsupplemental\b/i;
const CERTIFICATE =
  /certificate of (liability |property )?insurance|evidence of (commercial )?property insurance|certificate holder|certificate of coverage|evidence of insurance|insurance binder|member certificate/i;
const FORM_MARKERS = [
  /this endorsement changes the policy/i,
  /please read (it|this) (policy )?carefully/i,
  /insurance services office/i,
  /iso properties/i,
  /\bsection (i|ii|iii|iv|v|vi)\b/i,
  /words and phrases that appear in quotation marks/i,
  /\bmeans\b.*\bincludes?\b/i,
  /all other terms and conditions of this policy remain unchanged/i,
];
/** Labels of declarations and schedules (each counted once per page). */
const FACT_LABELS = [
  /named insured/i,
  /policy (number|no\.?|#)/i,
  /policy period|policy term/i,
  /mailing address/i,
  /effective( date)?|expiration( date)?/i,
  /limits? of (insurance|liability)/i,
  /each occurrence|aggregate/i,
  /\bpremium\b/i,
  /\b(producer|agent|agency)\b/i,
  /\bdeductible\b/i,
  /\binsurer\b|\binsurance company\b|\bunderwritten by\b/i,
  /form of business|business description|\blocation\b|\bpremises\b/i,
];
const CONTINUED = /\bcontinued\b|\(cont(\.|inued)?\)/i;
/** At most this many pages after a declarations page are read as its continuation. */
const MAX_CONTINUATION = 4;
const MONEY = /\$\s?\d[\d,]*|\b\d{1,3}(,\d{3})+\b/g;
const DATE = /\b\d{1,2}[/-]\d{1,2}[/-]\d{2,4}\b|\b(jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\.? \d{1,2},? \d{4}\b/gi;

interface SkimLine {
  text: string;
  y: number;
  words: number;
}

/** Text runs grouped into lines by their top (within half a text height), top to bottom. */
function skimLines(items: TextItem[]): SkimLine[] {
  const sorted = [...items].sort((a, b) => a.y - b.y || a.x - b.x);
  const lines: { y: number; h: number; parts: TextItem[] }[] = [];
  for (const it of sorted) {
    const last = lines[lines.length - 1];
    if (last && Math.abs(it.y - last.y) <= Math.max(2, Math.min(it.h, last.h) / 2)) last.parts.push(it);
    else lines.push({ y: it.y, h: it.h, parts: [it] });
  }
  return lines.map((l) => {
    const text = l.parts
      .sort((a, b) => a.x - b.x)
      .map((p) => p.text)
      .join(' ')
      .replace(/\s+/g, ' ')
      .trim();
    return { text, y: l.y, words: text.split(' ').filter(Boolean).length };
  });
}

/** Score one page's role from its skimmed text runs. */
export function scorePage(page: number, items: TextItem[], height: number): PageScore {
  if (!hasUsableText(items)) return { page, role: 'other', score: 0, text: false };
  const lines = skimLines(items);
  const all = lines.map((l) => l.text).join('\n');
  const headings = lines.filter((l) => l.y < height * HEADING_BAND && l.words <= HEADING_MAX_WORDS).map((l) => l.text);
  const prose = lines.length === 0 ? 0 : lines.filter((l) => l.words >= PROSE_WORDS).length / lines.length;
  const labels = FACT_LABELS.filter((re) => re.test(all)).length;
  const money = Math.min(8, (all.match(MONEY) ?? []).length);
  const dates = Math.min(4, (all.match(DATE) ?? []).length);
  const formMarks = FORM_MARKERS.filter((re) => re.test(all)).length;
  const decHeading = headings.some((h) => DECLARATIONS_HEADING.test(h));
  const schedHeading = headings.some((h) => SCHEDULE_HEADING.test(h));
  const certificate = CERTIFICATE.test(headings.join('\n')) || (all.match(new RegExp(CERTIFICATE.source, 'gi')) ?? []).length >= 2;
  const facts = labels * 0.45 + money * 0.2 + dates * 0.25;
  const scores: Record<PageRole, number> = {
    declarations: (decHeading ? 2.5 : 0) + facts - prose * 4 - formMarks * 1.5,
    certificate: certificate ? 3 + labels * 0.2 : 0,
    schedule: (schedHeading ? 1.5 : 0) + money * 0.25 + labels * 0.2 - prose * 4 - formMarks * 1.5,
    forms_and_endorsements: formMarks * 1.5 + prose * 5,
    other: OTHER_SCORE,
  };
  let role: PageRole = 'other';
  for (const r of pageRoles) if (scores[r] > scores[role]) role = r;
  return { page, role, score: Math.round(scores[role] * 100) / 100, text: true, ...(CONTINUED.test(all) ? { continued: true } : {}) };
}

const FACT_ROLES: ReadonlySet<PageRole> = new Set(['declarations', 'certificate', 'schedule']);

/**
 * Which pages of a located document to read in full, and why: every page scored declarations, certificate or
 * schedule (the best MAX_READ_PAGES of them); pages without a text layer only at the front of the packet or beside a
 * page read; and when no page scored as one that holds facts, the front pages.
 */
export function choosePages(scores: PageScore[]): PageLocation[] {
  const facts = scores
    .filter((s) => s.text && FACT_ROLES.has(s.role))
    .sort((a, b) => roleRank(a.role) - roleRank(b.role) || b.score - a.score || a.page - b.page)
    .slice(0, MAX_READ_PAGES);
  const chosen = new Map<number, string>(facts.map((s) => [s.page, `scored ${s.role.replace(/_/g, ' ')}`]));
  const found = chosen.size > 0;
  // Declarations run over to the next page ("Coverages and limits, continued"), whatever that page's prose scores:
  // a page after one read is read while either says it continues.
  for (const d of facts.filter((f) => f.role === 'declarations')) {
    for (let k = d.page; k < d.page + MAX_CONTINUATION && chosen.size < MAX_READ_PAGES; k++) {
      const here = scores[k - 1];
      const next = scores[k];
      if (!here || !next || next.role === 'certificate' || !(here.continued || next.continued)) break;
      if (!chosen.has(next.page)) chosen.set(next.page, `continues the declarations on page ${d.page}`);
    }
  }
  for (const s of scores) {
    if (chosen.size >= MAX_READ_PAGES) break;
    if (s.text && !found && s.page <= FRONT_PAGES) chosen.set(s.page, 'no page scored as declarations: front of the document');
  }
  for (const s of scores) {
    if (s.text || chosen.has(s.page) || chosen.size >= MAX_READ_PAGES) continue;
    const beside = facts.some((f) => Math.abs(f.page - s.page) === 1);
    if (s.page <= FRONT_PAGES || beside)
      chosen.set(s.page, s.page <= FRONT_PAGES ? 'no text layer, front of the document' : 'no text layer, beside a page read');
  }
  return scores.map((s) => {
    const why = chosen.get(s.page);
    if (why) return { ...s, read: true, why };
    return { ...s, read: false, why: s.text ? `scored ${s.role.replace(/_/g, ' ')}: skimmed only` : 'no text layer, not among the pages that matter' };
  });
}

const roleRank = (r: PageRole) => (r === 'declarations' ? 0 : r === 'certificate' ? 1 : 2);
