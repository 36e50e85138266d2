// Retries, redeliveries and test sends: one delivery each, a graphile-worker job at its own run_at
// (app_private.queue_delivery). First attempts are not jobs: the worker's send loop claims them
// (tasks/webhooks/send_loop.ts). Either way app_private.record_delivery_attempts finishes the delivery or queues
// its next attempt.
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { deliveriesToSend, recordDeliveryAttempts } from '../db/queries/deliveries.ts';
import type { TaskDeps } from './context.ts';
import { attempter } from './webhooks/attempt.ts';

const payload = z.object({ delivery_id: z.number().int().positive() });

export function deliveriesSend(deps: TaskDeps): Task {
  const attempt = attempter(deps);
  return async (raw, helpers) => {
    const { delivery_id } = payload.parse(raw);
    // Named statements: each pooled connection plans them once.
    const [d] = await helpers.withPgClient((c) => deliveriesToSend(c, [delivery_id]));
    // Delivered, failed or removed with its endpoint: no longer relevant. A disabled endpoint's pending
    // deliveries are made due again by set_webhook_endpoint_enabled when it is enabled.
    if (!d?.enabled) return;
    const outcome = await attempt(d, helpers.abortSignal);
    // The worker is shutting down: this attempt did not happen; the job runs again.
    if (outcome === 'aborted') throw new Error('delivery aborted by worker shutdown');
    await helpers.withPgClient((c) => recordDeliveryAttempts(c, [outcome.attempt], deps.cfg.WEBHOOK_DISABLE_AFTER_HOURS));
    if (outcome.attempt.ok) helpers.logger.debug('delivery attempt', outcome.fields);
    else helpers.logger.info('delivery attempt', outcome.fields);
  };
}
