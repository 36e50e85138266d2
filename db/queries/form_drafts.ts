// Statements of hosted forms saved part-way (drafts): the anonymous hosted page calls the security-definer
// functions of 0027, which check the form, the agent and the draft's state themselves; the purge is the worker's.
import type { Client, Queryable } from './types.ts';
import { namedRow } from './named.ts';

export interface FormDraftRow {
  public_id: string;
  form_id: number;
  agent_id: number;
  snapshot_id: number;
  step: number;
  history: number[];
  answers: Record<string, unknown>;
  metadata: Record<string, unknown>;
  client_key: string;
  expires_at: Date;
}

/** A file a draft holds (an upload its answers name, not yet part of a submission). */
export interface DraftFileRow {
  upload_id: string;
  question_id: string;
  filename: string;
  content_type: string;
  size: number;
}

export interface ResumedDraftRow extends FormDraftRow {
  state: 'open' | 'submitted' | 'expired';
  submission_id: number | null;
  files: DraftFileRow[];
}

export interface DraftContent {
  step: number;
  history: number[];
  answers: Record<string, unknown>;
  /** Upload ids the answers name; the draft holds these (of its form and agent, unclaimed) and releases the others. */
  uploadIds: string[];
}

const columns = 'public_id, form_id, agent_id, snapshot_id, step, history, answers, metadata, client_key, expires_at';

/** Save a form part-way for the first time; returns the new draft. */
export async function createFormDraft(
  db: Client,
  d: DraftContent & { formId: number; agentId: number; snapshotId: number; metadata: Record<string, unknown>; clientKey: string; ttlSeconds: number },
): Promise<FormDraftRow> {
  const { rows } = await db.query<FormDraftRow>(
    `select ${columns} from app_private.create_form_draft($1, $2, $3, $4, $5, $6, $7, $8::integer[], $9, $10::uuid[])`,
    [d.formId, d.agentId, d.snapshotId, JSON.stringify(d.metadata), d.clientKey, d.ttlSeconds, d.step, d.history, JSON.stringify(d.answers), d.uploadIds],
  );
  return rows[0];
}

/** Save an open draft of this form and agent again (NTFND, DRFTS when submitted, DRFTX when expired). */
export async function saveFormDraft(
  db: Client,
  draftId: string,
  d: DraftContent & { formId: number; agentId: number; ttlSeconds: number },
): Promise<FormDraftRow> {
  // The function always returns its one row.
  return (await namedRow<FormDraftRow>(
    db,
    'svc_save_form_draft',
    `select ${columns} from app_private.save_form_draft($1, $2, $3, $4, $5, $6::integer[], $7, $8::uuid[])`,
    [draftId, d.formId, d.agentId, d.ttlSeconds, d.step, d.history, JSON.stringify(d.answers), d.uploadIds],
  ))!;
}

/** The draft a resume token names, with its state and the files it holds; undefined once purged. */
export async function formDraft(db: Client, draftId: string): Promise<ResumedDraftRow | undefined> {
  return namedRow<ResumedDraftRow>(db, 'svc_form_draft', 'select * from app_private.form_draft($1)', [draftId]);
}

/** Mark the draft submitted by the submission this transaction made (the same submission again changes nothing). */
export async function submitFormDraft(db: Client, draftId: string, formId: number, agentId: number, submissionId: number): Promise<void> {
  await db.query('select 1 from app_private.submit_form_draft($1, $2, $3, $4)', [draftId, formId, agentId, submissionId]);
}

/** Delete up to `limit` expired drafts and the unclaimed uploads they hold (their files go to blobs__sweep). Returns how many drafts. */
export async function purgeExpiredFormDrafts(db: Queryable, limit: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>('select app_private.purge_expired_form_drafts($1) as n', [limit]);
  return rows[0].n;
}
