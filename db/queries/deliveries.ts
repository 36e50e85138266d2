// Webhook deliveries and their attempts: the delivery log read by both surfaces, redelivery and test sends
// (SQL state functions), and what the deliveries__send task loads and records.
import type { Client, Queryable } from './types.ts';

export interface DeliveryRow {
  id: number;
  message_id: string;
  event_id: number | null;
  redelivery_of: number | null;
  status: 'pending' | 'delivered' | 'failed';
  is_test: boolean;
  mode: 'test' | 'live';
  url: string;
  attempt_count: number;
  next_attempt_at: Date | null;
  last_status_code: number | null;
  last_error: string | null;
  created_at: Date;
  completed_at: Date | null;
  /** The exact body sent; only in `getDelivery`. */
  body?: string;
}

export interface DeliveryAttemptRow {
  attempt_number: number;
  url: string;
  started_at: Date;
  duration_ms: number;
  status_code: number | null;
  response_headers: Record<string, string>;
  response_body: string | null;
  error_code: string | null;
  error_message: string | null;
}

const deliveryColumns = `id, message_id, event_id, redelivery_of, status, is_test, mode, url, attempt_count, next_attempt_at,
  last_status_code, last_error, created_at, completed_at`;

/** Up to `limit` deliveries of an endpoint with ids below `before`, newest first, optionally by status. */
export async function listDeliveries(
  db: Queryable,
  endpointId: string,
  f: { before: number | null; status: string | null; limit: number },
): Promise<DeliveryRow[]> {
  const { rows } = await db.query<DeliveryRow>(
    `select ${deliveryColumns} from app_public.webhook_deliveries
      where endpoint_id = $1 and ($2::bigint is null or id < $2) and ($3::text is null or status = $3)
      order by id desc limit $4`,
    [endpointId, f.before, f.status, f.limit],
  );
  return rows;
}

/** One delivery of an endpoint with the body sent. */
export async function getDelivery(db: Queryable, endpointId: string, deliveryId: number): Promise<DeliveryRow | undefined> {
  const { rows } = await db.query<DeliveryRow>(`select ${deliveryColumns}, body from app_public.webhook_deliveries where id = $1 and endpoint_id = $2`, [
    deliveryId,
    endpointId,
  ]);
  return rows[0];
}

/** Whether the delivery belongs to the endpoint (and is visible). */
export async function deliveryOfEndpoint(db: Queryable, endpointId: string, deliveryId: number): Promise<boolean> {
  const { rowCount } = await db.query('select 1 from app_public.webhook_deliveries where id = $1 and endpoint_id = $2', [deliveryId, endpointId]);
  return !!rowCount;
}

/** Every attempt of a delivery, in order. */
export async function listDeliveryAttempts(db: Queryable, deliveryId: number): Promise<DeliveryAttemptRow[]> {
  const { rows } = await db.query<DeliveryAttemptRow>('select * from app_public.webhook_delivery_attempts where delivery_id = $1 order by attempt_number', [
    deliveryId,
  ]);
  return rows;
}

/** Queue the same message again as a new delivery. */
export async function redeliver(db: Queryable, deliveryId: number): Promise<DeliveryRow> {
  const { rows } = await db.query<DeliveryRow>(`select ${deliveryColumns} from app_public.redeliver($1)`, [deliveryId]);
  return rows[0];
}

/** Queue a test delivery of `body` (JSON text) to the endpoint's staging URL (or a subscription's URL). */
export async function sendTestDelivery(db: Queryable, endpointId: string, body: string): Promise<DeliveryRow> {
  const { rows } = await db.query<DeliveryRow>(`select ${deliveryColumns} from app_public.send_test_delivery($1, $2)`, [endpointId, body]);
  return rows[0];
}

// Worker side (owner pool) ---------------------------------------------------------------------------------------

export interface DeliveryInBatchRow {
  id: number;
  attempt_count: number;
  message_id: string;
  mode: 'test' | 'live';
  is_test: boolean;
  url: string;
  body: string;
  endpoint_id: string;
  enabled: boolean;
  secret_ciphertext: string;
  auth_ciphertext: string | null;
}

/** The pending deliveries among `ids`, with their endpoint's state and encrypted secret and credentials (one round trip per batch). */
export async function deliveriesToSend(db: Client, ids: number[]): Promise<DeliveryInBatchRow[]> {
  const { rows } = await db.query<DeliveryInBatchRow>({
    name: 'svc_deliveries_to_send',
    text: 'select * from app_private.deliveries_to_send($1)',
    values: [ids],
  });
  return rows;
}

/** Record the attempts of a batch in one statement (app_private.record_delivery_attempts); each finishes its delivery or queues the next attempt. */
export async function recordDeliveryAttempts(db: Client, attempts: Array<DeliveryAttempt & { deliveryId: number }>, disableAfterHours: number): Promise<void> {
  await db.query({
    name: 'svc_record_delivery_attempts',
    text: 'select app_private.record_delivery_attempts($1, make_interval(hours => $2))',
    values: [attemptsJson(attempts), disableAfterHours],
  });
}

export interface DeliveryAttempt {
  startedAt: Date;
  durationMs: number;
  statusCode: number | null;
  responseHeaders: Record<string, string>;
  responseBody: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  ok: boolean;
  /** The receiver is gone (410): disable the endpoint. */
  gone: boolean;
  /** Seconds to the next attempt, or null for no further attempt. */
  retryInSeconds: number | null;
}

// Send loop ---------------------------------------------------------------------------------------------------

export interface DueDeliveryRow extends DeliveryInBatchRow {
  status: 'pending' | 'delivered' | 'failed';
  request_id: string | null;
}

/** A JSON `\u0000` escape that is not an escaped backslash followed by the text "u0000". */
const NUL_ESCAPE = /(?<!\\)((?:\\\\)*)\\u0000/g;

/** The attempts as jsonb text; a NUL (a receiver's body may hold one, jsonb refuses it) becomes U+FFFD. */
function attemptsJson(attempts: Array<DeliveryAttempt & { deliveryId: number }>): string {
  const json = JSON.stringify(
    attempts.map((a) => ({
      delivery_id: a.deliveryId,
      started_at: a.startedAt.toISOString(),
      duration_ms: a.durationMs,
      status_code: a.statusCode,
      headers: a.responseHeaders,
      body: a.responseBody,
      error_code: a.errorCode,
      error_message: a.errorMessage,
      ok: a.ok,
      gone: a.gone,
      retry_in_seconds: a.retryInSeconds,
    })),
  );
  return json.includes('\\u0000') ? json.replace(NUL_ESCAPE, '$1\\ufffd') : json;
}

/**
 * One round of the send loop in one statement (app_private.send_round, one asynchronous commit): record
 * `attempts`, forget the claims in `done`, release those in `release`, then claim up to `limit` due deliveries
 * for `leaseSeconds`, skipping `skipEndpoints`.
 */
export async function sendRound(
  db: Client,
  r: {
    /** The loop's id (it beats in app_private.worker_heartbeats); its claims carry it. */
    worker: string;
    attempts: Array<DeliveryAttempt & { deliveryId: number }>;
    done: number[];
    release: number[];
    limit: number;
    leaseSeconds: number;
    skipEndpoints: string[];
    disableAfterHours: number;
  },
): Promise<DueDeliveryRow[]> {
  const { rows } = await db.query<DueDeliveryRow>({
    name: 'svc_send_round',
    text: 'select * from app_private.send_round($1, $2, $3, $4, $5, make_interval(secs => $6), $7, make_interval(hours => $8))',
    values: [r.worker, attemptsJson(r.attempts), r.done, r.release, r.limit, r.leaseSeconds, r.skipEndpoints, r.disableAfterHours],
  });
  return rows;
}
