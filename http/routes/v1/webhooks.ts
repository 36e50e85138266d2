// v1 webhook subscriptions (SPEC §4.2 "Further operations", §6.4), scoped to the agent's agency: any agent
// reads them, admins change them. Each has its own signing secret, returned on creation and rotation.
import { z } from 'zod';
import { deleteSubscription, listSubscriptions, setEndpointEnabled, updateSubscription } from '../../../db/queries/webhook_endpoints.ts';
import { sampleV1Event } from '../../../pipelines/webhooks/payloads.ts';
import { notFound } from '../../errors.ts';
import { presentSubscription as present } from '../../presenters/webhooks.ts';
import { v1Route, tx } from '../../route.ts';
import { v1Errors } from '../../schemas/common.ts';
import {
  listDeliveriesQuery,
  delivery,
  deliveryDetail as deliveryDetailSchema,
  deliveryList,
  updateSubscriptionBody,
  subscription,
  createSubscriptionBody,
  subscriptionDeliveryParams,
  subscriptionParams,
  subscriptionWithSecret,
} from '../../schemas/webhooks.ts';
import { checkWebhookUrl, deliveryDetail, deliveryPage, loadSubscription, redeliverTo, rotateSecret, sealAuth, sendTest, subscribe } from '../../webhooks.ts';
import { subscriptionInPath } from '../../visibility.ts';

const common = { tags: ['Webhook subscriptions'] };

export const webhookSubscriptionRoutes = [
  v1Route({
    ...common,
    method: 'post',
    path: '/v1/webhooks',
    operationId: 'createWebhookSubscription',
    summary: 'Subscribe a URL to events of the agent’s agency (admin); the signing secret is shown once',
    auth: 'agent_admin',
    body: createSubscriptionBody,
    responses: {
      200: { description: 'The subscription with its signing secret', schema: z.object({ data: subscriptionWithSecret }) },
      ...v1Errors(401, 403, 422),
    },
    handler: async (ctx, { body }, deps) => {
      const { row, secret } = await subscribe(ctx, deps, body);
      ctx.body = { data: { ...present(row), signing_secret: secret } };
    },
  }),
  v1Route({
    ...common,
    method: 'get',
    path: '/v1/webhooks',
    operationId: 'listWebhookSubscriptions',
    summary: 'All subscriptions of the authenticated agent’s agency',
    auth: 'agent',
    responses: { 200: { description: 'Subscriptions', schema: z.object({ data: z.array(subscription) }) }, ...v1Errors(401) },
    handler: async (ctx) => {
      ctx.body = { data: (await listSubscriptions(tx(ctx))).map(present) };
    },
  }),
  v1Route({
    ...common,
    method: 'get',
    path: '/v1/webhooks/:webhook_uuid',
    operationId: 'getWebhookSubscription',
    summary: 'Read a subscription',
    auth: 'agent',
    params: subscriptionParams,
    responses: { 200: { description: 'The subscription', schema: z.object({ data: subscription }) }, ...v1Errors(400, 401, 404) },
    handler: async (ctx, { params }) => {
      ctx.body = { data: present(await loadSubscription(ctx, params.webhook_uuid)) };
    },
  }),
  v1Route({
    ...common,
    method: 'patch',
    path: '/v1/webhooks/:webhook_uuid',
    operationId: 'updateWebhookSubscription',
    summary: 'Update url, events, description, credentials, or enable/disable (admin)',
    auth: 'agent_admin',
    params: subscriptionParams,
    authorize: subscriptionInPath,
    body: updateSubscriptionBody,
    responses: { 200: { description: 'The subscription', schema: z.object({ data: subscription }) }, ...v1Errors(400, 401, 403, 404, 422) },
    handler: async (ctx, { params, body }, deps) => {
      const w = await loadSubscription(ctx, params.webhook_uuid);
      await checkWebhookUrl(deps, body.url, 'url');
      await updateSubscription(tx(ctx), w.id, {
        url: body.url,
        events: body.events ? [...new Set(body.events)] : undefined,
        description: body.description,
        auth: body.auth === undefined ? undefined : sealAuth(deps, body.auth),
      });
      if (body.enabled !== undefined) await setEndpointEnabled(tx(ctx), w.id, body.enabled);
      ctx.body = { data: present(await loadSubscription(ctx, w.id)) };
    },
  }),
  v1Route({
    ...common,
    method: 'delete',
    path: '/v1/webhooks/:webhook_uuid',
    operationId: 'deleteWebhookSubscription',
    summary: 'Remove a subscription and its delivery log (admin)',
    auth: 'agent_admin',
    params: subscriptionParams,
    responses: { 204: { description: 'Removed' }, ...v1Errors(400, 401, 403, 404) },
    handler: async (ctx, { params }) => {
      if (!(await deleteSubscription(tx(ctx), params.webhook_uuid))) throw notFound('webhook subscription');
      ctx.status = 204;
    },
  }),
  v1Route({
    ...common,
    method: 'post',
    path: '/v1/webhooks/:webhook_uuid/rotate-secret',
    operationId: 'rotateWebhookSubscriptionSecret',
    summary: 'Replace the signing secret (admin); shown once',
    auth: 'agent_admin',
    params: subscriptionParams,
    responses: {
      200: { description: 'The subscription with its new secret', schema: z.object({ data: subscriptionWithSecret }) },
      ...v1Errors(400, 401, 403, 404),
    },
    handler: async (ctx, { params }, deps) => {
      const w = await loadSubscription(ctx, params.webhook_uuid);
      const secret = await rotateSecret(ctx, deps, w.id);
      ctx.body = { data: { ...present(await loadSubscription(ctx, w.id)), signing_secret: secret } };
    },
  }),
  v1Route({
    ...common,
    method: 'post',
    path: '/v1/webhooks/:webhook_uuid/test',
    operationId: 'testWebhookSubscription',
    summary: 'Send a sample event of the first subscribed event name, signed like any other (admin)',
    auth: 'agent_admin',
    params: subscriptionParams,
    responses: { 200: { description: 'The queued test delivery', schema: z.object({ data: delivery }) }, ...v1Errors(400, 401, 403, 404) },
    handler: async (ctx, { params }) => {
      const w = await loadSubscription(ctx, params.webhook_uuid);
      const name = w.events.find((e) => e !== '*') ?? 'client-submission.complete';
      ctx.body = { data: await sendTest(ctx, w.id, sampleV1Event(name as Parameters<typeof sampleV1Event>[0])) };
    },
  }),
  v1Route({
    ...common,
    method: 'get',
    path: '/v1/webhooks/:webhook_uuid/deliveries',
    operationId: 'listSubscriptionDeliveries',
    summary: 'The delivery log of a subscription, newest first',
    auth: 'agent',
    params: subscriptionParams,
    query: listDeliveriesQuery,
    responses: { 200: { description: 'A page of deliveries', schema: deliveryList }, ...v1Errors(400, 401, 404) },
    handler: async (ctx, { params, query }) => {
      const w = await loadSubscription(ctx, params.webhook_uuid);
      ctx.body = await deliveryPage(ctx, w.id, query);
    },
  }),
  v1Route({
    ...common,
    method: 'get',
    path: '/v1/webhooks/:webhook_uuid/deliveries/:delivery_id',
    operationId: 'getSubscriptionDelivery',
    summary: 'One delivery with its body and attempts',
    auth: 'agent',
    params: subscriptionDeliveryParams,
    responses: { 200: { description: 'The delivery', schema: z.object({ data: deliveryDetailSchema }) }, ...v1Errors(400, 401, 404) },
    handler: async (ctx, { params }) => {
      const w = await loadSubscription(ctx, params.webhook_uuid);
      ctx.body = { data: await deliveryDetail(ctx, w.id, params.delivery_id) };
    },
  }),
  v1Route({
    ...common,
    method: 'post',
    path: '/v1/webhooks/:webhook_uuid/deliveries/:delivery_id/redeliver',
    operationId: 'redeliverSubscriptionDelivery',
    summary: 'Send a delivery again (admin)',
    auth: 'agent_admin',
    params: subscriptionDeliveryParams,
    responses: { 200: { description: 'The new delivery', schema: z.object({ data: delivery }) }, ...v1Errors(400, 401, 403, 404) },
    handler: async (ctx, { params }) => {
      const w = await loadSubscription(ctx, params.webhook_uuid);
      ctx.body = { data: await redeliverTo(ctx, w.id, params.delivery_id) };
    },
  }),
];
