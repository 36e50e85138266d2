// Agents of an agency (and a new agency with its owner agent): listed, created, re-tokened and deactivated by the OAuth client; read and updated by
// their agency's admins. Every read joins the agency's brief; RLS scopes both tables.
import type { AgencyBriefRow, AgencyRow } from './agencies.ts';
import type { Queryable } from './types.ts';

export interface AgentRow {
  id: number;
  agency_id: number;
  first_name: string;
  last_name: string;
  email: string;
  slug: string;
  phone_number: string | null;
  is_admin: boolean;
  is_owner: boolean;
  status: 'active' | 'deactivated';
  profile_picture_key: string | null;
  created_at: Date;
  updated_at: Date;
  deactivated_at: Date | null;
}

export type AgentWithAgencyRow = AgentRow & { agency: AgencyBriefRow };

/** Create an agency linked to the calling OAuth client, with its owner agent and that agent's token. */
export async function createAgency(
  db: Queryable,
  a: { name: string; referral: string | null; firstName: string; lastName: string; email: string; slugBase: string; tokenHash: Buffer },
): Promise<{ agency: AgencyRow; agent: AgentRow }> {
  const { rows } = await db.query<{ agency: AgencyRow; agent: AgentRow }>(
    `select to_json(r.agency) as agency, to_json(r.agent) as agent from app_public.create_agency($1, $2, $3, $4, $5, $6, $7) r`,
    [a.name, a.referral, a.firstName, a.lastName, a.email, a.slugBase, a.tokenHash],
  );
  return rows[0];
}

const selectAgent = `select a.*, json_build_object('id', g.id, 'name', g.name, 'color_code', g.color_code) as agency
  from app_public.agents a join app_public.agencies g on g.id = a.agency_id`;

/** An agent with its agency's brief, optionally only within `agencyId`. */
export async function getAgent(db: Queryable, agentId: number, agencyId?: number): Promise<AgentWithAgencyRow | undefined> {
  const { rows } = await db.query<AgentWithAgencyRow>(`${selectAgent} where a.id = $1 and ($2::bigint is null or a.agency_id = $2)`, [
    agentId,
    agencyId ?? null,
  ]);
  return rows[0];
}

export interface AgentFilter {
  email: string | null;
  includeDeactivated: boolean;
}

/** One page of agents by id, each with the total count of the filter (0 rows past the last page). */
export async function listAgents(db: Queryable, f: AgentFilter, limit: number, offset: number): Promise<Array<AgentWithAgencyRow & { total: number }>> {
  const { rows } = await db.query<AgentWithAgencyRow & { total: number }>(
    `${selectAgent.replace('select a.*', 'select a.*, count(*) over () as total')}
      where ($1::text is null or lower(a.email) = lower($1)) and ($2 or a.status = 'active')
      order by a.id limit $3 offset $4`,
    [f.email, f.includeDeactivated, limit, offset],
  );
  return rows;
}

/** How many agents match the filter. */
export async function countAgents(db: Queryable, f: AgentFilter): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `select count(*)::int as n from app_public.agents a where ($1::text is null or lower(a.email) = lower($1)) and ($2 or a.status = 'active')`,
    [f.email, f.includeDeactivated],
  );
  return rows[0].n;
}

/** Add an agent with its first token to an active agency linked to the calling OAuth client. */
export async function createAgent(
  db: Queryable,
  a: {
    agencyId: number;
    firstName: string;
    lastName: string;
    email: string;
    slugBase: string;
    phoneNumber: string | null;
    isAdmin: boolean;
    pictureKey: string | null;
    tokenHash: Buffer;
  },
): Promise<AgentRow> {
  const { rows } = await db.query<AgentRow>('select * from app_public.create_agent($1, $2, $3, $4, $5, $6, $7, $8, $9)', [
    a.agencyId,
    a.firstName,
    a.lastName,
    a.email,
    a.slugBase,
    a.phoneNumber,
    a.isAdmin,
    a.pictureKey,
    a.tokenHash,
  ]);
  return rows[0];
}

/** Deactivate an agent (refused for the agency's owner). */
export async function deactivateAgent(db: Queryable, agentId: number): Promise<void> {
  await db.query('select app_public.deactivate_agent($1)', [agentId]);
}

/** Revoke every token of the agent and store the hash of one new token. */
export async function resetAgentToken(db: Queryable, agentId: number, tokenHash: Buffer): Promise<void> {
  await db.query('select app_public.reset_agent_token($1, $2)', [agentId, tokenHash]);
}

/** Make the agent the owner of its agency (the caller must be the owner). */
export async function transferAgencyOwnership(db: Queryable, agentId: number): Promise<void> {
  await db.query('select app_public.transfer_agency_ownership($1)', [agentId]);
}

/**
 * Change an agent's profile fields (undefined = unchanged; `phoneNumber: null` clears it). The owner-stays-admin
 * rule and per-agency email uniqueness are constraints that http/errors.ts names by field.
 */
export async function updateAgentProfile(
  db: Queryable,
  agentId: number,
  c: { firstName?: string; lastName?: string; email?: string; phoneNumber?: string | null; isAdmin?: boolean },
): Promise<void> {
  await db.query(
    `update app_public.agents set first_name = coalesce($2, first_name), last_name = coalesce($3, last_name),
       email = coalesce($4, email), phone_number = case when $5::boolean then $6 else phone_number end,
       is_admin = coalesce($7, is_admin)
     where id = $1`,
    [agentId, c.firstName ?? null, c.lastName ?? null, c.email ?? null, c.phoneNumber !== undefined, c.phoneNumber ?? null, c.isAdmin ?? null],
  );
}

/** The picture of an active agent, read without a tenant identity (public image links on hosted forms). */
export async function activeAgentPictureKey(db: Queryable, agentId: number): Promise<string | null | undefined> {
  const { rows } = await db.query<{ profile_picture_key: string | null }>(
    `select profile_picture_key from app_public.agents where id = $1 and status = 'active'`,
    [agentId],
  );
  return rows[0]?.profile_picture_key;
}
