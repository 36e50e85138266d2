// The policy extraction record (SPEC §2.9) from an extraction row (the API) or from a local run (`svc extract`).
import { randomUUID } from 'node:crypto';
import type { ExtractionRecordRow } from '../../db/queries/extractions.ts';
import type { ExtractionResult } from '../../pipelines/extraction/index.ts';

/**
 * parsing_method as the API states it: `text` (text layer), `ocr`, `hybrid` (text plus OCR pages), with `+llm`
 * when an LLM took part. Accepts the engine's own names (pdf_text, pdf_text+ocr) too.
 */
export function presentParsingMethod(method: string | null): string | null {
  if (!method) return null;
  const llm = method.endsWith('+llm');
  const read = llm ? method.slice(0, -4) : method;
  const base = read === 'pdf_text' || read === 'text' ? 'text' : read === 'ocr' ? 'ocr' : 'hybrid';
  return llm ? `${base}+llm` : base;
}

/** The §7.2 `message` of each code a failed extraction records (its `details` say what happened to this document). */
const failureMessages: Record<string, string> = {
  bad_request: 'the document could not be read: it is not a supported PDF, JPEG or PNG document',
  payload_too_large: 'the document is larger than the size limit',
  extraction_failed: 'no policy data could be extracted from the document',
  internal_error: 'the extraction failed unexpectedly',
};

/** The §2.9 record of a stored extraction; a failed one carries its §7.2 error part (`error`, `message`, `details`). */
export function presentExtraction(r: ExtractionRecordRow) {
  // status is widened by 0026 (needs_review: held for a person to check; an extension of §2.9).
  const status = r.status as ExtractionRecordRow['status'] | 'needs_review';
  const finished = status === 'completed' || status === 'partial';
  const readable = finished || status === 'needs_review';
  return {
    success: r.status !== 'failed',
    extraction_id: r.id,
    document_id: r.document_id,
    agent_id: r.agent_id,
    filename: r.filename,
    entity_type: r.entity_type,
    parsing_status: status,
    parsing_method: presentParsingMethod(r.parsing_method),
    extracted_data: readable ? r.result : null,
    ...(r.status === 'failed' ? failure(r.error_code, r.error_details) : {}),
    ...(finished ? { client_uuid: r.client_id, client_submission_uuid: r.submission_id, declaration_page_uuid: r.declaration_page_id } : {}),
    ...(r.file_expired_at ? { file_expired: true } : {}),
    created_at: r.created_at.toISOString(),
    updated_at: r.updated_at.toISOString(),
  };
}

function failure(code: string | null, details: string | null) {
  const error = code && code in failureMessages ? code : 'internal_error';
  return { error, message: failureMessages[error], details: details ?? '' };
}

/** The §2.9 record of a local run (`svc extract`): fresh ids, agent_id 0 (there is no agent). */
export function presentLocalExtraction(r: ExtractionResult, opts: { raw: boolean }) {
  const now = new Date().toISOString();
  return {
    success: r.success,
    extraction_id: randomUUID(),
    document_id: randomUUID(),
    agent_id: 0,
    filename: r.filename,
    entity_type: r.entity_type,
    parsing_status: r.parsing_status,
    parsing_method: presentParsingMethod(r.parsing_method),
    extracted_data: r.extracted_data,
    created_at: now,
    updated_at: now,
    ...(r.errors.length ? { errors: r.errors } : {}),
    ...(opts.raw ? { _raw: r._raw } : {}),
  };
}
