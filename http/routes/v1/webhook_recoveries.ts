// Bulk recovery of a v1 subscription's failed deliveries, as for /v2 topic endpoints, in the v1
// envelope. Agent tokens see both modes, so an admin's recovery sends the failed deliveries of both again.
import { v1Route } from '../../route.ts';
import { v1Errors } from '../../schemas/common.ts';
import { recoverBody, recovery, subscriptionRecoveryParams } from '../../schemas/recoveries.ts';
import { subscriptionParams } from '../../schemas/webhooks.ts';
import { loadSubscription, recoveryOf, startRecovery } from '../../webhooks.ts';
import { z } from 'zod';

const common = { tags: ['Webhook subscriptions'] };

export const subscriptionRecoveryRoutes = [
  v1Route({
    ...common,
    method: 'post',
    path: '/v1/webhooks/:webhook_uuid/recover',
    operationId: 'recoverSubscriptionDeliveries',
    summary: 'Send every delivery that ended failed in a window again, in the original order, under its original webhook-id (admin)',
    auth: 'agent_admin',
    params: subscriptionParams,
    authorize: async (ctx, { params }) => void (await loadSubscription(ctx, params.webhook_uuid)),
    body: recoverBody,
    responses: {
      202: {
        description: 'The recovery (the same one again for the same window), with its counts',
        schema: z.object({ data: recovery }),
        headers: ['Location'],
      },
      ...v1Errors(400, 401, 403, 404, 422),
    },
    handler: async (ctx, { params, body }) => {
      const w = await loadSubscription(ctx, params.webhook_uuid);
      ctx.body = { data: await startRecovery(ctx, w.id, body, `/v1/webhooks/${params.webhook_uuid}/recoveries`) };
    },
  }),
  v1Route({
    ...common,
    method: 'get',
    path: '/v1/webhooks/:webhook_uuid/recoveries/:recovery_id',
    operationId: 'getSubscriptionRecovery',
    summary: 'Progress of a recovery',
    auth: 'agent',
    params: subscriptionRecoveryParams,
    responses: { 200: { description: 'The recovery and its counts', schema: z.object({ data: recovery }) }, ...v1Errors(400, 401, 404) },
    handler: async (ctx, { params }) => {
      const w = await loadSubscription(ctx, params.webhook_uuid);
      ctx.body = { data: await recoveryOf(ctx, w.id, params.recovery_id) };
    },
  }),
];
