// Statements of the policy extraction API and of its job chain after the document is read (SQL state functions;
// the reading itself is db/queries/readings.ts).
import type { Client as Queryable } from './types.ts';

/** An extraction with the document columns its §2.9 record shows. */
export interface ExtractionRecordRow {
  id: string;
  document_id: string;
  agent_id: number;
  mode: 'test' | 'live';
  entity_type: string;
  status: 'queued' | 'processing' | 'completed' | 'partial' | 'failed' | 'needs_review';
  parsing_method: string | null;
  error_code: string | null;
  error_details: string | null;
  result: Record<string, unknown> | null;
  client_id: string | null;
  submission_id: string | null;
  declaration_page_id: string | null;
  queued_at: Date;
  started_at: Date | null;
  completed_at: Date | null;
  data_expired_at: Date | null;
  created_at: Date;
  updated_at: Date;
  filename: string;
  file_expired_at: Date | null;
}

const recordColumns = `e.id, e.document_id, e.agent_id, e.mode, e.entity_type, e.status, e.parsing_method, e.error_code, e.error_details,
  e.result, e.client_id, e.submission_id, e.declaration_page_id, e.queued_at, e.started_at, e.completed_at, e.data_expired_at,
  e.created_at, e.updated_at, d.filename, d.file_expired_at`;

/** The active agent `agentId` if the caller's agency has it (RLS scopes the agency). */
export async function findAgent(c: Queryable, agentId: number): Promise<{ id: number; status: string } | undefined> {
  const { rows } = await c.query<{ id: number; status: string }>(
    'select id, status from app_public.agents where id = $1 and agency_id = app_public.current_agency_id()',
    [agentId],
  );
  return rows[0];
}

/** Record the stored upload and queue its extraction (app_private.start_extraction). */
export async function startExtraction(
  c: Queryable,
  a: {
    agentId: number;
    documentId: string;
    blobKey: string;
    filename: string;
    contentType: string;
    sizeBytes: number;
    sha256: string;
    entityType: string;
    clientId: string | null;
  },
): Promise<string> {
  const { rows } = await c.query<{ id: string }>('select id from app_private.start_extraction($1, $2, $3, $4, $5, $6, $7, $8, $9)', [
    a.agentId,
    a.documentId,
    a.blobKey,
    a.filename,
    a.contentType,
    a.sizeBytes,
    a.sha256,
    a.entityType,
    a.clientId,
  ]);
  return rows[0].id;
}

/** One extraction record of an agent, as the caller may see it (RLS: agency and mode). */
export async function getExtraction(c: Queryable, agentId: number, extractionId: string): Promise<ExtractionRecordRow | undefined> {
  const { rows } = await c.query<ExtractionRecordRow>(
    `select ${recordColumns} from app_public.extractions e join app_public.documents d on d.id = e.document_id where e.id = $1 and e.agent_id = $2`,
    [extractionId, agentId],
  );
  return rows[0];
}

/** A page of an agent's extractions, newest first, after a (created_at, id) position, optionally of one status. */
export async function listExtractions(
  c: Queryable,
  agentId: number,
  o: { status?: string; after?: { t: string; id: string }; limit: number },
): Promise<(ExtractionRecordRow & { created_key: string })[]> {
  // created_key: the position at Postgres's own precision (microseconds); a JavaScript Date would round it to
  // milliseconds and the next page would skip rows created in the same millisecond.
  const { rows } = await c.query<ExtractionRecordRow & { created_key: string }>(
    `select ${recordColumns}, to_char(e.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_key
      from app_public.extractions e join app_public.documents d on d.id = e.document_id
      where e.agent_id = $1 and ($2::text is null or e.status = $2)
        and ($3::timestamptz is null or (e.created_at, e.id) < ($3::timestamptz, $4::uuid))
      order by e.created_at desc, e.id desc limit $5`,
    [agentId, o.status ?? null, o.after?.t ?? null, o.after?.id ?? null, o.limit],
  );
  return rows;
}

/**
 * A page of the caller's extractions for the dashboard, newest first: the agency's (RLS: agency and mode),
 * or one agent's; optionally of one status and created in [from, to); after a (created_at, id) position.
 */
export async function listAgencyExtractions(
  c: Queryable,
  o: { agentId: number | null; status: string | null; from: Date | null; to: Date | null; after: { t: string; id: string } | null; limit: number },
): Promise<(ExtractionRecordRow & { agent_name: string; created_key: string })[]> {
  // created_key: created_at as text, to the microsecond (a Date keeps milliseconds), for the next page's position.
  const { rows } = await c.query<ExtractionRecordRow & { agent_name: string; created_key: string }>(
    // The list shows no extracted data: `result` (kilobytes a row) is left out.
    `select ${recordColumns.replace('e.result,', 'null::jsonb as result,')}, a.first_name || ' ' || a.last_name as agent_name, e.created_at::text as created_key
       from app_public.extractions e join app_public.documents d on d.id = e.document_id join app_public.agents a on a.id = e.agent_id
      where e.agency_id = (select app_public.current_agency_id()) and ($1::bigint is null or e.agent_id = $1) and ($2::text is null or e.status = $2)
        and ($3::timestamptz is null or e.created_at >= $3) and ($4::timestamptz is null or e.created_at < $4)
        and ($5::timestamptz is null or (e.created_at, e.id) < ($5::timestamptz, $6::uuid))
      order by e.created_at desc, e.id desc limit $7`,
    [o.agentId, o.status, o.from, o.to, o.after?.t ?? null, o.after?.id ?? null, o.limit],
  );
  return rows;
}

/** One extraction of the caller's agency (RLS: agency and mode) with what its page shows of the document. */
export async function getAgencyExtraction(
  c: Queryable,
  extractionId: string,
): Promise<(ExtractionRecordRow & { agent_name: string; content_type: string; page_count: number | null; blob_key: string | null }) | undefined> {
  const { rows } = await c.query<ExtractionRecordRow & { agent_name: string; content_type: string; page_count: number | null; blob_key: string | null }>(
    `select ${recordColumns}, a.first_name || ' ' || a.last_name as agent_name, d.content_type, d.page_count, d.blob_key
       from app_public.extractions e join app_public.documents d on d.id = e.document_id join app_public.agents a on a.id = e.agent_id
      where e.id = $1 and e.agency_id = (select app_public.current_agency_id())`,
    [extractionId],
  );
  return rows[0];
}

// ---- the job chain (owner pool, inside tasks) ------------------------------------------------------

/** What a stage needs of an extraction and its document. */
export interface ExtractionWork {
  id: string;
  status: string;
  entity_type: string;
  mode: 'test' | 'live';
  agency_id: number;
  agent_id: number;
  document_id: string;
  blob_key: string | null;
  filename: string;
  content_type: string;
  size_bytes: number;
  page_count: number | null;
  outcome: 'completed' | 'partial' | null;
  parsing_method: string | null;
  result: Record<string, unknown> | null;
}

/** Save what the extractor found; queues the completion. */
export async function recordExtractionResult(
  c: Queryable,
  extractionId: string,
  outcome: 'completed' | 'partial',
  parsingMethod: string,
  result: unknown,
  stageErrors: unknown[],
): Promise<void> {
  await c.query('select app_private.record_extraction_result($1, $2, $3, $4, $5)', [
    extractionId,
    outcome,
    parsingMethod,
    JSON.stringify(result),
    JSON.stringify(stageErrors),
  ]);
}

/** End an extraction as failed with its §7.2 code. */
export async function failExtraction(c: Queryable, extractionId: string, code: string, details: string, parsingMethod: string | null): Promise<void> {
  await c.query('select app_private.fail_extraction($1, $2, $3, $4)', [extractionId, code, details, parsingMethod]);
}

/** Finish: client, submission, declaration page and events in one transaction. */
export async function completeExtraction(c: Queryable, extractionId: string, policyData: unknown): Promise<void> {
  await c.query('select app_private.complete_extraction($1, $2)', [extractionId, JSON.stringify(policyData)]);
}

/** The work of a stage without changing state (extract and complete stages). */
export async function extractionWork(c: Queryable, extractionId: string): Promise<ExtractionWork | undefined> {
  const { rows } = await c.query<ExtractionWork>(
    `select x.id, x.status, x.entity_type, x.mode, x.agency_id, x.agent_id, x.document_id, d.blob_key, d.filename, d.content_type,
            d.size_bytes::float8 as size_bytes, d.page_count, x.outcome, x.parsing_method, x.result
       from app_public.extractions x join app_public.documents d on d.id = x.document_id where x.id = $1`,
    [extractionId],
  );
  return rows[0];
}

// ---- retention -------------------------------------------------------------------------------------

/** Retention step 1: expire up to `limit` documents past retention; returns how many. */
export async function expireDocuments(c: Queryable, defaultDays: number, limit: number): Promise<number> {
  const { rows } = await c.query<{ n: number }>('select app_private.expire_documents($1, $2) as n', [defaultDays, limit]);
  return rows[0].n;
}

/** Blob keys waiting to be deleted from the store. */
export async function expiredBlobs(c: Queryable, limit: number): Promise<string[]> {
  const { rows } = await c.query<{ blob_key: string }>('select blob_key from app_private.expired_blobs order by expired_at limit $1', [limit]);
  return rows.map((r) => r.blob_key);
}

/** Retention step 2: the blob is gone from the store. */
export async function forgetExpiredBlob(c: Queryable, blobKey: string): Promise<void> {
  await c.query('select app_private.forget_expired_blob($1)', [blobKey]);
}
