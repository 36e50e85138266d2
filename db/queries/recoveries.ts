// Statements of bulk delivery recovery: start or find a recovery, count what it would
// send, and read its progress.
import type pg from 'pg';

type Queryable = Pick<pg.ClientBase, 'query'>;

/** A recovery with its progress. */
export interface RecoveryRow {
  id: string;
  endpoint_id: string;
  mode: 'test' | 'live' | null;
  status: 'running' | 'completed';
  since: Date;
  until: Date | null;
  cutoff: Date;
  total: number;
  queued: number;
  delivered: number;
  failed: number;
  created_at: Date;
  completed_at: Date | null;
}

const progress = `r.id, r.endpoint_id, r.mode, r.status, r.since, r.until, r.cutoff, cardinality(r.original_ids) as total,
  r.next_position - 1 as queued,
  (select count(*)::int from app_public.webhook_deliveries d where d.recovery_id = r.id and d.status = 'delivered') as delivered,
  (select count(*)::int from app_public.webhook_deliveries d where d.recovery_id = r.id and d.status = 'failed') as failed,
  r.created_at, r.completed_at`;

/**
 * Start the recovery of an endpoint's failed deliveries in [since, until) (app_public.recover_deliveries); the same
 * window returns the recovery made before (`created` false).
 */
export async function recoverDeliveries(c: Queryable, endpointId: string, since: Date, until: Date | null): Promise<RecoveryRow & { created: boolean }> {
  const { rows } = await c.query<RecoveryRow & { created: boolean }>(
    `with r as (select * from app_public.recover_deliveries($1, $2, $3))
     select ${progress}, r.created_at = now() as created from r`,
    [endpointId, since, until],
  );
  // Progress of a recovery made in this statement is read after it: the first redelivery is already queued.
  return rows[0];
}

/** How many deliveries a recovery of this window would send again (nothing stored). */
export async function countRecoverable(c: Queryable, endpointId: string, since: Date, until: Date | null): Promise<number> {
  const { rows } = await c.query<{ n: number }>('select cardinality(original_ids) as n from app_public.recover_deliveries($1, $2, $3, true)', [
    endpointId,
    since,
    until,
  ]);
  return rows[0].n;
}

/** One recovery of an endpoint, as the caller may see it (RLS). */
export async function getRecovery(c: Queryable, endpointId: string, recoveryId: string): Promise<RecoveryRow | undefined> {
  const { rows } = await c.query<RecoveryRow>(`select ${progress} from app_public.webhook_recoveries r where r.id = $1 and r.endpoint_id = $2`, [
    recoveryId,
    endpointId,
  ]);
  return rows[0];
}
