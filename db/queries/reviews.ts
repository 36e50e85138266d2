// Human review of uncertain fields (SQL in migration 0026): the queue, the audit, the hold-for-review setting and
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

/** Record a reviewer's decision on one value (app_public.review_field); returns the extraction's new status. */
export async function reviewField(
  db: Queryable,
  r: { extractionId: string; pointer: string; action: 'confirmed' | 'corrected' | 'not_on_document'; value: unknown },
): Promise<{ status: string; to_review: number }> {
  const { rows } = await db.query<{ status: string; to_review: number }>(
    `select x.status, coalesce(jsonb_array_length(x.result -> 'needs_review'), 0) as to_review from app_public.review_field($1, $2, $3, $4) x`,
    [r.extractionId, r.pointer, r.action, r.value === undefined ? null : JSON.stringify(r.value)],
  );
  return rows[0];
}

/** Whether the caller's agency holds uncertain extractions for review in the caller's mode. */
export async function holdForReview(db: Queryable): Promise<boolean> {
  const { rows } = await db.query<{ hold_for_review: boolean }>(
    'select hold_for_review from app_public.review_settings where agency_id = (select app_public.current_agency_id()) and mode = app_public.current_mode()',
  );
  return rows[0]?.hold_for_review ?? false;
}

/** Turn hold-for-review on or off (app_public.set_hold_for_review; admins only). */
export async function setHoldForReview(db: Queryable, hold: boolean): Promise<void> {
  await db.query('select app_public.set_hold_for_review($1)', [hold]);
}
