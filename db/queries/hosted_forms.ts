// Statements of the hosted form page (anonymous consumers): each calls one security-definer function that
// checks the agent, agency and form itself, so the page needs no tenant identity.
import type { Client } from './types.ts';
import { namedRow } from './named.ts';
import type { FormStructure } from '../../pipelines/forms/schema.ts';

export interface HostedFormRow {
  agent_id: number;
  agent_first_name: string;
  agent_last_name: string;
  agent_email: string;
  agency_id: number;
  agency_name: string;
  color_code: string;
  logo_key: string | null;
  form_id: number;
  public_id: string;
  form_name: string;
  insurance_line: string;
  mode: 'test' | 'live';
  snapshot_id: number;
  structure: FormStructure;
  embed_origins: string[];
}

/** The live form behind `{agentSlug}/form/{publicId}`, or undefined (unknown, inactive, unpublished, other agency). */
export async function hostedForm(db: Client, agentSlug: string, publicId: string): Promise<HostedFormRow | undefined> {
  return namedRow<HostedFormRow>(db, 'svc_hosted_form', 'select * from app_private.hosted_form($1, $2)', [agentSlug, publicId]);
}

export interface SnapshotRow {
  snapshot_id: number;
  name: string;
  insurance_line: string;
  structure: FormStructure;
}

/** A published snapshot of the form by id (possibly replaced since by a newer publish). */
export async function formSnapshot(db: Client, formId: number, snapshotId: number): Promise<SnapshotRow | undefined> {
  return namedRow<SnapshotRow>(db, 'svc_form_snapshot', 'select * from app_private.form_snapshot($1, $2)', [formId, snapshotId]);
}

/** Record a checked, stored upload; returns its public id. */
export async function recordUpload(
  db: Client,
  u: { formId: number; agentId: number; questionId: string; blobKey: string; filename: string; contentType: string; size: number },
): Promise<string> {
  const { rows } = await db.query<{ id: string }>('select app_private.record_upload($1, $2, $3, $4, $5, $6, $7) as id', [
    u.formId,
    u.agentId,
    u.questionId,
    u.blobKey,
    u.filename,
    u.contentType,
    u.size,
  ]);
  return rows[0].id;
}

export interface PendingUploadRow {
  public_id: string;
  question_id: string;
  blob_key: string;
  filename: string;
  content_type: string;
  size_bytes: number;
}

/** Uploads of the form a submission names that no other submission has claimed. */
export async function pendingUploads(db: Client, formId: number, publicIds: string[]): Promise<PendingUploadRow[]> {
  if (!publicIds.length) return [];
  const { rows } = await db.query<PendingUploadRow>('select * from app_private.pending_uploads($1, $2::uuid[])', [formId, publicIds]);
  return rows;
}

export interface CreatedSubmissionRow {
  id: number;
  trace_id: string;
  submitted_at: Date;
  /** An earlier submit with the same client key made this submission; nothing new was stored. */
  replayed: boolean;
}

/** The submission an earlier submit of this filled form made (found by the page's key), if any. */
export async function submissionOfClientKey(db: Client, formId: number, clientKey: string): Promise<CreatedSubmissionRow | undefined> {
  const { rows } = await db.query<CreatedSubmissionRow>(
    'select id, trace_id, submitted_at, true as replayed from app_private.submission_of_client_key($1, $2)',
    [formId, clientKey],
  );
  return rows[0];
}

/** Store a checked submission and queue its completion (ACORD forms, then the webhook); a repeated client key returns the first. */
export async function createSubmission(
  db: Client,
  s: {
    formId: number;
    snapshotId: number;
    agentId: number;
    answers: unknown[];
    contact: Record<string, string> | null;
    metadata: Record<string, unknown>;
    acordFormIds: string[];
    uploadIds: string[];
    clientKey: string | null;
  },
): Promise<CreatedSubmissionRow> {
  const { rows } = await db.query<CreatedSubmissionRow>(
    'select id, trace_id, submitted_at, replayed from app_private.create_submission($1, $2, $3, $4, $5, $6, $7, $8::uuid[], $9::uuid)',
    [
      s.formId,
      s.snapshotId,
      s.agentId,
      JSON.stringify(s.answers),
      s.contact ? JSON.stringify(s.contact) : null,
      JSON.stringify(s.metadata),
      s.acordFormIds,
      s.uploadIds,
      s.clientKey,
    ],
  );
  return rows[0];
}

/** Spend one unit of a rate-limit bucket (shared by every process); `allowed` false once the window is used up. */
export async function consumeRateLimit(
  db: Client,
  bucket: string,
  limit: number,
  windowSeconds: number,
): Promise<{ allowed: boolean; remaining: number; reset_at: number }> {
  const { rows } = await db.query<{ allowed: boolean; remaining: number; reset_at: string }>('select * from app_private.consume_rate_limit($1, $2, $3)', [
    bucket,
    limit,
    windowSeconds,
  ]);
  return { allowed: rows[0].allowed, remaining: rows[0].remaining, reset_at: Number(rows[0].reset_at) };
}
