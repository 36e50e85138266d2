// Statements about submissions: the API read (RLS: the key's agency and mode) and the completion task
// (owner pool), which records the ACORD archive and emits the webhook event in one SQL function.
import type { Client } from './types.ts';
import { namedRow } from './named.ts';
import type { FormStructure } from '../../pipelines/forms/schema.ts';
import type { StoredAnswer } from '../../pipelines/forms/submission.ts';

/** A submission with what its payload needs: form, agent and snapshot. */
export interface SubmissionRow {
  id: number;
  agency_id: number;
  agency_name: string;
  mode: 'test' | 'live';
  form_id: number;
  public_id: string;
  form_name: string;
  insurance_line: string;
  snapshot_id: number;
  structure: FormStructure;
  agent_id: number;
  agent_first_name: string;
  agent_last_name: string;
  agent_email: string;
  trace_id: string;
  status: 'processing' | 'complete';
  answers: StoredAnswer[];
  contact: Record<string, string> | null;
  metadata: Record<string, unknown>;
  acord_form_ids: string[];
  acord_archive_key: string | null;
  acord_missing: { form_id: string; field: string; label: string }[];
  submitted_at: Date;
  completed_at: Date | null;
}

const select = `select s.id, s.agency_id, g.name as agency_name, s.mode, s.form_id, f.public_id, snap.name as form_name, snap.insurance_line,
    s.snapshot_id, snap.structure, s.agent_id, a.first_name as agent_first_name, a.last_name as agent_last_name, a.email as agent_email,
    s.trace_id, s.status, s.answers, s.contact, s.metadata, s.acord_form_ids, s.acord_archive_key, s.acord_missing, s.submitted_at, s.completed_at
  from app_public.submissions s
  join app_public.forms f on f.id = s.form_id
  join app_public.form_snapshots snap on snap.id = s.snapshot_id
  join app_public.agents a on a.id = s.agent_id
  join app_public.agencies g on g.id = s.agency_id
 where s.id = $1`;

/** One submission by id, as the caller may see it (RLS decides: another agency or mode finds nothing). */
export async function getSubmission(db: Client, id: number): Promise<SubmissionRow | undefined> {
  return namedRow<SubmissionRow>(db, 'svc_get_submission', select, [id]);
}

/** Finish a processing submission: archive key, missing-field report, and the form-submission event (its payload). */
export async function completeSubmission(
  db: Client,
  id: number,
  archiveKey: string | null,
  missing: unknown[],
  data: unknown,
): Promise<{ status: string; event_id: number | null } | undefined> {
  const { rows } = await db.query<{ status: string; event_id: number | null }>('select status, event_id from app_private.complete_submission($1, $2, $3, $4)', [
    id,
    archiveKey,
    JSON.stringify(missing),
    JSON.stringify(data),
  ]);
  return rows[0];
}

export interface SubmissionSummaryRow {
  id: number;
  form_id: number;
  form_name: string;
  agent_id: number;
  agent_name: string;
  status: 'processing' | 'complete';
  contact: Record<string, string> | null;
  submitted_at: Date;
}

/** Up to `limit` submissions the caller may see (RLS: agency and mode) with ids below `before`, newest first, optionally by form, agent and status. */
export async function listSubmissions(
  db: Client,
  f: { before: number | null; formId: number | null; agentId: number | null; status: string | null; limit: number },
): Promise<SubmissionSummaryRow[]> {
  const { rows } = await db.query<SubmissionSummaryRow>({
    name: 'svc_list_submissions',
    text: `select s.id, s.form_id, snap.name as form_name, s.agent_id, a.first_name || ' ' || a.last_name as agent_name, s.status, s.contact, s.submitted_at
      from app_public.submissions s
      join app_public.form_snapshots snap on snap.id = s.snapshot_id
      join app_public.agents a on a.id = s.agent_id
     where ($1::bigint is null or s.id < $1) and ($2::bigint is null or s.form_id = $2) and ($3::bigint is null or s.agent_id = $3)
       and ($4::text is null or s.status = $4)
     order by s.id desc limit $5`,
    values: [f.before, f.formId, f.agentId, f.status, f.limit],
  });
  return rows;
}
