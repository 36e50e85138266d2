// Rule-based extractors on positioned text: the offline default. A common core (carrier, policy number,
// period, premium, named insured, coverages) for every kind, deep rules for personal auto, homeowners and
// renters, businessowners/CGL declarations and ACORD 25-style certificates.
import type { PageText, Cell, Line } from '../documents/layout.ts';
import type { Candidate } from './candidates.ts';
import type { DocumentKind } from './schema.ts';
import { certificatePage } from './certificate.ts';
import { certificateForm, declarationKinds, kindModule } from './kinds/index.ts';
import { isAcordBinder } from './kinds/acord75.ts';
import { autoLiability, propertyLines, eachOccurrence } from './limits.ts';
import { findCarrier, findNamedInsured, looksLikeName } from './names.ts';
import { findLabelled, findLabelledBlock, findTable, cellsBelow, type Found } from './layout_query.ts';
import { parseMoney, parseDate, dateTokens, cleanValue, isOrganisation, splitPersonName, isCityStateZip } from './normalise.ts';

/** Which kind of document this is, from its words. */
export function detectKind(pages: PageText[]): DocumentKind {
  const all = pages.map((p) => p.text).join('\n');
  const head = pages
    .slice(0, 2)
    .map((p) => p.text)
    .join('\n');
  // The title at the top of page 1 counts three times as much as a word anywhere in the document.
  const title =
    pages[0]?.lines
      .slice(0, 12)
      .map((l) => l.text)
      .join('\n') ?? '';
  const text = `${all}\n${title}\n${title}`;
  if (
    /certificate of (liability )?insurance|evidence of (commercial )?property insurance|certificate of property insurance/i.test(head) ||
    (/insurance binder/i.test(title) && isAcordBinder(head)) ||
    // A certificate that is not an ACORD form says so in its title ("Evidence of Insurance", "Memorandum of Insurance").
    /^\s*(?:member\s+)?(?:certificate of (?:liability )?insurance|evidence of insurance|memorandum of insurance|certificate of coverage)\s*$/im.test(title)
  )
    return 'certificate';
  // Each declarations kind's module scores the words; the best score of 3 or more names the kind.
  const scores: Record<string, number> = Object.fromEntries(declarationKinds.map((m) => [m.kind, m.detect(text, title)]));
  const best = Object.entries(scores).sort((a, b) => b[1] - a[1])[0];
  return best[1] >= 3 ? (best[0] as DocumentKind) : 'unknown';
}

type Emit = (c: Omit<Candidate, 'source' | 'confidence'> & Partial<Pick<Candidate, 'source' | 'confidence'>>) => void;

function emitter(out: Candidate[]): Emit {
  return (c) => out.push({ source: 'rules', confidence: 0.9, ...c });
}
const fromFound = <T>(f: Found<T>) => ({ page: f.page, text: f.text, confidence: f.confidence, source: f.source });

const POLICY_NUMBER = /^[A-Z0-9][A-Z0-9\- ]{3,28}$/i;
export function parsePolicyNumber(s: string): string | undefined {
  const v = cleanValue(s.split(/\s{2,}/)[0]);
  if (!POLICY_NUMBER.test(v) || !/\d/.test(v) || /^\d{1,2}\/\d/.test(v) || /\b(page|of|date|phone|fax)\b/i.test(v)) return undefined;
  return v;
}

export function policyNumber(pages: PageText[], emit: Emit) {
  // "Policy Number: …", and a bare "Policy: MI 45332234" (the colon makes it a caption, not a word of a sentence).
  const f = findLabelled(pages, /policy\s*(?:number|no\.?|#|num\.?)|policy\s*id|policy(?=\s*:)/i, parsePolicyNumber);
  if (f) {
    emit({ pointer: '/policy/policy_number', value: f.value, ...fromFound(f) });
    return;
  }
  // No captioned number (the declarations' box redacted or drawn): one quoted in a sentence ("type in your policy
  // number 6036152786341 and product code …"), weaker evidence.
  for (const page of pages)
    for (const line of page.lines) {
      const m = /\bpolicy\s+(?:number|no\.?|#)\s*:?\s*([A-Z]{0,4}[-\s]?\d[\dA-Z-]{5,24})\b/i.exec(line.text);
      if (!m || (m[1].match(/\d/g) ?? []).length < 6 || /^\d{1,2}\/\d/.test(m[1])) continue;
      emit({
        pointer: '/policy/policy_number',
        value: m[1].trim(),
        page: page.page,
        text: line.text,
        confidence: page.source === 'ocr' ? 0.5 : 0.6,
        source: page.source === 'ocr' ? 'ocr' : 'rules',
        rule: 'policy number: quoted in a sentence (no captioned number)',
      });
      return;
    }
}

const daysBetween = (a: string, b: string) => (Date.parse(b) - Date.parse(a)) / 86_400_000;

export function period(pages: PageText[], emit: Emit) {
  // "Policy Period: 01/15/2025 to 07/15/2025" (possibly on the next line).
  for (const page of pages) {
    for (let i = 0; i < page.lines.length; i++) {
      const line = page.lines[i];
      if (!/policy period|coverage period|policy term|term of (the )?policy|period of insurance|^term\b|coverage begins/i.test(line.text)) continue;
      // The dates may follow the caption over two more lines ("Policy period / Beginning December 19, 2021
      // through / June 19, 2022"), or stand left of their own captions above and below it ("08/01/2021 Effective
      // Date / 12 months - Policy Period / 08/01/2022 Expiration of Policy Period").
      let text = [line.text, page.lines[i + 1]?.text ?? ''].join('\n');
      let dates = dateTokens(text);
      if (dates.length < 2) {
        text = page.lines
          .slice(Math.max(0, i - 1), i + 3)
          .map((l) => l.text)
          .join('\n');
        dates = dateTokens(text);
      }
      if (dates.length >= 2 && dates[1].iso > dates[0].iso && daysBetween(dates[0].iso, dates[1].iso) <= 400) {
        const src = text.startsWith(line.text) && dates[1].index < line.text.length ? line.text : text;
        const conf = page.source === 'ocr' ? 0.8 : 0.9;
        emit({
          pointer: '/policy/effective_date',
          value: dates[0].iso,
          page: page.page,
          text: src,
          confidence: conf,
          source: page.source === 'ocr' ? 'ocr' : 'rules',
        });
        emit({
          pointer: '/policy/expiration_date',
          value: dates[1].iso,
          page: page.page,
          text: src,
          confidence: conf,
          source: page.source === 'ocr' ? 'ocr' : 'rules',
        });
        return;
      }
    }
  }
  const eff = findLabelled(pages, /(?:policy\s+)?effective(?:\s+date)?|(?:policy\s+)?inception(?:\s+date)?|(?:policy\s+)?start\s+date|from/i, parseDate);
  const exp = findLabelled(
    pages,
    /(?:policy\s+)?expiration(?:\s+date)?|(?:policy\s+)?expiry(?:\s+date)?|(?:policy\s+)?expires(?:\s+on)?|(?:policy\s+)?end\s+date|expiration\s+of\s+policy\s+period|to/i,
    parseDate,
  );
  if (eff) emit({ pointer: '/policy/effective_date', value: eff.value, ...fromFound(eff) });
  if (exp && (!eff || exp.value > eff.value)) emit({ pointer: '/policy/expiration_date', value: exp.value, ...fromFound(exp) });
  if (eff || exp) return;
  // Last resort: the first "date to date" on the first page.
  for (const page of pages.slice(0, 1)) {
    for (const line of page.lines) {
      const m = /(.{6,20}?)\s+(?:to|through|thru|-|–)\s+(.{6,20})/.exec(line.text);
      const d = dateTokens(line.text);
      if (m && d.length >= 2 && d[1].iso > d[0].iso) {
        emit({ pointer: '/policy/effective_date', value: d[0].iso, page: page.page, text: line.text, confidence: 0.6 });
        emit({ pointer: '/policy/expiration_date', value: d[1].iso, page: page.page, text: line.text, confidence: 0.6 });
        return;
      }
    }
  }
}

function premium(pages: PageText[], emit: Emit) {
  const label =
    /total\s+(?:estimated\s+)?(?:annual\s+|advance\s+|policy\s+|term\s+|6[- ]month\s+|12[- ]month\s+)?premium|(?:annual|policy|term|full[- ]term)\s+premium|total\s+(?:policy\s+)?(?:cost|charges)|premium\s+total|total\s+due/i;
  // "Total premium for 2010 DODGE" is one vehicle's (or coverage's) premium, and its "2010" a year: not the policy's.
  const policyLabel = new RegExp(`(?:${label.source})(?!\\s*(?:for|per)\\b)`, 'i');
  const f = findLabelled(pages, policyLabel, (s) => {
    const amount = PREMIUM_AMOUNT.exec(s);
    return amount ? parseMoney(amount[0]) : undefined;
  });
  if (f) emit({ pointer: '/policy/premium', value: f.value, ...fromFound(f) });
}

/** A premium is printed as money: a dollar sign, thousands separators or cents, never a bare number (a year, a count). */
const PREMIUM_AMOUNT = /\$\s?\d[\d,]*(?:\.\d{2})?|\b\d{1,3}(?:,\d{3})+(?:\.\d{2})?\b|\b\d+\.\d{2}\b/;

const ADDRESS_LINE = (s: string) => /^\d+\s+\w|^p\.?\s*o\.?\s*box|^suite|^apt|^unit/i.test(s) || isCityStateZip(s);

function namedInsured(pages: PageText[], emit: Emit) {
  const f = findLabelledBlock(
    pages,
    /named\s+insured(?:\(s\))?(?:\s+and\s+(?:mailing\s+)?address)?|insured(?:'s)?\s+name|policyholder(?:\(s\))?|policy\s+holder(?:\(s\))?|insured(?:\s+and\s+mailing\s+address)?|first\s+named\s+insured/i,
    4,
  );
  if (!f) return;
  const base = fromFound(f);
  let [name, ...rest] = f.value;
  name = cleanValue(name);
  if (!name || /^\d/.test(name) || !looksLikeName(name)) return;
  if (isOrganisation(name)) {
    emit({ pointer: '/policyholder/organization', value: name, ...base });
  } else {
    const p = splitPersonName(name);
    if (p) {
      emit({ pointer: '/policyholder/first_name', value: p.first_name, ...base });
      emit({ pointer: '/policyholder/last_name', value: p.last_name, ...base });
    } else emit({ pointer: '/policyholder/organization', value: name, ...base, confidence: base.confidence * 0.7 });
  }
  // A co-insured on the second line ("Jane Smith") is skipped; address lines start with a number or are City, ST ZIP.
  const addr: string[] = [];
  for (const l of rest) {
    if (ADDRESS_LINE(l)) addr.push(cleanValue(l));
    else if (addr.length) break;
  }
  if (addr.length) emit({ pointer: '/policyholder/address', value: addr.join(', '), ...base });
}

function splitLimit(s: string): number | string | undefined {
  const parts = s.split(/\s*\/\s*/).map((p) => (/\d/.test(p) ? parseMoney(p) : undefined));
  if (parts.length >= 2 && parts.every((p) => p !== undefined)) return parts.join('/');
  return /\d/.test(s) ? parseMoney(s) : undefined;
}

/** The coverage table (name, limit, deductible, premium) located by its header. */
function coverages(pages: PageText[], emit: Emit, start = 0, skip?: RegExp): { name: string; limit?: number | string; page: number; text: string }[] {
  const rows = findTable(
    pages,
    {
      name: /^(coverages?|description|coverage\s+type|coverages?\s+and\s+limits)\b/i,
      limit: /^(limits?(\s+of\s+(liability|insurance))?|amount\s+of\s+insurance|maximum\s+amount|coverage\s+amount|amount|limits?\s+and\/or)/i,
      deductible: /^deductibles?/i,
      premium: /^(premium|annual premium|cost)\b/i,
    },
    ['name'],
    /^(total|deductible\s*-|all perils|drivers?\b|veh\b|year\b|lienholder|mortgagee|additional|interested|forms?\b|endorsements?|discounts?|(policy|annual|total)\s+premium)|premium:/i,
  );
  const out: { name: string; limit?: number | string; page: number; text: string }[] = [];
  let n = start;
  for (const r of rows) {
    const name = cleanValue((r.byRole.name ?? []).map((c) => c.text).join(' '));
    if (!name || !/[a-z]{3}/i.test(name) || /^\$?[\d,.]+$/.test(name) || skip?.test(name)) continue;
    const txt = (cells?: Cell[]) => (cells ?? []).map((c) => c.text).join(' ');
    const limit = r.byRole.limit ? splitLimit(txt(r.byRole.limit)) : undefined;
    const deductible = r.byRole.deductible ? splitLimit(txt(r.byRole.deductible)) : undefined;
    const prem = r.byRole.premium ? parseMoney(txt(r.byRole.premium)) : undefined;
    if (limit === undefined && deductible === undefined && prem === undefined) continue;
    const conf = r.page.source === 'ocr' ? 0.75 : 0.85;
    const src = r.page.source === 'ocr' ? 'ocr' : 'rules';
    const base = { page: r.page.page, text: r.line.text, confidence: conf, source: src } as const;
    emit({ pointer: `/coverages/${n}/name`, value: name, ...base });
    emit({ pointer: `/coverages/${n}/limit`, value: limit ?? null, ...base });
    emit({ pointer: `/coverages/${n}/deductible`, value: deductible ?? null, ...base });
    emit({ pointer: `/coverages/${n}/premium`, value: prem ?? null, ...base });
    out.push({ name, limit, page: r.page.page, text: r.line.text });
    n++;
  }
  return out;
}

const VIN = /\b([A-HJ-NPR-Z0-9]{17})\b/; // no I, O or Q in a VIN
/** A VIN as some printed pages show it (anonymised samples: an O or I inside, 16 or 18 characters). Only read in a VIN context. */
const LOOSE_VIN = /(?<![A-Z0-9])([A-Z0-9]{16,18})(?![A-Z0-9])/g;
const VIN_HEADER = /^(?:vin|v\.i\.n\.?|vehicle\s+id(?:entification)?\s+(?:number|no\.?|#)(?:\s*\(vin\))?|identification\s+number(?:\s*\(vin\))?)$/i;
const YEAR_MAKE = /^(?:\d{1,2}\s+)?(19[5-9]\d|20[0-4]\d)\s+[A-Z][A-Za-z-]+/;
const looseVinShape = (s: string) => (s.match(/\d/g) ?? []).length >= 4 && (s.match(/[A-Z]/g) ?? []).length >= 2 && !/^\d+[A-Z]?$/.test(s);

/**
 * The VIN on a line: a well-formed 17-character VIN anywhere, or a looser one (16–18 characters, any letter) where the
 * page says it is a VIN: after a "VIN" label, in the column under a VIN header, or on a line that starts with a year and make.
 */
function vinOnLine(line: Line, vinColumns: number[]): string | undefined {
  const up = line.text.toUpperCase();
  const strict = VIN.exec(up);
  if (strict && /\d/.test(strict[1]) && /[A-Z]/.test(strict[1])) return strict[1];
  const labelled = /\bVIN\b\s*(?:#|no\.?|number)?\s*:?\s*([A-Z0-9]{16,18})(?![A-Z0-9])/.exec(up);
  if (labelled && looseVinShape(labelled[1])) return labelled[1];
  for (const c of line.cells) {
    const inColumn = vinColumns.some((x) => Math.abs(c.x - x) <= 15);
    if (!inColumn && !YEAR_MAKE.test(line.text)) continue;
    for (const m of c.text.toUpperCase().matchAll(LOOSE_VIN)) if (looseVinShape(m[1])) return m[1];
  }
  return undefined;
}

/** Year, make and model from the start of a vehicle line ("2011 CHEV CRUZE LT/CRUZE", "1 2003 Toyota SequoiaSR5"). */
function yearMakeModel(s: string, oneCell = true, anchored = true): { year: number; words: string[] } | undefined {
  const m = (anchored ? YEAR_MAKE : /\b(19[5-9]\d|20[0-4]\d)\b/).exec(s);
  if (!m) return undefined;
  const tail = s.slice(s.indexOf(m[1], m.index) + 4);
  const rest = oneCell ? tail.split(/\s{2,}/)[0] : tail;
  const words = rest
    .replace(/^[\s,:-]+/, '')
    .split(/\s+/)
    .filter((w) => w && !/^vin:?$/i.test(w));
  return { year: Number(m[1]), words };
}

/** Common makes as printed on declarations (full names and the usual 4–5 letter abbreviations). */
const MAKES =
  /^(acura|alfa|audi|bmw|buick|buic|cadillac|cadi|chevrolet|chev|chevy|chry|chrysler|dodg|dodge|fiat|ford|gmc|genesis|hond|honda|hyun|hyundai|infi|infiniti|isuzu|jagu|jaguar|jeep|kia|land|lexs|lexus|linc|lincoln|mazd|mazda|mercedes|merz|mercury|mini|mits|mitsubishi|niss|nissan|pont|pontiac|porsche|ram|saturn|scion|subaru|suba|suzuki|tesla|toyo|toyot|toyota|volk|volkswagen|vw|volv|volvo|harley|yamaha)$/i;

function vehicles(pages: PageText[], emit: Emit) {
  let n = 0;
  const seen = new Set<string>();
  for (const page of pages) {
    // The x of each VIN column header on the page.
    const vinColumns = page.lines.flatMap((l) => l.cells.filter((c) => VIN_HEADER.test(c.text.trim())).map((c) => c.x));
    for (const line of page.lines) {
      const vin = vinOnLine(line, vinColumns);
      if (!vin || seen.has(vin)) continue;
      seen.add(vin);
      const at = line.text.toUpperCase().indexOf(vin);
      let ymm = yearMakeModel(line.text.slice(0, at), false, false); // year, make and model may be columns of the row
      let text = line.text;
      // The VIN on a line of its own: year, make and model are on one of the two lines above it.
      const li = page.lines.indexOf(line);
      for (let k = 1; !ymm && k <= 2 && li - k >= 0; k++) {
        const above = page.lines[li - k];
        if (vinOnLine(above, vinColumns)) break;
        const ym = /\b(19[5-9]\d|20[0-4]\d)\s+[A-Z][A-Za-z-]+/.exec(above.text);
        if (ym) {
          ymm = yearMakeModel(above.text.slice(ym.index)); // the vehicle's cell, not the coverage beside it
          text = page.lines
            .slice(li - k, li + 1)
            .map((l) => l.text)
            .join('\n');
        }
      }
      const words = ymm?.words ?? [];
      const conf = page.source === 'ocr' ? 0.75 : 0.9;
      const base = { page: page.page, text, confidence: conf, source: page.source === 'ocr' ? 'ocr' : 'rules' } as const;
      emit({ pointer: `/vehicles/${n}/year`, value: ymm ? ymm.year : null, ...base });
      emit({ pointer: `/vehicles/${n}/make`, value: words[0] ?? null, ...base });
      emit({ pointer: `/vehicles/${n}/model`, value: words.length > 1 ? words.slice(1).join(' ') : null, ...base });
      emit({ pointer: `/vehicles/${n}/vin`, value: vin, ...base, confidence: VIN.test(vin) ? conf : conf * 0.85 });
      n++;
    }
  }
  if (n > 0) return;
  // No VIN printed (redacted): vehicle lines that start with a year and a known make, on the first pages.
  for (const page of pages.slice(0, 3)) {
    for (const line of page.lines) {
      const ymm = yearMakeModel(line.cells[0]?.text ?? '');
      if (!ymm || !ymm.words[0] || !MAKES.test(ymm.words[0]) || ymm.words.length > 6) continue;
      const base = {
        page: page.page,
        text: line.text,
        confidence: page.source === 'ocr' ? 0.6 : 0.7,
        source: page.source === 'ocr' ? 'ocr' : 'rules',
      } as const;
      emit({ pointer: `/vehicles/${n}/year`, value: ymm.year, ...base });
      emit({ pointer: `/vehicles/${n}/make`, value: ymm.words[0], ...base });
      emit({ pointer: `/vehicles/${n}/model`, value: ymm.words.length > 1 ? ymm.words.slice(1).join(' ') : null, ...base });
      emit({ pointer: `/vehicles/${n}/vin`, value: null, ...base });
      n++;
    }
  }
}

const PERSON = /^[A-Z][a-zA-Z'’.-]+(?:\s+[A-Z][a-zA-Z'’.-]*){1,3}$/;

function drivers(pages: PageText[], emit: Emit) {
  let n = 0;
  for (const page of pages) {
    for (const line of page.lines) {
      const head = line.cells[0];
      if (!head || !/^(drivers?|driver name|operators?|listed drivers?|household drivers?)$/i.test(head.text.trim())) continue;
      for (const b of cellsBelow(page, line, head, 2.2, 10)) {
        const name = cleanValue(b.cell.text.replace(/^\d+[.)]?\s+/, ''));
        if (!PERSON.test(name) || /vehicle|coverage|premium|total|lienholder|mortgagee/i.test(name)) break;
        const p = splitPersonName(name);
        const base = {
          page: page.page,
          text: b.line.text,
          confidence: page.source === 'ocr' ? 0.7 : 0.85,
          source: page.source === 'ocr' ? 'ocr' : 'rules',
        } as const;
        emit({ pointer: `/drivers/${n}/name`, value: name, ...base });
        emit({ pointer: `/drivers/${n}/first_name`, value: p?.first_name ?? null, ...base });
        emit({ pointer: `/drivers/${n}/last_name`, value: p?.last_name ?? null, ...base });
        n++;
      }
      return;
    }
  }
}

// A party caption may go on with words that are not the party ("Mortgagee Name and Address", "MORTGAGEE INFORMATION",
// "Mortgagee and Additional Interests"): the caption takes them, so the name is looked for beside or under it.
const CAPTION_TAIL = String.raw`(?:\s*\(s\))?(?:\s+and\s+additional\s+interests?)?(?:\s+(?:information|names?(?:\s+and\s+address(?:es)?)?))?`;
const PARTY_LABELS: [RegExp, string][] = (
  [
    [/(?:first\s+|second\s+|1st\s+|2nd\s+)?mortgagee|mortgage\s+holder/i, 'mortgagee'],
    [/lien\s*holder|lienholder|finance\s+company/i, 'lienholder'],
    [/loss\s+payee/i, 'loss_payee'],
    [/additional\s+insured/i, 'additional_insured'],
    [/additional\s+interest/i, 'additional_interest'],
    [/interested\s+part(?:y|ies)/i, 'interested_party'],
  ] as [RegExp, string][]
).map(([re, role]) => [new RegExp(`(?:${re.source})${CAPTION_TAIL}`, 'i'), role]);

/** A row of a forms list: a form's title beside its edition date or number ("Additional Insured  03/01/2008"). */
const formsRow = (line: Line) =>
  line.cells.length >= 2 && line.cells.some((c) => /^\d{1,2}\/\d{2}(?:\/\d{2,4})?$|^[A-Z][A-Z0-9 -]*\d\s?\d{2}[\s-]\d{2}$/.test(c.text.trim()));
/** The party's name without its list number ("1. OLD NATIONAL BANK"). */
const partyName = (s: string) => cleanValue(s.replace(/^\d{1,2}[.)]\s+/, ''));
const LENDER = /^[A-Z][\w&.,'’ -]+\b(bank|mortgage|financ\w*|credit|lending|servicing|acceptance|accept|leasing|motor)\b/i;
/** A lender's or interest's name, not a caption fragment ("ed Party - None", "Name and Address", "and Additional Interests"). */
function isPartyName(name: string): boolean {
  if (!name || /^\d/.test(name) || /endorse|provisions|if the certificate|^(and|or|none|the following)\b/i.test(name)) return false;
  // A document's title in a list of attached forms ("Disclosure Notice") is not a party.
  if (/\b(notice|disclosure|exclusion|endorsement|coverage|policy|terms|statement|conditions|schedule|form)s?\b/i.test(name)) return false;
  if ((LENDER.test(name) && !/[:/]/.test(name)) || looksLikeName(name)) return true;
  // A title-case name with "of" or "the" in it ("The Avenues of Kennesaw", "Bank of the West").
  const words = name.split(/\s+/);
  return words.length >= 2 && words.length <= 7 && /^[A-Z]/.test(name) && words.every((w) => /^[A-Z][A-Za-z'’.&-]*,?$|^(of|the|and|&|at|on|de|la)$/.test(w));
}
/**
 * "ISAOA/ATIMA" (its successors and/or assigns, as their interests may appear) belongs to the lender's name above it.
 * A scan may read its O as Q or 0 ("ISAQA/ATIMA"): the fixed term is written as it is spelled.
 */
const SUCCESSORS = /^(isa[oq0]a|atima|its\s+successors)\b/i;
const successorsTerm = (s: string) => s.replace(/^(isa)[q0](a)\b/i, (_m, a: string, b: string) => `${a}${a === a.toUpperCase() ? 'O' : 'o'}${b}`);

function parties(pages: PageText[], emit: Emit, startAt = 0): number {
  let n = startAt;
  const seen = new Set<string>();
  for (const [re, role] of PARTY_LABELS) {
    const f = findLabelledBlock(pages, re, 3, { skipLine: formsRow, accept: (s) => isPartyName(partyName(s)) });
    if (!f) continue;
    const [first, ...rest] = f.value;
    let name = partyName(first);
    if (rest[0] && SUCCESSORS.test(rest[0].trim())) name = `${name} ${successorsTerm(cleanValue(rest.shift()!))}`;
    seen.add(name.toLowerCase());
    const base = { ...fromFound(f), rule: `${role}: the name under or beside its caption` };
    emit({ pointer: `/interested_parties/${n}/name`, value: name, ...base });
    emit({ pointer: `/interested_parties/${n}/role`, value: role, ...base, confidence: base.confidence });
    const addr = rest.filter(ADDRESS_LINE).map(cleanValue);
    emit({ pointer: `/interested_parties/${n}/address`, value: addr.length ? addr.join(', ') : null, ...base });
    n++;
  }
  return columnParties(pages, emit, n, seen);
}

/**
 * Lienholders and mortgagees in a column of a vehicle or location table: "Vehicles | VIN | Vehicle Location | Finance
 * Company/ Lienholder", "Prem. No. | Bldg. No. | Mortgageholder Name: | Mortgageholder Address:", one name per row, a
 * long name wrapped onto the next line of the same column.
 */
function columnParties(pages: PageText[], emit: Emit, startAt: number, seen: Set<string>): number {
  let n = startAt;
  for (const page of pages) {
    for (let li = 0; li < page.lines.length; li++) {
      const header = page.lines[li];
      const col = header.cells.find((c) =>
        /^(?:finance\s+company\s*\/?\s*)?(?:lien\s*holder|lienholder|loss\s+payee)s?$|^finance\s+company\s*\/?$|^(?:mortgage\s*holder|mortgagee)(?:'s)?\s+name:?$/i.test(
          c.text.trim(),
        ),
      );
      if (!col || header.cells.length < 3) continue;
      const others = header.cells.filter((c) => c !== col).map((c) => c.x);
      const inCol = (x: number) => Math.abs(x - col.x) <= 15;
      let last: { name: string; text: string[] } | undefined;
      const found: { name: string; text: string[] }[] = [];
      for (let k = li + 1; k < page.lines.length; k++) {
        const line = page.lines[k];
        const aligned = line.cells.filter((c) => others.some((x) => Math.abs(c.x - x) <= 15)).length;
        const cell = line.cells.find((c) => inCol(c.x));
        if (aligned >= 2) {
          // A row of the table: its name in the column, if any.
          last = cell ? { name: cell.text, text: [line.text] } : undefined;
          if (last) found.push(last);
        } else if (cell && line.cells.length === 1) {
          // The header's second line ("Lienholder"), or a name wrapped onto the next line.
          if (last && line.y - (page.lines[k - 1].y + page.lines[k - 1].h) < line.h * 1.5) {
            last.name = `${last.name} ${cell.text}`;
            last.text.push(line.text);
          }
        } else break;
      }
      const role = /mortgage/i.test(col.text) ? 'mortgagee' : /loss\s+payee/i.test(col.text) ? 'loss_payee' : 'lienholder';
      for (const f of found) {
        const name = partyName(f.name);
        if (!isPartyName(name) || seen.has(name.toLowerCase())) continue;
        seen.add(name.toLowerCase());
        const base = {
          page: page.page,
          text: f.text.join('\n'),
          confidence: page.source === 'ocr' ? 0.7 : 0.8,
          source: page.source === 'ocr' ? 'ocr' : 'rules',
          rule: `${role}: the "${col.text.trim()}" column of the table`,
        } as const;
        emit({ pointer: `/interested_parties/${n}/name`, value: name, ...base });
        emit({ pointer: `/interested_parties/${n}/role`, value: role, ...base });
        emit({ pointer: `/interested_parties/${n}/address`, value: null, ...base });
        n++;
      }
      if (found.length) return n;
    }
  }
  return n;
}

const PROPERTY_MAP: [RegExp, string][] = [
  [/coverage\s*a\b|\bdwelling\b/i, 'dwelling'],
  [/coverage\s*b\b|other\s+structures/i, 'other_structures'],
  [/coverage\s*c\b|personal\s+property|contents/i, 'personal_property'],
  [/coverage\s*d\b|loss\s+of\s+use|additional\s+living/i, 'loss_of_use'],
  [/coverage\s*e\b|personal\s+liability|liability\s*-\s*each\s+occurrence/i, 'personal_liability'],
  [/coverage\s*f\b|medical\s+payments/i, 'medical_payments'],
];

function property(pages: PageText[], covs: ReturnType<typeof coverages>, emit: Emit, renters: boolean) {
  // A renters policy has no dwelling or other-structures limit.
  const done = new Set<string>(renters ? ['dwelling', 'other_structures'] : []);
  for (const cv of covs) {
    for (const [re, field] of PROPERTY_MAP) {
      if (done.has(field) || !re.test(cv.name) || typeof cv.limit !== 'number') continue;
      done.add(field);
      emit({ pointer: `/property/${field}`, value: cv.limit, page: cv.page, text: cv.text, confidence: 0.85 });
      break;
    }
  }
  // Limits written as "Coverage A - Dwelling $350,000" outside a table.
  for (const [re, field] of PROPERTY_MAP) {
    if (done.has(field)) continue;
    const f = findLabelled(pages, new RegExp(`(?:coverage\\s*[a-f]\\s*[-–:]?\\s*)?(?:${re.source})[^$\\d]{0,30}`, 'i'), (s) => {
      const n = /\d/.test(s) ? parseMoney(s) : undefined;
      return n !== undefined && n >= 100 ? n : undefined; // a limit, not an age or a count
    });
    if (f) {
      done.add(field);
      emit({ pointer: `/property/${field}`, value: f.value, ...fromFound(f) });
    }
  }
  propertyLines(pages, emit, done);
  if (done.has('deductible')) return addressOf(pages, emit);
  const ded = findLabelled(
    pages,
    /(?:all\s+(?:other\s+)?perils\s+deductible|deductible\s*[-–]\s*all\s+(?:other\s+)?perils|section\s+i\s+deductible|aop\s+deductible|policy\s+deductible|deductible)/i,
    (s) => (/\d/.test(s) ? parseMoney(s) : undefined),
  );
  if (ded) emit({ pointer: '/property/deductible', value: ded.value, ...fromFound(ded) });
  addressOf(pages, emit);
}

function addressOf(pages: PageText[], emit: Emit) {
  const addr = findLabelled(
    pages,
    /residence\s+premises|insured\s+location|property\s+(?:address|location)|location\s+of\s+(?:residence|property|premises)|dwelling\s+location|described\s+location|insured\s+property|rental\s+address|risk\s+(?:address|location)/i,
    (s) => (/\d/.test(s) && s.length > 8 ? cleanValue(s) : undefined),
  );
  if (!addr) return;
  let value = addr.value.replace(/,$/, '');
  let text = addr.text;
  // The street on one line and "Saint Louis, Missouri 63131" under it: the address goes on to its ZIP.
  if (!/\b\d{5}(?:-\d{4})?$/.test(value)) {
    const page = pages.find((p) => p.page === addr.page)!;
    const next = cellsBelow(page, addr.line, addr.cell, 1.8, 12)[0];
    if (next && /^[A-Za-z][A-Za-z .'-]+,?\s+[A-Za-z][A-Za-z .]*\s+\d{5}(?:-\d{4})?$/.test(next.cell.text.trim())) {
      value = `${value}, ${cleanValue(next.cell.text)}`;
      text = `${text}\n${next.cell.text}`;
    }
  }
  emit({ pointer: '/property/address', value, ...fromFound(addr), text });
}

/** "Dear Gemma,": a letter's salutation names the insured when nothing else does (not "Dear Valued Customer"). */
function salutation(pages: PageText[]): Candidate | undefined {
  for (const page of pages.slice(0, 3))
    for (const line of page.lines) {
      const m = /^[Dd]ear\s+([A-Z][a-z'’-]+(?:\s+[A-Z][a-z'’-]+){0,2}),?$/.exec(line.cells[0]?.text.trim() ?? '');
      if (!m || /\b(member|customer|client|policyholder|insured|valued|sir|madam|friend|homeowner|owner|resident|agent)s?\b/i.test(m[1])) continue;
      const words = m[1].split(/\s+/);
      return {
        pointer: words.length === 1 ? '/policyholder/first_name' : '/policyholder/last_name',
        value: words.length === 1 ? words[0] : words[words.length - 1],
        page: page.page,
        text: line.text,
        confidence: 0.5,
        source: page.source === 'ocr' ? 'ocr' : 'rules',
        rule: "policyholder: the letter's salutation (no named insured printed)",
      };
    }
  return undefined;
}

/**
 * What a declarations record still lacks after its kind's rules, from weaker evidence (low confidence, so flagged for
 * review): the insured's address from the insured location when no mailing address is printed (redacted), and a first
 * name from the letter's salutation when no named insured is.
 */
function fillFromWeakerEvidence(pages: PageText[], out: Candidate[]): void {
  const has = (p: RegExp) => out.some((c) => p.test(c.pointer) && c.value !== null);
  const premises = out.find((c) => c.pointer === '/property/address' && c.value !== null);
  if (!has(/^\/policyholder\/address$/) && premises)
    out.push({
      ...premises,
      pointer: '/policyholder/address',
      confidence: Math.min(premises.confidence, 0.55),
      rule: 'policyholder address: the insured location (no mailing address printed)',
    });
  if (!has(/^\/policyholder\/(first_name|last_name|organization)$/)) {
    const s = salutation(pages);
    if (s) {
      out.push(s);
      if (s.pointer === '/policyholder/last_name') {
        const first = /^[Dd]ear\s+([A-Z][a-z'’-]+)/.exec(s.text)?.[1];
        if (first) out.push({ ...s, pointer: '/policyholder/first_name', value: first });
      }
    }
  }
}

export type TableCoverages = ReturnType<typeof coverages>;

/** The common core every declarations kind reads: carrier, policy number, period, premium, named insured, coverage table. */
export function declarationCore(pages: PageText[], emit: Emit): TableCoverages {
  findCarrier(pages, emit);
  policyNumber(pages, emit);
  period(pages, emit);
  premium(pages, emit);
  if (!findNamedInsured(pages, emit)) namedInsured(pages, emit);
  return coverages(pages, emit);
}

/** Auto kinds: liability limits the coverage table did not give (read from the lines naming them), vehicles, drivers. */
export function autoFields(pages: PageText[], covs: TableCoverages, emit: Emit): void {
  const bi = covs.some((c) => /bodily\s+injury/i.test(c.name) && !/uninsured|underinsured/i.test(c.name) && typeof c.limit === 'string');
  const pd = covs.some((c) => /property\s+damage/i.test(c.name) && !/uninsured|underinsured/i.test(c.name) && typeof c.limit === 'number');
  if (!bi || !pd) autoLiability(pages, emit, covs.length, { bi: !bi, pd: !pd });
  vehicles(pages, emit);
  drivers(pages, emit);
}

/** Businessowners / CGL: the each-occurrence limit when the coverage table did not give it. */
export function liabilityFields(pages: PageText[], covs: TableCoverages, emit: Emit): void {
  if (!covs.some((c) => /each\s+occurrence/i.test(c.name) && typeof c.limit === 'number')) eachOccurrence(pages, emit, covs.length);
}

/** Homeowners and renters: the Section I/II limits, deductible and residence address. */
export function propertyFields(pages: PageText[], covs: TableCoverages, emit: Emit, renters: boolean): void {
  property(pages, covs, emit, renters);
}

/** Mortgagees, lienholders, loss payees, additional insureds and interests. */
export { parties as partyFields };

/** Run the rule extractors for a kind (its module in the registry) and return every candidate value. */
export function extractByRules(pages: PageText[], kind: DocumentKind): Candidate[] {
  const out: Candidate[] = [];
  const emit = emitter(out);
  if (kind === 'certificate') {
    // The certificate's form (ACORD 25/24 grid, 27/28 evidence of property, 75 binder) reads it.
    certificateForm(pages, certificatePage(pages)).extract(pages, emit);
    return out;
  }
  kindModule(kind).extract(pages, emit);
  fillFromWeakerEvidence(pages, out);
  return out;
}

/** The descriptive policy_type label: the kind's label, refined by the form named in the document. */
export function describePolicyType(kind: DocumentKind, pages: PageText[]): string {
  const text = pages
    .slice(0, 2)
    .map((p) => p.text)
    .join('\n');
  // The kind's module gives the label (the certificate's form module for certificates), refined by the printed form.
  const m = kind === 'certificate' ? certificateForm(pages, certificatePage(pages)) : kindModule(kind);
  return typeof m.label === 'string' ? m.label : m.label(text);
}
