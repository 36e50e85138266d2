// Normalisers for money, dates, addresses and free text, shared by the extractors, grounding, evaluation and
// (later) the lease checker.

const MONTHS: Record<string, number> = {
  jan: 1,
  feb: 2,
  mar: 3,
  apr: 4,
  may: 5,
  jun: 6,
  jul: 7,
  aug: 8,
  sep: 9,
  sept: 9,
  oct: 10,
  nov: 11,
  dec: 12,
};

/** A money amount as a number (`$1,000,000.00` → 1000000, `$1M` → 1000000, `(500)` → 500); undefined when none. */
export function parseMoney(s: string | number | null | undefined): number | undefined {
  if (typeof s === 'number') return Number.isFinite(s) ? s : undefined;
  if (!s) return undefined;
  const m = /\$?\s*(\d{1,3}(?:[,.;\s]\d{3})+|\d+)(\.\d{1,2})?\s*(k|m|mm|million|thousand)?\b/i.exec(s.replace(/[Oo](?=\d{2})/g, '0'));
  if (!m) return undefined;
  let intPart = m[1];
  // "1.000.000" (European grouping) vs "1,000,000": any 3-digit group separator is dropped.
  intPart = intPart.replace(/[,.;\s](?=\d{3}(\D|$))/g, '');
  let n = Number(intPart + (m[2] ?? ''));
  const unit = m[3]?.toLowerCase();
  if (unit === 'k' || unit === 'thousand') n *= 1_000;
  if (unit === 'm' || unit === 'mm' || unit === 'million') n *= 1_000_000;
  return Number.isFinite(n) ? n : undefined;
}

/** Every money-looking amount in a text (used to ground numbers against a page). */
export function moneyTokens(text: string): number[] {
  const out: number[] = [];
  const re = /\$?\s?\d{1,3}(?:,\d{3})+(?:\.\d{1,2})?|\$\s?\d+(?:\.\d{1,2})?(?:\s?(?:k|m|mm|million)\b)?|\b\d+(?:\.\d{1,2})?\b/gi;
  for (const m of text.matchAll(re)) {
    const n = parseMoney(m[0]);
    if (n !== undefined) out.push(n);
  }
  return out;
}

const pad = (n: number) => String(n).padStart(2, '0');

function fullYear(y: number): number {
  if (y >= 100) return y;
  return y < 70 ? 2000 + y : 1900 + y;
}

function iso(y: number, m: number, d: number): string | undefined {
  if (m < 1 || m > 12 || d < 1 || d > 31 || y < 1900 || y > 2100) return undefined;
  const dt = new Date(Date.UTC(y, m - 1, d));
  if (dt.getUTCMonth() !== m - 1) return undefined;
  return `${y}-${pad(m)}-${pad(d)}`;
}

const DATE_RE = new RegExp(
  [
    String.raw`\b(\d{4})-(\d{1,2})-(\d{1,2})\b`, // ISO
    String.raw`\b(\d{1,2})[/\-.](\d{1,2})[/\-.](\d{4}|\d{2})\b`, // US numeric
    // Month D, YYYY; OCR may drop a space ("November 6,2025", "December22, 2026") or read a speck as a quote ("December' 22").
    String.raw`\b(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?['’]?\s*(\d{1,2})(?:st|nd|rd|th)?(?:,\s*|\s+)(\d{4})\b`,
    String.raw`\b(\d{1,2})(?:st|nd|rd|th)?\s+(jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?,?\s+(\d{4})\b`, // D Month YYYY
  ].join('|'),
  'gi',
);

/** Every date in a text as YYYY-MM-DD, in order of appearance, with the matched text. */
export function dateTokens(text: string): { iso: string; text: string; index: number }[] {
  const out: { iso: string; text: string; index: number }[] = [];
  for (const m of text.matchAll(DATE_RE)) {
    let v: string | undefined;
    if (m[1]) v = iso(+m[1], +m[2], +m[3]);
    else if (m[4]) v = iso(fullYear(+m[6]), +m[4], +m[5]);
    else if (m[7]) v = iso(+m[9], MONTHS[m[7].toLowerCase()], +m[8]);
    else if (m[10]) v = iso(+m[12], MONTHS[m[11].toLowerCase()], +m[10]);
    if (v) out.push({ iso: v, text: m[0], index: m.index ?? 0 });
  }
  return out;
}

/** The first date in a text as YYYY-MM-DD. */
export function parseDate(s: string | null | undefined): string | undefined {
  if (!s) return undefined;
  return dateTokens(s)[0]?.iso;
}

/** "Jan 5, 2025" — the text shape SPEC §2.8 uses for lease dates. */
export function formatDateShort(isoDate: string): string {
  const [y, m, d] = isoDate.split('-').map(Number);
  const names = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
  return `${names[m - 1]} ${d}, ${y}`;
}

/** Lower case, punctuation to spaces, whitespace collapsed: the form texts are compared in. */
export function normaliseText(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^a-z0-9]+/g, ' ')
    .trim();
}

/** Whitespace collapsed and trimmed; trailing separators removed. */
export function cleanValue(s: string): string {
  return s
    .replace(/\s+/g, ' ')
    .replace(/^[\s:#.\-–]+|[\s:,;\-–]+$/g, '')
    .trim();
}

export interface UsAddress {
  street?: string;
  city?: string;
  state?: string;
  zip?: string;
}

const STATE_ZIP = /\b([A-Z]{2})\.?,?\s+(\d{5})(?:-\d{4})?\b/i;

/** Split a one-line US address ("12 Oak St, Springfield, IL 62701") into parts; missing parts are undefined. */
export function parseUsAddress(s: string): UsAddress {
  const text = s.replace(/\s+/g, ' ').trim();
  const sz = STATE_ZIP.exec(text);
  if (!sz) return { street: text || undefined };
  const before = text.slice(0, sz.index).replace(/[,\s]+$/, '');
  const parts = before
    .split(',')
    .map((p) => p.trim())
    .filter(Boolean);
  let street: string | undefined;
  let city: string | undefined;
  if (parts.length >= 2) {
    city = parts.pop();
    street = parts.join(', ');
  } else if (parts.length === 1) {
    // "12 Oak St Springfield": no comma; take trailing capitalised words after a street suffix as the city.
    const m = /^(.*\b(?:st|street|ave|avenue|rd|road|dr|drive|ln|lane|blvd|ct|court|way|pl|place|pkwy|hwy|cir|ter|trl)\.?)\s+(.+)$/i.exec(parts[0]);
    if (m) {
      street = m[1];
      city = m[2];
    } else city = parts[0];
  }
  return { street, city, state: sz[1].toUpperCase(), zip: sz[2] };
}

/** One-line form of an address's parts. */
export function formatUsAddress(a: UsAddress): string {
  const tail = [a.state, a.zip].filter(Boolean).join(' ');
  return [a.street, a.city, tail].filter(Boolean).join(', ');
}

/** The usual abbreviations of a US address's street types and compass words (lower case, as `normaliseText` leaves them). */
export const STREET_ABBREVIATIONS: Readonly<Record<string, string>> = {
  street: 'st',
  avenue: 'ave',
  road: 'rd',
  drive: 'dr',
  lane: 'ln',
  boulevard: 'blvd',
  court: 'ct',
  place: 'pl',
  parkway: 'pkwy',
  highway: 'hwy',
  circle: 'cir',
  terrace: 'ter',
  north: 'n',
  south: 's',
  east: 'e',
  west: 'w',
};

const STATE_CODES = new Set(
  'AL AK AZ AR CA CO CT DE DC FL GA HI ID IL IN IA KS KY LA ME MD MA MI MN MS MO MT NE NV NH NJ NM NY NC ND OH OK OR PA RI SC SD TN TX UT VT VA WA WV WI WY'.split(
    ' ',
  ),
);
const STATE_NAMES =
  'alabama|alaska|arizona|arkansas|california|colorado|connecticut|delaware|district of columbia|florida|georgia|hawaii|idaho|illinois|indiana|iowa|kansas|kentucky|louisiana|maine|maryland|massachusetts|michigan|minnesota|mississippi|missouri|montana|nebraska|nevada|new hampshire|new jersey|new mexico|new york|north carolina|north dakota|ohio|oklahoma|oregon|pennsylvania|rhode island|south carolina|south dakota|tennessee|texas|utah|vermont|virginia|washington|west virginia|wisconsin|wyoming';
const CITY = String.raw`^[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*){0,3},\s*`;
const ZIP = String.raw`\.?(?:\s+\d{5}(?:-\d{4})?)?$`;
const CITY_STATE_NAME = new RegExp(`${CITY}(?:${STATE_NAMES})${ZIP}`, 'i');
const CITY_STATE_CODE = new RegExp(`${CITY}([A-Z]{2})${ZIP}`);

/** A line that is only a place: "Hartford, Connecticut", "Columbus, OH 43215" (a home office under a letterhead). */
export function isCityState(s: string): boolean {
  const t = s.trim();
  const code = CITY_STATE_CODE.exec(t);
  return CITY_STATE_NAME.test(t) || (!!code && STATE_CODES.has(code[1]));
}

/** Digits and strokes a scan reads for the letters of a state code. */
const READ_AS_LETTER: Record<string, string> = { '1': 'I', l: 'I', '|': 'I', '0': 'O' };

/**
 * "Madison, W1 53703", "Madison, Wi 53703" → "Madison, WI 53703": a state code a scan read with a digit or a small
 * letter, mended when it is then a state (each character as read in capitals, or the letter a digit or stroke stands for).
 */
export function mendStateCode(s: string): string {
  return s.replace(/(,\s*)([A-Za-z1|0])([A-Za-z1|0])(\s+\d{5}(?:-\d{4})?\b)/, (all, pre: string, a: string, b: string, zip: string) => {
    const readings = (c: string) => [c.toUpperCase(), READ_AS_LETTER[c]].filter(Boolean);
    const code = readings(a)
      .flatMap((x) => readings(b).map((y) => x + y))
      .find((c) => STATE_CODES.has(c));
    return code && /[a-z1|0]/.test(a + b) ? `${pre}${code}${zip}` : all;
  });
}

/** Does the line look like the "City, ST 12345" line of an address? */
export function isCityStateZip(s: string): boolean {
  return /[A-Za-z][A-Za-z .'-]*,?\s+[A-Z]{2}\.?,?\s+\d{5}(-\d{4})?\b/.test(s);
}

const ORG_WORDS =
  /\b(llc|l\.l\.c|inc|incorporated|corp|corporation|co|company|ltd|lp|llp|pllc|pc|group|holdings|partners|association|assn|trust|foundation|church|dba|d\/b\/a|enterprises|services|construction|restaurant|properties|management|condominium|hoa|bank|university|school|club|studio|bakery|cafe|shop|store|electric|plumbing|roofing|clinic)\b\.?/i;

/** A professional corporation's or association's suffix after a comma ("…, P.C.", "…, P.A."; not initials). */
const PROFESSIONAL_SUFFIX = /\S\s+\S+,\s*p\.\s?[ac]\.?$/i;

/** The address lines of a party's block (its name first): street, PO box, suite, city-state-ZIP (a state code a scan
 * read with a digit mended), without the trade name, contact or other words. */
export const addressOf = (lines: string[]) =>
  lines
    .slice(1)
    .map(mendStateCode)
    .filter((l) => /^\d+\s+\w|^p\.?\s*o\.?\s*box|^suite/i.test(l) || isCityStateZip(l))
    .map(cleanValue);

/** A line that gives the trade name an owner does business under ("dba Brightline HVAC", "d/b/a …", "t/a …"). */
export const TRADE_NAME = /^(?:d\s*\/?\s*b\s*\/?\s*a\b|doing\s+business\s+as\b|t\s*\/\s*a\b|trading\s+as\b)/i;

/** A party's name with the trade name printed on the line under it ("Acme LLC" / "dba Acme HVAC"), as printed. */
export function withTradeName(name: string, next: string | undefined): string {
  return next && TRADE_NAME.test(next.trim()) ? cleanValue(`${name} ${next}`) : name;
}

/** Whether a name is an organisation rather than a person. */
export function isOrganisation(name: string): boolean {
  return ORG_WORDS.test(name) || PROFESSIONAL_SUFFIX.test(name.trim());
}

/** "SMITH, JOHN A" / "John A Smith" → first and last name (title case kept as written). */
export function splitPersonName(name: string): { first_name: string; last_name: string } | undefined {
  let n = name.replace(/\s+/g, ' ').trim();
  // "David and Susan Park": the first person's first name and the shared last name.
  const joint = /^(\S+)\s+(?:and|&)\s+.*\s(\S+)$/i.exec(n);
  if (joint && !n.includes(',')) return { first_name: joint[1], last_name: joint[2] };
  n = n.replace(/\s+(and|&)\s.*$/i, '').trim();
  if (!n) return undefined;
  if (n.includes(',')) {
    const [last, rest] = n.split(',', 2).map((x) => x.trim());
    const first = rest?.split(' ')[0];
    if (last && first) return { first_name: first, last_name: last };
  }
  const words = n.split(' ').filter((w) => !/^(mr|mrs|ms|dr)\.?$/i.test(w) && !/^(jr|sr|ii|iii|iv)\.?$/i.test(w));
  if (words.length < 2) return undefined;
  return { first_name: words[0], last_name: words[words.length - 1] };
}

/** Whether two words differ by at most one letter added, dropped or changed (a scan's misread). */
export function oneEditApart(a: string, b: string): boolean {
  if (Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  const [ra, rb] = [a.slice(i), b.slice(i)];
  return ra.slice(1) === rb.slice(1) || ra === rb.slice(1) || ra.slice(1) === rb;
}
