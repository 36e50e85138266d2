// Bulk recovery of a topic endpoint's failed deliveries: after an outage on the partner's side, every
// delivery that ended failed in a window is sent again in its original order under its original webhook-id.
// Admin API keys; a key recovers its own mode's deliveries only (a sandbox key: test deliveries).
import { route } from '../../route.ts';
import { problemErrors as errors } from '../../schemas/common.ts';
import { recoverBody, recovery, topicRecoveryParams } from '../../schemas/recoveries.ts';
import { topicParams } from '../../schemas/webhooks.ts';
import { loadTopicEndpoint, recoveryOf, startRecovery } from '../../webhooks.ts';

export const topicRecoveryRoutes = [
  route({
    method: 'post',
    path: '/v2/webhook-endpoints/:topic/recover',
    operationId: 'recoverTopicDeliveries',
    summary: 'Send every delivery that ended failed in a window again, in the original order, under its original webhook-id',
    tags: ['Webhooks'],
    auth: 'api_key_admin',
    params: topicParams,
    authorize: async (ctx, { params }) => void (await loadTopicEndpoint(ctx, params.topic)),
    body: recoverBody,
    responses: {
      202: {
        description: 'The recovery (the same one again for the same window), with its counts; GET its URL (Location) for progress',
        schema: recovery,
        headers: ['Location'],
      },
      ...errors(400, 401, 403, 404, 422),
    },
    handler: async (ctx, { params, body }) => {
      const w = await loadTopicEndpoint(ctx, params.topic);
      ctx.body = await startRecovery(ctx, w.id, body, `/v2/webhook-endpoints/${params.topic}/recoveries`);
    },
  }),
  route({
    method: 'get',
    path: '/v2/webhook-endpoints/:topic/recoveries/:recovery_id',
    operationId: 'getTopicRecovery',
    summary: 'Progress of a recovery',
    tags: ['Webhooks'],
    auth: 'api_key',
    params: topicRecoveryParams,
    responses: { 200: { description: 'The recovery and its counts', schema: recovery }, ...errors(400, 401, 404) },
    handler: async (ctx, { params }) => {
      const w = await loadTopicEndpoint(ctx, params.topic);
      ctx.body = await recoveryOf(ctx, w.id, params.recovery_id);
    },
  }),
];
