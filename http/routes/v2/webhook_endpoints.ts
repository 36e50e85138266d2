// Topic endpoints (SPEC §6.1–6.3): one per agency and topic, with a staging URL (test-mode data, test events)
// and a production URL (live data), managed with an admin API key.
import type { Context } from 'koa';
import { sampleTopicPayload } from '../../../pipelines/webhooks/payloads.ts';
import { ApiError, notFound } from '../../errors.ts';
import { identity, route, tx } from '../../route.ts';
import { problem } from '../../schemas/forms.ts';
import {
  deliveriesQuery,
  delivery,
  deliveryDetail as deliveryDetailSchema,
  deliveryList,
  putEndpointBody,
  topicDeliveryParams,
  topicEndpoint,
  topicEndpointWithSecret,
  topicParams,
} from '../../schemas/webhooks.ts';
import {
  checkProductionUrl,
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
import { z } from 'zod';

const errors = (...statuses: number[]) => Object.fromEntries(statuses.map((s) => [s, { description: `Problem details (${s})`, schema: problem }]));

// A sandbox key sees the staging side only: the production URL routes live data (null for test keys).
const present = (w: EndpointRow, mode: 'test' | 'live' | null | undefined) => ({
  topic: w.topic!,
  staging_url: w.staging_url,
  production_url: mode === 'test' ? null : w.production_url,
  ...presentEndpointState(w),
});

async function loadEndpoint(ctx: Context, topic: string): Promise<EndpointRow> {
  const { rows } = await tx(ctx).query<EndpointRow>(`select ${endpointColumns} from app_public.webhook_endpoints where kind = 'topic' and topic = $1`, [topic]);
  if (!rows[0]) throw notFound(`webhook endpoint for ${topic}`);
  return rows[0];
}

export const webhookEndpointRoutes = [
  route({
    method: 'put',
    path: '/v2/webhook-endpoints/:topic',
    operationId: 'putWebhookEndpoint',
    summary: 'Register or update where events of a topic go; the signing secret is returned on creation',
    tags: ['Webhooks'],
    auth: 'api_key_admin',
    params: topicParams,
    body: putEndpointBody,
    responses: {
      201: { description: 'Created; carries signing_secret once', schema: topicEndpointWithSecret },
      200: { description: 'Updated', schema: topicEndpoint },
      ...errors(400, 401, 403, 422),
    },
    handler: async (ctx, { params, body }, deps) => {
      checkProductionUrl(deps, body.production_url, 'production_url');
      await checkWebhookUrl(deps, body.staging_url, 'staging_url');
      await checkWebhookUrl(deps, body.production_url, 'production_url');
      const auth = body.auth === undefined ? undefined : sealAuth(deps, body.auth);
      const existing = await tx(ctx).query<EndpointRow>(`select ${endpointColumns} from app_public.webhook_endpoints where kind = 'topic' and topic = $1 for update`, [params.topic]);
      let row: EndpointRow;
      let secret: string | undefined;
      if (!existing.rows[0]) {
        if (!body.staging_url && !body.production_url) {
          throw new ApiError(422, 'give a staging_url, a production_url or both', [{ field: 'staging_url', message: 'one of staging_url and production_url is required' }]);
        }
        const s = mintSecret(deps);
        secret = s.secret;
        const { rows } = await tx(ctx).query<EndpointRow>(
          `insert into app_public.webhook_endpoints (agency_id, kind, topic, staging_url, production_url, secret_ciphertext, auth_kind, auth_ciphertext)
           values ($1, 'topic', $2, $3, $4, $5, $6, $7) returning ${endpointColumns}`,
          [identity(ctx).agencyId, params.topic, body.staging_url ?? null, body.production_url ?? null, s.ciphertext, auth?.kind ?? null, auth?.ciphertext ?? null],
        );
        row = rows[0];
      } else {
        await updateEndpoint(ctx, existing.rows[0].id, {
          staging_url: body.staging_url,
          production_url: body.production_url,
          auth_kind: auth?.kind,
          auth_ciphertext: auth?.ciphertext,
        });
        row = await loadEndpoint(ctx, params.topic);
        if (!row.staging_url && !row.production_url) throw new ApiError(422, 'an endpoint needs at least one URL', [{ field: 'staging_url', message: 'both URLs would be empty' }]);
      }
      if (body.enabled !== undefined) {
        row = (await tx(ctx).query<EndpointRow>(`select ${endpointColumns} from app_public.set_webhook_endpoint_enabled($1, $2)`, [row.id, body.enabled])).rows[0];
      }
      ctx.status = secret ? 201 : 200;
      ctx.body = secret ? { ...present(row, identity(ctx).mode), signing_secret: secret } : present(row, identity(ctx).mode);
    },
  }),
  route({
    method: 'get',
    path: '/v2/webhook-endpoints',
    operationId: 'listWebhookEndpoints',
    summary: 'The agency’s topic endpoints (secrets are never returned)',
    tags: ['Webhooks'],
    auth: 'api_key',
    responses: { 200: { description: 'Endpoints', schema: z.object({ data: z.array(topicEndpoint) }) }, ...errors(401) },
    handler: async (ctx) => {
      const { rows } = await tx(ctx).query<EndpointRow>(`select ${endpointColumns} from app_public.webhook_endpoints where kind = 'topic' order by topic`);
      ctx.body = { data: rows.map((w) => present(w, identity(ctx).mode)) };
    },
  }),
  route({
    method: 'post',
    path: '/v2/webhook-endpoints/:topic/rotate-secret',
    operationId: 'rotateWebhookSecret',
    idempotent: 'sealed',
    summary: 'Replace the signing secret; the new one is shown once and signs every later attempt',
    tags: ['Webhooks'],
    auth: 'api_key_admin',
    params: topicParams,
    responses: { 200: { description: 'The endpoint with its new secret', schema: topicEndpointWithSecret }, ...errors(400, 401, 403, 404, 409, 422) },
    handler: async (ctx, { params }, deps) => {
      const w = await loadEndpoint(ctx, params.topic);
      const secret = await rotateSecret(ctx, deps, w.id);
      ctx.body = { ...present(await loadEndpoint(ctx, params.topic), identity(ctx).mode), signing_secret: secret };
    },
  }),
  route({
    method: 'post',
    path: '/v2/webhook-endpoints/:topic/test',
    operationId: 'testWebhookEndpoint',
    idempotent: true,
    summary: 'Send a realistic sample event of the topic to the staging URL, signed like any other',
    tags: ['Webhooks'],
    auth: 'api_key_admin',
    params: topicParams,
    responses: { 202: { description: 'The queued test delivery', schema: delivery }, ...errors(401, 403, 404, 422) },
    handler: async (ctx, { params }) => {
      const w = await loadEndpoint(ctx, params.topic);
      ctx.status = 202;
      ctx.body = await sendTest(ctx, w.id, sampleTopicPayload(params.topic));
    },
  }),
  route({
    method: 'get',
    path: '/v2/webhook-endpoints/:topic/deliveries',
    operationId: 'listTopicDeliveries',
    summary: 'The delivery log of a topic endpoint, newest first',
    tags: ['Webhooks'],
    auth: 'api_key',
    params: topicParams,
    query: deliveriesQuery,
    responses: { 200: { description: 'A page of deliveries', schema: deliveryList }, ...errors(400, 401, 404) },
    handler: async (ctx, { params, query }) => {
      const w = await loadEndpoint(ctx, params.topic);
      ctx.body = await listDeliveries(ctx, w.id, query);
    },
  }),
  route({
    method: 'get',
    path: '/v2/webhook-endpoints/:topic/deliveries/:delivery_id',
    operationId: 'getTopicDelivery',
    summary: 'One delivery with the exact body sent and every attempt',
    tags: ['Webhooks'],
    auth: 'api_key',
    params: topicDeliveryParams,
    responses: { 200: { description: 'The delivery', schema: deliveryDetailSchema }, ...errors(400, 401, 404) },
    handler: async (ctx, { params }) => {
      const w = await loadEndpoint(ctx, params.topic);
      ctx.body = await deliveryDetail(ctx, w.id, params.delivery_id);
    },
  }),
  route({
    method: 'post',
    path: '/v2/webhook-endpoints/:topic/deliveries/:delivery_id/redeliver',
    operationId: 'redeliverTopicDelivery',
    idempotent: true,
    summary: 'Send a delivery again (same message id, so receivers de-duplicate it)',
    tags: ['Webhooks'],
    auth: 'api_key_admin',
    params: topicDeliveryParams,
    responses: { 202: { description: 'The new delivery', schema: delivery }, ...errors(400, 401, 403, 404) },
    handler: async (ctx, { params }) => {
      const w = await loadEndpoint(ctx, params.topic);
      ctx.status = 202;
      ctx.body = await redeliver(ctx, w.id, params.delivery_id);
    },
  }),
];
