// Hourly housekeeping: expired OAuth tokens, old rate-limit windows and idempotency records older than 24 h
// (cron in tasks/index.ts).
import type { Task } from 'graphile-worker';

const task: Task = async (_payload, helpers) => {
  await helpers.query('select app_private.purge_expired()');
  const { rows } = await helpers.query<{ n: number }>('select app_private.purge_idempotency_keys() as n');
  helpers.logger.debug('purged expired tokens, rate-limit windows and idempotency records', { idempotencyKeys: rows[0].n });
};

export default task;
