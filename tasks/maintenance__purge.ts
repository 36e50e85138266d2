// Hourly housekeeping: expired OAuth tokens, old rate-limit windows, idempotency records older than 24 h and
// dashboard links and sessions long past use
// (cron in tasks/index.ts).
import type { Task } from 'graphile-worker';
import { purgeIdempotencyKeys } from '../db/queries/idempotency.ts';
import { purgeDashboardSessions, purgeExpired } from '../db/queries/maintenance.ts';

const task: Task = async (_payload, helpers) => {
  await purgeExpired(helpers);
  await purgeDashboardSessions(helpers);
  const idempotencyKeys = await purgeIdempotencyKeys(helpers);
  helpers.logger.debug('purged expired tokens, rate-limit windows and idempotency records', { idempotencyKeys });
};

export default task;
