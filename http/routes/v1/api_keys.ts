// API keys of an agency (managed by its admins with their agent token) and the agency's plan (set by its
// OAuth client). Keys are shown once; only their hashes are stored.
import { z } from 'zod';
import { hashToken, newToken } from '../../../lib/secrets.ts';
import { notFound } from '../../errors.ts';
import { route, tx } from '../../route.ts';
import { agencyParams } from '../../schemas/agencies.ts';
import { apiKey, apiKeyParams, apiKeyWithSecret, createApiKeyBody, plan, planBody, planLimits, rollApiKeyBody } from '../../schemas/api_keys.ts';
import { v1Errors } from '../../schemas/common.ts';

interface ApiKeyRow {
  id: number;
  name: string;
  mode: 'test' | 'live';
  permissions: 'admin' | 'read_only';
  prefix: string;
  last_four: string;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  replaced_by_id: number | null;
}

function presentKey(k: ApiKeyRow): z.infer<typeof apiKey> {
  const now = Date.now();
  const status = k.revoked_at ? 'revoked' : k.expires_at && k.expires_at.getTime() <= now ? 'expired' : k.expires_at ? 'expiring' : 'active';
  return {
    id: k.id,
    name: k.name,
    mode: k.mode,
    permissions: k.permissions,
    prefix: k.prefix,
    last_four: k.last_four,
    status,
    created_at: k.created_at.toISOString(),
    last_used_at: k.last_used_at?.toISOString() ?? null,
    expires_at: k.expires_at?.toISOString() ?? null,
    revoked_at: k.revoked_at?.toISOString() ?? null,
    replaced_by_id: k.replaced_by_id,
  };
}

/** A new key for `mode`, with the parts stored beside its hash. */
function mintKey(mode: 'test' | 'live') {
  const key = newToken(`svc_${mode}_`, 30);
  return { key, hash: hashToken(key), prefix: key.slice(0, `svc_${mode}_`.length + 4), lastFour: key.slice(-4) };
}

const keyColumns = 'id, name, mode, permissions, prefix, last_four, created_at, last_used_at, expires_at, revoked_at, replaced_by_id';

export const apiKeyRoutes = [
  route({
    method: 'post',
    path: '/v1/agencies/:agency_id/api-keys',
    operationId: 'createApiKey',
    summary: 'Create an API key for the Forms API (admin); the key is shown once',
    tags: ['API keys'],
    auth: 'agent_admin',
    rateLimit: 'v1',
    params: agencyParams,
    body: createApiKeyBody,
    responses: { 200: { description: 'The key, shown once', schema: z.object({ data: apiKeyWithSecret }) }, ...v1Errors(400, 401, 403, 404, 422, 429) },
    handler: async (ctx, { params, body }) => {
      const k = mintKey(body.mode);
      const { rows } = await tx(ctx).query<ApiKeyRow>(`select ${keyColumns} from app_public.create_api_key($1, $2, $3, $4, $5, $6, $7)`, [
        params.agency_id, body.name, body.mode, body.permissions, k.hash, k.prefix, k.lastFour,
      ]);
      ctx.body = { data: { ...presentKey(rows[0]), key: k.key } };
    },
  }),
  route({
    method: 'get',
    path: '/v1/agencies/:agency_id/api-keys',
    operationId: 'listApiKeys',
    summary: 'List the agency’s API keys without their secrets (admin)',
    tags: ['API keys'],
    auth: 'agent_admin',
    rateLimit: 'v1',
    params: agencyParams,
    responses: { 200: { description: 'The keys, newest first', schema: z.object({ data: z.array(apiKey) }) }, ...v1Errors(400, 401, 403, 404, 429) },
    handler: async (ctx, { params }) => {
      const visible = await tx(ctx).query('select 1 from app_public.agencies where id = $1', [params.agency_id]);
      if (!visible.rowCount) throw notFound('agency');
      const { rows } = await tx(ctx).query<ApiKeyRow>(`select ${keyColumns} from app_public.api_keys where agency_id = $1 order by id desc`, [params.agency_id]);
      ctx.body = { data: rows.map(presentKey) };
    },
  }),
  route({
    method: 'post',
    path: '/v1/agencies/:agency_id/api-keys/:key_id/roll',
    operationId: 'rollApiKey',
    summary: 'Replace a key; the old one keeps working for grace_period_seconds (default 0)',
    tags: ['API keys'],
    auth: 'agent_admin',
    rateLimit: 'v1',
    params: apiKeyParams,
    body: rollApiKeyBody,
    responses: { 200: { description: 'The replacement key, shown once', schema: z.object({ data: apiKeyWithSecret }) }, ...v1Errors(400, 401, 403, 404, 422, 429) },
    handler: async (ctx, { params, body }) => {
      const { rows: old } = await tx(ctx).query<{ mode: 'test' | 'live' }>('select mode from app_public.api_keys where id = $1 and agency_id = $2', [params.key_id, params.agency_id]);
      if (!old[0]) throw notFound('API key');
      const k = mintKey(old[0].mode);
      const { rows } = await tx(ctx).query<ApiKeyRow>(`select ${keyColumns} from app_public.roll_api_key($1, $2, $3, $4, $5, $6)`, [
        params.agency_id, params.key_id, body.grace_period_seconds, k.hash, k.prefix, k.lastFour,
      ]);
      ctx.body = { data: { ...presentKey(rows[0]), key: k.key } };
    },
  }),
  route({
    method: 'delete',
    path: '/v1/agencies/:agency_id/api-keys/:key_id',
    operationId: 'revokeApiKey',
    summary: 'Revoke a key at once',
    tags: ['API keys'],
    auth: 'agent_admin',
    rateLimit: 'v1',
    params: apiKeyParams,
    responses: { 204: { description: 'Revoked' }, ...v1Errors(400, 401, 403, 404, 429) },
    handler: async (ctx, { params }) => {
      await tx(ctx).query('select app_public.revoke_api_key($1, $2)', [params.agency_id, params.key_id]);
      ctx.status = 204;
    },
  }),
  route({
    method: 'put',
    path: '/v1/agencies/:agency_id/plan',
    operationId: 'setAgencyPlan',
    summary: 'Set the agency’s plan (limits of the lease checker and extraction API)',
    tags: ['Agencies'],
    auth: 'oauth_client',
    rateLimit: 'v1',
    params: agencyParams,
    body: planBody,
    responses: { 200: { description: 'The plan in force', schema: z.object({ data: plan }) }, ...v1Errors(400, 401, 403, 404, 422, 429) },
    handler: async (ctx, { params, body }) => {
      const { rows } = await tx(ctx).query<{ id: number; plan: 'free' | 'pro' | 'enterprise'; plan_per_minute: number | null; plan_per_day: number | null }>(
        'select id, plan, plan_per_minute, plan_per_day from app_public.set_agency_plan($1, $2, $3, $4)',
        [params.agency_id, body.plan, body.per_minute ?? null, body.per_day ?? null],
      );
      const g = rows[0];
      const limits = g.plan === 'enterprise' ? { per_minute: g.plan_per_minute!, per_day: g.plan_per_day! } : planLimits[g.plan];
      ctx.body = { data: { agency_id: g.id, plan: g.plan, ...limits } };
    },
  }),
];
