// What topic endpoints (v2) and subscriptions (v1) share: secrets and credentials encrypted at rest, the
// https rule for production URLs, the delivery log, redelivery, recoveries, test sends and secret rotation. Each
// surface's router wraps these with its own auth, errors and presenter.
import type { Context } from 'koa';
import type { z } from 'zod';
import { getRecovery, recoverDeliveries } from '../db/queries/recoveries.ts';
import { deliveryOfEndpoint, getDelivery, listDeliveries, listDeliveryAttempts, redeliver, sendTestDelivery } from '../db/queries/deliveries.ts';
import {
  createSubscription,
  getSubscription,
  getTopicEndpoint,
  replaceEndpointSecret,
  type EndpointRow,
  type SealedAuth,
} from '../db/queries/webhook_endpoints.ts';
import { encryptSecret } from '../lib/crypto.ts';
import { resolveTarget } from '../pipelines/webhooks/deliver.ts';
import { newSigningSecret } from '../pipelines/webhooks/sign.ts';
import { tx, type Deps } from './context.ts';
import { renderPage, type DashboardSession } from './dashboard.ts';
import { notFound, unprocessable } from './errors.ts';
import { decodeCursor, keysetPage } from './pagination.ts';
import { deliveryLogBody } from './pages/dashboard_deliveries.ts';
import { presentDelivery, presentDeliveryDetail } from './presenters/deliveries.ts';
import { presentRecovery } from './presenters/recoveries.ts';
import type { createSubscriptionBody, endpointAuth } from './schemas/webhooks.ts';

/** A fresh signing secret and its ciphertext. */
export function mintSecret(deps: Deps): { secret: string; ciphertext: string } {
  const secret = newSigningSecret();
  return { secret, ciphertext: encryptSecret(deps.secretKey, secret) };
}

/**
 * Subscribe a URL (v1): the URL checked by the send-time rule, a fresh signing secret, credentials sealed.
 * The one way both the v1 API and the dashboard create a subscription; the secret is returned to be shown once.
 */
export async function subscribe(ctx: Context, deps: Deps, body: z.infer<typeof createSubscriptionBody>): Promise<{ row: EndpointRow; secret: string }> {
  await checkWebhookUrl(deps, body.url, 'url');
  const s = mintSecret(deps);
  const row = await createSubscription(tx(ctx), {
    url: body.url,
    events: [...new Set(body.events)],
    description: body.description ?? null,
    secretCiphertext: s.ciphertext,
    auth: sealAuth(deps, body.auth ?? null),
    enabled: body.enabled !== false,
  });
  return { row, secret: s.secret };
}

/** Ciphertext of alternative credentials, or both null to clear them. */
export function sealAuth(deps: Deps, auth: z.infer<typeof endpointAuth> | null): SealedAuth {
  return auth ? { kind: auth.kind, ciphertext: encryptSecret(deps.secretKey, JSON.stringify(auth)) } : { kind: null, ciphertext: null };
}

/** Refuse plain-http production URLs unless their host is allow-listed (SSRF and transport policy, from config). */
export function checkProductionUrl(deps: Deps, url: string | null | undefined, field: string): void {
  if (!url || !deps.cfg.WEBHOOK_REQUIRE_HTTPS || url.startsWith('https:')) return;
  const host = new URL(url).hostname.replace(/^\[|\]$/g, '');
  if (!deps.cfg.WEBHOOK_ALLOW_HOSTS.includes(host)) {
    throw unprocessable(`${field} must use https`, [{ field, message: 'must be an https URL (plain http is only allowed for allow-listed hosts)' }]);
  }
}

/**
 * Refuse, at registration, a URL the worker would refuse to send to: a private, loopback, link-local or
 * otherwise non-public address (a literal, or what the name resolves to now), by the same rule and
 * allow-list as at send time. A name that does not resolve (yet) is accepted — the send-time check still
 * applies — so the delivery log never becomes a way to probe internal names.
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
    throw unprocessable(`${field} ${message}`, [{ field, message }]);
  }
}

/** The agency's endpoint of a topic (as the caller, under RLS), or 404. */
export async function loadTopicEndpoint(ctx: Context, topic: string): Promise<EndpointRow> {
  const w = await getTopicEndpoint(tx(ctx), topic);
  if (!w) throw notFound(`webhook endpoint for ${topic}`);
  return w;
}

/** A v1 webhook subscription of the agency (as the caller, under RLS), or 404. */
export async function loadSubscription(ctx: Context, uuid: string): Promise<EndpointRow> {
  const w = await getSubscription(tx(ctx), uuid);
  if (!w) throw notFound('webhook subscription');
  return w;
}

/** A page of an endpoint's deliveries, newest first. */
export async function deliveryPage(ctx: Context, endpointId: string, q: { limit: number; cursor?: string; status?: string }) {
  const rows = await listDeliveries(tx(ctx), endpointId, { before: q.cursor ? decodeCursor(q.cursor) : null, status: q.status ?? null, limit: q.limit + 1 });
  const { page, nextCursor } = keysetPage(rows, q.limit);
  return { data: page.map(presentDelivery), next_cursor: nextCursor };
}

/**
 * The dashboard's delivery log of an endpoint (a topic endpoint or a v1 subscription) whose pages live under
 * `path`: 50 a page, newest first, filtered by `?status=`. Live and test deliveries share an endpoint; RLS shows
 * each mode's view only its own.
 */
export async function deliveryLogPage(
  ctx: Context,
  s: DashboardSession,
  endpointId: string,
  o: { title: string; path: string; back: { href: string; label: string }; query: { status?: string; before?: string } },
): Promise<void> {
  const status = o.query.status || undefined;
  const page = await deliveryPage(ctx, endpointId, { limit: 50, cursor: o.query.before, status });
  await renderPage(ctx, s, o.title, deliveryLogBody(o.path, page.data, { status, before: o.query.before, next: page.next_cursor, back: o.back }));
}

/** One delivery with the exact body sent and every attempt. */
export async function deliveryDetail(ctx: Context, endpointId: string, deliveryId: number) {
  const d = await getDelivery(tx(ctx), endpointId, deliveryId);
  if (!d) throw notFound('delivery');
  return presentDeliveryDetail(d, await listDeliveryAttempts(tx(ctx), deliveryId));
}

/** Queue the same message again as a new delivery. */
export async function redeliverTo(ctx: Context, endpointId: string, deliveryId: number) {
  if (!(await deliveryOfEndpoint(tx(ctx), endpointId, deliveryId))) throw notFound('delivery');
  return presentDelivery(await redeliver(tx(ctx), deliveryId));
}

/**
 * Send the deliveries of the endpoint that ended failed in a window again (for the same window, the same recovery
 * again): 202, with the recovery's URL (`recoveriesPath`/its id) in Location; returns the recovery.
 */
export async function startRecovery(ctx: Context, endpointId: string, window: { since: Date; until?: Date | null }, recoveriesPath: string) {
  const r = await recoverDeliveries(tx(ctx), endpointId, window.since, window.until ?? null);
  ctx.status = 202;
  ctx.set('Location', `${recoveriesPath}/${r.id}`);
  return presentRecovery(r);
}

/** A recovery of the endpoint with its progress, or 404. */
export async function recoveryOf(ctx: Context, endpointId: string, recoveryId: string) {
  const r = await getRecovery(tx(ctx), endpointId, recoveryId);
  if (!r) throw notFound('recovery');
  return presentRecovery(r);
}

/** Queue a signed sample body to the endpoint's staging URL (or a subscription's URL). */
export async function sendTest(ctx: Context, endpointId: string, body: unknown) {
  return presentDelivery(await sendTestDelivery(tx(ctx), endpointId, JSON.stringify(body)));
}

/** Replace the signing secret; the new one is returned once. */
export async function rotateSecret(ctx: Context, deps: Deps, endpointId: string): Promise<string> {
  const s = mintSecret(deps);
  if (!(await replaceEndpointSecret(tx(ctx), endpointId, s.ciphertext))) throw notFound('webhook endpoint');
  return s.secret;
}
