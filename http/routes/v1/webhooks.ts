// v1 webhook subscriptions (SPEC §4.2 "Further operations", §6.4), scoped to the agent's agency: any agent
// reads them, admins change them. Each has its own signing secret, returned on creation and rotation.
import type { Context } from 'koa';
import { z } from 'zod';
import { sampleV1Event } from '../../../pipelines/webhooks/payloads.ts';
import { notFound } from '../../errors.ts';
import { identity, route, tx } from '../../route.ts';
import { v1Errors } from '../../schemas/common.ts';
import {
  deliveriesQuery,
  delivery,
  deliveryDetail as deliveryDetailSchema,
  deliveryList,
  patchSubscriptionBody,
  subscription,
  subscriptionBody,
  subscriptionDeliveryParams,
  subscriptionParams,
  subscriptionWithSecret,
} from '../../schemas/webhooks.ts';
import {
  checkWebhookUrl,
  deliveryDetail,
  endpointColumns,
  listDeliveries,
  mintSecret,
  presentEndpointState,
  redeliver,
  rotateSecret,
  sealAuth,
  sendTest,
  updateEndpoint,
  type EndpointRow,
} from '../webhooks_common.ts';

const present = (w: EndpointRow) => ({ uuid: w.id, url: w.url!, events: w.events, description: w.description, ...presentEndpointState(w) });

async function loadSubscription(ctx: Context, uuid: string): Promise<EndpointRow> {
  const { rows } = await tx(ctx).query<EndpointRow>(`select ${endpointColumns} from app_public.webhook_endpoints where kind = 'subscription' and id = $1`, [uuid]);
  if (!rows[0]) throw notFound('webhook subscription');
  return rows[0];
}

const common = { tags: ['Webhook subscriptions'], rateLimit: 'v1' as const };

export const webhookSubscriptionRoutes = [
  route({
    ...common,
    method: 'post',
    path: '/v1/webhooks',
    operationId: 'createWebhookSubscription',
    summary: 'Subscribe a URL to events of the agent’s agency (admin); the signing secret is shown once',
    auth: 'agent_admin',
    body: subscriptionBody,
    responses: { 200: { description: 'The subscription with its signing secret', schema: z.object({ data: subscriptionWithSecret }) }, ...v1Errors(401, 403, 422, 429) },
    handler: async (ctx, { body }, deps) => {
      await checkWebhookUrl(deps, body.url, 'url');
      const s = mintSecret(deps);
      const auth = sealAuth(deps, body.auth ?? null);
      const who = identity(ctx);
      const { rows } = await tx(ctx).query<EndpointRow>(
        `insert into app_public.webhook_endpoints (agency_id, kind, url, events, description, created_by_agent_id, secret_ciphertext, auth_kind, auth_ciphertext)
         values ($1, 'subscription', $2, $3, $4, $5, $6, $7, $8) returning ${endpointColumns}`,
        [who.agencyId, body.url, [...new Set(body.events)], body.description ?? null, who.agentId, s.ciphertext, auth.kind, auth.ciphertext],
      );
      let row = rows[0];
      if (body.enabled === false) row = (await tx(ctx).query<EndpointRow>(`select ${endpointColumns} from app_public.set_webhook_endpoint_enabled($1, false)`, [row.id])).rows[0];
      ctx.body = { data: { ...present(row), signing_secret: s.secret } };
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/v1/webhooks',
    operationId: 'listWebhookSubscriptions',
    summary: 'All subscriptions of the authenticated agent’s agency',
    auth: 'agent',
    responses: { 200: { description: 'Subscriptions', schema: z.object({ data: z.array(subscription) }) }, ...v1Errors(401, 429) },
    handler: async (ctx) => {
      const { rows } = await tx(ctx).query<EndpointRow>(`select ${endpointColumns} from app_public.webhook_endpoints where kind = 'subscription' order by created_at, id`);
      ctx.body = { data: rows.map(present) };
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/v1/webhooks/:webhook_uuid',
    operationId: 'getWebhookSubscription',
    summary: 'Read a subscription',
    auth: 'agent',
    params: subscriptionParams,
    responses: { 200: { description: 'The subscription', schema: z.object({ data: subscription }) }, ...v1Errors(400, 401, 404, 429) },
    handler: async (ctx, { params }) => {
      ctx.body = { data: present(await loadSubscription(ctx, params.webhook_uuid)) };
    },
  }),
  route({
    ...common,
    method: 'patch',
    path: '/v1/webhooks/:webhook_uuid',
    operationId: 'updateWebhookSubscription',
    summary: 'Update url, events, description, credentials, or enable/disable (admin)',
    auth: 'agent_admin',
    params: subscriptionParams,
    body: patchSubscriptionBody,
    responses: { 200: { description: 'The subscription', schema: z.object({ data: subscription }) }, ...v1Errors(400, 401, 403, 404, 422, 429) },
    handler: async (ctx, { params, body }, deps) => {
      const w = await loadSubscription(ctx, params.webhook_uuid);
      await checkWebhookUrl(deps, body.url, 'url');
      const auth = body.auth === undefined ? undefined : sealAuth(deps, body.auth);
      await updateEndpoint(ctx, w.id, {
        url: body.url,
        events: body.events ? [...new Set(body.events)] : undefined,
        description: body.description,
        auth_kind: auth?.kind,
        auth_ciphertext: auth?.ciphertext,
      });
      if (body.enabled !== undefined) await tx(ctx).query('select app_public.set_webhook_endpoint_enabled($1, $2)', [w.id, body.enabled]);
      ctx.body = { data: present(await loadSubscription(ctx, w.id)) };
    },
  }),
  route({
    ...common,
    method: 'delete',
    path: '/v1/webhooks/:webhook_uuid',
    operationId: 'deleteWebhookSubscription',
    summary: 'Remove a subscription and its delivery log (admin)',
    auth: 'agent_admin',
    params: subscriptionParams,
    responses: { 204: { description: 'Removed' }, ...v1Errors(400, 401, 403, 404, 429) },
    handler: async (ctx, { params }) => {
      const { rowCount } = await tx(ctx).query(`delete from app_public.webhook_endpoints where kind = 'subscription' and id = $1`, [params.webhook_uuid]);
      if (!rowCount) throw notFound('webhook subscription');
      ctx.status = 204;
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/v1/webhooks/:webhook_uuid/rotate-secret',
    operationId: 'rotateWebhookSubscriptionSecret',
    summary: 'Replace the signing secret (admin); shown once',
    auth: 'agent_admin',
    params: subscriptionParams,
    responses: { 200: { description: 'The subscription with its new secret', schema: z.object({ data: subscriptionWithSecret }) }, ...v1Errors(400, 401, 403, 404, 429) },
    handler: async (ctx, { params }, deps) => {
      const w = await loadSubscription(ctx, params.webhook_uuid);
      const secret = await rotateSecret(ctx, deps, w.id);
      ctx.body = { data: { ...present(await loadSubscription(ctx, w.id)), signing_secret: secret } };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/v1/webhooks/:webhook_uuid/test',
    operationId: 'testWebhookSubscription',
    summary: 'Send a sample event of the first subscribed event name, signed like any other (admin)',
    auth: 'agent_admin',
    params: subscriptionParams,
    responses: { 200: { description: 'The queued test delivery', schema: z.object({ data: delivery }) }, ...v1Errors(400, 401, 403, 404, 429) },
    handler: async (ctx, { params }) => {
      const w = await loadSubscription(ctx, params.webhook_uuid);
      const name = w.events.find((e) => e !== '*') ?? 'client-submission.complete';
      ctx.body = { data: await sendTest(ctx, w.id, sampleV1Event(name as Parameters<typeof sampleV1Event>[0])) };
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/v1/webhooks/:webhook_uuid/deliveries',
    operationId: 'listSubscriptionDeliveries',
    summary: 'The delivery log of a subscription, newest first',
    auth: 'agent',
    params: subscriptionParams,
    query: deliveriesQuery,
    responses: { 200: { description: 'A page of deliveries', schema: deliveryList }, ...v1Errors(400, 401, 404, 429) },
    handler: async (ctx, { params, query }) => {
      const w = await loadSubscription(ctx, params.webhook_uuid);
      ctx.body = await listDeliveries(ctx, w.id, query);
    },
  }),
  route({
    ...common,
    method: 'get',
    path: '/v1/webhooks/:webhook_uuid/deliveries/:delivery_id',
    operationId: 'getSubscriptionDelivery',
    summary: 'One delivery with its body and attempts',
    auth: 'agent',
    params: subscriptionDeliveryParams,
    responses: { 200: { description: 'The delivery', schema: z.object({ data: deliveryDetailSchema }) }, ...v1Errors(400, 401, 404, 429) },
    handler: async (ctx, { params }) => {
      const w = await loadSubscription(ctx, params.webhook_uuid);
      ctx.body = { data: await deliveryDetail(ctx, w.id, params.delivery_id) };
    },
  }),
  route({
    ...common,
    method: 'post',
    path: '/v1/webhooks/:webhook_uuid/deliveries/:delivery_id/redeliver',
    operationId: 'redeliverSubscriptionDelivery',
    summary: 'Send a delivery again (admin)',
    auth: 'agent_admin',
    params: subscriptionDeliveryParams,
    responses: { 200: { description: 'The new delivery', schema: z.object({ data: delivery }) }, ...v1Errors(400, 401, 403, 404, 429) },
    handler: async (ctx, { params }) => {
      const w = await loadSubscription(ctx, params.webhook_uuid);
      ctx.body = { data: await redeliver(ctx, w.id, params.delivery_id) };
    },
  }),
];
