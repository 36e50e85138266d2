// v1 agents: listed, created, deactivated and re-tokened by the OAuth client; read, updated and deactivated
// by admins of their own agency.
import type { Context } from 'koa';
import { hashToken, newToken } from '../../../lib/secrets.ts';
import { slugify } from '../../../lib/slug.ts';
import { notFound } from '../../errors.ts';
import { presentAgencyBrief, presentAgent, type AgencyRow, type AgentRow } from '../../presenters/v1.ts';
import { route, tx } from '../../route.ts';
import { agencyParams } from '../../schemas/agencies.ts';
import {
  agencyAgentParams,
  agentList,
  agentParams,
  agentWithAccessToken,
  createAgentBody,
  listAgentsQuery,
  resetTokenResponse,
  updateAgentBody,
  agent as agentSchema,
} from '../../schemas/agents.ts';
import { v1Errors } from '../../schemas/common.ts';
import { AGENT_TOKEN_PREFIX, serveBlob, storeBrandingImage } from './agencies.ts';
import { z } from 'zod';

type AgentWithAgency = AgentRow & { agency: AgencyRow };

// Every agent read joins its agency's brief; RLS scopes both tables.
const selectAgent = `select a.*, json_build_object('id', g.id, 'name', g.name, 'color_code', g.color_code) as agency
  from app_public.agents a join app_public.agencies g on g.id = a.agency_id`;

async function loadAgent(ctx: Context, agentId: number, agencyId?: number): Promise<AgentWithAgency> {
  const { rows } = await tx(ctx).query<AgentWithAgency>(`${selectAgent} where a.id = $1 and ($2::bigint is null or a.agency_id = $2)`, [agentId, agencyId ?? null]);
  if (!rows[0]) throw notFound('agent');
  return rows[0];
}

function pageUrl(base: string, query: Record<string, unknown>, page: number): string {
  const u = new URL(base);
  for (const [k, v] of Object.entries(query)) if (v !== undefined && k !== 'page') u.searchParams.set(k, String(v));
  u.searchParams.set('page', String(page));
  return u.toString();
}

export const agentRoutes = [
  route({
    method: 'get',
    path: '/v1/agents',
    operationId: 'listAgents',
    summary: 'List agents of the agencies linked to the OAuth client',
    tags: ['Agents'],
    auth: 'oauth_client',
    rateLimit: 'v1',
    query: listAgentsQuery,
    responses: { 200: { description: 'A page of agents', schema: agentList }, ...v1Errors(400, 401, 403, 429) },
    handler: async (ctx, { query }, { cfg }) => {
      const { page, perPage } = query;
      const { rows } = await tx(ctx).query<AgentWithAgency & { total: number }>(
        `${selectAgent.replace('select a.*', 'select a.*, count(*) over () as total')}
          where ($1::text is null or lower(a.email) = lower($1)) and ($2 or a.status = 'active')
          order by a.id limit $3 offset $4`,
        [query.filterByEmail ?? null, query.includeDeactivated, perPage, (page - 1) * perPage],
      );
      let total = rows[0]?.total ?? 0;
      if (!rows.length && page > 1) {
        // Past the last page: still report the true total.
        const c = await tx(ctx).query<{ n: number }>(
          `select count(*)::int as n from app_public.agents a where ($1::text is null or lower(a.email) = lower($1)) and ($2 or a.status = 'active')`,
          [query.filterByEmail ?? null, query.includeDeactivated],
        );
        total = c.rows[0].n;
      }
      const lastPage = Math.max(1, Math.ceil(total / perPage));
      const path = `${cfg.publicUrl}/v1/agents`;
      const q = { filterByEmail: query.filterByEmail, includeDeactivated: query.includeDeactivated || undefined, perPage };
      const from = rows.length ? (page - 1) * perPage + 1 : null;
      ctx.body = {
        data: rows.map((r) => presentAgent(r, r.agency, cfg.publicUrl)),
        links: {
          first: pageUrl(path, q, 1),
          last: pageUrl(path, q, lastPage),
          prev: page > 1 ? pageUrl(path, q, Math.min(page - 1, lastPage)) : null,
          next: page < lastPage ? pageUrl(path, q, page + 1) : null,
        },
        meta: { current_page: page, from, last_page: lastPage, path, per_page: perPage, to: from === null ? null : from + rows.length - 1, total },
      };
    },
  }),
  route({
    method: 'post',
    path: '/v1/agencies/:agency_id/agents',
    operationId: 'createAgent',
    summary: 'Add an agent to an agency linked to the OAuth client (JSON, or multipart with profile_picture)',
    tags: ['Agents'],
    auth: 'oauth_client',
    rateLimit: 'v1',
    params: agencyParams,
    body: createAgentBody,
    files: { profile_picture: { description: 'Profile picture (PNG, JPEG, WebP or GIF, at most 10 MB); re-encoded as WebP' } },
    responses: { 200: { description: 'The agent with its access token', schema: z.object({ data: agentWithAccessToken }) }, ...v1Errors(400, 401, 403, 404, 413, 422, 429) },
    handler: async (ctx, { params, body, files }, deps) => {
      // Scope first, so an unlinked agency is a 404 before any upload is processed.
      const { rows: agencies } = await tx(ctx).query<AgencyRow>('select * from app_public.agencies where id = $1', [params.agency_id]);
      if (!agencies[0]) throw notFound('agency');
      const pictureKey = files.profile_picture ? await storeBrandingImage(files.profile_picture, 'pictures', deps) : null;
      const token = newToken(AGENT_TOKEN_PREFIX);
      const slugBase = slugify([body.first_name, body.last_name, body.slug_suffix].filter(Boolean).join(' '));
      const { rows } = await tx(ctx).query<AgentRow>('select * from app_public.create_agent($1, $2, $3, $4, $5, $6, $7, $8, $9)', [
        params.agency_id, body.first_name, body.last_name, body.email, slugBase, body.phone_number ?? null, body.is_admin, pictureKey, hashToken(token),
      ]);
      ctx.body = { data: { ...presentAgent(rows[0], agencies[0], deps.cfg.publicUrl), access_token: token } };
    },
  }),
  route({
    method: 'delete',
    path: '/v1/agents/:agent_id',
    operationId: 'deactivateAgent',
    summary: 'Deactivate an agent of a linked agency (the owner only after ownership moved)',
    tags: ['Agents'],
    auth: 'oauth_client',
    rateLimit: 'v1',
    params: agentParams,
    responses: { 204: { description: 'Deactivated' }, ...v1Errors(400, 401, 403, 404, 422, 429) },
    handler: async (ctx, { params }) => {
      await tx(ctx).query('select app_public.deactivate_agent($1)', [params.agent_id]);
      ctx.status = 204;
    },
  }),
  route({
    method: 'post',
    path: '/v1/agents/:agent_id/reset-access-token',
    operationId: 'resetAgentToken',
    summary: 'Revoke every token of the agent and issue one new token',
    tags: ['Agents'],
    auth: 'oauth_client',
    rateLimit: 'v1',
    params: agentParams,
    responses: { 200: { description: 'The new token, shown once', schema: resetTokenResponse }, ...v1Errors(400, 401, 403, 404, 422, 429) },
    handler: async (ctx, { params }) => {
      const token = newToken(AGENT_TOKEN_PREFIX);
      await tx(ctx).query('select app_public.reset_agent_token($1, $2)', [params.agent_id, hashToken(token)]);
      const a = await loadAgent(ctx, params.agent_id);
      ctx.body = {
        data: {
          agency: presentAgencyBrief(a.agency),
          agent: { id: a.id, first_name: a.first_name, last_name: a.last_name, email: a.email, slug: a.slug, access_token: token },
        },
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/agencies/:agency_id/agents/:agent_id',
    operationId: 'getAgent',
    summary: 'Read an agent of the caller’s agency',
    tags: ['Agents'],
    auth: 'agent',
    rateLimit: 'v1',
    params: agencyAgentParams,
    responses: { 200: { description: 'The agent', schema: z.object({ data: agentSchema }) }, ...v1Errors(400, 401, 403, 404, 429) },
    handler: async (ctx, { params }, { cfg }) => {
      const a = await loadAgent(ctx, params.agent_id, params.agency_id);
      ctx.body = { data: presentAgent(a, a.agency, cfg.publicUrl) };
    },
  }),
  route({
    method: 'patch',
    path: '/v1/agencies/:agency_id/agents/:agent_id',
    operationId: 'updateAgent',
    summary: 'Update an agent (admin); `is_owner: true` moves agency ownership to it (owner only)',
    tags: ['Agents'],
    auth: 'agent_admin',
    rateLimit: 'v1',
    params: agencyAgentParams,
    body: updateAgentBody,
    responses: { 200: { description: 'The updated agent', schema: z.object({ data: agentSchema }) }, ...v1Errors(400, 401, 403, 404, 422, 429) },
    handler: async (ctx, { params, body }, { cfg }) => {
      const current = await loadAgent(ctx, params.agent_id, params.agency_id);
      if (body.is_owner) await tx(ctx).query('select app_public.transfer_agency_ownership($1)', [current.id]);
      // The owner-stays-admin rule and per-agency email uniqueness are constraints; errors.ts names their fields.
      await tx(ctx).query(
        `update app_public.agents set first_name = coalesce($2, first_name), last_name = coalesce($3, last_name),
           email = coalesce($4, email), phone_number = case when $5::boolean then $6 else phone_number end,
           is_admin = coalesce($7, is_admin)
         where id = $1`,
        [current.id, body.first_name ?? null, body.last_name ?? null, body.email ?? null, body.phone_number !== undefined, body.phone_number ?? null, body.is_admin ?? null],
      );
      const a = await loadAgent(ctx, current.id);
      ctx.body = { data: presentAgent(a, a.agency, cfg.publicUrl) };
    },
  }),
  route({
    method: 'delete',
    path: '/v1/agencies/:agency_id/agents/:agent_id',
    operationId: 'deactivateAgencyAgent',
    summary: 'Deactivate an agent from the admin or owner account',
    tags: ['Agents'],
    auth: 'agent_admin',
    rateLimit: 'v1',
    params: agencyAgentParams,
    responses: { 204: { description: 'Deactivated' }, ...v1Errors(400, 401, 403, 404, 422, 429) },
    handler: async (ctx, { params }) => {
      await loadAgent(ctx, params.agent_id, params.agency_id);
      await tx(ctx).query('select app_public.deactivate_agent($1)', [params.agent_id]);
      ctx.status = 204;
    },
  }),
  route({
    method: 'get',
    path: '/v1/agents/:agent_id/profile-picture',
    operationId: 'getAgentPicture',
    summary: 'The agent’s profile picture (public, for hosted forms)',
    tags: ['Agents'],
    auth: 'none',
    params: agentParams,
    responses: { 200: { description: 'image/webp' }, ...v1Errors(404) },
    handler: async (ctx, { params }, deps) => {
      const { rows } = await deps.db.owner.query<{ profile_picture_key: string | null }>(
        `select profile_picture_key from app_public.agents where id = $1 and status = 'active'`,
        [params.agent_id],
      );
      await serveBlob(ctx, rows[0]?.profile_picture_key, deps, 'profile picture');
    },
  }),
];
