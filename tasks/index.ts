// The task list and cron schedule of the graphile-worker runner. One task per file, named <noun>__<verb>.
import { parseCronItems, run, type Runner, type TaskList } from 'graphile-worker';
import type pg from 'pg';
import type { Logger } from '../lib/log.ts';
import maintenancePurge from './maintenance__purge.ts';

export const taskList: TaskList = {
  maintenance__purge: maintenancePurge,
};

export const cronItems = parseCronItems([{ task: 'maintenance__purge', match: '17 * * * *', identifier: 'maintenance__purge' }]);

/** Start a runner on the owner pool; stop it with `runner.stop()`. */
export async function startWorker(pool: pg.Pool, opts: { concurrency: number; log: Logger }): Promise<Runner> {
  const { Logger: WorkerLogger } = await import('graphile-worker');
  const logger = new WorkerLogger((scope) => (level, message, meta) => {
    const fields = { component: 'worker', jobId: scope.jobId, task: scope.taskIdentifier, ...meta };
    if (level === 'error') opts.log.error(message, fields);
    else if (level === 'warning') opts.log.warn(message, fields);
    else opts.log.debug(message, fields);
  });
  return run({ pgPool: pool, taskList, parsedCronItems: cronItems, concurrency: opts.concurrency, noHandleSignals: true, pollInterval: 1000, logger });
}
