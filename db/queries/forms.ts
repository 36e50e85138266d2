// Forms of the caller's agency in the API key's mode (RLS): created, listed, edited, published, duplicated.
// Creation, duplication and publishing are SQL state functions that check the rules.
import type { FormStructure } from '../../pipelines/forms/schema.ts';
import type { Client, Queryable } from './types.ts';

export interface FormRow {
  id: number;
  public_id: string;
  agency_id: number;
  mode: 'test' | 'live';
  owner_agent_id: number | null;
  name: string;
  status: 'draft' | 'active';
  insurance_line: string;
  template_id: string | null;
  structure: FormStructure;
  created_at: Date;
  updated_at: Date;
  published_at: Date | null;
  live_snapshot_id: number | null;
}

const formColumns = `id, public_id, agency_id, mode, owner_agent_id, name, status, insurance_line, template_id, structure, created_at,
  updated_at, published_at, live_snapshot_id`;

/** The form, if visible; `lock` takes a row lock for the rest of the transaction (named: every form read runs it). */
export async function getForm(db: Client, formId: number, lock = false): Promise<FormRow | undefined> {
  const { rows } = await db.query<FormRow>({
    name: lock ? 'svc_get_form_for_update' : 'svc_get_form',
    text: `select ${formColumns} from app_public.forms where id = $1${lock ? ' for update' : ''}`,
    values: [formId],
  });
  return rows[0];
}

/** Up to `limit` forms with ids below `before`, newest first, optionally by status and insurance line. */
export async function listForms(
  db: Queryable,
  f: { before: number | null; status: string | null; insuranceLine: string | null; limit: number; visibleToAgentId?: number | null },
): Promise<FormRow[]> {
  // visibleToAgentId: only the agency-wide forms and that agent's own (what a plain agent works with).
  const { rows } = await db.query<FormRow>(
    `select ${formColumns} from app_public.forms
      where ($1::bigint is null or id < $1) and ($2::text is null or status = $2) and ($3::text is null or insurance_line = $3)
        and ($5::bigint is null or owner_agent_id is null or owner_agent_id = $5)
      order by id desc limit $4`,
    [f.before, f.status, f.insuranceLine, f.limit, f.visibleToAgentId ?? null],
  );
  return rows;
}

/** Create a draft owned by the agency or one of its active agents (app_public.create_form checks the owner). */
export async function createForm(
  db: Queryable,
  f: { ownerAgencyId: number; ownerAgentId: number | null; name: string; insuranceLine: string; templateId: string | null; structure: FormStructure },
): Promise<FormRow> {
  const { rows } = await db.query<FormRow>(`select ${formColumns} from app_public.create_form($1, $2, $3, $4, $5, $6)`, [
    f.ownerAgencyId,
    f.ownerAgentId,
    f.name,
    f.insuranceLine,
    f.templateId,
    JSON.stringify(f.structure),
  ]);
  return rows[0];
}

/** Replace the working structure (and optionally name and insurance line; null = unchanged). */
export async function updateFormStructure(
  db: Queryable,
  formId: number,
  structure: FormStructure,
  name: string | null,
  insuranceLine: string | null,
): Promise<FormRow> {
  const { rows } = await db.query<FormRow>(
    `update app_public.forms set structure = $2, name = coalesce($3, name), insurance_line = coalesce($4, insurance_line)
      where id = $1 returning ${formColumns}`,
    [formId, JSON.stringify(structure), name, insuranceLine],
  );
  return rows[0];
}

/** Publish the working structure (draft → active, or replace the live structure in place). */
export async function publishForm(db: Queryable, formId: number): Promise<FormRow> {
  const { rows } = await db.query<FormRow>(`select ${formColumns} from app_public.publish_form($1)`, [formId]);
  return rows[0];
}

/** Copy a form into a new draft with the same owner and structure. */
export async function duplicateForm(db: Queryable, formId: number): Promise<FormRow> {
  const { rows } = await db.query<FormRow>(`select ${formColumns} from app_public.duplicate_form($1)`, [formId]);
  return rows[0];
}
