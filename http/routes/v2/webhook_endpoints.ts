// Topic endpoints (SPEC §6.1–6.3): one per agency and topic, with a staging URL (test-mode data, test events)
// and a production URL (live data), managed with an admin API key.
import type { Context } from 'koa';
import { z } from 'zod';
import { listTopicEndpoints, putTopicEndpoint, type EndpointRow } from '../../../db/queries/webhook_endpoints.ts';
import { sampleTopicPayload } from '../../../pipelines/webhooks/payloads.ts';
import { presentTopicEndpoint } from '../../presenters/webhooks.ts';
import { identity, route, tx } from '../../route.ts';
import { problemErrors as errors } from '../../schemas/common.ts';
import {
  listDeliveriesQuery,
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
  deliveryPage,
  loadTopicEndpoint,
  mintSecret,
  redeliverTo,
  rotateSecret,
  sealAuth,
  sendTest,
} from '../../webhooks.ts';

const present = (ctx: Context) => (w: EndpointRow) => presentTopicEndpoint(w, identity(ctx).mode);

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
      // A secret is minted every time but stored (and shown) only when this PUT creates the endpoint.
      const s = mintSecret(deps);
      const { endpoint, created } = await putTopicEndpoint(tx(ctx), params.topic, {
        stagingUrl: body.staging_url,
        productionUrl: body.production_url,
        auth: body.auth === undefined ? undefined : sealAuth(deps, body.auth),
        enabled: body.enabled,
        secretCiphertext: s.ciphertext,
      });
      ctx.status = created ? 201 : 200;
      ctx.body = created ? { ...present(ctx)(endpoint), signing_secret: s.secret } : present(ctx)(endpoint);
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
      ctx.body = { data: (await listTopicEndpoints(tx(ctx))).map(present(ctx)) };
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
      const w = await loadTopicEndpoint(ctx, params.topic);
      const secret = await rotateSecret(ctx, deps, w.id);
      ctx.body = { ...present(ctx)(await loadTopicEndpoint(ctx, params.topic)), signing_secret: secret };
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
      const w = await loadTopicEndpoint(ctx, params.topic);
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
    query: listDeliveriesQuery,
    responses: { 200: { description: 'A page of deliveries', schema: deliveryList }, ...errors(400, 401, 404) },
    handler: async (ctx, { params, query }) => {
      const w = await loadTopicEndpoint(ctx, params.topic);
      ctx.body = await deliveryPage(ctx, w.id, query);
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
      const w = await loadTopicEndpoint(ctx, params.topic);
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
      const w = await loadTopicEndpoint(ctx, params.topic);
      ctx.status = 202;
      ctx.body = await redeliverTo(ctx, w.id, params.delivery_id);
    },
  }),
];
