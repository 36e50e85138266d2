// The outbox poller: outbox events become one delivery per matching endpoint and subscription. It reads and
// locks the oldest waiting events (app_private.events_waiting), at most a share of them of each agency, in one
// statement and turns them into deliveries in another, in one transaction; at once again while an agency fills
// its share, else after a few milliseconds. Emitting an event is thus only its insert. The deliveries the send
// loop of the same process has room for are created claimed by it and handed to it.
// Running a batch twice adds nothing (one delivery per event and endpoint), so a crash between steps loses nothing.
// A target whose body cannot be built is skipped with a logged reason; the others still get the event.
import type pg from 'pg';
import { z } from 'zod';
import {
  anyEventWaiting,
  createClaimedDeliveriesAndCommit,
  createEventDeliveriesAndCommit,
  holdWaitingEvent,
  inFanOutBatch,
  type FanOutPlanRow,
  type HandedDeliveryRow,
} from '../../db/queries/events.ts';
import type { Client } from '../../db/queries/types.ts';
import type { DueDeliveryRow } from '../../db/queries/deliveries.ts';
import { envelopeJson, topicEnvelope, v1EventEnvelope, V1_EVENT_NAMES, type V1EventName } from '../../pipelines/webhooks/payloads.ts';
import type { Logger } from '../../lib/log.ts';
import type { TaskDeps } from '../context.ts';
import type { HandOver } from './send_loop.ts';

/** Events fanned out per transaction: large enough to amortise the round trips, small enough to keep locks short. */
const BATCH = 500;
/**
 * Events of one agency a batch takes at most: a burst of one agency's events goes out a share per batch, beside
 * every other agency's waiting events, which then wait for one batch, not for the whole burst.
 */
const AGENCY_SHARE = 100;

/** How the poller's log lines name it (the work it took over from the events__fan_out task). */
const CONTEXT = { component: 'worker', task: 'events__fan_out', poller: true };

/** The exact body of `event` for a target of `kind`, or why this target cannot take it. */
export function bodyFor(
  event: Pick<FanOutPlanRow, 'uuid' | 'topic' | 'event_name' | 'data' | 'created_at'>,
  kind: 'topic' | 'subscription',
): { body: string } | { skip: string } {
  try {
    if (kind === 'topic') {
      if (!event.topic) return { skip: 'the event has no topic, so a topic endpoint cannot take it' };
      return { body: envelopeJson(topicEnvelope(event.topic, event.data)) };
    }
    if (!event.event_name || !(V1_EVENT_NAMES as readonly string[]).includes(event.event_name)) {
      return { skip: `the event has no v1 event name a subscription can receive (${event.event_name ?? 'none'})` };
    }
    const envelope = v1EventEnvelope({ id: event.uuid, event: event.event_name as V1EventName, created_at: event.created_at.toISOString(), data: event.data });
    return { body: envelopeJson(envelope) };
  } catch (err) {
    // A malformed event never reaches partners; the reason names the first invalid field only, never the data.
    const issue = err instanceof z.ZodError ? err.issues[0] : undefined;
    return {
      skip: issue
        ? `the event data does not fit the ${kind} payload (${issue.path.join('.') || '(root)'}: ${issue.message})`
        : `the body could not be built: ${(err as Error).message}`,
    };
  }
}

/** The deliveries of planned events, skipping (with a logged reason) the targets that cannot take them. */
function deliveriesOf(rows: FanOutPlanRow[], logger: Pick<Logger, 'warn'>) {
  const deliveries: Array<{ event_id: number; endpoint_id: string; url: string; body: string }> = [];
  for (const t of rows) {
    if (!t.endpoint_id || !t.url || !t.kind) continue;
    const built = bodyFor(t, t.kind);
    if ('skip' in built) {
      logger.warn('webhook target skipped', { eventId: t.id, endpointId: t.endpoint_id, kind: t.kind, reason: built.skip });
      continue;
    }
    deliveries.push({ event_id: t.id, endpoint_id: t.endpoint_id, url: t.url, body: built.body });
  }
  return deliveries;
}

/** The send loop's view of deliveries created claimed by it: the database's ids and credentials, the poller's url and body. */
function handedRows(handed: HandedDeliveryRow[], planned: Array<{ event_id: number; endpoint_id: string; url: string; body: string }>): DueDeliveryRow[] {
  const byTarget = new Map(planned.map((d) => [`${d.event_id} ${d.endpoint_id}`, d]));
  return handed.map((h) => {
    const d = byTarget.get(`${h.event_id} ${h.endpoint_id}`)!;
    return {
      id: h.id,
      attempt_count: 0,
      message_id: h.message_id,
      mode: h.mode,
      is_test: false,
      url: d.url,
      body: d.body,
      endpoint_id: h.endpoint_id,
      enabled: h.enabled,
      status: 'pending',
      secret_ciphertext: h.secret_ciphertext,
      auth_ciphertext: h.auth_ciphertext,
      request_id: h.request_id,
    };
  });
}

/**
 * Fan out one batch in one transaction: `beginFanOutWaiting` begins it and locks up to `limit` waiting events with
 * their targets; their deliveries are created (those the send loop has room for claimed by it and handed over) and
 * the events marked, committed in the same round trip. Returns how many events the batch held; `taken` gets their ids.
 */
async function fanOutOnce(
  client: Client,
  limit: number,
  share: number,
  log: Pick<Logger, 'warn' | 'info' | 'debug'>,
  taken: number[],
  sendLoop?: HandOver,
): Promise<number> {
  const rows = await inFanOutBatch(client, limit, share, async (ids, batch) => {
    taken.push(...ids);
    if (sendLoop) handOver(await createHanded(client, ids, batch, log, sendLoop), sendLoop);
    else await createEventDeliveriesAndCommit(client, ids, deliveriesOf(batch, log));
    log.debug('events fanned out', { ...CONTEXT, events: ids.length });
  });
  // A batch serves many requests: one line per event carries the request id that emitted it.
  const seen = new Set<number>();
  for (const r of rows) {
    if (seen.has(r.id)) continue;
    seen.add(r.id);
    log.info('event fanned out', { ...CONTEXT, eventId: r.id, requestId: r.request_id ?? undefined });
  }
  return seen.size;
}

/** Create the batch's deliveries, those the send loop has room for claimed by it; returns them with what was planned. */
async function createHanded(client: Client, ids: number[], rows: FanOutPlanRow[], log: Pick<Logger, 'warn'>, sendLoop: HandOver) {
  const planned = deliveriesOf(rows, log);
  const room = sendLoop.room(planned.map((d) => d.endpoint_id));
  const claimed = planned.map((d, i) => ({ ...d, claim: room[i] }));
  const handed = await createClaimedDeliveriesAndCommit(client, ids, claimed, sendLoop.workerId, sendLoop.leaseSeconds);
  return { planned, handed };
}

/** Give the send loop what was created claimed by it, and wake it for the rest (no room, or a disabled endpoint). */
function handOver({ planned, handed }: Awaited<ReturnType<typeof createHanded>>, sendLoop: HandOver): void {
  if (handed.length) sendLoop.take(handedRows(handed, planned));
  if (handed.length < planned.length) sendLoop.wake();
}

/** SQLSTATE classes that say the data cannot be written (not that the database is unavailable or busy). */
function isDataError(code: string): boolean {
  return /^(22|23|P0|2F|42)/.test(code);
}

export interface OutboxPoller {
  /** Finish the batch in hand and stop. */
  stop(): Promise<void>;
}

/**
 * Poll the outbox: fan out the oldest waiting events, BATCH at a time and at most AGENCY_SHARE of each agency, at
 * once again while an agency fills its share, else after `intervalMs`. Several processes may poll: each batch
 * skips the events another holds. After a failing batch the poller takes one event at a time: an event that fails alone with a
 * data error is held (app_private.events_waiting.held_at, logged) and the others go on; any other failure (the
 * database restarting) is logged and tried again a second later.
 */
export function startOutboxPoller(
  pool: pg.Pool,
  deps: TaskDeps,
  opts: {
    intervalMs: number;
    /**
     * The send loop of this process: deliveries it has room for are handed to it claimed, and it is woken for any
     * left due. Without one (a worker that does not send), they all wait due for another process's loop.
     */
    sendLoop?: HandOver;
  },
): OutboxPoller {
  let stopped = false;
  let wake = () => {};
  // After a failed batch the poller goes one event at a time through as many events as that batch held (they
  // are the oldest waiting), so an event that cannot be fanned out (a data error) is found and held instead of
  // holding up every agency's events behind it.
  let careful = 0;
  const loop = (async () => {
    let last = 0; // events the last batch held
    while (!stopped) {
      let n = 0;
      let wait = opts.intervalMs;
      const limit = careful > 0 ? 1 : BATCH;
      const share = Math.min(limit, AGENCY_SHARE);
      const taken: number[] = [];
      try {
        const client = await pool.connect();
        let failed: Error | undefined;
        try {
          // The cheap check first, unless the last batch found events (under load the next one most likely does too).
          if (last > 0 || (await anyEventWaiting(client))) n = await fanOutOnce(client, limit, share, deps.log, taken, opts.sendLoop);
          if (careful > 0) careful = n > 0 ? careful - 1 : 0;
        } catch (err) {
          failed = err as Error;
          throw err;
        } finally {
          client.release(failed); // a connection that failed is closed, not pooled
        }
      } catch (err) {
        const code = (err as { code?: unknown }).code;
        if (limit === 1 && taken.length === 1 && typeof code === 'string' && isDataError(code)) {
          // This one event fails on its own: hold it (an operator can release it) and go on with the others.
          const reason = `${code}: ${(err as Error).message}`;
          const held = await pool
            .connect()
            .then(async (c) => {
              try {
                return await holdWaitingEvent(c, taken[0], reason);
              } finally {
                c.release();
              }
            })
            .catch(() => false);
          deps.log.error('event held: its fan-out fails', { ...CONTEXT, eventId: taken[0], reason, held });
          careful = Math.max(0, careful - 1);
          wait = 0;
        } else {
          deps.log.warn('outbox fan-out failed; trying again one event at a time', { ...CONTEXT, err });
          wait = Math.max(wait, careful > 0 ? 1000 : 50); // a database that is down is not asked 40 times a second
          careful = Math.max(careful, taken.length, 1);
        }
      }
      last = n;
      // A batch that took fewer events than one agency's share took every event waiting; one that took more may
      // have left some of an agency's events for the next batch, which runs at once.
      if (n < share && !stopped && wait > 0) {
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, wait);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
  })();
  return {
    stop: async () => {
      stopped = true;
      wake();
      await loop;
    },
  };
}
