// The task list, the cron schedule and the graphile-worker runners of each kind of work. One task per file, named
// <noun>__<verb>.
import { randomUUID } from 'node:crypto';
import { EventEmitter } from 'node:events';
import { parseCronItems, run, type JobHelpers, type Runner, type RunnerOptions, type Task, type TaskList, type WorkerEvents } from 'graphile-worker';
import pg from 'pg';
import { forgetOldHeartbeats, recordWorkerHeartbeats, releaseDeadWorkers, staleLockingWorkers } from '../db/queries/maintenance.ts';
import type { Logger } from '../lib/log.ts';
import { createMetrics } from '../lib/metrics.ts';
import { setDocumentFairShare, setSessionRequestId } from '../db/queries/jobs.ts';
import { closeDeliveryConnections } from '../pipelines/webhooks/deliver.ts';
import type { TaskDeps } from './context.ts';
import { heartbeatIntervalMs, workerPreset } from './liveness.ts';
import { analysesCompare } from './analyses__compare.ts';
import { analysesFacts } from './analyses__facts.ts';
import { blobsSweep } from './blobs__sweep.ts';
import { deliveriesSend } from './deliveries__send.ts';
import { startOutboxPoller } from './webhooks/outbox.ts';
import { startSendLoop } from './webhooks/send_loop.ts';
import { documentsExpire } from './documents__expire.ts';
import { documentsOcr } from './documents__ocr.ts';
import { documentsRead } from './documents__read.ts';
import { extractionsComplete } from './extractions__complete.ts';
import { extractionsExtract } from './extractions__extract.ts';
import { formDraftsPurge } from './form_drafts__purge.ts';
import { maintenancePurge } from './maintenance__purge.ts';
import { submissionsFinalize } from './submissions__finalize.ts';

/** Every task of the service, bound to its dependencies and instrumented (request id, log line, metrics). */
export function createTaskList(deps: TaskDeps): TaskList {
  const tasks: Record<string, Task> = {
    maintenance__purge: maintenancePurge(deps),
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
    form_drafts__purge: formDraftsPurge(deps),
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

/** When a worker that finished a job looks for the next one again (ms after the job's end). */
const AFTER_COMPLETION_MS = [10, 50, 250];

/** OCR pages: the scans runner's tasks. */
export const SCAN_TASKS = new Set(['documents__ocr']);
/** The other stages of a document's work: the documents runner's tasks. */
export const DOCUMENT_TASKS = new Set(['documents__read', 'extractions__extract', 'extractions__complete', 'analyses__facts', 'analyses__compare']);

/**
 * The task list split by kind of work, each kind run by a runner of its own with its own concurrency, so no kind
 * waits for slots another holds: OCR pages (scans), the other document stages (documents) and everything else
 * (webhook retries, fan-out, housekeeping). Kinds with no task left are dropped.
 */
export function tasksByKind(tasks: TaskList): { general: TaskList; documents: TaskList; scans: TaskList } {
  const pick = (keep: (name: string) => boolean) => Object.fromEntries(Object.entries(tasks).filter(([name]) => keep(name)));
  return {
    general: pick((n) => !SCAN_TASKS.has(n) && !DOCUMENT_TASKS.has(n)),
    documents: pick((n) => DOCUMENT_TASKS.has(n)),
    scans: pick((n) => SCAN_TASKS.has(n)),
  };
}

export const cronItems = parseCronItems([
  { task: 'maintenance__purge', match: '17 * * * *', identifier: 'maintenance__purge' },
  { task: 'documents__expire', match: '41 * * * *', identifier: 'documents__expire' },
  { task: 'form_drafts__purge', match: '29 * * * *', identifier: 'form_drafts__purge' },
]);

/**
 * Start a runner on the owner pool; stop it with `runner.stop()`. Each process records that its workers are
 * alive; jobs locked by workers that stopped saying so (a process killed with SIGKILL) are released at start
 * and every heartbeat, instead of after graphile-worker's four-hour lock timeout.
 */
export async function startWorker(
  pool: pg.Pool,
  opts: {
    /** Jobs at once besides documents (webhook retries, fan-out, housekeeping). */
    concurrency: number;
    /** Text stages of documents at once (default DOCUMENT_CONCURRENCY). */
    documentConcurrency?: number;
    /** OCR pages at once (default OCR_CONCURRENCY). */
    ocrConcurrency?: number;
    log: Logger;
    deps: TaskDeps;
    pollInterval?: number;
    /** Milliseconds between polls of the events outbox and of due deliveries while none waits (default 25). */
    outboxPollInterval?: number;
    /** Run only these tasks (benches time one stage); the outbox poller runs with 'events__fan_out' (its name in logs), the send loop with deliveries__send. */
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
  // A worker that finishes a job looks for the next one at once, before graphile-worker's completion of the job
  // (not awaited) has unlocked its named queue: a document's next stage, queued by the job into that queue, was
  // then found only at the next poll (a second: an analysis over HTTP took 1-2 s for 150 ms of work, and each page
  // of a scan waited for it). So the worker is nudged to look again once the completion has had time to land.
  events.on('job:complete', ({ worker }) => {
    const nudge = () => {
      if (!workerIds.has(worker.workerId)) return; // stopped meanwhile
      try {
        worker.nudge();
      } catch {
        // graphile-worker refuses a nudge once the worker is shutting down: nothing to look for then.
      }
    };
    for (const ms of AFTER_COMPLETION_MS) setTimeout(nudge, ms).unref();
  });
  // How many queues of each kind an agency's document jobs are spread over (app_private.document_job_queue).
  await setDocumentFairShare(pool, opts.deps.cfg.DOCUMENT_JOBS_PER_AGENCY);
  const kinds = tasksByKind(only(createTaskList(opts.deps), opts.only));
  const common = { events, noHandleSignals: true, pollInterval: opts.pollInterval ?? 1000, logger };
  const runners: Runner[] = [];
  const ownPools: pg.Pool[] = [];
  // The document kinds get connections of their own (their jobs, the runner's LISTEN and fetches), so none waits
  // for a connection another kind holds.
  const poolOfKind = (concurrency: number) => {
    const own = new pg.Pool({ ...pool.options, max: concurrency + 2, application_name: 'svc-worker-documents' });
    own.on('error', () => {});
    own.on('connect', (client) => client.on('error', () => {}));
    ownPools.push(own);
    return own;
  };
  const startKind = async (taskList: TaskList, options: Partial<RunnerOptions> & { pgPool: pg.Pool }) => {
    if (Object.keys(taskList).length) runners.push(await run({ ...common, taskList, ...options }));
  };
  try {
    await startKind(kinds.general, {
      pgPool: pool,
      parsedCronItems: opts.only ? [] : cronItems,
      concurrency: opts.concurrency,
      preset: { worker: workerPreset(opts.concurrency) },
    });
    // Document jobs wait in their agency's named queues, each running one job at a time: fetched one by one,
    // since graphile-worker's local queue fetches in batches that can hold two jobs of one queue (graphile/worker#621).
    // Their own cron list is empty: the general runner schedules.
    const documentConcurrency = opts.documentConcurrency ?? opts.deps.cfg.DOCUMENT_CONCURRENCY;
    const ocrConcurrency = opts.ocrConcurrency ?? opts.deps.cfg.OCR_CONCURRENCY;
    for (const [taskList, concurrency] of [
      [kinds.documents, documentConcurrency],
      [kinds.scans, ocrConcurrency],
    ] as const) {
      if (!Object.keys(taskList).length) continue;
      await startKind(taskList, { pgPool: poolOfKind(concurrency), parsedCronItems: [], concurrency, preset: { worker: singleFetchPreset } });
    }
  } catch (err) {
    await Promise.all(runners.map((r) => r.stop().catch(() => {})));
    await Promise.all(ownPools.map((p) => p.end().catch(() => {})));
    throw err;
  }
  const runner = combinedRunner(runners, events);
  runner.promise.finally(() => Promise.all(ownPools.map((p) => p.end().catch(() => {})))).catch(() => {});
  // First attempts wait in app_private.deliveries_due until this loop sends them.
  // Its claims name it, and it beats with this process's workers, so a live process gives back a dead one's claims.
  const senderId = `send_loop_${randomUUID()}`;
  const sender =
    !opts.only || opts.only.includes('deliveries__send')
      ? startSendLoop(pool, opts.deps, {
          intervalMs: opts.outboxPollInterval ?? 25,
          workerId: senderId,
          inFlight: opts.deps.cfg.WEBHOOK_CONCURRENCY,
          // One endpoint takes at most half the slots (and no more than its kept-alive sockets).
          perEndpoint: Math.min(32, Math.max(1, Math.ceil(opts.deps.cfg.WEBHOOK_CONCURRENCY / 2))),
        })
      : null;
  if (sender) workerIds.add(senderId);
  // Events wait in the outbox until this poller fans them out; both stop before the runner does.
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
      await Promise.all(ownPools.map((p) => p.end().catch(() => {})));
    },
  };
}

/** Fetch one job per round trip and complete each at once: what named queues need to stay one job at a time. */
const singleFetchPreset = { completeJobBatchDelay: -1, failJobBatchDelay: -1 };

/**
 * Several runners as one: one promise, stopped together, jobs added through the first. A worker asked to run only
 * the outbox poller or the send loop has no runner at all: its promise then lasts until it is stopped.
 */
function combinedRunner(runners: Runner[], events: WorkerEvents): Runner {
  let ended = () => {};
  const idle = runners.length ? undefined : new Promise<void>((resolve) => (ended = resolve));
  const noTasks: Runner['addJob'] = async () => {
    throw new Error('this worker runs no tasks (only the outbox poller or the send loop): add jobs through another');
  };
  return {
    events,
    addJob: runners[0]?.addJob ?? noTasks,
    promise: idle ?? Promise.all(runners.map((r) => r.promise)).then(() => {}),
    stop: async (reason?: string) => {
      await Promise.all(runners.map((r) => r.stop(reason)));
      ended();
    },
    kill: async (reason?: string) => {
      await Promise.all(runners.map((r) => r.kill(reason)));
      ended();
    },
  };
}
