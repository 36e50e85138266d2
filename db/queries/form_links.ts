// What POST /v2/forms/{id}/links needs: the form (visible to the key) with its live name, and the agent.
import type { Client } from './types.ts';

export interface LinkTargetRow {
  form_id: number;
  public_id: string;
  status: 'draft' | 'active';
  owner_agent_id: number | null;
  live_name: string | null;
}

/** The form as the caller sees it (RLS: agency and mode) and the name it is published under. */
export async function linkTarget(db: Client, formId: number): Promise<LinkTargetRow | undefined> {
  const { rows } = await db.query<LinkTargetRow>(
    `select f.id as form_id, f.public_id, f.status, f.owner_agent_id, s.name as live_name
       from app_public.forms f left join app_public.form_snapshots s on s.id = f.live_snapshot_id where f.id = $1`,
    [formId],
  );
  return rows[0];
}

/** An active agent of the caller's agency, by id. */
export async function activeAgent(db: Client, agentId: number): Promise<{ id: number; slug: string } | undefined> {
  const { rows } = await db.query<{ id: number; slug: string }>(
    `select id, slug from app_public.agents where id = $1 and agency_id = app_public.current_agency_id() and status = 'active'`,
    [agentId],
  );
  return rows[0];
}
