// One attempt of one delivery: sign, POST (SSRF-checked, no redirects, time-out), log the attempt, and let
// app_private.record_delivery_attempt finish the delivery or queue the next attempt.
import type { Task } from 'graphile-worker';
import { z } from 'zod';
import { deliveryToSend, recordDeliveryAttempt } from '../db/queries/deliveries.ts';
import { decryptSecret } from '../lib/crypto.ts';
import { nextAttemptDelay } from '../pipelines/webhooks/backoff.ts';
import { deliver, type EndpointAuth } from '../pipelines/webhooks/deliver.ts';
import type { TaskDeps } from './context.ts';

const payload = z.object({ delivery_id: z.number().int().positive() });

export function deliveriesSend(deps: TaskDeps): Task {
  const allow = deps.cfg.WEBHOOK_ALLOW_HOSTS;
  const allowCidrs = allow.filter((h) => h.includes('/'));
  const allowHosts = allow.filter((h) => !h.includes('/'));
  const schedule = deps.cfg.WEBHOOK_RETRY_SCHEDULE.length ? deps.cfg.WEBHOOK_RETRY_SCHEDULE : undefined;
  return async (raw, helpers) => {
    const { delivery_id } = payload.parse(raw);
    const d = await deliveryToSend(helpers, delivery_id);
    if (!d || d.status !== 'pending') return; // delivered, failed, or removed with its endpoint
    if (!d.enabled) return; // resumed by set_webhook_endpoint_enabled when the endpoint is enabled again
    const secret = decryptSecret(deps.secretKey, d.secret_ciphertext);
    const auth = d.auth_ciphertext ? (JSON.parse(decryptSecret(deps.secretKey, d.auth_ciphertext)) as EndpointAuth) : null;
    const startedAt = new Date();
    const result = await deliver(
      { url: d.url, body: d.body, secret, webhookId: d.message_id, auth },
      {
        timeoutMs: deps.cfg.WEBHOOK_TIMEOUT_MS,
        requireHttps: deps.cfg.WEBHOOK_REQUIRE_HTTPS && d.mode === 'live' && !d.is_test,
        allowHosts,
        allowCidrs,
        signal: helpers.abortSignal,
      },
    );
    // The worker is shutting down: this attempt did not happen; the job runs again.
    if (result.error?.code === 'aborted') throw new Error('delivery aborted by worker shutdown');
    const retryIn = result.ok ? null : nextAttemptDelay(d.attempt_count + 1, { maxAttempts: deps.cfg.WEBHOOK_MAX_ATTEMPTS, ...(schedule ? { schedule } : {}) });
    const errorMessage = result.error?.message ?? (result.ok ? null : result.location ? `HTTP ${result.status} redirect to ${result.location} (not followed)` : `HTTP ${result.status}`);
    await recordDeliveryAttempt(
      helpers,
      d.id,
      {
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
      },
      deps.cfg.WEBHOOK_DISABLE_AFTER_HOURS,
    );
    helpers.logger.info('delivery attempt', { deliveryId: d.id, attempt: d.attempt_count + 1, status: result.status, ok: result.ok, error: result.error?.code, retryIn });
  };
}
