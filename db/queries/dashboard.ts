// Dashboard sign-in links and sessions: only hashes are stored; a session resolves to its agent's identity.
import type { Client, Queryable } from './types.ts';
import { namedRow } from './named.ts';

/** Store a one-time sign-in link for an agent (the linked OAuth client); returns when it expires. */
export async function createDashboardLink(db: Queryable, agentId: number, tokenHash: Buffer, ttlSeconds: number): Promise<Date> {
  const { rows } = await db.query<{ expires_at: Date }>('select app_public.create_dashboard_link($1, $2, $3) as expires_at', [agentId, tokenHash, ttlSeconds]);
  return rows[0].expires_at;
}

/** Use a link once and open a session; undefined when the link is used, expired or its agent inactive. */
export async function startDashboardSession(db: Queryable, linkHash: Buffer, sessionHash: Buffer): Promise<number | undefined> {
  const { rows } = await db.query<{ agent_id: number }>('select agent_id from app_private.start_dashboard_session($1, $2)', [linkHash, sessionHash]);
  return rows[0]?.agent_id;
}

export interface DashboardSessionRow {
  agent_id: number;
  agency_id: number;
  role: 'owner' | 'admin' | 'agent';
  first_name: string;
  last_name: string;
  agency_name: string;
  color_code: string;
}

/** The agent behind a live session (and its activity recorded), or undefined. */
export async function authenticateDashboardSession(db: Client, sessionHash: Buffer, idleSeconds: number): Promise<DashboardSessionRow | undefined> {
  return namedRow<DashboardSessionRow>(
    db,
    'svc_dashboard_session',
    'select agent_id, agency_id, role, first_name, last_name, agency_name, color_code from app_private.authenticate_dashboard_session($1, $2)',
    [sessionHash, idleSeconds],
  );
}

/** End a session (sign-out). */
export async function endDashboardSession(db: Queryable, sessionHash: Buffer): Promise<void> {
  await db.query('select app_private.end_dashboard_session($1)', [sessionHash]);
}

export interface AgencyApiUsageRow {
  plan: string;
  per_minute: number;
  per_day: number;
  minute_requests: number;
  day_requests: number;
  rejected_today: number;
  minute_resets_at: Date;
  day_resets_at: Date;
}

/** The calling agency's plan limits and /api counters (app_private.agency_api_usage); undefined for non-admins. */
export async function agencyApiUsage(db: Queryable): Promise<AgencyApiUsageRow | undefined> {
  const { rows } = await db.query<AgencyApiUsageRow>('select * from app_private.agency_api_usage() where plan is not null');
  return rows[0];
}
