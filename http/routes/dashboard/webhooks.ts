// Dashboard: the agency's topic endpoints (SPEC §6.1): staging and production URLs and alternative auth per
// topic, the signing secret shown once (creation, rotation), "Send test event" to the staging URL, the delivery
// log filterable by status with each attempt, redelivery, and why an endpoint was disabled with re-enabling.
// Every action is the same query or helper the /v2/webhook-endpoints routes use.
import type { Context } from 'koa';
import { listTopicEndpoints, putTopicEndpoint, setEndpointEnabled } from '../../../db/queries/webhook_endpoints.ts';
import { sampleTopicPayload } from '../../../pipelines/webhooks/payloads.ts';
import { base, renderPage, shownOnce, type DashboardSession } from '../../dashboard.ts';
import { dashboardAction, dashboardPage } from '../../dashboard_routes.ts';
import { notFound, unprocessable, zodDetails } from '../../errors.ts';
import { deliveryDetailBody } from '../../pages/dashboard_deliveries.ts';
import { endpointCard, TOPICS } from '../../pages/dashboard_webhooks.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { tx } from '../../route.ts';
import { deliveryLogQuery, modeParams, modeTopicDeliveryParams, modeTopicParams } from '../../schemas/dashboard.ts';
import { putEndpointBody } from '../../schemas/webhooks.ts';
import {
  checkProductionUrl,
  deliveryDetail,
  deliveryLogPage,
  loadTopicEndpoint,
  mintSecret,
  redeliverTo,
  rotateSecret,
  sealAuth,
  sendTest,
} from '../../webhooks.ts';

type Topic = (typeof TOPICS)[number]['topic'];

const secretBox = (secret: string, title: string) =>
  shownOnce(title, secret, html`Your receiver checks each delivery’s <code>x-signature</code> with it (HMAC-SHA256 of the raw body).`);

async function endpointsPage(ctx: Context, s: DashboardSession, top: SafeHtml | null, status = 200): Promise<void> {
  const byTopic = new Map((await listTopicEndpoints(tx(ctx))).map((w) => [w.topic, w]));
  await renderPage(ctx, s, 'Webhooks', html`${top}${TOPICS.map((t) => endpointCard(s, t, byTopic.get(t.topic)))}`, status);
}

/** The endpoint-auth choice of the form, or undefined to keep the stored one. */
function authOf(body: Record<string, unknown>): unknown {
  const kind = String(body.auth_kind ?? 'keep');
  const a = String(body.auth_a ?? '');
  const b = String(body.auth_b ?? '');
  if (kind === 'keep') return undefined;
  if (kind === 'none') return null;
  if (kind === 'bearer') return { kind, token: a };
  if (kind === 'basic') return { kind, username: a, password: b };
  return { kind: 'header', name: a, value: b };
}

const str = (v: unknown) => (typeof v === 'string' ? v.trim() : '');

export const dashboardWebhookRoutes = [
  dashboardPage({
    path: '/dashboard/:mode/webhooks',
    operationId: 'dashboardWebhooks',
    summary: 'Webhooks page',
    auth: 'dashboard_admin',
    params: modeParams,
    handler: (ctx, { s }) => endpointsPage(ctx, s, null),
  }),
  dashboardAction({
    path: '/dashboard/:mode/webhooks/:topic',
    operationId: 'dashboardPutWebhook',
    summary: 'Register or update a topic endpoint; the secret is shown once on creation',
    auth: 'dashboard_admin',
    params: modeTopicParams,
    handler: async (ctx, { s, params, body }, deps) => {
      const parsed = putEndpointBody.safeParse({
        staging_url: str(body.staging_url) || null,
        production_url: str(body.production_url) || null,
        auth: authOf(body),
      });
      if (!parsed.success) throw unprocessable('please check the endpoint', zodDetails(parsed.error));
      checkProductionUrl(deps, parsed.data.production_url, 'production_url');
      const secret = mintSecret(deps);
      const { created } = await putTopicEndpoint(tx(ctx), params.topic, {
        stagingUrl: parsed.data.staging_url,
        productionUrl: parsed.data.production_url,
        auth: parsed.data.auth === undefined ? undefined : sealAuth(deps, parsed.data.auth),
        secretCiphertext: secret.ciphertext,
      });
      await endpointsPage(
        ctx,
        s,
        created ? secretBox(secret.secret, `Signing secret for ${params.topic}`) : html`<p class="notice" role="status">Saved.</p>`,
        created ? 201 : 200,
      );
    },
  }),
  dashboardAction({
    path: '/dashboard/:mode/webhooks/:topic/rotate-secret',
    operationId: 'dashboardRotateWebhookSecret',
    summary: 'Replace the signing secret; shown once',
    auth: 'dashboard_admin',
    params: modeTopicParams,
    handler: async (ctx, { s, params }, deps) => {
      const secret = await rotateSecret(ctx, deps, (await loadTopicEndpoint(ctx, params.topic)).id);
      await endpointsPage(ctx, s, secretBox(secret, `New signing secret for ${params.topic}`));
    },
  }),
  dashboardAction({
    path: '/dashboard/:mode/webhooks/:topic/enable',
    operationId: 'dashboardEnableWebhook',
    summary: 'Re-enable a disabled endpoint',
    auth: 'dashboard_admin',
    params: modeTopicParams,
    seeOther: 'Back to the webhooks',
    handler: async (ctx, { s, params }) => {
      await setEndpointEnabled(tx(ctx), (await loadTopicEndpoint(ctx, params.topic)).id, true);
      return `${base(s.mode)}/webhooks`;
    },
  }),
  dashboardAction({
    path: '/dashboard/:mode/webhooks/:topic/test',
    operationId: 'dashboardTestWebhook',
    summary: 'Send a sample event to the staging URL, then show the log',
    auth: 'dashboard_admin',
    params: modeTopicParams,
    seeOther: 'To the new delivery',
    handler: async (ctx, { params }) => {
      const w = await loadTopicEndpoint(ctx, params.topic);
      const d = await sendTest(ctx, w.id, sampleTopicPayload(params.topic as Topic));
      // Test events are test data: they are shown in the test view whichever view sent them.
      return `${base('test')}/webhooks/${params.topic}/deliveries/${d.id}`;
    },
  }),
  dashboardPage({
    path: '/dashboard/:mode/webhooks/:topic/deliveries',
    operationId: 'dashboardWebhookDeliveries',
    summary: 'The delivery log of a topic, newest first, filterable by status',
    auth: 'dashboard_admin',
    params: modeTopicParams,
    query: deliveryLogQuery,
    handler: async (ctx, { s, params, query }) => {
      const w = await loadTopicEndpoint(ctx, params.topic);
      await deliveryLogPage(ctx, s, w.id, {
        title: `Delivery log: ${params.topic}`,
        path: `${base(s.mode)}/webhooks/${params.topic}`,
        back: { href: `${base(s.mode)}/webhooks`, label: 'Back to webhooks' },
        query,
      });
    },
  }),
  dashboardPage({
    path: '/dashboard/:mode/webhooks/:topic/deliveries/:delivery_id',
    operationId: 'dashboardWebhookDelivery',
    summary: 'One delivery with every attempt',
    auth: 'dashboard_admin',
    params: modeTopicDeliveryParams,
    handler: async (ctx, { s, params }) => {
      const d = await deliveryDetail(ctx, (await loadTopicEndpoint(ctx, params.topic)).id, params.delivery_id);
      if (d.mode !== s.mode) throw notFound('delivery');
      await renderPage(ctx, s, `Delivery #${d.id}`, deliveryDetailBody(s, `${base(s.mode)}/webhooks/${params.topic}`, d));
    },
  }),
  dashboardAction({
    path: '/dashboard/:mode/webhooks/:topic/deliveries/:delivery_id/redeliver',
    operationId: 'dashboardRedeliver',
    summary: 'Send a delivery again',
    auth: 'dashboard_admin',
    params: modeTopicDeliveryParams,
    seeOther: 'To the new delivery',
    handler: async (ctx, { s, params }) => {
      const mode = s.mode;
      const w = await loadTopicEndpoint(ctx, params.topic);
      if ((await deliveryDetail(ctx, w.id, params.delivery_id)).mode !== mode) throw notFound('delivery');
      const d = await redeliverTo(ctx, w.id, params.delivery_id);
      return `${base(mode)}/webhooks/${params.topic}/deliveries/${d.id}`;
    },
  }),
];
