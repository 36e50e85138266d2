// The task list and cron schedule of the graphile-worker runner. One task per file, named <noun>__<verb>.
import { EventEmitter } from 'node:events';
import { parseCronItems, run, type Runner, type TaskList, type WorkerEvents } from 'graphile-worker';
import type pg from 'pg';
import { forgetOldHeartbeats, recordWorkerHeartbeats, releaseDeadWorkers, staleLockingWorkers } from '../db/queries/maintenance.ts';
import type { Logger } from '../lib/log.ts';
import type { TaskDeps } from './context.ts';
import { deliveriesSend } from './deliveries__send.ts';
import { eventsFanOut } from './events__fan_out.ts';
import maintenancePurge from './maintenance__purge.ts';

/** Every task of the service, bound to its dependencies. */
export function createTaskList(deps: TaskDeps): TaskList {
  return {
    maintenance__purge: maintenancePurge,
    events__fan_out: eventsFanOut(deps),
    deliveries__send: deliveriesSend(deps),
  };
}

export const cronItems = parseCronItems([{ task: 'maintenance__purge', match: '17 * * * *', identifier: 'maintenance__purge' }]);


/**
 * Start a runner on the owner pool; stop it with `runner.stop()`. Each process records that its workers are
 * alive; jobs locked by workers that stopped saying so (a process killed with SIGKILL) are released at start
 * and every heartbeat, instead of after graphile-worker's four-hour lock timeout.
 */
export async function startWorker(pool: pg.Pool, opts: { concurrency: number; log: Logger; deps: TaskDeps; pollInterval?: number }): Promise<Runner> {
  const { Logger: WorkerLogger } = await import('graphile-worker');
  const logger = new WorkerLogger((scope) => (level, message, meta) => {
    const fields = { component: 'worker', jobId: scope.jobId, task: scope.taskIdentifier, ...meta };
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
  const runner = await run({
    events,
    pgPool: pool,
    taskList: createTaskList(opts.deps),
    parsedCronItems: cronItems,
    concurrency: opts.concurrency,
    noHandleSignals: true,
    pollInterval: opts.pollInterval ?? 1000,
    logger,
  });
  const safeBeat = () => beat().catch((err) => opts.log.warn('worker heartbeat failed', { err }));
  await safeBeat();
  const timer = setInterval(safeBeat, Math.max(500, (staleAfter * 1000) / 4));
  timer.unref();
  runner.promise.finally(() => clearInterval(timer)).catch(() => {});
  return runner;
}
