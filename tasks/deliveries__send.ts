// Attempts of deliveries: sign, POST (SSRF-checked, no redirects, time-out, kept-alive connection per pinned
// address), log every attempt, and let app_private.record_delivery_attempts finish each delivery or queue its
// next attempt.
// First attempts are sent by the worker's send loop (startSendLoop, 0015): it claims due deliveries
// (app_private.deliveries_due) for a lease, sends them, and records what it sent, gives back what it did not
// and claims the next ones in one statement (app_private.send_round, one asynchronous commit per round). The
// fan-out of the same process hands it the deliveries it has room for already claimed (room/take, 0019).
// Retries, redeliveries and test sends are deliveries__send jobs: one delivery each, or a batch of one endpoint's
// first attempts queued before 0015, read and recorded in one statement each.
import type { Task } from 'graphile-worker';
import type pg from 'pg';
import { z } from 'zod';
import {
  deliveriesToSend,
  recordDeliveryAttempts,
  sendRound,
  type DeliveryAttempt,
  type DeliveryInBatchRow,
  type DueDeliveryRow,
} from '../db/queries/deliveries.ts';
import { decryptSecret } from '../lib/crypto.ts';
import type { Logger } from '../lib/log.ts';
import { nextAttemptDelay } from '../pipelines/webhooks/backoff.ts';
import { createDeliverer, EndpointAuth, unsentAttempt, type DeliveryAttemptResult } from '../pipelines/webhooks/deliver.ts';
import type { TaskDeps } from './context.ts';

const item = z.object({ delivery_id: z.number().int().positive() });
const payload = z.union([item, z.array(item).min(1)]);

/** How many deliveries of one batch job are in flight at once. */
const BATCH_PARALLELISM = 16;

type Attempt = DeliveryAttempt & { deliveryId: number };
type Outcome = { attempt: Attempt; fields: Record<string, unknown> } | 'aborted';

/**
 * One attempt of a delivery, as the value to record (or 'aborted' when the worker is shutting down); it never throws.
 * `unsent` turns an error met around an attempt into a failed attempt to record, with its backoff.
 */
type Attempter = ((d: DeliveryInBatchRow, signal: AbortSignal) => Promise<Outcome>) & {
  unsent(d: DeliveryInBatchRow, err: unknown): Exclude<Outcome, 'aborted'>;
};

function attempter(deps: TaskDeps): Attempter {
  const allow = deps.cfg.WEBHOOK_ALLOW_HOSTS;
  const allowCidrs = allow.filter((h) => h.includes('/'));
  const allowHosts = allow.filter((h) => !h.includes('/'));
  const schedule = deps.cfg.WEBHOOK_RETRY_SCHEDULE.length ? deps.cfg.WEBHOOK_RETRY_SCHEDULE : undefined;
  // Options checked once; each attempt's request comes from the database (its credentials checked when opened).
  const send = createDeliverer({ timeoutMs: deps.cfg.WEBHOOK_TIMEOUT_MS, allowHosts, allowCidrs, keepAlive: true });
  // Decrypting (and checking credentials) is cheap but not free; deliveries to one endpoint share its secret.
  const opened = new Map<string, unknown>();
  const open = <T>(ciphertext: string, make: (plain: string) => T): T => {
    if (!opened.has(ciphertext)) {
      if (opened.size > 1000) opened.clear();
      opened.set(ciphertext, make(decryptSecret(deps.secretKey, ciphertext)));
    }
    return opened.get(ciphertext) as T;
  };
  const attempt = async (d: DeliveryInBatchRow, signal: AbortSignal): Promise<Outcome> => {
    const startedAt = new Date();
    const began = performance.now();
    let result: DeliveryAttemptResult;
    try {
      const secret = open(d.secret_ciphertext, (plain) => plain);
      const auth = d.auth_ciphertext ? open(d.auth_ciphertext, (plain) => EndpointAuth.parse(JSON.parse(plain))) : null;
      result = await send(
        { url: d.url, body: d.body, secret, webhookId: d.message_id, auth },
        { requireHttps: deps.cfg.WEBHOOK_REQUIRE_HTTPS && d.mode === 'live' && !d.is_test, signal },
      );
    } catch (err) {
      // Anything that throws before or while sending (credentials that no longer decrypt or parse, a header Node
      // refuses) is a failed attempt like a refused connection: recorded, with its backoff. A caller that retried a
      // thrown attempt at once would spin on it without end.
      result = unsentAttempt(performance.now() - began, err);
    }
    // The worker is shutting down: this attempt did not happen.
    if (result.error?.code === 'aborted') return 'aborted';
    return outcomeOf(d, startedAt, result);
  };
  const outcomeOf = (d: DeliveryInBatchRow, startedAt: Date, result: DeliveryAttemptResult): Exclude<Outcome, 'aborted'> => {
    const retryIn = result.ok ? null : nextAttemptDelay(d.attempt_count + 1, { maxAttempts: deps.cfg.WEBHOOK_MAX_ATTEMPTS, ...(schedule ? { schedule } : {}) });
    const errorMessage =
      result.error?.message ??
      (result.ok ? null : result.location ? `HTTP ${result.status} redirect to ${result.location} (not followed)` : `HTTP ${result.status}`);
    deps.metrics?.deliveries.inc({ outcome: result.ok ? 'delivered' : retryIn === null ? 'failed' : 'retry' });
    return {
      attempt: {
        deliveryId: d.id,
        startedAt,
        durationMs: Math.round(result.duration_ms),
        statusCode: result.status,
        responseHeaders: result.response_headers,
        responseBody: result.response_body,
        errorCode: result.error?.code ?? (result.ok ? null : 'http_status'),
        errorMessage,
        ok: result.ok,
        gone: result.disable,
        retryInSeconds: retryIn,
      },
      fields: { deliveryId: d.id, attempt: d.attempt_count + 1, status: result.status, ok: result.ok, error: result.error?.code, retryIn },
    };
  };
  return Object.assign(attempt, { unsent: (d: DeliveryInBatchRow, err: unknown) => outcomeOf(d, new Date(), unsentAttempt(0, err)) });
}

export function deliveriesSend(deps: TaskDeps): Task {
  const attempt = attempter(deps);
  return async (raw, helpers) => {
    const parsed = payload.parse(raw);
    const ids = [...new Set((Array.isArray(parsed) ? parsed : [parsed]).map((p) => p.delivery_id))];
    // Named statements: each pooled connection plans them once.
    const rows = await helpers.withPgClient((c) => deliveriesToSend(c, ids));
    // Delivered, failed or removed with their endpoint: no longer relevant. A disabled endpoint's pending
    // deliveries are made due again by set_webhook_endpoint_enabled when it is enabled.
    const todo = rows.filter((d) => d.enabled);
    if (!todo.length) return;

    const attempts: Attempt[] = [];
    let aborted = false;
    let next = 0;
    const sendOne = async (d: DeliveryInBatchRow) => {
      const outcome = await attempt(d, helpers.abortSignal);
      // The worker is shutting down: this attempt did not happen; the job runs again.
      if (outcome === 'aborted') {
        aborted = true;
        return;
      }
      attempts.push(outcome.attempt);
      if (outcome.attempt.ok) helpers.logger.debug('delivery attempt', outcome.fields);
      else helpers.logger.info('delivery attempt', outcome.fields);
    };
    await Promise.all(
      Array.from({ length: Math.min(BATCH_PARALLELISM, todo.length) }, async () => {
        while (next < todo.length && !aborted) await sendOne(todo[next++]);
      }),
    );
    // What was sent is recorded even when shutdown cut the batch short; the rest runs again with the job.
    if (attempts.length) {
      await helpers.withPgClient((c) => recordDeliveryAttempts(c, attempts, deps.cfg.WEBHOOK_DISABLE_AFTER_HOURS));
    }
    helpers.logger.debug('delivery batch sent', { deliveries: todo.length, recorded: attempts.length });
    if (aborted) throw new Error('delivery aborted by worker shutdown');
  };
}

/** What the fan-out of the same process needs of its send loop to hand it deliveries already claimed (0019). */
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

  const queue: DueDeliveryRow[] = [];
  /** Per endpoint: [in flight, claimed and not finished]. */
  const perEp = new Map<string, { flying: number; held: number }>();
  let inFlight = 0;
  let attempts: Attempt[] = [];
  let done: number[] = [];
  let release: number[] = [];
  let stopped = false;
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
    attempt(d, abort.signal)
      .then((outcome) => {
        if (outcome === 'aborted') {
          release.push(d.id);
          return;
        }
        attempts.push(outcome.attempt);
        done.push(d.id);
        const fields = { ...outcome.fields, requestId: d.request_id ?? undefined };
        log.info('delivery attempt', fields);
      })
      .catch((err: unknown) => {
        // Never given back to be claimed again at once: whatever went wrong is a failed attempt with its backoff.
        log.error('delivery attempt failed in the worker', { deliveryId: d.id, err });
        if (done.includes(d.id)) return;
        attempts.push(attempt.unsent(d, err).attempt);
        done.push(d.id);
      })
      .finally(() => {
        inFlight--;
        ep(d.endpoint_id).flying--;
        finish(d);
        pump();
        wake();
      });
  };
  /** Claimed deliveries wait here for a slot; finished ones and those of a disabled endpoint are only given back. */
  const hold = (rows: DueDeliveryRow[]) => {
    for (const d of rows) {
      if (d.status !== 'pending' || !d.enabled) {
        // Finished meanwhile, or its endpoint is disabled (enabling it makes its pending deliveries due again).
        done.push(d.id);
        continue;
      }
      ep(d.endpoint_id).held++;
      queue.push(d);
    }
  };
  const pump = () => {
    for (let i = 0; i < queue.length && inFlight < maxInFlight && !stopped;) {
      if (ep(queue[i].endpoint_id).flying >= perEndpoint) {
        i++;
        continue;
      }
      start(queue.splice(i, 1)[0]);
    }
  };

  const loop = (async () => {
    let more = true; // the last claim came back full (or nothing was asked yet): claim again at once
    let failures = 0;
    let lastRound = 0;
    let skipShortAt = -Infinity; // when a claim passing over busy endpoints last came back short
    for (;;) {
      if (stopped) {
        for (const d of queue.splice(0)) {
          release.push(d.id);
          finish(d);
        }
      }
      const flush = attempts.length + done.length + release.length > 0;
      // Endpoints holding `hold` times their share here are passed over. Such a claim reads the due deliveries of those
      // endpoints too (a backlog to one busy receiver): once one came back short, the next waits skipPauseMs.
      const skipEndpoints = [...perEp].filter(([, e]) => e.held >= holdCap).map(([id]) => id);
      // Deliveries waiting behind their endpoint's own full share of slots do not count: a slow or failing endpoint's
      // backlog (up to `hold` times its share) must not stop the loop claiming other endpoints' deliveries.
      let startable = 0;
      for (const d of queue) if (ep(d.endpoint_id).flying < perEndpoint) startable++;
      const claim = !stopped && startable < maxInFlight && (skipEndpoints.length === 0 || performance.now() - skipShortAt >= skipPauseMs);
      if (stopped && !flush && inFlight === 0) break;
      if (!flush && !(claim && more)) {
        // Nothing to record and nothing to claim now: finished attempts, the fan-out or the next poll wake us.
        await nap(stopped ? 1000 : opts.intervalMs);
        more = true;
        continue;
      }
      // Rounds at most every roundGapMs while deliveries are in flight: each is a transaction and a commit, and
      // one per finished delivery would cost Postgres more than the deliveries themselves at a trickle.
      const since = performance.now() - lastRound;
      if (!stopped && since < roundGapMs && inFlight > 0 && attempts.length + done.length < claimSize) {
        await new Promise((resolve) => setTimeout(resolve, roundGapMs - since));
      }
      lastRound = performance.now();
      const round = { attempts, done, release };
      attempts = [];
      done = [];
      release = [];
      woken = false;
      let rows: DueDeliveryRow[];
      try {
        const client = await pool.connect();
        let failed: Error | undefined;
        try {
          rows = await sendRound(client, {
            ...round,
            worker: opts.workerId,
            limit: claim ? claimSize : 0,
            leaseSeconds,
            skipEndpoints,
            disableAfterHours,
          });
        } catch (err) {
          failed = err as Error;
          throw err;
        } finally {
          client.release(failed);
        }
      } catch (err) {
        // Nothing of the round happened: keep what it carried for the next one.
        attempts = round.attempts.concat(attempts);
        done = round.done.concat(done);
        release = round.release.concat(release);
        failures++;
        if (stopped && failures >= 3) {
          // Stopping with the database unreachable: what was sent is sent again after the claims' lease.
          log.error('send loop stopped without recording its last attempts', { err, attempts: attempts.length, claims: done.length + release.length });
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
      pump();
    }
  })();

  return {
    wake,
    workerId: opts.workerId,
    leaseSeconds,
    room: (endpointIds) => {
      // As a round's claim: up to claimSize beyond a full set of slots, and an endpoint holding `hold` times its share gets no more.
      let total = maxInFlight + claimSize - queue.length - inFlight;
      const taken = new Map<string, number>();
      return endpointIds.map((id) => {
        if (stopped || total <= 0) return false;
        const n = taken.get(id) ?? 0;
        if ((perEp.get(id)?.held ?? 0) + n >= holdCap) return false;
        taken.set(id, n + 1);
        total--;
        return true;
      });
    },
    take: (rows) => {
      if (stopped) {
        release.push(...rows.map((d) => d.id));
        wake();
        return;
      }
      hold(rows);
      pump();
      if (done.length) wake();
    },
    stop: async () => {
      stopped = true;
      abort.abort();
      wake();
      await loop;
    },
  };
}
