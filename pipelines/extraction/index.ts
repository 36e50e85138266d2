// The extraction engine: document bytes in, the SPEC §2.9 record fields out (parsing_status, parsing_method,
// extracted_data) plus `_raw` for debugging. Rules always run; the LLM runs too when configured.
import { z } from 'zod';
import {
  readDocument,
  readOptionsSchema,
  stageClock,
  StageBudgetError,
  DocumentError,
  LOCATE_ABOVE_PAGES,
  type DocumentText,
  type StageError,
  type StageStatus,
} from '../documents/index.ts';
import type { PageText } from '../documents/layout.ts';
import { entityTypeSchema, kindOfEntityType, type DocumentKind, type EntityType, type ExtractedData } from './schema.ts';
import { detectKind, extractByRules, describePolicyType } from './rules.ts';
import { extractByLlm, llmOptionsSchema, type LlmResult } from './llm.ts';
import { ground, indexPages } from './grounding.ts';
import { buildExtractedData } from './build.ts';
import { segmentRunTogetherPages } from './segment.ts';
import { joinDoubleReadWords } from './ocr_cells.ts';
import { withHeaderBandOcr } from './region_ocr.ts';
import { suspectRegions, withSuspectRegionsReread } from './region_reread.ts';
import type { Candidate } from './candidates.ts';
import { locateValue } from './spans.ts';

export * from './schema.ts';
export * from './normalise.ts';
export { detectKind, extractByRules } from './rules.ts';
export { extractByLlm, llmOptionsSchema, type LlmOptions } from './llm.ts';
export { ground, indexPages } from './grounding.ts';
export type { Candidate } from './candidates.ts';

export const extractOptionsSchema = z
  .object({
    entityType: entityTypeSchema.default('declaration_page'),
    filename: z.string().min(1).default('document'),
    llm: llmOptionsSchema.optional(),
    /** Document-reading options (limits, OCR engine); see readOptionsSchema. */
    read: readOptionsSchema.prefault({}),
    /** What to do with a value that cannot be found on its page: drop it (default) or keep it flagged. */
    ungrounded: z.enum(['drop', 'flag']).default('drop'),
  })
  .strict();
export type ExtractOptions = z.input<typeof extractOptionsSchema>;

/** Allowed parsing_method values: how the text was read, and whether an LLM took part. */
export const parsingMethods = ['pdf_text', 'ocr', 'pdf_text+ocr', 'pdf_text+llm', 'ocr+llm', 'pdf_text+ocr+llm'] as const;
export type ParsingMethod = (typeof parsingMethods)[number];
/** Allowed parsing_status values of a finished extraction. */
export const parsingStatuses = ['completed', 'partial', 'failed'] as const;
export type ParsingStatus = (typeof parsingStatuses)[number];

export interface UngroundedValue {
  pointer: string;
  value: unknown;
  page: number;
  source: string;
  reason: string;
}

export interface ExtractionRaw {
  document: { mime: string; bytes: number; page_count: number; read_status: StageStatus; ocr_engine?: string };
  /**
   * A located document (more than LOCATE_ABOVE_PAGES pages): the pages read in full and why, and the pages only
   * skimmed, by role. Absent when every page was read.
   */
  page_selection?: { read: { page: number; role: string; score: number; why: string }[]; skimmed: Record<string, number[]> };
  pages: {
    page: number;
    source: string;
    repairs?: string[];
    ocr_assisted?: boolean;
    confidence: number;
    width: number;
    height: number;
    text: string;
    lines: { text: string; x: number; y: number; w: number; h: number }[];
    fields: { name: string; value: string }[];
  }[];
  detected_kind: DocumentKind;
  rules: Candidate[];
  llm?: { model: string; prompt_version: string; answer?: string; error?: string; rejected: { pointer: string; reason: string }[]; candidates: Candidate[] };
  ungrounded: UngroundedValue[];
  schema_issues: string[];
}

export interface ExtractionResult {
  success: boolean;
  filename: string;
  entity_type: EntityType;
  parsing_status: ParsingStatus;
  parsing_method: ParsingMethod;
  extracted_data: ExtractedData;
  /** Stage status and errors (conventions: success | partial_success | failure). */
  status: StageStatus;
  errors: StageError[];
  _raw: ExtractionRaw;
}

/** Which document kind to extract as: the caller's entity type, or detection (declaration_page, home, CGL). */
function chooseKind(entityType: EntityType, pages: PageText[]): DocumentKind {
  const detected = detectKind(pages);
  const fixed = kindOfEntityType[entityType];
  if (fixed) return detected === 'certificate' ? 'certificate' : fixed;
  if (entityType === 'home_policy') return detected === 'renters' ? 'renters' : 'homeowners';
  if (entityType === 'commercial_general_liability')
    return detected === 'businessowners' || detected === 'certificate' ? detected : 'commercial_general_liability';
  return detected;
}

const ARRAY_ROOT = /^(\/coverages|\/vehicles|\/drivers|\/interested_parties|\/certificate\/insurers|\/certificate\/coverages)\/\d+\//;

/**
 * Merge grounded rule and LLM candidates. Scalars: a grounded rule value wins, else the LLM's; agreement
 * raises confidence. Arrays: whichever extractor has more complete items supplies the whole array.
 */
function merge(rules: Candidate[], llm: Candidate[]): Candidate[] {
  const out = new Map<string, Candidate>();
  const arrays = new Map<string, { rules: Candidate[]; llm: Candidate[] }>();
  for (const [list, who] of [
    [rules, 'rules'],
    [llm, 'llm'],
  ] as const) {
    for (const c of list) {
      const a = ARRAY_ROOT.exec(c.pointer);
      if (a) {
        const e = arrays.get(a[1]) ?? { rules: [], llm: [] };
        arrays.set(a[1], e);
        e[who].push(c);
        continue;
      }
      const prev = out.get(c.pointer);
      if (!prev || (prev.value === null && c.value !== null)) out.set(c.pointer, c);
      else if (who === 'llm' && prev.source !== 'llm' && JSON.stringify(prev.value) === JSON.stringify(c.value)) {
        out.set(c.pointer, { ...prev, confidence: Math.min(0.99, prev.confidence + 0.05) });
      }
    }
  }
  const items = (cs: Candidate[]) =>
    new Set(cs.filter((c) => c.value !== null).map((c) => /\/(\d+)\//.exec(c.pointer.replace(/^\/certificate/, ''))?.[1])).size;
  const result = [...out.values()];
  for (const e of arrays.values()) result.push(...(items(e.llm) > items(e.rules) ? e.llm : e.rules));
  return result;
}

/** Read a document and extract policy data from it. Throws DocumentError for files that cannot be read. */
export async function extractDocument(bytes: Uint8Array, options: ExtractOptions = {}, ctx: { signal?: AbortSignal } = {}): Promise<ExtractionResult> {
  const o = extractOptionsSchema.parse(options);
  // A long policy packet is located: only its declarations, certificates and schedules are read and OCR'd.
  const doc = await readDocument(bytes, { locateAbovePages: LOCATE_ABOVE_PAGES, ...o.read });
  return extractReadDocument(doc, async () => bytes, options, ctx);
}

/**
 * Extract from a document already read: first the places of its scanned pages where OCR visibly lost text are read
 * again; then, when no carrier was found in its text (it may be printed only in a logo), the header band of page 1
 * is read by OCR and the document extracted again. `bytes` loads the file only then. The service's
 * staged extraction and `svc extract`/`svc eval` both come through here, so they find the same things.
 */
export async function extractReadDocument(
  doc: DocumentText,
  bytes: () => Promise<Uint8Array | undefined>,
  options: ExtractOptions = {},
  ctx: { signal?: AbortSignal } = {},
): Promise<ExtractionResult> {
  const o = extractOptionsSchema.parse(options);
  // The region reads share the stage budget: past it, the document is extracted from what was read (and says so).
  const clock = stageClock('region OCR', o.read.stageBudgetMs);
  const skipped: StageError[] = [];
  const unread = (e: unknown) => {
    if (e instanceof StageBudgetError) skipped.push({ stage: 'extract', message: `a region was not read again: ${e.details ?? e.message}` });
    return undefined;
  };
  const noted = (r: ExtractionResult) => (skipped.length ? { ...r, errors: [...r.errors, ...skipped] } : r);
  // Scanned pages: the places where OCR visibly lost text are read again first (see region_reread.ts).
  let file: Uint8Array | undefined;
  if (doc.pages.some((p) => p.source === 'ocr' && suspectRegions(p).length > 0)) {
    file = await bytes().catch(() => undefined);
    const reread = file ? await withSuspectRegionsReread(file, doc, o.read, clock).catch(unread) : undefined;
    if (reread) doc = reread;
  }
  const r = await extractFromText(doc, options, ctx);
  if (r.extracted_data.policy.provider !== null || r._raw.detected_kind === 'certificate') return noted(r);
  file ??= await bytes().catch(() => undefined);
  const banded = file ? await withHeaderBandOcr(file, doc, o.read, clock).catch(unread) : undefined;
  return noted(banded ? await extractFromText(banded, options, ctx) : r);
}

/** Extract policy data from a document already read (the service reads it in stages). Throws DocumentError when it has no text. */
export async function extractFromText(doc: DocumentText, options: ExtractOptions = {}, ctx: { signal?: AbortSignal } = {}): Promise<ExtractionResult> {
  const o = extractOptionsSchema.parse(options);
  if (doc.status === 'failure') {
    const why = doc.errors.map((e) => e.message).join('; ');
    throw new DocumentError(
      'extraction_failed',
      'no_text',
      'no text could be read from the document',
      why || 'the document has no text layer and OCR found no text',
    );
  }
  const errors: StageError[] = [...doc.errors];
  // Pages whose text layer runs words together are re-spaced before any rule reads them.
  const seg = segmentRunTogetherPages(doc.pages);
  // Scanned pages: a word OCR read twice (the end of a name filed under the next line too) is one word.
  const pages = seg.pages.map(joinDoubleReadWords);
  const kind = chooseKind(o.entityType, pages);
  const ruleCandidates = extractByRules(pages, kind);
  let llm: LlmResult | undefined;
  if (o.llm) {
    llm = await extractByLlm(pages, kind === 'unknown' ? undefined : kind, o.llm, ctx.signal);
    if (llm.error) errors.push({ stage: 'llm', message: llm.error });
  }
  const finalKind: DocumentKind = kind === 'unknown' && llm?.kind ? llm.kind : kind;
  // Ground every candidate against its page before merging.
  const index = indexPages(pages);
  const ungrounded: UngroundedValue[] = [];
  const keep = (cs: Candidate[]) =>
    cs.flatMap((c) => {
      const v = ground(c, index);
      if (v.ok) return [c];
      ungrounded.push({ pointer: c.pointer, value: c.value, page: c.page, source: c.source, reason: v.reason ?? 'not grounded' });
      return o.ungrounded === 'flag' ? [{ ...c, confidence: Math.min(c.confidence, 0.3) }] : [];
    });
  const kept = merge(keep(ruleCandidates), keep(llm?.candidates ?? []));
  const built = buildExtractedData(finalKind, kept);
  if (o.ungrounded === 'flag') {
    for (const u of ungrounded) if (built.data.citations[u.pointer]) built.data.citations[u.pointer].flagged = true;
    built.data.needs_review = [
      ...new Set([...(built.data.needs_review ?? []), ...ungrounded.map((u) => u.pointer).filter((p) => built.data.citations[p])]),
    ].sort();
  }
  for (const issue of built.issues) errors.push({ stage: 'extract', message: `dropped invalid value ${issue}` });
  const d = built.data;
  // Each citation names the value's own words and their box, not only the row the rule read.
  for (const [pointer, cite] of Object.entries(d.citations)) {
    const page = pages.find((p) => p.page === cite.page);
    const at = page ? locateValue(page, pointer, valueAt(d, pointer), cite.text) : undefined;
    if (at) Object.assign(cite, at);
  }
  d.policy_type = describePolicyType(finalKind, pages);
  const core = [d.policy.provider, d.policy.policy_number, d.policy.effective_date, d.policyholder.last_name ?? d.policyholder.organization];
  const found = core.filter((v) => v !== null).length;
  // A required field a reviewer must check leaves the record partial, not completed.
  const corePointers = ['/policy/provider', '/policy/policy_number', '/policy/effective_date', '/policyholder/last_name', '/policyholder/organization'];
  const coreNeedsReview = (d.needs_review ?? []).some((p) => corePointers.includes(p));
  // A readable document always gets a record: with no core field but other values it is partial, and it
  // fails only when nothing at all could be extracted from its text.
  const anyValue = Object.keys(d.citations).length > 0;
  const status: StageStatus =
    found === 0 && !anyValue
      ? 'failure'
      : found < core.length || coreNeedsReview || doc.status !== 'success' || errors.some((e) => e.stage === 'llm')
        ? 'partial_success'
        : 'success';
  const read = doc.method === 'text' ? 'pdf_text' : doc.method === 'ocr' ? 'ocr' : 'pdf_text+ocr';
  const usedLlm = !!llm && !llm.error;
  return {
    success: status !== 'failure',
    filename: o.filename,
    entity_type: o.entityType,
    parsing_status: status === 'success' ? 'completed' : status === 'partial_success' ? 'partial' : 'failed',
    parsing_method: (usedLlm ? `${read}+llm` : read) as ParsingMethod,
    extracted_data: d,
    status,
    errors,
    _raw: {
      document: { mime: doc.sniffed.mime, bytes: doc.sniffed.bytes, page_count: doc.pageCount, read_status: doc.status, ocr_engine: doc.ocrEngine },
      ...pageSelection(doc),
      pages: pages.map((p) => ({
        page: p.page,
        source: p.source,
        ...(p.repairs || seg.treated.includes(p.page)
          ? { repairs: [...(p.repairs ?? []), ...(seg.treated.includes(p.page) ? ['word_segmentation'] : [])] }
          : {}),
        ...(p.ocrAssisted ? { ocr_assisted: true } : {}),
        confidence: Math.round(p.confidence * 100) / 100,
        width: p.width,
        height: p.height,
        text: p.text,
        lines: p.lines.map((l) => ({ text: l.text, x: r1(l.x), y: r1(l.y), w: r1(l.w), h: r1(l.h) })),
        fields: p.fields.map((f) => ({ name: f.name, value: f.value })),
      })),
      detected_kind: finalKind,
      rules: ruleCandidates,
      llm: llm
        ? { model: llm.model, prompt_version: llm.prompt_version, answer: llm.raw, error: llm.error, rejected: llm.rejected, candidates: llm.candidates }
        : undefined,
      ungrounded,
      schema_issues: built.issues,
    },
  };
}

const r1 = (x: number) => Math.round(x * 10) / 10;

/** The value at a JSON pointer of the record. */
function valueAt(data: unknown, pointer: string): unknown {
  let v: unknown = data;
  for (const k of pointer.split('/').slice(1)) v = v && typeof v === 'object' ? (v as Record<string, unknown>)[k] : undefined;
  return v;
}

/** `_raw.page_selection` of a located document: from its full location when read in one go, else from its pages. */
function pageSelection(doc: DocumentText): Pick<ExtractionRaw, 'page_selection'> {
  const read = doc.pages.filter((p) => p.located).map((p) => ({ page: p.page, ...p.located! }));
  if (!doc.located && read.length === 0) return {};
  const skimmed: Record<string, number[]> = {};
  const readPages = new Set(read.map((r) => r.page));
  // The staged service keeps only the pages it read: the others' roles are then not known here.
  const skimmedRole = (n: number) => {
    const l = doc.located?.find((x) => x.page === n);
    return l ? (l.text ? l.role : 'no_text_layer') : 'not_recorded';
  };
  for (let n = 1; n <= doc.pageCount; n++) if (!readPages.has(n)) (skimmed[skimmedRole(n)] ??= []).push(n);
  return { page_selection: { read, skimmed } };
}

export { closeDocumentPools } from '../documents/index.ts';
