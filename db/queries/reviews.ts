// Human review of uncertain fields: the queue, the audit, the hold-for-review setting and
// the one state function that records a decision (app_public.review_field).
import type { Queryable } from './types.ts';

export interface ReviewQueueRow {
  id: string;
  agent_id: number;
  agent_name: string;
  status: string;
  filename: string;
  document_kind: string | null;
  policy_type: string | null;
  to_review: number;
  created_at: Date;
}

/**
 * Extractions of the caller's agency and mode with fields still to review, oldest first; optionally of one
 * agent and one document kind. (The partial index extractions_review_queue_idx serves the predicate.)
 */
export async function reviewQueue(db: Queryable, o: { agentId: number | null; kind: string | null; limit: number }): Promise<ReviewQueueRow[]> {
  const { rows } = await db.query<ReviewQueueRow>(
    `select e.id, e.agent_id, a.first_name || ' ' || a.last_name as agent_name, e.status, d.filename,
            e.result ->> 'document_kind' as document_kind, e.result ->> 'policy_type' as policy_type,
            jsonb_array_length(e.result -> 'needs_review') as to_review, e.created_at
       from app_public.extractions e join app_public.documents d on d.id = e.document_id join app_public.agents a on a.id = e.agent_id
      where e.agency_id = (select app_public.current_agency_id())
        and e.status in ('needs_review', 'completed', 'partial') and (e.result -> 'needs_review') <> '[]'::jsonb
        and ($1::bigint is null or e.agent_id = $1) and ($2::text is null or e.result ->> 'document_kind' = $2)
      order by e.created_at, e.id limit $3`,
    [o.agentId, o.kind, o.limit],
  );
  return rows;
}

export interface FieldReviewRow {
  id: number;
  extraction_id: string;
  pointer: string;
  action: 'confirmed' | 'corrected' | 'not_on_document';
  old_value: unknown;
  new_value: unknown;
  confidence: string | null;
  reviewer_agent_id: number | null;
  reviewer_name: string;
  after_delivery: boolean;
  reviewed_at: Date;
}

/** The audit of one extraction's reviews, oldest first. */
export async function fieldReviews(db: Queryable, extractionId: string): Promise<FieldReviewRow[]> {
  const { rows } = await db.query<FieldReviewRow>(
    `select id, extraction_id, pointer, action, old_value, new_value, confidence, reviewer_agent_id, reviewer_name, after_delivery, reviewed_at
       from app_public.field_reviews where extraction_id = $1 order by id`,
    [extractionId],
  );
  return rows;
}

/**
 * Record a reviewer's decision on one value (app_public.review_field); returns the extraction's new status.
 * `documentLink`, signed now, replaces the parked link of a held extraction if this review releases it.
 */
export async function reviewField(
  db: Queryable,
  r: { extractionId: string; pointer: string; action: 'confirmed' | 'corrected' | 'not_on_document'; value: unknown; documentLink?: string },
): Promise<{ status: string; to_review: number }> {
  const { rows } = await db.query<{ status: string; to_review: number }>(
    `select x.status, coalesce(jsonb_array_length(x.result -> 'needs_review'), 0) as to_review from app_public.review_field($1, $2, $3, $4, $5) x`,
    [r.extractionId, r.pointer, r.action, r.value === undefined ? null : JSON.stringify(r.value), r.documentLink ?? null],
  );
  return rows[0];
}

/** The caller's agency's review settings in the caller's mode: hold for review, share reviewed documents. */
export async function reviewSettings(db: Queryable): Promise<{ hold_for_review: boolean; share_reviewed_documents: boolean }> {
  const { rows } = await db.query<{ hold_for_review: boolean; share_reviewed_documents: boolean }>(
    'select hold_for_review, share_reviewed_documents from app_public.review_settings where agency_id = (select app_public.current_agency_id()) and mode = app_public.current_mode()',
  );
  return rows[0] ?? { hold_for_review: false, share_reviewed_documents: false };
}

/** Turn hold-for-review on or off (app_public.set_hold_for_review; admins only). */
export async function setHoldForReview(db: Queryable, hold: boolean): Promise<void> {
  await db.query('select app_public.set_hold_for_review($1)', [hold]);
}

/** Opt in or out of sharing reviewed documents with the analysts (app_public.set_share_reviewed_documents; admins only). */
export async function setShareReviewedDocuments(db: Queryable, share: boolean): Promise<void> {
  await db.query('select app_public.set_share_reviewed_documents($1)', [share]);
}

export interface ReviewedExtractionRow {
  id: string;
  agency_id: number;
  mode: 'test' | 'live';
  entity_type: string;
  result: Record<string, unknown>;
  filename: string;
  content_type: string;
  /** The stored document, only where the agency shares reviewed documents (in this mode) and retention kept it. */
  shared_blob_key: string | null;
  reviews: { pointer: string; action: 'confirmed' | 'corrected' | 'not_on_document'; reviewer_name: string; reviewed_at: string }[];
}

/**
 * Every extraction of a mode reviewed since a time, across agencies (the analysts' export; owner pool), with its
 * reviews oldest first and its document's key where the agency opted in to share reviewed documents.
 */
export async function reviewedExtractions(db: Queryable, since: Date, mode: 'test' | 'live'): Promise<ReviewedExtractionRow[]> {
  const { rows } = await db.query<ReviewedExtractionRow>(
    `select e.id, e.agency_id, e.mode, e.entity_type, e.result, d.filename, d.content_type,
            case when coalesce(s.share_reviewed_documents, false) and d.file_expired_at is null then d.blob_key end as shared_blob_key,
            (select jsonb_agg(jsonb_build_object('pointer', r.pointer, 'action', r.action, 'reviewer_name', r.reviewer_name,
                                                 'reviewed_at', app_private.iso_utc(r.reviewed_at)) order by r.id)
               from app_public.field_reviews r where r.extraction_id = e.id) as reviews
       from app_public.extractions e
       join app_public.documents d on d.id = e.document_id
       left join app_public.review_settings s on s.agency_id = e.agency_id and s.mode = e.mode
      where e.mode = $2 and e.result is not null and e.status in ('completed', 'partial', 'needs_review')
        and exists (select 1 from app_public.field_reviews r where r.extraction_id = e.id and r.reviewed_at >= $1)
      order by e.agency_id, e.created_at, e.id`,
    [since, mode],
  );
  return rows;
}
