// The lease compliance checker: a lease and an insurance document in, the SPEC §2.8 result out. Three pure
// stages that the service runs as separate tasks and the CLI runs in process:
//   readForAnalysis (sniff, text, OCR) → leaseStage / insuranceStage (facts with pages) → buildResult (checks).
import { z } from 'zod';
import { readDocument, readOptionsSchema, DocumentError, type DocumentText } from '../documents/index.ts';
import type { PageText } from '../documents/layout.ts';
import type { ExtractedData } from '../extraction/schema.ts';
import { leaseFacts } from './lease_facts.ts';
import { durationEnd, ocrTermText, writtenDates } from './lease_term.ts';
import { dateTokens } from '../extraction/normalise.ts';
import { insuranceFacts, extractPolicy } from './insurance_facts.ts';
import { compare } from './compare.ts';
import { restsOnUncertainFact } from './evidence.ts';
import { groundedOn, shortDate } from './text.ts';
import type { AnalysisResult, Cited, InsuranceFacts, LeaseFacts, Summary, ComparisonItem } from './schema.ts';

export * from './schema.ts';
export { compare, checks } from './compare.ts';
export { requireEvidence, restsOnUncertainFact } from './evidence.ts';
export { leaseFacts } from './lease_facts.ts';
export { insuranceFacts, extractPolicy } from './insurance_facts.ts';
export { sameParty, addressParts, insuredCoversTenant, shortDate, money } from './text.ts';

/**
 * Pages the lease side may always read, even where the documents' own bound (MAX_DOCUMENT_PAGES) is set lower:
 * a commercial lease with its exhibits often runs to 60–150 pages and is what this check is for.
 */
export const LEASE_MAX_PAGES = 300;

/** Read options of one side of an analysis: the lease may be longer than an insurance document. */
export const analysisReadOptions = <T extends object>(read: T, document: 'lease' | 'insurance'): T & { maxPages?: number } =>
  document === 'lease' ? { ...read, maxPages: Math.max((read as { maxPages?: number }).maxPages ?? 0, LEASE_MAX_PAGES) } : read;

/** The stored failure of one side of an analysis: what was wrong with the file and, when known, the detail. */
export const analysisFailureMessage = (document: 'lease' | 'insurance', err: DocumentError): string =>
  `${document}: ${err.message}${err.details && !err.message.includes(err.details) ? ` (${err.details})` : ''}`;

export const analyzeOptionsSchema = z
  .object({
    /** The day policy status and period are judged on (YYYY-MM-DD); results are reproducible with it. */
    asOf: z.string().regex(/^\d{4}-\d{2}-\d{2}$/),
    read: readOptionsSchema.prefault({}),
  })
  .strict();
export type AnalyzeOptions = z.input<typeof analyzeOptionsSchema>;

/** How a document was read, for extraction notes and `_raw`. */
export interface DocumentMeta {
  mime: string;
  bytes: number;
  pageCount: number;
  method: DocumentText['method'];
  ocrPages: number[];
  ocrConfidence: number | null;
  /** OCR pages read below LOW_OCR_CONFIDENCE: a value read there cannot carry a pass. */
  lowConfidencePages: number[];
  /** Pages not read at all: OCR failed on them, or was off for pages without a text layer (found empty). */
  unreadPages: number[];
  errors: string[];
}

/** Mean word confidence below which an OCR page's values are uncertain. */
export const LOW_OCR_CONFIDENCE = 0.6;

export interface LeaseStageOutput {
  document: DocumentMeta;
  facts: LeaseFacts;
  /** Values read but not found on their page, dropped. */
  dropped: string[];
}

export interface InsuranceStageOutput {
  document: DocumentMeta;
  facts: InsuranceFacts;
  extracted: ExtractedData;
  dropped: string[];
}

/** Sniff, read the text layer and OCR pages without one. Throws DocumentError (§7.2) for refused or unreadable files. */
export async function readForAnalysis(bytes: Uint8Array, read: z.input<typeof readOptionsSchema> = {}, which = 'document'): Promise<DocumentText> {
  let doc: DocumentText;
  try {
    doc = await readDocument(bytes, read);
  } catch (e) {
    if (e instanceof DocumentError) throw new DocumentError(e.code, e.reason, `${which}: ${e.message}`, e.details);
    throw e;
  }
  if (doc.status === 'failure') {
    const why = doc.errors.map((e) => e.message).join('; ');
    throw new DocumentError(
      'extraction_failed',
      'no_text',
      `${which}: no text could be read from the document`,
      why || 'the document has no text layer and OCR found no text',
    );
  }
  return doc;
}

function meta(doc: DocumentText): DocumentMeta {
  const ocr = doc.pages.filter((p) => p.source === 'ocr');
  return {
    mime: doc.sniffed.mime,
    bytes: doc.sniffed.bytes,
    pageCount: doc.pageCount,
    method: doc.method,
    ocrPages: ocr.map((p) => p.page),
    ocrConfidence: ocr.length ? Math.round((ocr.reduce((a, p) => a + p.confidence, 0) / ocr.length) * 100) / 100 : null,
    lowConfidencePages: ocr.filter((p) => p.confidence < LOW_OCR_CONFIDENCE).map((p) => p.page),
    unreadPages: [
      ...new Set([
        ...doc.errors.filter((e) => e.stage === 'ocr' && e.page).map((e) => e.page!),
        ...(doc.errors.some((e) => e.stage === 'ocr' && !e.page) ? doc.pages.filter((p) => p.source === 'empty').map((p) => p.page) : []),
      ]),
    ].sort((a, b) => a - b),
    errors: doc.errors.map((e) => `${e.stage}${e.page ? ` p.${e.page}` : ''}: ${e.message}`),
  };
}

/** Keep a cited value only when it is on its page (dates and amounts are checked as values, not text). */
function verified<T extends string | number | boolean | null>(
  pages: PageText[],
  c: Cited<T> | null,
  name: string,
  dropped: string[],
  as?: (v: T) => string | number | boolean,
): Cited<T> | null {
  if (!c || c.value === null) return c;
  if (groundedOn(pages, as ? as(c.value) : (c.value as string | number | boolean), c.page, c.text)) return c;
  dropped.push(`${name} "${String(c.value)}" (not found on page ${c.page})`);
  return null;
}

/** A lease date: grounded as a date, or (written "the 1st day of October, 2026") in its quoted text on its page. */
function verifiedDate(pages: PageText[], c: Cited<string> | null, name: string, dropped: string[]): Cited<string> | null {
  if (
    c &&
    groundedOn(pages, true, c.page, c.text) &&
    dateTokens(writtenDates(ocrTermText(c.text))).some((d) => d.iso === c.value) &&
    !dateTokens(c.text).some((d) => d.iso === c.value)
  )
    return c;
  // An end that the term's duration and its start give: kept when the clause stating both is on its page.
  if (c && groundedOn(pages, true, c.page, c.text) && durationEnd(ocrTermText(c.text)) === c.value) return c;
  return verified(pages, c, name, dropped);
}

/**
 * A property address is put together from the parts the lease states (the street, a suite named in the premises
 * definition, the city): kept when every part is on its page.
 */
function verifiedAddress(pages: PageText[], c: Cited<string> | null, dropped: string[]): Cited<string> | null {
  if (!c) return c;
  // A state and its ZIP are checked apart: the lease may print them apart ("State of Nevada, with zip code 89511").
  const parts = c.value.split(/,\s*|\s+(?=\d{5}(?:-\d{4})?$)/).filter(Boolean);
  if (parts.every((x) => groundedOn(pages, x, c.page, c.text))) return c;
  dropped.push(`property address "${c.value}" (not found on page ${c.page})`);
  return null;
}

/** Lease facts from a lease that has been read; every value checked against its page. */
export function leaseStage(doc: DocumentText): LeaseStageOutput {
  const f = leaseFacts(doc.pages);
  const dropped: string[] = [];
  const p = doc.pages;
  const facts: LeaseFacts = {
    ...f,
    propertyAddress: verifiedAddress(p, f.propertyAddress, dropped),
    landlord: verified(p, f.landlord, 'landlord', dropped),
    manager: verified(p, f.manager, 'manager', dropped),
    tenant: verified(p, f.tenant, 'tenant', dropped),
    leaseStart: verifiedDate(p, f.leaseStart, 'lease start', dropped),
    leaseEnd: verifiedDate(p, f.leaseEnd, 'lease end', dropped),
    termRules: {
      start: f.termRules.start && groundedOn(p, true, f.termRules.start.page, f.termRules.start.text) ? f.termRules.start : null,
      end: f.termRules.end && groundedOn(p, true, f.termRules.end.page, f.termRules.end.text) ? f.termRules.end : null,
    },
    openTerm: f.openTerm && groundedOn(p, true, f.openTerm.page, f.openTerm.text) ? f.openTerm : null,
    requirements: Object.fromEntries(
      Object.entries(f.requirements).flatMap(([k, r]) => {
        const clauseOk = groundedOn(p, true, r.page, r.clause);
        // An amount incorporated by reference is checked where it is stated.
        const at = r.amountSource ?? { page: r.page, text: r.clause };
        const amountOk = r.amount === null || groundedOn(p, r.amount, at.page, at.text);
        if (clauseOk && amountOk) return [[k, r]];
        // A requirement read but not found on its page is uncertain, never dropped: dropped, its check would
        // read "Not required" and pass.
        const why = clauseOk ? `its amount was not found on page ${at.page}` : `its clause was not found on page ${r.page}`;
        dropped.push(`${k} requirement (${why}; kept as uncertain)`);
        return [[k, { ...r, amount: amountOk ? r.amount : null, uncertain: r.uncertain ?? why }]];
      }),
    ),
  };
  return { document: meta(doc), facts, dropped };
}

/** A heading the reader ran into the carrier's name ("DECLARATIONS Lakeside Mutual", "CO. A Great Lakes Casualty"). */
const CARRIER_HEADING =
  /^(?:(?:renters|homeowners?|condo(?:minium)?|policy|insurance|commercial|general|liability|auto(?:mobile)?|personal|umbrella|business(?:owners)?)\s+)*declarations?(?:\s+page)?\b[\s:–-]*|^(?:ins(?:urer|urance)?\.?\s+)?co\.?\s+[A-F]\b[\s:–-]*|^insurer\s+[A-F]\b[\s:–-]*/i;

/** The carrier without a heading before it; null when nothing of a name is left. */
export function carrierName(c: Cited<string> | null, dropped: string[]): Cited<string> | null {
  if (!c) return c;
  const v = c.value.replace(CARRIER_HEADING, '').trim();
  if (v === c.value) return c;
  if (/[A-Za-z]{3}/.test(v)) return { ...c, value: v };
  dropped.push(`carrier "${c.value}" (a heading, not a name)`);
  return null;
}

/** An insured read from a sentence ("on general", "paying an") is not a name: null, so the checks warn. */
export function insuredName(c: Cited<string> | null, dropped: string[]): Cited<string> | null {
  if (!c) return c;
  if (/^[A-Z0-9]/.test(c.value.trim()) && /[A-Za-z]{2}/.test(c.value)) return c;
  dropped.push(`insured "${c.value}" (not a name)`);
  return null;
}

/** Insurance facts from a policy document that has been read; every value checked against its page. */
export function insuranceStage(doc: DocumentText): InsuranceStageOutput {
  const rec = extractPolicy(doc.pages);
  const f = insuranceFacts(doc.pages, rec);
  const dropped = rec.ungrounded.map((u) => `${u.pointer} "${String(u.value)}" (${u.reason})`);
  const p = doc.pages;
  const lim = (name: string, l: InsuranceFacts['liability']) => (l && l.value !== null ? (verified(p, l, name, dropped) as typeof l) : l);
  const facts: InsuranceFacts = {
    ...f,
    carrier: carrierName(verified(p, f.carrier, 'carrier', dropped), dropped),
    policyNumber: verified(p, f.policyNumber, 'policy number', dropped),
    insured: insuredName(verified(p, f.insured, 'insured', dropped), dropped),
    effectiveDate: verified(p, f.effectiveDate, 'effective date', dropped),
    expirationDate: verified(p, f.expirationDate, 'expiration date', dropped),
    liability: lim('liability limit', f.liability),
    propertyDamage: lim('property damage limit', f.propertyDamage),
    workersComp: lim("workers' compensation limit", f.workersComp),
    umbrella: lim('umbrella limit', f.umbrella),
    auto: lim('auto liability limit', f.auto),
    professional: lim('professional liability limit', f.professional),
    parties: f.parties.filter((x) => verified(p, x, x.role.replace(/_/g, ' '), dropped)),
    propertyAddress: f.propertyAddress && verified(p, f.propertyAddress, 'insured premises', dropped) ? f.propertyAddress : null,
    waiverOfSubrogation: f.waiverOfSubrogation && groundedOn(p, true, f.waiverOfSubrogation.page, f.waiverOfSubrogation.text) ? f.waiverOfSubrogation : null,
    primaryNonContributory:
      f.primaryNonContributory && groundedOn(p, true, f.primaryNonContributory.page, f.primaryNonContributory.text) ? f.primaryNonContributory : null,
    markers: f.markers.filter((m) => groundedOn(p, true, m.page, m.text)),
  };
  return { document: meta(doc), facts, extracted: rec.data, dropped };
}

function summarise(items: ComparisonItem[], asOf: string): Summary {
  const n = (s: string) => items.filter((i) => i.status === s).length;
  const fail = n('fail');
  const warning = n('warning');
  return {
    status: fail ? 'non_compliant' : warning ? 'needs_review' : 'compliant',
    total: items.length,
    pass: n('pass'),
    fail,
    warning,
    uncertain: items.filter(restsOnUncertainFact).length,
    asOf,
  };
}

function notes(lease: LeaseStageOutput, ins: InsuranceStageOutput): string[] {
  const out: string[] = [];
  for (const [which, d] of [
    ['lease', lease.document],
    ['insurance document', ins.document],
  ] as const) {
    if (d.ocrPages.length) {
      const pages =
        d.ocrPages.length === d.pageCount
          ? d.pageCount === 1
            ? 'its only page'
            : `all ${d.pageCount} pages`
          : `page${d.ocrPages.length > 1 ? 's' : ''} ${d.ocrPages.join(', ')}`;
      out.push(
        `OCR was used on ${pages} of the ${which}${d.ocrConfidence !== null ? ` (mean confidence ${Math.round(d.ocrConfidence * 100)}%)` : ''}; check values read from scanned pages.`,
      );
    }
    for (const e of d.errors) out.push(`Reading the ${which}: ${e}.`);
  }
  const f = ins.facts;
  if (f.policyNumbers.length > 1)
    out.push(`${f.policyNumbers.length} policy numbers found on the insurance document (${f.policyNumbers.join(', ')}); the first is reported.`);
  if (f.propertyAddress?.from === 'mailing')
    out.push("The insurance document names no insured location; the insured's mailing address was compared with the leased premises.");
  if (f.kind === 'unknown') out.push('The kind of insurance document could not be recognised; checks rely on the words found.');
  for (const m of f.markers) out.push(`The insurance document reads as a ${m.value} (page ${m.page}).`);
  const l = lease.facts;
  for (const [k, rule] of [
    ['leaseStart', l.termRules.start],
    ['leaseEnd', l.termRules.end],
  ] as const)
    if (rule)
      out.push(
        `${k} is null: the lease defines the ${k === 'leaseStart' ? 'commencement' : 'expiration'} by a rule, not a calendar date ("${rule.value.slice(0, 200)}", page ${rule.page}).`,
      );
  const missing = (['propertyAddress', 'landlord', 'tenant', 'leaseStart', 'leaseEnd'] as const).filter(
    (k) => !l[k] && !(k === 'leaseStart' && l.termRules.start) && !(k === 'leaseEnd' && (l.termRules.end || l.openTerm)),
  );
  if (missing.length) out.push(`Not found in the lease: ${missing.join(', ')}.`);
  for (const r of Object.values(l.requirements))
    if (r.amountSource && r.amount !== null)
      out.push(
        r.amountSource.how === 'continued'
          ? `The ${r.kind} clause (page ${r.page}) states its limit on the next page: ${r.amount.toLocaleString('en-US')}, page ${r.amountSource.page}.`
          : `The ${r.kind} limit is incorporated by reference (page ${r.page}); ${r.amount.toLocaleString('en-US')} was read where it is stated, page ${r.amountSource.page}.`,
      );
  if (l.openTerm) out.push(`leaseEnd is null: the term is ${l.openTerm.value} (page ${l.openTerm.page}), with no expiration date.`);
  if (l.manager) out.push(`The lease names ${l.manager.value} as manager for the landlord; it is accepted in place of the landlord on the policy.`);
  if (Object.keys(l.requirements).length === 0)
    out.push('The lease states no insurance requirement that the checker recognises; every coverage check reads "Not required".');
  const dropped = [...lease.dropped.map((d) => `lease ${d}`), ...ins.dropped.map((d) => `insurance ${d}`)];
  if (dropped.length)
    out.push(
      `${dropped.length} value(s) were read but not found on their page and were left out (a requirement is kept, as uncertain): ${dropped.slice(0, 5).join('; ')}${dropped.length > 5 ? '; …' : ''}.`,
    );
  out.push(`Lease read as a ${l.type} lease; policy status and period judged as of the analysis date.`);
  return out;
}

const paged = <K extends string>(name: K, c: Cited<string> | null, fmt: (v: string) => string = (v) => v) =>
  ({ [name]: c ? fmt(c.value) : null, [`${name}_page`]: c ? c.page : null }) as Record<K | `${K}_page`, never>;

/** The SPEC §2.8 result from both stages' outputs. */
export function buildResult(lease: LeaseStageOutput, ins: InsuranceStageOutput, asOf: string): AnalysisResult {
  const comparison = compare(lease.facts, ins.facts, {
    asOf,
    uncertainPages: { lease: lease.document.lowConfidencePages ?? [], insurance: ins.document.lowConfidencePages ?? [] },
    unreadPages: { lease: lease.document.unreadPages ?? [] },
  });
  const l = lease.facts;
  const i = ins.facts;
  const recommendations = comparison.filter((c) => c.status !== 'pass' && c.recommendation).map((c) => c.recommendation!);
  return {
    lease: {
      ...paged('propertyAddress', l.propertyAddress),
      ...paged('landlord', l.landlord),
      ...paged('tenant', l.tenant),
      ...paged('leaseStart', l.leaseStart, shortDate),
      ...paged('leaseEnd', l.leaseEnd, shortDate),
    },
    insurance: {
      ...paged('carrier', i.carrier),
      ...paged('policyNumber', i.policyNumber),
      ...paged('insured', i.insured),
      ...paged('effectiveDate', i.effectiveDate, shortDate),
      ...paged('expirationDate', i.expirationDate, shortDate),
    },
    comparison: comparison.map(({ recommendation: _r, ...c }) => c),
    summary: summarise(comparison, asOf),
    recommendations: [...new Set(recommendations)],
    extractionNotes: notes(lease, ins),
    _raw: {
      lease: { document: lease.document, facts: lease.facts, dropped: lease.dropped },
      insurance: { document: ins.document, facts: ins.facts, extracted_data: ins.extracted, dropped: ins.dropped },
    },
  };
}

/** Analyse a lease and an insurance document in process (the CLI; the service runs the stages as tasks). */
export async function analyzePair(leaseBytes: Uint8Array, insuranceBytes: Uint8Array, options: AnalyzeOptions): Promise<AnalysisResult> {
  const o = analyzeOptionsSchema.parse(options);
  // Each side's facts are read as soon as its text is in: the lease's while the insurance document, queued
  // behind the lease's pages in the PDF workers, is still being read.
  const [lease, insurance] = await Promise.all([
    readForAnalysis(leaseBytes, analysisReadOptions(o.read, 'lease'), 'lease').then(leaseStage),
    readForAnalysis(insuranceBytes, o.read, 'insurance').then(insuranceStage),
  ]);
  return buildResult(lease, insurance, o.asOf);
}
