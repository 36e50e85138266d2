// One attempt of one delivery: sign, POST (SSRF-checked, no redirects, time-out, kept-alive connection per
// pinned address) and turn what happened into the attempt to record, with its backoff. Shared by the send loop
// (first attempts) and the deliveries__send task (retries, redeliveries, test sends).
import type { DeliveryAttempt, DeliveryInBatchRow } from '../../db/queries/deliveries.ts';
import { decryptSecret } from '../../lib/crypto.ts';
import { nextAttemptDelay } from '../../pipelines/webhooks/backoff.ts';
import { createDeliverer, EndpointAuth, unsentAttempt, type DeliveryAttemptResult } from '../../pipelines/webhooks/deliver.ts';
import type { TaskDeps } from '../context.ts';

export type Attempt = DeliveryAttempt & { deliveryId: number };
export type Outcome = { attempt: Attempt; fields: Record<string, unknown> } | 'aborted';

/**
 * One attempt of a delivery, as the value to record (or 'aborted' when the worker is shutting down); it never throws.
 * `unsent` turns an error met around an attempt into a failed attempt to record, with its backoff.
 */
export type Attempter = ((d: DeliveryInBatchRow, signal: AbortSignal) => Promise<Outcome>) & {
  unsent(d: DeliveryInBatchRow, err: unknown): Exclude<Outcome, 'aborted'>;
};

export function attempter(deps: TaskDeps): Attempter {
  const allow = deps.cfg.WEBHOOK_ALLOW_HOSTS;
  const allowCidrs = allow.filter((h) => h.includes('/'));
  const allowHosts = allow.filter((h) => !h.includes('/'));
  const schedule = deps.cfg.WEBHOOK_RETRY_SCHEDULE.length ? deps.cfg.WEBHOOK_RETRY_SCHEDULE : undefined;
  // Options checked once; each attempt's request comes from the database (its credentials checked when opened).
  const send = createDeliverer({ timeoutMs: deps.cfg.WEBHOOK_TIMEOUT_MS, allowHosts, allowCidrs, keepAlive: true });
  // Decrypting (and checking credentials) is cheap but not free; deliveries to one endpoint share its secret.
  const opened = new Map<string, unknown>();
  const open = <T>(ciphertext: string, make: (plain: string) => T): T => {
    if (!opened.has(ciphertext)) {
      if (opened.size > 1000) opened.clear();
      opened.set(ciphertext, make(decryptSecret(deps.secretKey, ciphertext)));
    }
    return opened.get(ciphertext) as T;
  };
  const attempt = async (d: DeliveryInBatchRow, signal: AbortSignal): Promise<Outcome> => {
    const startedAt = new Date();
    const began = performance.now();
    let result: DeliveryAttemptResult;
    try {
      const secret = open(d.secret_ciphertext, (plain) => plain);
      const auth = d.auth_ciphertext ? open(d.auth_ciphertext, (plain) => EndpointAuth.parse(JSON.parse(plain))) : null;
      result = await send(
        { url: d.url, body: d.body, secret, webhookId: d.message_id, auth },
        { requireHttps: deps.cfg.WEBHOOK_REQUIRE_HTTPS && d.mode === 'live' && !d.is_test, signal },
      );
    } catch (err) {
      // Anything that throws before or while sending (credentials that no longer decrypt or parse, a header Node
      // refuses) is a failed attempt like a refused connection: recorded, with its backoff. A caller that retried a
      // thrown attempt at once would spin on it without end.
      result = unsentAttempt(performance.now() - began, err);
    }
    // The worker is shutting down: this attempt did not happen.
    if (result.error?.code === 'aborted') return 'aborted';
    return outcomeOf(d, startedAt, result);
  };
  const outcomeOf = (d: DeliveryInBatchRow, startedAt: Date, result: DeliveryAttemptResult): Exclude<Outcome, 'aborted'> => {
    const retryIn = result.ok ? null : nextAttemptDelay(d.attempt_count + 1, { maxAttempts: deps.cfg.WEBHOOK_MAX_ATTEMPTS, ...(schedule ? { schedule } : {}) });
    const errorMessage =
      result.error?.message ??
      (result.ok ? null : result.location ? `HTTP ${result.status} redirect to ${result.location} (not followed)` : `HTTP ${result.status}`);
    deps.metrics?.deliveries.inc({ outcome: result.ok ? 'delivered' : retryIn === null ? 'failed' : 'retry' });
    return {
      attempt: {
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
      },
      fields: { deliveryId: d.id, attempt: d.attempt_count + 1, status: result.status, ok: result.ok, error: result.error?.code, retryIn },
    };
  };
  return Object.assign(attempt, { unsent: (d: DeliveryInBatchRow, err: unknown) => outcomeOf(d, new Date(), unsentAttempt(0, err)) });
}
