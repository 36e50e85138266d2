// Attempts of deliveries: sign, POST (SSRF-checked, no redirects, time-out, kept-alive connection per pinned
// address), log every attempt, and let app_private.record_delivery_attempts finish each delivery or queue its
// next attempt. The payload is one delivery (a retry) or a batch of one endpoint's first attempts
// (app_private.queue_deliveries appends to the endpoint's waiting job), read and recorded in one statement each.
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { deliveriesToSend, recordDeliveryAttempts, type DeliveryAttempt, type DeliveryInBatchRow } from '../db/queries/deliveries.ts';
import { decryptSecret } from '../lib/crypto.ts';
import { nextAttemptDelay } from '../pipelines/webhooks/backoff.ts';
import { deliver, type DeliveryAttemptResult, type EndpointAuth } from '../pipelines/webhooks/deliver.ts';
import type { TaskDeps } from './context.ts';

const item = z.object({ delivery_id: z.number().int().positive() });
const payload = z.union([item, z.array(item).min(1)]);

/** How many deliveries of one batch are in flight at once. */
const BATCH_PARALLELISM = 16;

export function deliveriesSend(deps: TaskDeps): Task {
  const allow = deps.cfg.WEBHOOK_ALLOW_HOSTS;
  const allowCidrs = allow.filter((h) => h.includes('/'));
  const allowHosts = allow.filter((h) => !h.includes('/'));
  const schedule = deps.cfg.WEBHOOK_RETRY_SCHEDULE.length ? deps.cfg.WEBHOOK_RETRY_SCHEDULE : undefined;
  // Decrypting is cheap but not free; a batch shares its endpoint's secret.
  const opened = new Map<string, string>();
  const open = (ciphertext: string) => {
    let s = opened.get(ciphertext);
    if (s === undefined) {
      s = decryptSecret(deps.secretKey, ciphertext);
      if (opened.size > 1000) opened.clear();
      opened.set(ciphertext, s);
    }
    return s;
  };

  return async (raw, helpers) => {
    const parsed = payload.parse(raw);
    const ids = [...new Set((Array.isArray(parsed) ? parsed : [parsed]).map((p) => p.delivery_id))];
    // Named statements: each pooled connection plans them once.
    const rows = await helpers.withPgClient((c) => deliveriesToSend(c, ids));
    // Delivered, failed or removed with their endpoint: no longer relevant. A disabled endpoint's pending
    // deliveries are queued again by set_webhook_endpoint_enabled when it is enabled.
    const todo = rows.filter((d) => d.enabled);
    if (!todo.length) return;

    const attempts: Array<DeliveryAttempt & { deliveryId: number }> = [];
    let aborted = false;
    let next = 0;
    const sendOne = async (d: DeliveryInBatchRow) => {
      const secret = open(d.secret_ciphertext);
      const auth = d.auth_ciphertext ? (JSON.parse(open(d.auth_ciphertext)) as EndpointAuth) : null;
      const startedAt = new Date();
      const result: DeliveryAttemptResult = await deliver(
        { url: d.url, body: d.body, secret, webhookId: d.message_id, auth },
        {
          timeoutMs: deps.cfg.WEBHOOK_TIMEOUT_MS,
          requireHttps: deps.cfg.WEBHOOK_REQUIRE_HTTPS && d.mode === 'live' && !d.is_test,
          allowHosts,
          allowCidrs,
          signal: helpers.abortSignal,
          keepAlive: true,
        },
      );
      // The worker is shutting down: this attempt did not happen; the job runs again.
      if (result.error?.code === 'aborted') {
        aborted = true;
        return;
      }
      const retryIn = result.ok
        ? null
        : nextAttemptDelay(d.attempt_count + 1, { maxAttempts: deps.cfg.WEBHOOK_MAX_ATTEMPTS, ...(schedule ? { schedule } : {}) });
      const errorMessage =
        result.error?.message ??
        (result.ok ? null : result.location ? `HTTP ${result.status} redirect to ${result.location} (not followed)` : `HTTP ${result.status}`);
      attempts.push({
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
      });
      const fields = { deliveryId: d.id, attempt: d.attempt_count + 1, status: result.status, ok: result.ok, error: result.error?.code, retryIn };
      deps.metrics?.deliveries.inc({ outcome: result.ok ? 'delivered' : retryIn === null ? 'failed' : 'retry' });
      if (result.ok) helpers.logger.debug('delivery attempt', fields);
      else helpers.logger.info('delivery attempt', fields);
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
