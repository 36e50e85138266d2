// Rows for SQL tests, made the way the service makes them: through the state functions, as the request role
// with an identity set (test/db/*.test.ts call the functions under test the same way).
import type pg from 'pg';
import { withIdentity, type Identity } from '../../db/pool.ts';
import { hashToken } from '../../lib/secrets.ts';
import { testDatabase, type TestDatabase } from './db.ts';

export interface SeededAgency {
  oauthClientId: number;
  agencyId: number;
  ownerId: number;
  /** The OAuth client that created the agency. */
  client: Identity;
  /** The owner agent (an admin). */
  owner: Identity;
  /** An admin API key of the agency in each mode, and a read-only one in test mode. */
  adminKey: (mode: 'test' | 'live') => Identity;
  readOnlyKey: Identity;
}

/** An OAuth client with one agency and its owner agent. */
export async function seedAgency(tdb: TestDatabase, label: string): Promise<SeededAgency> {
  const { rows } = await tdb.db.owner.query<{ id: number }>(
    `insert into app_private.oauth_clients (client_id, name, secret_hash) values ($1, $1, $2) returning id`,
    [`oc_${label}`, hashToken(label)],
  );
  const oauthClientId = rows[0].id;
  const client: Identity = { role: 'oauth_client', oauthClientId };
  const made = await withIdentity(tdb.db, client, (c) =>
    c.query<{ agency_id: number; agent_id: number }>(
      `select (r.agency).id as agency_id, (r.agent).id as agent_id from app_public.create_agency($1, null, 'Olive', 'Owner', $2, $3, $4) r`,
      [`Agency ${label}`, `owner-${label}@example.com`, `owner-${label}`, hashToken(`agt_${label}`)],
    ),
  );
  const { agency_id: agencyId, agent_id: ownerId } = made.rows[0];
  const key = (mode: 'test' | 'live', permissions: 'admin' | 'read_only'): Identity => ({
    role: permissions === 'admin' ? 'admin' : 'read_only',
    agencyId,
    mode,
  });
  return {
    oauthClientId,
    agencyId,
    ownerId,
    client,
    owner: { role: 'owner', agencyId, agentId: ownerId },
    adminKey: (mode) => key(mode, 'admin'),
    readOnlyKey: key('test', 'read_only'),
  };
}

/** A database of the test file's own with two agencies, `${label}-a` and `${label}-b` (the other tenant of the isolation checks). */
export async function twoAgencies(label: string): Promise<{ tdb: TestDatabase; a: SeededAgency; b: SeededAgency }> {
  const tdb = await testDatabase();
  return { tdb, a: await seedAgency(tdb, `${label}-a`), b: await seedAgency(tdb, `${label}-b`) };
}

/** Add an agent to a seeded agency (as its OAuth client). */
export async function seedAgent(tdb: TestDatabase, a: SeededAgency, label: string, isAdmin = false): Promise<number> {
  const r = await withIdentity(tdb.db, a.client, (c) =>
    c.query<{ id: number }>(`select id from app_public.create_agent($1, 'Ann', $2, $3, $4, null, $5, null, $6)`, [
      a.agencyId,
      label,
      `${label}@example.com`,
      label,
      isAdmin,
      hashToken(`agt_${label}`),
    ]),
  );
  return r.rows[0].id;
}

/** Run one statement as `who` in its own request transaction. */
export function as<R extends pg.QueryResultRow = pg.QueryResultRow>(
  tdb: TestDatabase,
  who: Identity,
  text: string,
  values: unknown[] = [],
): Promise<pg.QueryResult<R>> {
  return withIdentity(tdb.db, who, (c) => c.query<R>(text, values));
}

export interface QueuedJob {
  task_identifier: string;
  payload: Record<string, unknown>;
  key: string | null;
  run_at: Date;
}

/** The items of a job's payload: one for a plain job, each element for a batch job (an array payload). */
export function jobItems(job: QueuedJob): Array<Record<string, unknown>> {
  const p = job.payload as unknown;
  return Array.isArray(p) ? (p as Array<Record<string, unknown>>) : [job.payload];
}

/** The jobs queued for `task` (graphile_worker.jobs joined with their payloads), oldest first. */
export async function queuedJobs(tdb: TestDatabase, task: string): Promise<QueuedJob[]> {
  const { rows } = await tdb.db.owner.query<QueuedJob>(
    `select t.identifier as task_identifier, j.payload, j.key, j.run_at
       from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id
      where t.identifier = $1 order by j.id`,
    [task],
  );
  return rows;
}

/** The SQLSTATE (or five-character code) of a rejected promise. */
export async function sqlError(p: Promise<unknown>): Promise<{ code?: string; column?: string; detail?: string; constraint?: string; message: string }> {
  try {
    await p;
  } catch (err) {
    return err as { code?: string; message: string };
  }
  throw new Error('expected the statement to fail');
}
