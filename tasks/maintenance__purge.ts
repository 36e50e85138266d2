// Hourly housekeeping: expired OAuth tokens, old rate-limit windows, idempotency records older than 24 h,
// dashboard links and sessions long past use, and hosted-form uploads no submission claimed in
// HOSTED_UPLOAD_RETENTION_HOURS (their files go to blobs__sweep), and job queue rows no job uses (cron in
// tasks/index.ts).
import type { Task } from 'graphile-worker';
import { purgeIdempotencyKeys } from '../db/queries/idempotency.ts';
import { purgeAbandonedUploads, purgeDashboardSessions, purgeExpired, purgeIdleJobQueues } from '../db/queries/maintenance.ts';
import { untilShortBatch } from './batches.ts';
import type { TaskDeps } from './context.ts';

export function maintenancePurge(deps: TaskDeps): Task {
  return async (_payload, helpers) => {
    await purgeExpired(helpers);
    await purgeDashboardSessions(helpers);
    const idempotencyKeys = await purgeIdempotencyKeys(helpers);
    const uploads = await untilShortBatch(500, (size) => purgeAbandonedUploads(helpers, deps.cfg.HOSTED_UPLOAD_RETENTION_HOURS, size));
    const jobQueues = await purgeIdleJobQueues(helpers);
    helpers.logger.debug('purged expired tokens, rate-limit windows, idempotency records, abandoned uploads and idle job queues', {
      idempotencyKeys,
      uploads,
      jobQueues,
    });
  };
}
