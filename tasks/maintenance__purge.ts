// Hourly housekeeping: expired OAuth tokens and old rate-limit windows (cron in tasks/index.ts).
import type { Task } from 'graphile-worker';

const task: Task = async (_payload, helpers) => {
  await helpers.query('select app_private.purge_expired()');
  helpers.logger.debug('purged expired tokens and rate-limit windows');
};

export default task;
