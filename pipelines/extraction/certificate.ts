// ACORD 25-style certificates read by the form's fixed geometry: the PRODUCER, INSURED and CERTIFICATE HOLDER
// boxes (left column, down to the next box label), INSURER A–F, and the coverage grid (certificate_grid.ts).
import { restoreThinGlyphs } from './insurers.ts';
import type { PageText, Cell, Line } from '../documents/layout.ts';
import type { Candidate } from './candidates.ts';
import { cellSource, findLabelled, unstackedLines } from './layout_query.ts';
import { findLineAmounts } from './limits.ts';
import { addressOf, cleanValue, isCityStateZip, TRADE_NAME } from './normalise.ts';
import { MARK, readCoverageGrid, wordCentre, type GridRow } from './certificate_grid.ts';

export type { CertificateCoverageType } from './certificate_grid.ts';

type Emit = (c: Omit<Candidate, 'source' | 'confidence'> & Partial<Pick<Candidate, 'source' | 'confidence'>>) => void;

const BOX_LABEL = /^(producer|insured|coverages|certificate holder|description of operations|cancellation|authorized representative|acord\b|©)/i;
const BOILERPLATE =
  /^(contact|name:|phone|fax|e-?mail|address:|\(?a\/c|insurer|naic|should any|the expiration|accordance|notice|date thereof|impose|representatives|authorized)/i;
const PHONE = /^\(?\d{3}\)?[\s.-]?\d{3}[\s.-]\d{4}\b/;
/**
 * The printed boilerplate around the boxes (the cancellation clause beside the holder box, the additional-insured
 * notice above the producer box): a box's value never starts with these words, and a box stops where they begin.
 */
export const DISCLAIMER =
  /should any of the above|expiration date thereof|(delivered|notice will be)\b.*\b(accordance|policy provisions)|^accordance with|policy provisions\.?$|^important:|if the certificate holder|subrogation is waived|confers? no rights|does not (affirmatively|confer)|this certificate (is issued|does not)|in lieu of such endorsement/i;
/** A box printed empty on purpose: "N/A", "NONE", "N/A N/A", "N/A, CA 90000". */
export const EMPTY_BOX = /^(?:(?:n\s*\/\s*a|none|tbd)[\s,.]*)+(?:[A-Z]{2}\s+\d{5}(?:-\d{4})?)?$/i;
/** Printed captions of the ACORD forms' boxes: never the continuation of a name. */
const FORM_LABEL =
  /^(effective|expiration|date|time|phone|fax|code|sub code|policy|loan|naic|contact|e-?mail|address|agency|company|insured|producer|binder|customer|description|location)\b/i;
const STOP_NAME = /^(attn|attention|c\/o|care of|p\.?\s*o\.?\s*box)\b/i;

/** The page holding the certificate form (it may follow a cover letter that also says "certificate of insurance"). */
export function certificatePage(pages: PageText[]): PageText | undefined {
  const title =
    /certificate of (liability )?insurance|evidence of (commercial )?property|certificate of property|insurance binder|evidence of insurance|memorandum of insurance|certificate of coverage/i;
  return pages.find((p) => title.test(p.text) && /\bproducer\b|insurer\s*a\b|agency/i.test(p.text)) ?? pages.find((p) => title.test(p.text)) ?? pages[0];
}

export interface BoxValue {
  name: string;
  /** The name went on onto a second line that is not a trade name (a department, "ISAOA"): less surely all name. */
  continued?: boolean;
  lines: string[];
  cell: Cell;
  text: string;
}

/** Cells of the box under a left-column label, down to the next box label, left of the form's middle. */
export function boxBelow(page: PageText, label: RegExp, opts: { maxDepth?: number; anyColumn?: boolean } = {}): BoxValue | undefined {
  const maxDepth = opts.maxDepth ?? 130;
  // Read by geometry: a name and the address beside it in the next column never share a line here.
  const pageLines = unstackedLines(page);
  for (let li = 0; li < pageLines.length; li++) {
    const line = pageLines[li];
    const ci = line.cells.findIndex((c) => label.test(c.text) && (opts.anyColumn || c.x < page.width * 0.4));
    if (ci < 0) continue;
    const lab = line.cells[ci];
    const m = label.exec(lab.text)!;
    // The box to the right (CANCELLATION beside CERTIFICATE HOLDER, CONTACT beside PRODUCER) bounds this one; its
    // label may sit a little above or below this label's line, and its text may start a few points left of it.
    const minRight = Math.max(page.width * 0.4, line.cells[ci].x + line.cells[ci].w + 20);
    const rightOfLabel =
      line.cells.slice(ci + 1).find((c) => c.x > minRight) ??
      pageLines.flatMap((l) => (Math.abs(l.y - line.y) <= 8 ? l.cells : [])).find((c) => c.x > minRight && /^[A-Z][A-Z ()/'#]{3,}$/.test(c.text.trim()));
    const splitX = rightOfLabel ? rightOfLabel.x - 8 : opts.anyColumn && line.cells[ci].x > page.width * 0.4 ? page.width : page.width * 0.5;
    const rows: { cells: Cell[]; line: Line }[] = [];
    // The label's own cell may carry the value ("INSURED  Xpress Solutions"), as may cells beside it.
    const rest = cleanValue(lab.text.slice(m.index + m[0].length));
    const same = line.cells.slice(ci + 1).filter((c) => c.x < splitX);
    if (rest) rows.push({ cells: [{ ...lab, text: rest }], line });
    if (same.length) rows.push({ cells: same, line });
    for (let k = li + 1; k < pageLines.length; k++) {
      const l = pageLines[k];
      if (l.y - lab.y > maxDepth) break;
      if (l.cells.some((c) => c.x < lab.x + 40 && BOX_LABEL.test(c.text) && c.x < splitX)) break;
      const cells = l.cells.filter((c) => c.x >= lab.x - 8 && c.x < splitX && !DISCLAIMER.test(c.text));
      if (cells.length) rows.push({ cells, line: l });
    }
    const texts = rows
      .map((r) => ({
        ...r,
        cells: r.cells.filter((c) => !BOILERPLATE.test(c.text) && !DISCLAIMER.test(c.text) && !PHONE.test(c.text) && /[a-z]/i.test(c.text)),
      }))
      .filter((r) => r.cells.length);
    // A label with nothing under it (or the words "certificate holder." ending a sentence of the notice at the
    // top): try the next occurrence.
    if (texts.length === 0) continue;
    const first = texts[0].cells[0];
    // A name printed as two runs a word-gap apart ("Willis Towers Watson" "Midwest, Inc.") is one name.
    let firstText = first.text;
    for (let j = 1, prev = first; j < texts[0].cells.length; j++) {
      const c = texts[0].cells[j];
      if (c.x - (prev.x + prev.w) > 1.5 * first.h || Math.abs(c.y - first.y) > 0.5 * first.h) break;
      firstText += ` ${c.text}`;
      prev = c;
    }
    // A name line that runs on into the address ("Source,Inc. 8 Three" over "Cho Rd. Suite 14"): the name ends at
    // its business suffix, and what follows, a street number and words, starts the address.
    let addressLead: string | undefined;
    const runOn = NAME_THEN_STREET.exec(firstText);
    if (runOn && !COMPANY_END.test(runOn[2])) {
      firstText = runOn[1];
      addressLead = runOn[2];
    }
    const nameParts = [firstText];
    // A name printed on two lines continues on the next line when that line is not an address.
    const next = texts[1];
    if (next && next.line !== texts[0].line) {
      const nc = next.cells[0];
      const gap = nc.y - (first.y + first.h);
      // A trade name under the owner's ("dba Brightline HVAC") is part of the name, whatever ends the line above.
      const tradeName = TRADE_NAME.test(nc.text.trim());
      if (
        gap < 1.2 * first.h &&
        Math.abs(nc.x - first.x) < 8 &&
        (tradeName ||
          (!/^\d/.test(nc.text) &&
            !isCityStateZip(nc.text) &&
            !STOP_NAME.test(nc.text) &&
            !/^(suite|ste|apt|unit|floor|fl)\b/i.test(nc.text) &&
            !FORM_LABEL.test(nc.text) &&
            !/,\s*[A-Z]{2}\b/.test(nc.text) &&
            !/:|\bp\.?\s*o\.?\s*box\b|\b\d+\s+[A-Za-z]+\s+(st|street|ave|avenue|rd|road|dr|drive|blvd|ln|lane|way|ct|pkwy|hwy)\b/i.test(nc.text) &&
            !COMPANY_END.test(firstText.trim()) &&
            !addressLead &&
            nc.text.length > 2))
      )
        nameParts.push(nc.text);
    }
    const continued = nameParts.length > 1 && !TRADE_NAME.test(nameParts[1].trim());
    const name = cleanValue(nameParts.join(' ').replace(/\s+(?=[,.])/g, ''));
    if (!name || BOX_LABEL.test(name)) continue;
    const lines = texts.map((r) => r.cells.map((c) => c.text).join(' '));
    if (addressLead) {
      // The street continues on the next line unless that line is the city, state and ZIP.
      const cont = lines[1] !== undefined && !/^\d/.test(lines[1]) && !isCityStateZip(lines[1]);
      lines.splice(0, cont ? 2 : 1, firstText, cont ? `${addressLead} ${lines[1]}` : addressLead);
    }
    return { name, lines, cell: first, text: [lab.text, ...lines].slice(0, 5).join('\n'), ...(continued ? { continued } : {}) };
  }
  return undefined;
}

/** A name's last word is a business suffix. */
const COMPANY_END = /\b(inc|llc|l\.l\.c|ltd|corp|corporation|company|co|lp|llp)\.?$/i;
/** A company name ending in its suffix, then a street number and words on the same line. */
const NAME_THEN_STREET = /^(.*?\b(?:inc|llc|l\.l\.c|ltd|corp|corporation|company|co|lp|llp)\.?),?\s+(\d+[A-Za-z]?\s+[A-Za-z].*)$/i;

/**
 * The share of its confidence a box's name keeps when it went on onto a second line that is not a trade name: the
 * line may be the name's ("Midwest, Inc.") or another thing ("Public Works Department", "ISAOA").
 */
const CONTINUED_NAME = 0.9;

/** Extract an ACORD 25-style certificate. */
export function extractCertificate(pages: PageText[], emit: Emit): void {
  const page = certificatePage(pages);
  if (!page) return;
  const src = page.source === 'ocr' ? 'ocr' : 'rules';
  const conf = page.source === 'ocr' ? 0.75 : 0.9;
  const box = (pointerName: string, label: RegExp, caption: string) => {
    const b = boxBelow(page, label);
    if (b && EMPTY_BOX.test(b.name)) return undefined;
    if (b)
      emit({
        pointer: pointerName,
        value: b.name,
        page: page.page,
        text: b.text,
        confidence: b.continued ? conf * CONTINUED_NAME : conf,
        source: cellSource(page, b.cell),
        rule: `ACORD box: ${caption}`,
      });
    return b;
  };
  box('/certificate/producer', /^producer\b:?/i, 'PRODUCER');
  const insured = box('/certificate/insured', /^(?:named\s+)?insured(?:'s)?(?:\s+name)?\b:?(?!\s*(?:named|is|the|as|location))/i, 'INSURED');
  if (insured) {
    emit({
      pointer: '/policyholder/organization',
      value: insured.name,
      page: page.page,
      text: insured.text,
      confidence: insured.continued ? conf * CONTINUED_NAME : conf,
      source: cellSource(page, insured.cell),
    });
    const addr = addressOf(insured.lines);
    if (addr.length)
      emit({
        pointer: '/policyholder/address',
        value: addr.join(', '),
        page: page.page,
        text: insured.text,
        confidence: conf * 0.9,
        source: cellSource(page, insured.cell),
      });
  }
  const holder = box('/certificate/certificate_holder', /^certificate\s+holder\b:?(?!\s+(?:in lieu|is|the|named|as))/i, 'CERTIFICATE HOLDER');
  if (holder && !EMPTY_BOX.test(holder.name)) {
    const s = cellSource(page, holder.cell);
    const nameConf = holder.continued ? conf * CONTINUED_NAME : conf;
    emit({ pointer: '/interested_parties/0/name', value: holder.name, page: page.page, text: holder.text, confidence: nameConf, source: s });
    emit({ pointer: '/interested_parties/0/role', value: 'certificate_holder', page: page.page, text: holder.text, confidence: conf, source: s });
    const addr = addressOf(holder.lines);
    emit({
      pointer: '/interested_parties/0/address',
      value: addr.length ? addr.join(', ') : null,
      page: page.page,
      text: holder.text,
      confidence: conf,
      source: s,
    });
  }
  // Insurers: "INSURER A : Name  12345".
  const insurerNames: Record<string, string> = {};
  let ni = 0;
  for (const line of page.lines) {
    for (const cell of line.cells) {
      const m = /^INSURER\s*([A-F])\s*[:;]?\s*(.*)$/i.exec(cell.text);
      if (!m) continue;
      let name = cleanValue(m[2]);
      let naic: string | null = null;
      if (!name) {
        // The name may be its own cell beside the label.
        const next = line.cells[line.cells.indexOf(cell) + 1];
        if (next && !/^\d{5}$/.test(next.text.trim()) && !/^insurer/i.test(next.text)) name = cleanValue(next.text);
      }
      // A scan's line assembly may file the name, or most of it, under a neighbouring line: the row is gathered again
      // by geometry from the cells beside the label.
      if (src === 'ocr') name = insurerRowByGeometry(page, cell) ?? name;
      const tail = /^(.*?)\s+(\d{5})$/.exec(name);
      if (tail) {
        name = tail[1];
        naic = tail[2];
      }
      naic ??= line.cells.find((c) => c.x > cell.x && /^\d{5}$/.test(c.text.trim()))?.text.trim() ?? null;
      // A low-resolution scan may have lost the thin glyphs of the name ("Casua ty"): known words are restored.
      if (src === 'ocr') name = restoreThinGlyphs(name);
      if (!name || /^insurer/i.test(name) || insurerNames[m[1].toUpperCase()]) continue;
      insurerNames[m[1].toUpperCase()] = name;
      const base = { page: page.page, text: line.text, confidence: conf, source: src } as const;
      emit({ pointer: `/certificate/insurers/${ni}/letter`, value: m[1].toUpperCase(), ...base });
      emit({ pointer: `/certificate/insurers/${ni}/name`, value: name, ...base });
      emit({ pointer: `/certificate/insurers/${ni}/naic`, value: naic, ...base });
      ni++;
    }
  }
  // A scan may lose the small "INSURER A :" captions of some rows: those rows take their letters by their place.
  if (src === 'ocr')
    for (const row of insurerRowsByPlace(page, insurerNames)) {
      insurerNames[row.letter] = row.name;
      const base = { page: page.page, text: row.text, confidence: conf * INSURER_BY_PLACE, source: src } as const;
      emit({ pointer: `/certificate/insurers/${ni}/letter`, value: row.letter, ...base });
      emit({ pointer: `/certificate/insurers/${ni}/name`, value: row.name, ...base });
      emit({ pointer: `/certificate/insurers/${ni}/naic`, value: row.naic, ...base });
      ni++;
    }
  const rows = readCoverageGrid(page, emit, insurerNames, conf, src);
  remarksLiability(pages, page, emit, rows);
}

/** The share of its confidence an insurer keeps whose letter was told by its row's place, not read. */
const INSURER_BY_PLACE = 0.9;

/**
 * The insurer rows of the INSURER(S) AFFORDING COVERAGE list whose "INSURER X :" caption a scan lost, lettered by
 * their place: the rows stand at one pitch (from the INSURER captions that were read, two or more), counted from a
 * caption read with its letter. Rows already named are left as they are; none without a lettered caption.
 */
function insurerRowsByPlace(page: PageText, named: Record<string, string>): { letter: string; name: string; naic: string | null; text: string }[] {
  const heading = page.lines.flatMap((l) => l.cells).find((c) => /INSURER\s*\(?S\)?\s+AFFORDING/i.test(c.text));
  if (!heading) return [];
  const band = page.lines.filter((l) => l.y > heading.y + heading.h / 2 && l.y < heading.y + 100);
  const captions = band.flatMap((l) => l.cells.filter((c) => /^INSURER\b/i.test(c.text.trim()) && c.x < heading.x + 20).map((c) => ({ c, l })));
  const anchor = captions.map(({ c, l }) => ({ l, m: /^INSURER\s*([A-F])\b/i.exec(c.text.trim()) })).find((x) => x.m);
  const ys = captions.map(({ l }) => l.y).sort((a, b) => a - b);
  const steps = ys
    .slice(1)
    .map((y, i) => y - ys[i])
    .filter((d) => d >= 8 && d <= 20);
  if (!anchor?.m || !steps.length) return [];
  const pitch = steps.reduce((a, b) => a + b, 0) / steps.length;
  const labelEnd = Math.max(...captions.map(({ c }) => c.x)) + 20;
  const naicX = page.lines.flatMap((l) => l.cells).find((c) => /^NAIC\b/i.test(c.text.trim()) && c.y <= heading.y + heading.h)?.x ?? page.width;
  const out: { letter: string; name: string; naic: string | null; text: string }[] = [];
  for (const l of band) {
    const words = l.cells.filter((c) => c.x > labelEnd && c.x < naicX - 5 && /[a-z]{3}/i.test(c.text) && !/^INSURER\b/i.test(c.text.trim()));
    if (!words.length) continue;
    const k = Math.round((l.y - anchor.l.y) / pitch);
    // The row must sit on the pitch (within a third of it).
    if (Math.abs(l.y - anchor.l.y - k * pitch) > pitch / 3) continue;
    const code = anchor.m[1].toUpperCase().charCodeAt(0) + k;
    if (code < 65 || code > 70) continue;
    const letter = String.fromCharCode(code);
    if (named[letter] || out.some((o) => o.letter === letter)) continue;
    const naic = l.cells.find((c) => c.x >= naicX - 10 && /^\d{5}$/.test(c.text.trim()))?.text.trim() ?? null;
    out.push({ letter, name: restoreThinGlyphs(cleanValue(words.map((w) => w.text).join(' '))), naic, text: l.text });
  }
  return out;
}

/**
 * The name in an INSURER row read by geometry: the cells right of the label (up to the NAIC column) whose height
 * overlaps the label's by at least half (and another INSURER label's less), from whatever line OCR filed them in, left
 * to right. Undefined unless a cell came from another line (the label's own line is read as before).
 */
export function insurerRowByGeometry(page: PageText, label: Cell): string | undefined {
  const own = page.lines.find((l) => l.cells.includes(label));
  const naicX = page.lines.flatMap((l) => l.cells).find((c) => /^NAIC\b/i.test(c.text.trim()) && c.x > label.x)?.x ?? page.width;
  const vOverlap = (c: Cell) => Math.min(c.y + c.h, label.y + label.h) - Math.max(c.y, label.y);
  const picked: { cell: Cell; foreign: boolean }[] = [];
  for (const l of page.lines)
    for (const c of l.cells) {
      if (c === label || c.x < label.x + label.w - 2 || c.x >= naicX - 4 || /^insurer\b/i.test(c.text.trim()) || /^\d{5}$/.test(c.text.trim())) continue;
      if (vOverlap(c) < 0.5 * Math.min(c.h, label.h)) continue;
      // A cell of the next or previous row overlaps this label less than a row of its own would.
      const rival = page.lines
        .flatMap((k) => k.cells)
        .find((o) => o !== label && /^insurer\s*[A-F]\b/i.test(o.text.trim()) && Math.min(c.y + c.h, o.y + o.h) - Math.max(c.y, o.y) > vOverlap(c));
      if (rival) continue;
      picked.push({ cell: c, foreign: l !== own });
    }
  if (!picked.some((p) => p.foreign)) return undefined;
  picked.sort((a, b) => a.cell.x - b.cell.x);
  return cleanValue(picked.map((p) => p.cell.text.trim()).join(' ')) || undefined;
}

/**
 * An ACORD 101 (Additional Remarks Schedule) attached to a property certificate can list the policy's liability
 * limits ("Business Liability  $3,000,000", "General Aggregate  $6,000,000") that the grid has no row for. They make
 * a general liability coverage of the policy named in the schedule's POLICY NUMBER box, with that policy's dates
 * from the grid.
 */
function remarksLiability(pages: PageText[], certPage: PageText, emit: Emit, rows: GridRow[]): void {
  if (rows.some((r) => r.type === 'general_liability')) return;
  for (const p of pages) {
    if (p === certPage || !/additional remarks schedule/i.test(p.text)) continue;
    const occ = findLineAmounts([p], /\b(?:business|general)\s+liability\b|each\s+occurrence/i, { not: /umbrella|excess|aggregate/i, min: 25000 });
    if (!occ) continue;
    const agg = findLineAmounts([p], /general\s+aggregate/i, { min: 25000 });
    const pn = findLabelled([p], /policy\s+number/i, (v) => {
      const t = cleanValue(v);
      return /^[A-Z0-9][A-Z0-9\- ]{3,28}$/i.test(t) && (t.match(/\d/g) ?? []).length >= 2 ? t : undefined;
    });
    const row = rows.find((r) => pn && r.policyNumber && r.policyNumber.replace(/\W/g, '') === pn.value.replace(/\W/g, ''));
    const conf = p.source === 'ocr' ? 0.6 : 0.7;
    const base = {
      page: p.page,
      text: [occ.text, agg?.text].filter(Boolean).join('\n'),
      confidence: conf,
      source: p.source === 'ocr' ? 'ocr' : 'rules',
      rule: 'ACORD 101 remarks: liability limits listed for the policy in its POLICY NUMBER box',
    } as const;
    const at = `/certificate/coverages/${rows.length}`;
    emit({ pointer: `${at}/type`, value: 'general_liability', ...base });
    emit({ pointer: `${at}/insurer_letter`, value: row?.letter ?? null, ...base });
    if (pn) emit({ pointer: `${at}/policy_number`, value: pn.value, ...base, text: pn.text });
    // The dates are the grid row's (same policy), cited on the certificate page.
    if (row) {
      const cite = { ...base, page: certPage.page, text: row.text };
      emit({ pointer: `${at}/effective_date`, value: row.dates[0], ...cite });
      emit({ pointer: `${at}/expiration_date`, value: row.dates[1], ...cite });
    }
    emit({ pointer: `${at}/each_occurrence`, value: occ.amounts[0].value, ...base, text: occ.text });
    emit({ pointer: `${at}/general_aggregate`, value: agg?.amounts[0].value ?? null, ...base, text: agg?.text ?? occ.text });
    for (const k of ['combined_single_limit', 'umbrella_each_occurrence', 'wc_statutory', 'el_each_accident', 'additional_insured', 'subrogation_waived'])
      emit({ pointer: `${at}/${k}`, value: null, ...base });
    return;
  }
}

/** The text of the first cell printed under a label cell (overlapping its columns), within `maxGap` line heights. */
export function valueUnder(
  page: PageText,
  label: RegExp,
  accept: (s: string) => boolean = () => true,
  maxGap = 3,
): { value: string; cell: Cell; line: Line; label: Cell } | undefined {
  for (let li = 0; li < page.lines.length; li++) {
    const lab = page.lines[li].cells.find((c) => label.test(c.text));
    if (!lab) continue;
    for (let k = li + 1; k < page.lines.length; k++) {
      const l = page.lines[k];
      if (l.y - (lab.y + lab.h) > maxGap * lab.h + 4) break;
      const c = l.cells.find((c) => c.x < lab.x + lab.w + 6 && c.x + c.w > lab.x - 6 && accept(c.text.trim()));
      if (c) return { value: cleanValue(c.text), cell: c, line: l, label: lab };
    }
  }
  return undefined;
}

/**
 * A check box answered in a YES / NO / N/A column: the mark ("X") on the question's line is read against the
 * column header's words (their x-centres). Returns true, false, null (N/A) or undefined when nothing is marked.
 */
export function checkedAnswer(page: PageText, question: RegExp): boolean | null | undefined {
  const qi = page.lines.findIndex((l) => question.test(l.text));
  if (qi < 0) return undefined;
  const mark = page.lines[qi].cells.find((c) => MARK.test(c.text.trim()));
  if (!mark) return undefined;
  const cx = mark.x + mark.w / 2;
  // The nearest YES/NO header above the question.
  for (let k = qi - 1; k >= 0; k--) {
    const h = page.lines[k].cells.find((c) => /^YES\s+NO(\s+N\s*\/\s*A)?$/i.test(c.text.trim()));
    if (!h) continue;
    const cols: [RegExp, boolean | null][] = [
      [/\bYES\b/i, true],
      [/\bNO\b/i, false],
      [/N\s*\/\s*A/i, null],
    ];
    let best: { d: number; v: boolean | null } | undefined;
    for (const [re, v] of cols) {
      const x = wordCentre(h, re);
      if (x === undefined) continue;
      const d = Math.abs(x - cx);
      if (!best || d < best.d) best = { d, v };
    }
    return best && best.d < 14 ? best.v : undefined;
  }
  return undefined;
}
