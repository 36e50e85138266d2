// API keys of an agency (managed by its admins with their agent token) and the agency's plan (set by its
// OAuth client). Keys are shown once; only their hashes are stored.
import { z } from 'zod';
import { agencyVisible, setAgencyPlan } from '../../../db/queries/agencies.ts';
import { apiKeyMode, createApiKey, listApiKeys, revokeApiKey, rollApiKey } from '../../../db/queries/api_keys.ts';
import { newApiKey } from '../../../lib/secrets.ts';
import { notFound } from '../../errors.ts';
import { presentPlan } from '../../presenters/agencies.ts';
import { presentApiKey } from '../../presenters/api_keys.ts';
import { v1Route, tx } from '../../route.ts';
import { agencyParams } from '../../schemas/agencies.ts';
import { apiKey, apiKeyParams, apiKeyWithSecret, createApiKeyBody, plan, setAgencyPlanBody, rollApiKeyBody } from '../../schemas/api_keys.ts';
import { v1Errors } from '../../schemas/common.ts';
import { agencyInPath, apiKeyInPath } from '../../visibility.ts';

export const apiKeyRoutes = [
  v1Route({
    method: 'post',
    path: '/v1/agencies/:agency_id/api-keys',
    operationId: 'createApiKey',
    summary: 'Create an API key for the Forms API (admin); the key is shown once',
    tags: ['API keys'],
    auth: 'agent_admin',
    params: agencyParams,
    authorize: agencyInPath,
    body: createApiKeyBody,
    responses: { 200: { description: 'The key, shown once', schema: z.object({ data: apiKeyWithSecret }) }, ...v1Errors(400, 401, 403, 404, 422) },
    handler: async (ctx, { params, body }) => {
      const k = newApiKey(body.mode);
      const created = await createApiKey(tx(ctx), params.agency_id, body, k);
      ctx.body = { data: { ...presentApiKey(created), key: k.key } };
    },
  }),
  v1Route({
    method: 'get',
    path: '/v1/agencies/:agency_id/api-keys',
    operationId: 'listApiKeys',
    summary: 'List the agency’s API keys without their secrets (admin)',
    tags: ['API keys'],
    auth: 'agent_admin',
    params: agencyParams,
    responses: { 200: { description: 'The keys, newest first', schema: z.object({ data: z.array(apiKey) }) }, ...v1Errors(400, 401, 403, 404) },
    handler: async (ctx, { params }) => {
      if (!(await agencyVisible(tx(ctx), params.agency_id))) throw notFound('agency');
      ctx.body = { data: (await listApiKeys(tx(ctx), params.agency_id)).map(presentApiKey) };
    },
  }),
  v1Route({
    method: 'post',
    path: '/v1/agencies/:agency_id/api-keys/:key_id/roll',
    operationId: 'rollApiKey',
    summary: 'Replace a key; the old one keeps working for grace_period_seconds (default 0)',
    tags: ['API keys'],
    auth: 'agent_admin',
    params: apiKeyParams,
    authorize: apiKeyInPath,
    body: rollApiKeyBody,
    responses: {
      200: { description: 'The replacement key, shown once', schema: z.object({ data: apiKeyWithSecret }) },
      ...v1Errors(400, 401, 403, 404, 422),
    },
    handler: async (ctx, { params, body }) => {
      const mode = await apiKeyMode(tx(ctx), params.agency_id, params.key_id);
      if (!mode) throw notFound('API key');
      const k = newApiKey(mode);
      const rolled = await rollApiKey(tx(ctx), params.agency_id, params.key_id, body.grace_period_seconds, k);
      ctx.body = { data: { ...presentApiKey(rolled), key: k.key } };
    },
  }),
  v1Route({
    method: 'delete',
    path: '/v1/agencies/:agency_id/api-keys/:key_id',
    operationId: 'revokeApiKey',
    summary: 'Revoke a key at once',
    tags: ['API keys'],
    auth: 'agent_admin',
    params: apiKeyParams,
    responses: { 204: { description: 'Revoked' }, ...v1Errors(400, 401, 403, 404) },
    handler: async (ctx, { params }) => {
      await revokeApiKey(tx(ctx), params.agency_id, params.key_id);
      ctx.status = 204;
    },
  }),
  v1Route({
    method: 'put',
    path: '/v1/agencies/:agency_id/plan',
    operationId: 'setAgencyPlan',
    summary: 'Set the agency’s plan (limits of the lease checker and extraction API)',
    tags: ['Agencies'],
    auth: 'oauth_client',
    params: agencyParams,
    authorize: agencyInPath,
    body: setAgencyPlanBody,
    responses: { 200: { description: 'The plan in force', schema: z.object({ data: plan }) }, ...v1Errors(400, 401, 403, 404, 422) },
    handler: async (ctx, { params, body }) => {
      const g = await setAgencyPlan(tx(ctx), params.agency_id, body.plan, body.per_minute ?? null, body.per_day ?? null);
      ctx.body = { data: presentPlan(g) };
    },
  }),
];
