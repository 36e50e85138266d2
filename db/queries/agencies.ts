// Agencies: read and branded by their own agents, deactivated by the client (an agency is created with its
// owner agent, in agents.ts). RLS scopes every statement to the caller (linked client, or the agency's own agents).
import type { Client, Queryable } from './types.ts';
import { namedRow } from './named.ts';

export interface AgencyRow {
  id: number;
  name: string;
  color_code: string;
  logo_key: string | null;
}

/** What an agent read carries of its agency. */
export type AgencyBriefRow = Pick<AgencyRow, 'id' | 'name' | 'color_code'>;

export interface PlanRow {
  id: number;
  plan: 'free' | 'pro' | 'enterprise';
  plan_per_minute: number | null;
  plan_per_day: number | null;
}

/** The agency, if visible to the caller (named: every agency read runs it). */
export async function getAgency(db: Client, agencyId: number): Promise<AgencyRow | undefined> {
  return namedRow<AgencyRow>(db, 'svc_get_agency', 'select id, name, color_code, logo_key from app_public.agencies where id = $1', [agencyId]);
}

/** Whether the caller can see the agency. */
export async function agencyVisible(db: Queryable, agencyId: number): Promise<boolean> {
  const { rowCount } = await db.query('select 1 from app_public.agencies where id = $1', [agencyId]);
  return !!rowCount;
}

/** Change name, colour or logo (null = unchanged); undefined when the caller may not update the agency. */
export async function updateAgencyBranding(
  db: Queryable,
  agencyId: number,
  changes: { name: string | null; colorCode: string | null; logoKey: string | null },
): Promise<AgencyRow | undefined> {
  const { rows } = await db.query<AgencyRow>(
    `update app_public.agencies set
       name = coalesce($2, name), color_code = coalesce($3, color_code), logo_key = coalesce($4, logo_key)
     where id = $1 returning *`,
    [agencyId, changes.name, changes.colorCode, changes.logoKey],
  );
  return rows[0];
}

/** Deactivate an agency linked to the calling OAuth client, and all its agents. */
export async function deactivateAgency(db: Queryable, agencyId: number): Promise<void> {
  await db.query('select app_public.deactivate_agency($1)', [agencyId]);
}

/** The logo of an active agency, read without a tenant identity (public image links on hosted forms). */
export async function activeAgencyLogoKey(db: Queryable, agencyId: number): Promise<string | null | undefined> {
  const { rows } = await db.query<{ logo_key: string | null }>('select logo_key from app_public.agencies where id = $1 and status = $2', [agencyId, 'active']);
  return rows[0]?.logo_key;
}

/** Set the plan of an agency linked to the calling OAuth client (limits only for enterprise). */
export async function setAgencyPlan(db: Queryable, agencyId: number, plan: PlanRow['plan'], perMinute: number | null, perDay: number | null): Promise<PlanRow> {
  const { rows } = await db.query<PlanRow>('select id, plan, plan_per_minute, plan_per_day from app_public.set_agency_plan($1, $2, $3, $4)', [
    agencyId,
    plan,
    perMinute,
    perDay,
  ]);
  return rows[0];
}

/** The plan of the caller's agency (its own agents see it through RLS). */
export async function agencyPlan(db: Queryable, agencyId: number): Promise<PlanRow | undefined> {
  const { rows } = await db.query<PlanRow>('select id, plan, plan_per_minute, plan_per_day from app_public.agencies where id = $1', [agencyId]);
  return rows[0];
}
