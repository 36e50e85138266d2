// Housekeeping run by the maintenance__purge cron task, and the liveness records of worker processes.
import type { Queryable } from './types.ts';

/** Delete expired OAuth tokens and old rate-limit windows. */
export async function purgeExpired(db: Queryable): Promise<void> {
  await db.query('select app_private.purge_expired()');
}

/** Delete dashboard sign-in links and sessions long past any use. */
export async function purgeDashboardSessions(db: Queryable): Promise<void> {
  await db.query('select app_private.purge_dashboard_sessions()');
}

/** Forget up to `limit` hosted-form uploads no submission claimed within `hours`; their blobs go to the sweep. Returns how many. */
export async function purgeAbandonedUploads(db: Queryable, hours: number, limit: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>('select app_private.purge_abandoned_uploads($1, $2) as n', [hours, limit]);
  return rows[0].n;
}

/** Record that these workers of this process are alive. */
export async function recordWorkerHeartbeats(db: Queryable, workerIds: string[]): Promise<void> {
  await db.query(
    `insert into app_private.worker_heartbeats (worker_id) select unnest($1::text[])
     on conflict (worker_id) do update set last_seen = now()`,
    [workerIds],
  );
}

/** Workers (other than `own`) that hold job locks or send-loop claims but have not been seen for `staleAfterSeconds`. */
export async function staleLockingWorkers(db: Queryable, own: string[], staleAfterSeconds: number): Promise<string[]> {
  const { rows } = await db.query<{ locked_by: string }>(
    `select distinct l.locked_by
       from (select j.locked_by from graphile_worker._private_jobs j where j.locked_by is not null
             union
             select q.claimed_by from app_private.deliveries_due q where q.claimed_by is not null) l
      where l.locked_by <> all($1::text[])
        and not exists (select 1 from app_private.worker_heartbeats h
                         where h.worker_id = l.locked_by and h.last_seen > now() - make_interval(secs => $2))`,
    [own, staleAfterSeconds],
  );
  return rows.map((r) => r.locked_by);
}

/**
 * Release the jobs locked and the deliveries claimed by dead workers, and forget them. The released jobs are
 * announced like new ones (graphile-worker's jobs:insert), so idle workers everywhere take them at once rather
 * than at their next poll.
 */
export async function releaseDeadWorkers(db: Queryable, workerIds: string[]): Promise<void> {
  const { rows } = await db.query<{ n: number }>('select count(*)::int n from graphile_worker._private_jobs where locked_by = any($1::text[])', [workerIds]);
  await db.query('select graphile_worker.force_unlock_workers($1::text[])', [workerIds]);
  if (rows[0].n) await db.query(`select pg_notify('jobs:insert', $1)`, [JSON.stringify({ count: rows[0].n })]);
  await db.query('update app_private.deliveries_due set due_at = now(), claimed_by = null where claimed_by = any($1::text[])', [workerIds]);
  await db.query('delete from app_private.worker_heartbeats where worker_id = any($1::text[])', [workerIds]);
}

/** Forget heartbeats older than a day. */
export async function forgetOldHeartbeats(db: Queryable): Promise<void> {
  await db.query(`delete from app_private.worker_heartbeats where last_seen < now() - interval '1 day'`);
}

/** Delete the job queue rows no job uses (per-agency named queues with nothing queued); returns how many. */
export async function purgeIdleJobQueues(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>('select app_private.purge_idle_job_queues() as n');
  return rows[0].n;
}
