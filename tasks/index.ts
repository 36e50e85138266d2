// The task list and cron schedule of the graphile-worker runner. One task per file, named <noun>__<verb>.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { parseCronItems, run, type JobHelpers, type Runner, type Task, type TaskList, type WorkerEvents } from 'graphile-worker';
import type pg from 'pg';
import { forgetOldHeartbeats, recordWorkerHeartbeats, releaseDeadWorkers, staleLockingWorkers } from '../db/queries/maintenance.ts';
import type { Logger } from '../lib/log.ts';
import { createMetrics } from '../lib/metrics.ts';
import { setSessionRequestId } from '../db/queries/jobs.ts';
import { closeDeliveryConnections } from '../pipelines/webhooks/deliver.ts';
import type { TaskDeps } from './context.ts';
import { heartbeatIntervalMs, workerPreset } from './liveness.ts';
import { analysesCompare } from './analyses__compare.ts';
import { analysesFacts } from './analyses__facts.ts';
import { blobsSweep } from './blobs__sweep.ts';
import { deliveriesSend, startSendLoop } from './deliveries__send.ts';
import { documentsExpire } from './documents__expire.ts';
import { documentsOcr } from './documents__ocr.ts';
import { documentsRead } from './documents__read.ts';
import { extractionsComplete } from './extractions__complete.ts';
import { extractionsExtract } from './extractions__extract.ts';
import { eventsFanOut, startOutboxPoller } from './events__fan_out.ts';
import { maintenancePurge } from './maintenance__purge.ts';
import { submissionsFinalize } from './submissions__finalize.ts';

/** Every task of the service, bound to its dependencies and instrumented (request id, log line, metrics). */
export function createTaskList(deps: TaskDeps): TaskList {
  const tasks: Record<string, Task> = {
    maintenance__purge: maintenancePurge(deps),
    events__fan_out: eventsFanOut(deps),
    deliveries__send: deliveriesSend(deps),
    documents__read: documentsRead(deps),
    documents__ocr: documentsOcr(deps),
    extractions__extract: extractionsExtract(deps),
    extractions__complete: extractionsComplete(deps),
    documents__expire: documentsExpire(deps),
    analyses__facts: analysesFacts(deps),
    analyses__compare: analysesCompare(deps),
    blobs__sweep: blobsSweep(deps),
    submissions__finalize: submissionsFinalize(deps),
  };
  return Object.fromEntries(Object.entries(tasks).map(([name, task]) => [name, instrumented(name, task, deps)]));
}

/**
 * Helpers that carry the request id of the job (payload field `request_id`, put there by
 * app_private.job_payload): its log lines, its SQL (svc.request_id, so the events and jobs it causes keep the
 * id) and the jobs it adds.
 */
function withRequestId(helpers: JobHelpers, requestId: string): JobHelpers {
  const withPgClient = (<T>(fn: (client: pg.PoolClient) => Promise<T>) =>
    helpers.withPgClient(async (client) => {
      await setSessionRequestId(client, requestId);
      try {
        return await fn(client);
      } finally {
        await setSessionRequestId(client, '').catch(() => {});
      }
    })) as JobHelpers['withPgClient'];
  return {
    ...helpers,
    logger: helpers.logger.scope({ requestId } as object),
    withPgClient,
    query: ((text: string, values?: unknown[]) => withPgClient((client) => client.query(text, values))) as JobHelpers['query'],
    addJob: ((identifier: string, payload: unknown, spec?: object) =>
      (helpers.addJob as (i: string, p: unknown, s?: object) => ReturnType<JobHelpers['addJob']>)(
        identifier,
        { ...(payload as object), request_id: requestId },
        spec,
      )) as JobHelpers['addJob'],
  };
}

/**
 * Tasks whose SQL never reads svc.request_id: the ids they write come from their rows (a delivery's request id is
 * copied onto its attempts and retry jobs by SQL). They get the request id in their log lines only, without the
 * two set_config round trips around every database call that withRequestId adds.
 */
const REQUEST_ID_IN_LOGS_ONLY = new Set(['deliveries__send']);

/** Run a task with its request id, time it into svc_job_duration_seconds and write one line per run. */
function instrumented(name: string, task: Task, deps: TaskDeps): Task {
  const metrics = (deps.metrics ??= createMetrics());
  return async (payload, helpers) => {
    // A batch job (an array payload) carries one request id when all its items share it.
    const given = new Set((Array.isArray(payload) ? payload : [payload]).map((p) => (p as { request_id?: unknown } | null)?.request_id));
    const [only] = given;
    const requestId = given.size === 1 && typeof only === 'string' && only ? only : undefined;
    const started = performance.now();
    let outcome: 'success' | 'error' = 'success';
    try {
      const withId = !requestId
        ? helpers
        : REQUEST_ID_IN_LOGS_ONLY.has(name)
          ? { ...helpers, logger: helpers.logger.scope({ requestId } as object) }
          : withRequestId(helpers, requestId);
      await task(payload, withId);
    } catch (err) {
      outcome = 'error';
      throw err;
    } finally {
      const seconds = (performance.now() - started) / 1000;
      metrics.jobDuration.observe({ task: name, outcome }, seconds);
      deps.log.info('job', {
        component: 'worker',
        jobId: helpers.job.id,
        task: name,
        requestId,
        attempt: helpers.job.attempts,
        outcome,
        ms: Math.round(seconds * 1000),
      });
    }
  };
}

function only(tasks: TaskList, names: string[] | undefined): TaskList {
  return names ? Object.fromEntries(Object.entries(tasks).filter(([name]) => names.includes(name))) : tasks;
}

export const cronItems = parseCronItems([
  { task: 'maintenance__purge', match: '17 * * * *', identifier: 'maintenance__purge' },
  { task: 'documents__expire', match: '41 * * * *', identifier: 'documents__expire' },
]);

/**
 * Start a runner on the owner pool; stop it with `runner.stop()`. Each process records that its workers are
 * alive; jobs locked by workers that stopped saying so (a process killed with SIGKILL) are released at start
 * and every heartbeat, instead of after graphile-worker's four-hour lock timeout.
 */
export async function startWorker(
  pool: pg.Pool,
  opts: {
    concurrency: number;
    log: Logger;
    deps: TaskDeps;
    pollInterval?: number;
    /** Milliseconds between polls of the events outbox and of due deliveries while none waits (default 25). */
    outboxPollInterval?: number;
    /** Run only these tasks (benches time one stage); the outbox poller runs with events__fan_out, the send loop with deliveries__send. */
    only?: string[];
  },
): Promise<Runner> {
  const { Logger: WorkerLogger } = await import('graphile-worker');
  const logger = new WorkerLogger((scope) => (level, message, meta) => {
    const fields = { component: 'worker', jobId: scope.jobId, task: scope.taskIdentifier, requestId: (scope as { requestId?: string }).requestId, ...meta };
    if (level === 'error') opts.log.error(message, fields);
    else if (level === 'warning') opts.log.warn(message, fields);
    else opts.log.debug(message, fields);
  });
  const workerIds = new Set<string>();
  const staleAfter = opts.deps.cfg.WORKER_STALE_AFTER_SECONDS;
  const beat = async () => {
    if (workerIds.size) await recordWorkerHeartbeats(pool, [...workerIds]);
    const dead = await staleLockingWorkers(pool, [...workerIds], staleAfter);
    if (dead.length) {
      await releaseDeadWorkers(pool, dead);
      opts.log.warn('released jobs of workers that stopped without unlocking them', { workers: dead });
    }
    await forgetOldHeartbeats(pool);
  };
  const events = new EventEmitter() as WorkerEvents;
  events.on('worker:create', ({ worker }) => workerIds.add(worker.workerId));
  events.on('worker:stop', ({ worker }) => workerIds.delete(worker.workerId));
  // The local queue locks the jobs it fetches in the pool's name, so the pool says it is alive too.
  events.on('pool:create', ({ workerPool }) => workerIds.add(workerPool.id));
  events.on('pool:release', ({ workerPool }) => workerIds.delete(workerPool.id));
  const runner = await run({
    events,
    pgPool: pool,
    taskList: only(createTaskList(opts.deps), opts.only),
    parsedCronItems: opts.only ? [] : cronItems,
    concurrency: opts.concurrency,
    noHandleSignals: true,
    pollInterval: opts.pollInterval ?? 1000,
    logger,
    preset: { worker: workerPreset(opts.concurrency) },
  });
  // First attempts wait in app_private.deliveries_due (0015) until this loop sends them.
  // Its claims name it, and it beats with this process's workers, so a live process gives back a dead one's claims.
  const senderId = `send_loop_${randomUUID()}`;
  const sender =
    !opts.only || opts.only.includes('deliveries__send')
      ? startSendLoop(pool, opts.deps, { intervalMs: opts.outboxPollInterval ?? 25, workerId: senderId })
      : null;
  if (sender) workerIds.add(senderId);
  // Events wait in the outbox (0014) until this poller fans them out; both stop before the runner does.
  const poller =
    !opts.only || opts.only.includes('events__fan_out')
      ? startOutboxPoller(pool, opts.deps, { intervalMs: opts.outboxPollInterval ?? 25, sendLoop: sender ?? undefined })
      : null;
  // The poller first: what it hands over while stopping is given back by the loop's last round.
  runner.promise
    .finally(async () => {
      await poller?.stop();
      await sender?.stop();
    })
    .catch(() => {});
  runner.promise.finally(() => closeDeliveryConnections()).catch(() => {});
  const safeBeat = () => beat().catch((err) => opts.log.warn('worker heartbeat failed', { err }));
  await safeBeat();
  const timer = setInterval(safeBeat, heartbeatIntervalMs(staleAfter));
  timer.unref();
  runner.promise.finally(() => clearInterval(timer)).catch(() => {});
  return {
    ...runner,
    stop: async (reason?: string) => {
      await poller?.stop();
      await sender?.stop();
      await runner.stop(reason);
    },
  };
}
