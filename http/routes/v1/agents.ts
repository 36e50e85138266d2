// v1 agents: listed, created, deactivated and re-tokened by the OAuth client; read, updated and deactivated
// by admins of their own agency.
import type { Context } from 'koa';
import { z } from 'zod';
import { getAgency } from '../../../db/queries/agencies.ts';
import {
  activeAgentPictureKey,
  countAgents,
  createAgent,
  deactivateAgent,
  getAgent,
  listAgents,
  resetAgentToken,
  transferAgencyOwnership,
  updateAgentProfile,
  type AgentWithAgencyRow,
} from '../../../db/queries/agents.ts';
import { hashToken, newToken, tokenPrefix } from '../../../lib/secrets.ts';
import { slugify } from '../../../lib/slug.ts';
import { publicImageRoute, storeBrandingImage } from '../../blobs.ts';
import { notFound } from '../../errors.ts';
import { offsetPage } from '../../pagination.ts';
import { presentAgencyBrief } from '../../presenters/agencies.ts';
import { presentAgent, presentAgentCredentials } from '../../presenters/agents.ts';
import { v1Route, tx } from '../../route.ts';
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
import { agencyInPath, agentInPath } from '../../visibility.ts';

async function loadAgent(ctx: Context, agentId: number, agencyId?: number): Promise<AgentWithAgencyRow> {
  const agent = await getAgent(tx(ctx), agentId, agencyId);
  if (!agent) throw notFound('agent');
  return agent;
}

export const agentRoutes = [
  v1Route({
    method: 'get',
    path: '/v1/agents',
    operationId: 'listAgents',
    summary: 'List agents of the agencies linked to the OAuth client',
    tags: ['Agents'],
    auth: 'oauth_client',
    query: listAgentsQuery,
    responses: { 200: { description: 'A page of agents', schema: agentList }, ...v1Errors(400, 401, 403) },
    handler: async (ctx, { query }, { cfg }) => {
      const { page, perPage } = query;
      const filter = { email: query.filterByEmail ?? null, includeDeactivated: query.includeDeactivated };
      const rows = await listAgents(tx(ctx), filter, perPage, (page - 1) * perPage);
      // Past the last page: still report the true total.
      const total = rows[0]?.total ?? (page > 1 ? await countAgents(tx(ctx), filter) : 0);
      const q = { filterByEmail: query.filterByEmail, includeDeactivated: query.includeDeactivated || undefined, perPage };
      ctx.body = {
        data: rows.map((r) => presentAgent(r, r.agency, cfg.publicUrl)),
        ...offsetPage(`${cfg.publicUrl}/v1/agents`, q, { page, perPage, total, count: rows.length }),
      };
    },
  }),
  v1Route({
    method: 'post',
    path: '/v1/agencies/:agency_id/agents',
    operationId: 'createAgent',
    summary: 'Add an agent to an agency linked to the OAuth client (JSON, or multipart with profile_picture)',
    tags: ['Agents'],
    auth: 'oauth_client',
    params: agencyParams,
    authorize: agencyInPath,
    body: createAgentBody,
    files: { profile_picture: { description: 'Profile picture (PNG, JPEG, WebP or GIF, at most 10 MB); re-encoded as WebP' } },
    responses: {
      200: { description: 'The agent with its access token', schema: z.object({ data: agentWithAccessToken }) },
      ...v1Errors(400, 401, 403, 404, 413, 422),
    },
    handler: async (ctx, { params, body, files }, deps) => {
      // Scope first, so an unlinked agency is a 404 before any upload is processed.
      const agency = await getAgency(tx(ctx), params.agency_id);
      if (!agency) throw notFound('agency');
      const pictureKey = files.profile_picture ? await storeBrandingImage(files.profile_picture, 'pictures', deps) : null;
      const token = newToken(tokenPrefix.agentToken);
      const agent = await createAgent(tx(ctx), {
        agencyId: params.agency_id,
        firstName: body.first_name,
        lastName: body.last_name,
        email: body.email,
        slugBase: slugify([body.first_name, body.last_name, body.slug_suffix].filter(Boolean).join(' ')),
        phoneNumber: body.phone_number ?? null,
        isAdmin: body.is_admin,
        pictureKey,
        tokenHash: hashToken(token),
      });
      ctx.body = { data: { ...presentAgent(agent, agency, deps.cfg.publicUrl), access_token: token } };
    },
  }),
  v1Route({
    method: 'delete',
    path: '/v1/agents/:agent_id',
    operationId: 'deactivateAgent',
    summary: 'Deactivate an agent of a linked agency (the owner only after ownership moved)',
    tags: ['Agents'],
    auth: 'oauth_client',
    params: agentParams,
    responses: { 204: { description: 'Deactivated' }, ...v1Errors(400, 401, 403, 404, 422) },
    handler: async (ctx, { params }) => {
      await deactivateAgent(tx(ctx), params.agent_id);
      ctx.status = 204;
    },
  }),
  v1Route({
    method: 'post',
    path: '/v1/agents/:agent_id/reset-access-token',
    operationId: 'resetAgentToken',
    summary: 'Revoke every token of the agent and issue one new token',
    tags: ['Agents'],
    auth: 'oauth_client',
    params: agentParams,
    responses: { 200: { description: 'The new token, shown once', schema: resetTokenResponse }, ...v1Errors(400, 401, 403, 404, 422) },
    handler: async (ctx, { params }) => {
      const token = newToken(tokenPrefix.agentToken);
      await resetAgentToken(tx(ctx), params.agent_id, hashToken(token));
      const a = await loadAgent(ctx, params.agent_id);
      ctx.body = { data: { agency: presentAgencyBrief(a.agency), agent: presentAgentCredentials(a, token) } };
    },
  }),
  v1Route({
    method: 'get',
    path: '/v1/agencies/:agency_id/agents/:agent_id',
    operationId: 'getAgent',
    summary: 'Read an agent of the caller’s agency',
    tags: ['Agents'],
    auth: 'agent',
    params: agencyAgentParams,
    responses: { 200: { description: 'The agent', schema: z.object({ data: agentSchema }) }, ...v1Errors(400, 401, 403, 404) },
    handler: async (ctx, { params }, { cfg }) => {
      const a = await loadAgent(ctx, params.agent_id, params.agency_id);
      ctx.body = { data: presentAgent(a, a.agency, cfg.publicUrl) };
    },
  }),
  v1Route({
    method: 'patch',
    path: '/v1/agencies/:agency_id/agents/:agent_id',
    operationId: 'updateAgent',
    summary: 'Update an agent (admin); `is_owner: true` moves agency ownership to it (owner only)',
    tags: ['Agents'],
    auth: 'agent_admin',
    params: agencyAgentParams,
    authorize: agentInPath,
    body: updateAgentBody,
    responses: { 200: { description: 'The updated agent', schema: z.object({ data: agentSchema }) }, ...v1Errors(400, 401, 403, 404, 422) },
    handler: async (ctx, { params, body }, { cfg }) => {
      const current = await loadAgent(ctx, params.agent_id, params.agency_id);
      if (body.is_owner) await transferAgencyOwnership(tx(ctx), current.id);
      await updateAgentProfile(tx(ctx), current.id, {
        firstName: body.first_name,
        lastName: body.last_name,
        email: body.email,
        phoneNumber: body.phone_number,
        isAdmin: body.is_admin,
      });
      const a = await loadAgent(ctx, current.id);
      ctx.body = { data: presentAgent(a, a.agency, cfg.publicUrl) };
    },
  }),
  v1Route({
    method: 'delete',
    path: '/v1/agencies/:agency_id/agents/:agent_id',
    operationId: 'deactivateAgencyAgent',
    summary: 'Deactivate an agent from the admin or owner account',
    tags: ['Agents'],
    auth: 'agent_admin',
    params: agencyAgentParams,
    responses: { 204: { description: 'Deactivated' }, ...v1Errors(400, 401, 403, 404, 422) },
    handler: async (ctx, { params }) => {
      await loadAgent(ctx, params.agent_id, params.agency_id);
      await deactivateAgent(tx(ctx), params.agent_id);
      ctx.status = 204;
    },
  }),
  publicImageRoute({
    path: '/v1/agents/:agent_id/profile-picture',
    operationId: 'getAgentPicture',
    summary: 'The agent’s profile picture (public, for hosted forms)',
    tags: ['Agents'],
    params: agentParams,
    what: 'profile picture',
    key: (deps, params) => activeAgentPictureKey(deps.db.owner, params.agent_id),
  }),
];
