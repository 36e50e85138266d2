// The worker's send loop: first attempts of deliveries, claimed for a lease from app_private.deliveries_due and
// sent continuously. Each round records the attempts finished since the last, gives back claims that were not
// sent and claims the next due deliveries in one statement (app_private.send_round, one asynchronous commit per
// round). The outbox poller of the same process hands it the deliveries it has room for already claimed
// (`room`/`take`).
import type pg from 'pg';
import { sendRound, type DueDeliveryRow } from '../../db/queries/deliveries.ts';
import type { Logger } from '../../lib/log.ts';
import type { TaskDeps } from '../context.ts';
import { attempter, type Attempt } from './attempt.ts';

/** What the outbox poller of the same process needs of its send loop to hand it deliveries already claimed. */
export type HandOver = Pick<SendLoop, 'workerId' | 'leaseSeconds' | 'room' | 'take' | 'wake'>;

export interface SendLoop {
  /** New deliveries may be due (the fan-out in this process made some): claim without waiting for the next poll. */
  wake(): void;
  /** The loop's id, which its claims carry. */
  readonly workerId: string;
  /** Seconds a claim lasts. */
  readonly leaseSeconds: number;
  /**
   * Which of these deliveries (given by endpoint, in order) the loop has room for now, as its own claim would
   * take them: the fan-out of this process creates those claimed by the loop (app_private.create_event_deliveries_claimed).
   */
  room(endpointIds: string[]): boolean[];
  /** Deliveries created claimed by this loop: send them (given back at once when the loop is stopping). */
  take(rows: DueDeliveryRow[]): void;
  /** Stop sending: attempts in flight are aborted and given back, what was sent is recorded. */
  stop(): Promise<void>;
}

export interface SendLoopOptions {
  /** The loop's id: its claims carry it, and the process records it in app_private.worker_heartbeats. */
  workerId: string;
  /** Milliseconds between polls while nothing is due (the fan-out of this process hands deliveries over sooner). */
  intervalMs: number;
  /** Deliveries in flight at once, over all endpoints (default 64). */
  inFlight?: number;
  /** Deliveries in flight at once to one endpoint (default 32, the kept-alive sockets of one address), so one slow receiver cannot take every slot. */
  perEndpoint?: number;
  /** Deliveries claimed per round at most (default 128). */
  claim?: number;
  /**
   * An endpoint holding this many times its share of the slots here (in flight and waiting for a slot) is not
   * claimed further (default 4). Enough to keep its sockets busy from one round to the next while it drains a
   * backlog: with twice its share, one endpoint's backlog ran dry between rounds (each claim 64, a round every
   * 25–40 ms) and the loop sat idle.
   */
  hold?: number;
  /** Milliseconds between rounds at least while deliveries are in flight (default 20), so rounds record several. */
  roundGapMs?: number;
  /** Seconds a claim lasts: a worker killed while sending leaves its deliveries due again after this. */
  leaseSeconds?: number;
}

/**
 * The send loop of a worker process. Rounds run one after another on one connection: each records the attempts
 * finished since the last, gives back claims that were not sent, and claims due deliveries while fewer than
 * `inFlight` wait here that could start (app_private.send_round). Sending is continuous: a delivery starts as soon as a slot (and
 * its endpoint's share of the slots) is free, so a slow receiver holds its own slots only; its endpoint is not
 * claimed further while `hold` times its share waits here. A claim is a lease, longer than the longest wait a claimed
 * delivery can have here (its endpoint's queue ahead of it, each up to the time-out).
 */
export function startSendLoop(pool: pg.Pool, deps: TaskDeps, opts: SendLoopOptions): SendLoop {
  const maxInFlight = opts.inFlight ?? 64;
  const perEndpoint = opts.perEndpoint ?? 32;
  const claimSize = opts.claim ?? 128;
  const holdCap = (opts.hold ?? 4) * perEndpoint;
  const roundGapMs = opts.roundGapMs ?? 20;
  const skipPauseMs = Math.max(50, 2 * opts.intervalMs);
  const timeoutSeconds = deps.cfg.WEBHOOK_TIMEOUT_MS / 1000;
  const leaseSeconds = opts.leaseSeconds ?? Math.ceil(timeoutSeconds * (Math.ceil((holdCap + claimSize) / perEndpoint) + 1) + 30);
  const disableAfterHours = deps.cfg.WEBHOOK_DISABLE_AFTER_HOURS;
  const log: Logger = deps.log.child({ component: 'worker', task: 'deliveries__send', loop: true });
  const attempt = attempter(deps);
  const abort = new AbortController();
  const { nap, wake, settle } = napper();
  let stopped = false;
  /** What the next round records: attempts made, claims finished (sent or dropped) and claims given back. */
  let round: Round = { attempts: [], done: [], release: [] };

  const send = (d: DueDeliveryRow, finished: () => void) => {
    attempt(d, abort.signal)
      .then((outcome) => {
        if (outcome === 'aborted') {
          round.release.push(d.id);
          return;
        }
        round.attempts.push(outcome.attempt);
        round.done.push(d.id);
        log.info('delivery attempt', { ...outcome.fields, requestId: d.request_id ?? undefined });
      })
      .catch((err: unknown) => {
        // Never given back to be claimed again at once: whatever went wrong is a failed attempt with its backoff.
        log.error('delivery attempt failed in the worker', { deliveryId: d.id, err });
        if (round.done.includes(d.id)) return;
        round.attempts.push(attempt.unsent(d, err).attempt);
        round.done.push(d.id);
      })
      .finally(() => {
        finished();
        wake();
      });
  };
  const slots = sendSlots({ maxInFlight, perEndpoint, holdCap, claimSize, send, isStopped: () => stopped });
  /** Claimed deliveries wait in the slots; finished ones and those of a disabled endpoint are only given back. */
  const hold = (rows: DueDeliveryRow[]) => {
    for (const d of rows) {
      // Finished meanwhile, or its endpoint is disabled (enabling it makes its pending deliveries due again).
      if (d.status !== 'pending' || !d.enabled) round.done.push(d.id);
      else slots.hold(d);
    }
    slots.pump();
  };

  const loop = (async () => {
    let more = true; // the last claim came back full (or nothing was asked yet): claim again at once
    let failures = 0;
    let lastRound = 0;
    let skipShortAt = -Infinity; // when a claim passing over busy endpoints last came back short
    for (;;) {
      if (stopped) round.release.push(...slots.drain());
      const flush = round.attempts.length + round.done.length + round.release.length > 0;
      // Endpoints holding `hold` times their share here are passed over. Such a claim reads the due deliveries of those
      // endpoints too (a backlog to one busy receiver): once one came back short, the next waits skipPauseMs.
      const skipEndpoints = slots.full();
      const claim = !stopped && slots.startable() < maxInFlight && (skipEndpoints.length === 0 || performance.now() - skipShortAt >= skipPauseMs);
      if (stopped && !flush && slots.inFlight() === 0) break;
      if (!flush && !(claim && more)) {
        // Nothing to record and nothing to claim now: finished attempts, the fan-out or the next poll wake us.
        await nap(stopped ? 1000 : opts.intervalMs);
        more = true;
        continue;
      }
      // Rounds at most every roundGapMs while deliveries are in flight: each is a transaction and a commit, and
      // one per finished delivery would cost Postgres more than the deliveries themselves at a trickle.
      const since = performance.now() - lastRound;
      if (!stopped && since < roundGapMs && slots.inFlight() > 0 && round.attempts.length + round.done.length < claimSize) {
        await new Promise((resolve) => setTimeout(resolve, roundGapMs - since));
      }
      lastRound = performance.now();
      const carried = round;
      round = { attempts: [], done: [], release: [] };
      settle();
      let rows: DueDeliveryRow[];
      try {
        rows = await sendOneRound(pool, {
          ...carried,
          worker: opts.workerId,
          limit: claim ? claimSize : 0,
          leaseSeconds,
          skipEndpoints,
          disableAfterHours,
        });
      } catch (err) {
        // Nothing of the round happened: keep what it carried for the next one.
        round = { attempts: carried.attempts.concat(round.attempts), done: carried.done.concat(round.done), release: carried.release.concat(round.release) };
        failures++;
        if (stopped && failures >= 3) {
          // Stopping with the database unreachable: what was sent is sent again after the claims' lease.
          log.error('send loop stopped without recording its last attempts', {
            err,
            attempts: round.attempts.length,
            claims: round.done.length + round.release.length,
          });
          break;
        }
        log.warn('send round failed; trying again', { err });
        await nap(1000);
        continue;
      }
      failures = 0;
      hold(rows);
      more = claim && rows.length >= claimSize;
      if (claim && skipEndpoints.length && rows.length < claimSize) skipShortAt = performance.now();
    }
  })();

  return {
    wake,
    workerId: opts.workerId,
    leaseSeconds,
    room: (endpointIds) => slots.room(endpointIds),
    take: (rows) => {
      if (stopped) {
        round.release.push(...rows.map((d) => d.id));
        wake();
        return;
      }
      hold(rows);
      if (round.done.length) wake();
    },
    stop: async () => {
      stopped = true;
      abort.abort();
      wake();
      await loop;
    },
  };
}

interface Round {
  attempts: Attempt[];
  done: number[];
  release: number[];
}

/** One round on a connection of its own; a connection that failed is closed, not pooled. */
async function sendOneRound(pool: pg.Pool, args: Parameters<typeof sendRound>[1]): Promise<DueDeliveryRow[]> {
  const client = await pool.connect();
  let failed: Error | undefined;
  try {
    return await sendRound(client, args);
  } catch (err) {
    failed = err as Error;
    throw err;
  } finally {
    client.release(failed);
  }
}

/** A nap the loop takes while nothing is due, cut short by `wake` (a wake before the nap skips it). */
function napper() {
  let woken = false;
  let wakeNap = () => {};
  const wake = () => {
    woken = true;
    wakeNap();
  };
  const nap = (ms: number) =>
    new Promise<void>((resolve) => {
      if (woken) return resolve();
      const timer = setTimeout(resolve, ms);
      wakeNap = () => {
        clearTimeout(timer);
        resolve();
      };
    }).finally(() => {
      wakeNap = () => {};
      woken = false;
    });
  /** A round is starting: wakes before now are answered by it. */
  const settle = () => {
    woken = false;
  };
  return { nap, wake, settle };
}

/**
 * The slots of the loop: claimed deliveries wait here in order and start as soon as a slot and their endpoint's
 * share of the slots are free, so a slow receiver holds its own slots only.
 */
function sendSlots(o: {
  maxInFlight: number;
  perEndpoint: number;
  holdCap: number;
  claimSize: number;
  send: (d: DueDeliveryRow, finished: () => void) => void;
  isStopped: () => boolean;
}) {
  const queue: DueDeliveryRow[] = [];
  /** Per endpoint: [in flight, claimed and not finished]. */
  const perEp = new Map<string, { flying: number; held: number }>();
  let inFlight = 0;
  const ep = (id: string) => {
    let e = perEp.get(id);
    if (!e) perEp.set(id, (e = { flying: 0, held: 0 }));
    return e;
  };
  const finish = (d: DueDeliveryRow) => {
    const e = ep(d.endpoint_id);
    if (--e.held === 0) perEp.delete(d.endpoint_id);
  };
  const start = (d: DueDeliveryRow) => {
    inFlight++;
    ep(d.endpoint_id).flying++;
    o.send(d, () => {
      inFlight--;
      ep(d.endpoint_id).flying--;
      finish(d);
      pump();
    });
  };
  const pump = () => {
    for (let i = 0; i < queue.length && inFlight < o.maxInFlight && !o.isStopped();) {
      if (ep(queue[i].endpoint_id).flying >= o.perEndpoint) {
        i++;
        continue;
      }
      start(queue.splice(i, 1)[0]);
    }
  };
  return {
    hold(d: DueDeliveryRow) {
      ep(d.endpoint_id).held++;
      queue.push(d);
    },
    pump,
    inFlight: () => inFlight,
    /** Waiting deliveries that could start: those behind their endpoint's own full share do not count, so a slow or
     * failing endpoint's backlog (up to `hold` times its share) does not stop the loop claiming other endpoints'. */
    startable() {
      let n = 0;
      for (const d of queue) if (ep(d.endpoint_id).flying < o.perEndpoint) n++;
      return n;
    },
    /** Endpoints holding `hold` times their share here: not claimed further. */
    full: () => [...perEp].filter(([, e]) => e.held >= o.holdCap).map(([id]) => id),
    /** Stopping: every waiting delivery leaves the slots, to be given back. */
    drain(): number[] {
      const left = queue.splice(0);
      for (const d of left) finish(d);
      return left.map((d) => d.id);
    },
    /** As a round's claim would: up to claimSize beyond a full set of slots, and an endpoint holding `hold` times its share gets no more. */
    room(endpointIds: string[]): boolean[] {
      let total = o.maxInFlight + o.claimSize - queue.length - inFlight;
      const taken = new Map<string, number>();
      return endpointIds.map((id) => {
        if (o.isStopped() || total <= 0) return false;
        const n = taken.get(id) ?? 0;
        if ((perEp.get(id)?.held ?? 0) + n >= o.holdCap) return false;
        taken.set(id, n + 1);
        total--;
        return true;
      });
    },
  };
}
