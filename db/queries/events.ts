// The events outbox as the worker's poller reads it: a batch of waiting events
// with their targets, and the deliveries made from them (app_private.create_event_deliveries adds nothing when run twice).
import type pg from 'pg';
import type { Client } from './types.ts';

export interface EventRow {
  id: number;
  uuid: string;
  mode: 'test' | 'live';
  topic: 'client-submission' | 'form-submission' | null;
  event_name: string | null;
  data: Record<string, unknown>;
  created_at: Date;
}

export interface FanOutPlanRow extends EventRow {
  /** Null on the one line of an event without targets. */
  endpoint_id: string | null;
  url: string | null;
  kind: 'topic' | 'subscription' | null;
  /** Request id of the request that emitted the event. */
  request_id?: string | null;
}

/** Whether any event waits for fan-out (an idle poll's one cheap round trip). */
export async function anyEventWaiting(db: Client): Promise<boolean> {
  const { rows } = await db.query<{ waiting: boolean }>({
    name: 'svc_any_event_waiting',
    text: 'select exists (select 1 from app_private.events_waiting where held_at is null) as waiting',
  });
  return rows[0].waiting;
}

/** Hold a waiting event whose fan-out failed on its own (the poller then skips it); true when it was held now. */
export async function holdWaitingEvent(db: Client, eventId: number, error: string): Promise<boolean> {
  const { rows } = await db.query<{ held: boolean }>('select app_private.hold_waiting_event($1, $2) as held', [eventId, error]);
  return rows[0]?.held === true;
}

// The outbox poller's batch in two round trips instead of four: `begin` travels with the read and `commit` with
// the write, as one simple-protocol query each (which takes no parameters: the limit is an integer and the ids and
// deliveries go as a literal, quoted as pg.escapeLiteral quotes it). Each round trip is a write and a wake-up of the backend and of the
// worker, about as costly as the statement on a small batch.

/**
 * One fan-out batch as one transaction: `begin` travels with the read (`beginFanOutWaiting`), and `write` gets the
 * locked events' ids and rows and must create their deliveries with one of the `…AndCommit` writes below. A batch
 * that found nothing commits at once; any error rolls the batch back (its events wait again). Returns what was read.
 */
export async function inFanOutBatch(
  db: Client & Pick<pg.ClientBase, 'query'>,
  limit: number,
  share: number,
  write: (ids: number[], rows: FanOutPlanRow[]) => Promise<void>,
): Promise<FanOutPlanRow[]> {
  try {
    const rows = await beginFanOutWaiting(db, limit, share);
    const ids = [...new Set(rows.map((r) => r.id))];
    if (ids.length) await write(ids, rows);
    else await db.query('commit'); // nothing waiting after all (another poller took it)
    return rows;
  } catch (err) {
    await db.query('rollback').catch(() => {});
    throw err;
  }
}

/**
 * Begin a transaction and read (locking) the oldest waiting events with their targets, at most `share` of each agency
 * (other pollers skip them).
 */
export async function beginFanOutWaiting(db: Client, limit: number, share: number): Promise<FanOutPlanRow[]> {
  const n = Math.max(0, Math.floor(limit));
  const s = Math.max(1, Math.floor(share));
  const results = (await db.query(`begin; select * from app_private.fan_out_waiting(${n}, ${s})`)) as unknown as pg.QueryResult<FanOutPlanRow>[];
  return results[1].rows;
}

/** createEventDeliveries, then commit (in the one round trip); returns how many were created. */
export async function createEventDeliveriesAndCommit(
  db: Client,
  eventIds: number[],
  deliveries: Array<{ event_id: number; endpoint_id: string; url: string; body: string }>,
): Promise<number> {
  const ids = bigintArray(eventIds);
  const results = (await db.query(
    `select app_private.create_event_deliveries(${ids}, ${literal(JSON.stringify(deliveries))}::jsonb) as n; commit`,
  )) as unknown as pg.QueryResult<{ n: number }>[];
  return results[0].rows[0].n;
}

/** A delivery the poller hands to its send loop: created and claimed for the loop's lease in the poller's commit. */
export interface HandedDeliveryRow {
  id: number;
  event_id: number;
  endpoint_id: string;
  message_id: string;
  mode: 'test' | 'live';
  request_id: string | null;
  enabled: boolean;
  secret_ciphertext: string;
  auth_ciphertext: string | null;
}

/**
 * createEventDeliveriesAndCommit, but the deliveries marked `claim` are queued claimed by the send loop `worker`
 * for `leaseSeconds` (app_private.create_event_deliveries_claimed) and returned, in the one round trip.
 */
export async function createClaimedDeliveriesAndCommit(
  db: Client,
  eventIds: number[],
  deliveries: Array<{ event_id: number; endpoint_id: string; url: string; body: string; claim: boolean }>,
  worker: string,
  leaseSeconds: number,
): Promise<HandedDeliveryRow[]> {
  const ids = bigintArray(eventIds);
  const lease = `make_interval(secs => ${Math.max(1, Math.floor(leaseSeconds))})`;
  const results = (await db.query(
    `select * from app_private.create_event_deliveries_claimed(${ids}, ${literal(JSON.stringify(deliveries))}::jsonb, ${literal(worker)}, ${lease}); commit`,
  )) as unknown as pg.QueryResult<HandedDeliveryRow>[];
  return results[0].rows;
}

/** Ids as a bigint[] literal for a simple-protocol query (integers only, so nothing needs quoting). */
function bigintArray(ids: number[]): string {
  return `'{${ids.map((id) => String(Math.floor(id))).join(',')}}'::bigint[]`;
}

/** What pg.escapeLiteral returns, by two native replaces: its character loop took 50 ms for a batch of 500 deliveries. */
export function literal(text: string): string {
  const quoted = text.replace(/'/g, "''");
  return text.includes('\\') ? ` E'${quoted.replace(/\\/g, '\\\\')}'` : `'${quoted}'`;
}
