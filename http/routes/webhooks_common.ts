// What topic endpoints (v2) and subscriptions (v1) share: secrets and credentials encrypted at rest, the
// delivery log, redelivery and test sends. Each surface's router wraps these with its own auth and errors.
import type { Context } from 'koa';
import { decryptSecret, encryptSecret } from '../../lib/crypto.ts';
import { resolveTarget } from '../../pipelines/webhooks/deliver.ts';
import { newSigningSecret } from '../../pipelines/webhooks/sign.ts';
import { decodeCursor, encodeCursor } from '../cursor.ts';
import { ApiError, notFound } from '../errors.ts';
import { tx, type Deps } from '../route.ts';
import type { endpointAuth } from '../schemas/webhooks.ts';
import type { z } from 'zod';

export interface EndpointRow {
  id: string;
  agency_id: number;
  kind: 'topic' | 'subscription';
  topic: 'client-submission' | 'form-submission' | null;
  staging_url: string | null;
  production_url: string | null;
  url: string | null;
  events: string[];
  description: string | null;
  auth_kind: 'bearer' | 'basic' | 'header' | null;
  enabled: boolean;
  disabled_reason: string | null;
  disabled_at: Date | null;
  failing_since: Date | null;
  created_at: Date;
  updated_at: Date;
}

export const endpointColumns = `id, agency_id, kind, topic, staging_url, production_url, url, events, description, auth_kind, enabled,
  disabled_reason, disabled_at, failing_since, created_at, updated_at`;

interface DeliveryRow {
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
  body?: string;
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

export function presentEndpointState(w: EndpointRow) {
  return {
    enabled: w.enabled,
    disabled_reason: w.disabled_reason,
    disabled_at: iso(w.disabled_at),
    failing_since: iso(w.failing_since),
    auth: w.auth_kind ? { kind: w.auth_kind } : null,
    created_at: w.created_at.toISOString(),
    updated_at: w.updated_at.toISOString(),
  };
}

export function presentDelivery(d: DeliveryRow) {
  return {
    id: d.id,
    message_id: d.message_id,
    event_id: d.event_id,
    redelivery_of: d.redelivery_of,
    status: d.status,
    is_test: d.is_test,
    mode: d.mode,
    url: d.url,
    attempt_count: d.attempt_count,
    next_attempt_at: iso(d.next_attempt_at),
    last_status_code: d.last_status_code,
    last_error: d.last_error,
    created_at: d.created_at.toISOString(),
    completed_at: iso(d.completed_at),
  };
}

/** A fresh signing secret and its ciphertext. */
export function mintSecret(deps: Deps): { secret: string; ciphertext: string } {
  const secret = newSigningSecret();
  return { secret, ciphertext: encryptSecret(deps.secretKey, secret) };
}

/** Ciphertext of alternative credentials, or null to clear them. */
export function sealAuth(deps: Deps, auth: z.infer<typeof endpointAuth> | null): { kind: string | null; ciphertext: string | null } {
  return auth ? { kind: auth.kind, ciphertext: encryptSecret(deps.secretKey, JSON.stringify(auth)) } : { kind: null, ciphertext: null };
}

/** The decrypted signing secret of an endpoint (worker side). */
export function openSecret(deps: Pick<Deps, 'secretKey'>, ciphertext: string): string {
  return decryptSecret(deps.secretKey, ciphertext);
}

/**
 * Update only the given columns of an endpoint (undefined = unchanged). The request role may write but
 * never read the ciphertext columns, so a SET must not mention a column it does not change.
 */
export async function updateEndpoint(ctx: Context, id: string, changes: Record<string, unknown>): Promise<void> {
  const entries = Object.entries(changes).filter(([, v]) => v !== undefined);
  if (!entries.length) return;
  const sets = entries.map(([col], i) => `${col} = $${i + 2}`).join(', ');
  await tx(ctx).query(`update app_public.webhook_endpoints set ${sets} where id = $1`, [id, ...entries.map(([, v]) => v)]);
}

/** Refuse plain-http production URLs unless their host is allow-listed (SSRF and transport policy). */
export function checkProductionUrl(deps: Deps, url: string | null | undefined, field: string): void {
  if (!url || !deps.cfg.WEBHOOK_REQUIRE_HTTPS || url.startsWith('https:')) return;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (!deps.cfg.WEBHOOK_ALLOW_HOSTS.includes(host)) {
    throw new ApiError(422, `${field} must use https`, [{ field, message: 'must be an https URL (plain http is only allowed for allow-listed hosts)' }]);
  }
}

/**
 * Refuse, at registration, a URL the worker would refuse to send to: a private, loopback, link-local or
 * otherwise non-public address (literal, or what the name resolves to now), by the same rule and allow-list
 * as at send time. A name that does not resolve yet is accepted (the send-time check still applies), so the
 * delivery log never becomes a way to probe internal names.
 */
export async function checkWebhookUrl(deps: Deps, url: string | null | undefined, field: string): Promise<void> {
  if (!url) return;
  const allow = deps.cfg.WEBHOOK_ALLOW_HOSTS;
  const resolve = async (hostname: string) => {
    const { lookup } = await import('node:dns/promises');
    const timeout = new Promise<never>((_, reject) => setTimeout(() => reject(new Error('timeout')), 2000).unref());
    const found = await Promise.race([lookup(hostname, { all: true, verbatim: true }), timeout]);
    return found.map((a) => ({ address: a.address, family: (a.family === 6 ? 6 : 4) as 4 | 6 }));
  };
  try {
    await resolveTarget(url, { allowHosts: allow.filter((h) => !h.includes('/')), allowCidrs: allow.filter((h) => h.includes('/')), resolve });
  } catch (err) {
    const code = (err as { code?: string }).code;
    if (code === 'dns') return;
    const message = code === 'ssrf_blocked' ? 'must be a public address (private, loopback and link-local hosts are refused)' : (err as Error).message;
    throw new ApiError(422, `${field} ${message}`, [{ field, message }]);
  }
}

const deliveryColumns = `id, message_id, event_id, redelivery_of, status, is_test, mode, url, attempt_count, next_attempt_at,
  last_status_code, last_error, created_at, completed_at`;

/** A page of an endpoint's deliveries, newest first. */
export async function listDeliveries(ctx: Context, endpointId: string, q: { limit: number; cursor?: string; status?: string }) {
  const before = q.cursor ? decodeCursor(q.cursor) : null;
  const { rows } = await tx(ctx).query<DeliveryRow>(
    `select ${deliveryColumns} from app_public.webhook_deliveries
      where endpoint_id = $1 and ($2::bigint is null or id < $2) and ($3::text is null or status = $3)
      order by id desc limit $4`,
    [endpointId, before, q.status ?? null, q.limit + 1],
  );
  const page = rows.slice(0, q.limit);
  return { data: page.map(presentDelivery), next_cursor: rows.length > q.limit ? encodeCursor(page[page.length - 1].id) : null };
}

/** One delivery with the exact body sent and every attempt. */
export async function deliveryDetail(ctx: Context, endpointId: string, deliveryId: number) {
  const { rows } = await tx(ctx).query<DeliveryRow>(`select ${deliveryColumns}, body from app_public.webhook_deliveries where id = $1 and endpoint_id = $2`, [deliveryId, endpointId]);
  if (!rows[0]) throw notFound('delivery');
  const attempts = await tx(ctx).query<{
    attempt_number: number; url: string; started_at: Date; duration_ms: number; status_code: number | null;
    response_headers: Record<string, string>; response_body: string | null; error_code: string | null; error_message: string | null;
  }>('select * from app_public.webhook_delivery_attempts where delivery_id = $1 order by attempt_number', [deliveryId]);
  return {
    ...presentDelivery(rows[0]),
    body: rows[0].body ?? '',
    attempts: attempts.rows.map((a) => ({
      attempt_number: a.attempt_number,
      url: a.url,
      started_at: a.started_at.toISOString(),
      duration_ms: a.duration_ms,
      status_code: a.status_code,
      response_headers: a.response_headers,
      response_body: a.response_body,
      error: a.error_code ? { code: a.error_code, message: a.error_message ?? '' } : null,
    })),
  };
}

/** Queue the same message again as a new delivery. */
export async function redeliver(ctx: Context, endpointId: string, deliveryId: number) {
  const owned = await tx(ctx).query('select 1 from app_public.webhook_deliveries where id = $1 and endpoint_id = $2', [deliveryId, endpointId]);
  if (!owned.rowCount) throw notFound('delivery');
  const { rows } = await tx(ctx).query<DeliveryRow>(`select ${deliveryColumns} from app_public.redeliver($1)`, [deliveryId]);
  return presentDelivery(rows[0]);
}

/** Queue a signed sample body to the endpoint's staging URL (or a subscription's URL). */
export async function sendTest(ctx: Context, endpointId: string, body: unknown) {
  const { rows } = await tx(ctx).query<DeliveryRow>(`select ${deliveryColumns} from app_public.send_test_delivery($1, $2)`, [endpointId, JSON.stringify(body)]);
  return presentDelivery(rows[0]);
}

/** Replace the signing secret; the new one is returned once. */
export async function rotateSecret(ctx: Context, deps: Deps, endpointId: string): Promise<string> {
  const s = mintSecret(deps);
  const { rowCount } = await tx(ctx).query('update app_public.webhook_endpoints set secret_ciphertext = $2 where id = $1', [endpointId, s.ciphertext]);
  if (!rowCount) throw notFound('webhook endpoint');
  return s.secret;
}
