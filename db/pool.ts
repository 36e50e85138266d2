// The two pools (owner: migrations and the worker; request: every API request, subject to RLS) and the
// per-request transaction that sets the acting identity locally.
import pg from 'pg';
import { listenFor, type Notices } from './notices.ts';

// bigint ids come back as JS numbers (ids stay far below 2^53); timestamps as Date.
pg.types.setTypeParser(20, (v) => Number(v));

export interface Identity {
  role: 'oauth_client' | 'agent' | 'admin' | 'owner' | 'read_only' | 'system';
  oauthClientId?: number | null;
  agencyId?: number | null;
  agentId?: number | null;
  mode?: 'test' | 'live' | null;
  apiKeyId?: number | null;
  /** X-Request-Id of the HTTP request (or the job) acting; stored on events and put in job payloads. */
  requestId?: string | null;
}

export interface Database {
  owner: pg.Pool;
  request: pg.Pool;
  /** Whether request transactions must `set local role svc_request` (request pool logs in as the owner). */
  switchRole: boolean;
  /** Analyses finished (app_private.complete_analysis / fail_analysis notify svc_analysis_done with the id). */
  analysisDone: Notices;
  close(): Promise<void>;
}

/** Pools for an owner URL and, optionally, a URL of a login role that is a member of svc_request. */
export function createDatabase(opts: { ownerUrl: string; requestUrl?: string; max?: number }): Database {
  const owner = new pg.Pool({ connectionString: opts.ownerUrl, max: Math.max(2, Math.ceil((opts.max ?? 10) / 2)), application_name: 'svc-owner' });
  const request = new pg.Pool({ connectionString: opts.requestUrl ?? opts.ownerUrl, max: opts.max ?? 10, application_name: 'svc-request' });
  for (const p of [owner, request]) {
    // Idle-client errors (a restarted server) surface on the next query; they must not crash the process.
    p.on('error', () => {});
    p.on('connect', (client) => client.on('error', () => {}));
  }
  const analysisDone = listenFor({ connectionString: opts.ownerUrl }, 'svc_analysis_done');
  return {
    owner,
    request,
    switchRole: !opts.requestUrl,
    analysisDone,
    close: async () => {
      await Promise.all([owner.end(), request.end(), analysisDone.close()]);
    },
  };
}

// One round trip: the identity settings and, when the pool logs in as the owner, the switch to svc_request
// (set_config('role', …, true) is SET LOCAL ROLE).
const identitySql = `select set_config('svc.role', $1, true), set_config('svc.oauth_client_id', $2, true),
  set_config('svc.agency_id', $3, true), set_config('svc.agent_id', $4, true), set_config('svc.mode', $5, true),
  set_config('svc.api_key_id', $6, true), set_config('svc.request_id', $7, true)`;
const identityAndRoleSql = `${identitySql}, set_config('role', 'svc_request', true)`;

/** Set the acting identity (and role) for the rest of the open transaction on `client`. */
export async function setIdentity(db: Database, client: pg.ClientBase, who: Identity): Promise<void> {
  const s = (v: number | string | null | undefined) => (v === null || v === undefined ? '' : String(v));
  // Named, so each connection plans it once.
  await client.query({
    name: db.switchRole ? 'svc_identity_role' : 'svc_identity',
    text: db.switchRole ? identityAndRoleSql : identitySql,
    values: [who.role, s(who.oauthClientId), s(who.agencyId), s(who.agentId), s(who.mode), s(who.apiKeyId), s(who.requestId)],
  });
}

/** Open a transaction on `client` acting as `who` (the request role under RLS). */
export async function beginAs(db: Database, client: pg.ClientBase, who: Identity): Promise<void> {
  await client.query('begin');
  try {
    await setIdentity(db, client, who);
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  }
}

/** Commit the open transaction on `client`. */
export async function commit(client: pg.ClientBase): Promise<void> {
  await client.query('commit');
}

/** Roll back the open transaction on `client`, ignoring a connection that is already gone. */
export async function rollback(client: pg.ClientBase): Promise<void> {
  await client.query('rollback').catch(() => {});
}

/** Run `fn` in one request transaction as `who`; commits on success, rolls back on any error. */
export async function withIdentity<T>(db: Database, who: Identity, fn: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await db.request.connect();
  try {
    await client.query('begin');
    await setIdentity(db, client, who);
    const result = await fn(client);
    await client.query('commit');
    return result;
  } catch (err) {
    await client.query('rollback').catch(() => {});
    throw err;
  } finally {
    client.release();
  }
}
