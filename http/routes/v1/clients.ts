// v1 clients (SPEC §2.7, §4.2 "Further operations"): an agent's clients with their submissions and declaration
// pages, signed download links, changes, reassignment, erasure and the additional-questions setting. Every
// change is one SQL state function (db/migrations/0009_clients.sql) that also emits its v1 event.
import type { Context } from 'koa';
import { z } from 'zod';
import * as q from '../../../db/queries/clients.ts';
import { fileLinkKey, signFileLink } from '../../../lib/links.ts';
import { notFound } from '../../errors.ts';
import { offsetPage } from '../../pagination.ts';
import { presentAdditionalQuestions, presentClient, presentClientDetail } from '../../presenters/clients.ts';
import { identity, v1Route, tx, type Deps } from '../../route.ts';
import {
  setAdditionalQuestionsBody,
  additionalQuestionsParams,
  additionalQuestionsSettings,
  agentClientsParams,
  client,
  clientDetail,
  clientList,
  clientParams,
  createClientBody,
  declarationPageLink,
  declarationPageParams,
  listClientsQuery,
  reassignClientBody,
  updateClientBody,
} from '../../schemas/clients.ts';
import { v1Errors } from '../../schemas/common.ts';
import { clientAgentInPath } from '../../visibility.ts';

const common = { tags: ['Clients'], auth: 'agent' as const };

async function loadDetail(ctx: Context, agentId: number, clientId: string) {
  const c = await q.getClient(tx(ctx), agentId, clientId);
  if (!c) throw notFound('client');
  const [submissions, pages] = await Promise.all([q.listSubmissions(tx(ctx), c.id), q.listDeclarationPages(tx(ctx), c.id)]);
  return presentClientDetail(c, submissions, pages);
}

/** The raw query string values (not their parsed forms) carried into pagination links. */
function linkQuery(ctx: Context, keys: string[]): Record<string, string | undefined> {
  return Object.fromEntries(keys.map((k) => [k, typeof ctx.query[k] === 'string' ? (ctx.query[k] as string) : undefined]));
}

export const clientRoutes = [
  v1Route({
    ...common,
    method: 'post',
    path: '/v1/client',
    operationId: 'createClient',
    summary: 'Create a client for the calling agent (or, as an admin, for another agent of the agency)',
    body: createClientBody,
    responses: {
      200: {
        description: 'The client. A client whose email another client of the agency already has is refused with 422 naming `email`.',
        schema: z.object({ data: client }),
      },
      ...v1Errors(400, 401, 403, 422),
    },
    handler: async (ctx, { body }) => {
      const who = identity(ctx);
      const created = await q.createClient(tx(ctx), {
        agentId: body.agent_id ?? who.agentId!,
        firstName: body.first_name,
        lastName: body.last_name,
        email: body.email ?? null,
        phone: body.phone ?? null,
        address: body.address ?? null,
        salesFunnelStatus: body.sales_funnel_status,
      });
      ctx.body = { data: presentClient(created) };
    },
  }),
  v1Route({
    ...common,
    method: 'get',
    path: '/v1/agents/:agent_id/clients',
    operationId: 'listAgentClients',
    summary: 'List an agent’s clients (a plain agent its own; an admin any agent’s of the agency), newest change first',
    params: agentClientsParams,
    query: listClientsQuery,
    responses: {
      200: { description: 'A page of clients (Laravel-style links and meta, like GET /v1/agents)', schema: clientList },
      ...v1Errors(400, 401, 403, 404),
    },
    handler: async (ctx, { params, query }, { cfg }) => {
      await q.assertClientAgent(tx(ctx), params.agent_id);
      const { page, perPage } = query;
      const filters: q.ClientFilters = {
        search: query.search ?? null,
        statuses: query.sales_funnel_status ?? null,
        createdFrom: query.created_from ?? null,
        createdTo: query.created_to ?? null,
        hasSubmissions: query.has_submissions ?? null,
        sort: query.sort,
      };
      const { rows, total } = await q.listClients(tx(ctx), params.agent_id, filters, perPage, (page - 1) * perPage);
      const path = `${cfg.publicUrl}/v1/agents/${params.agent_id}/clients`;
      const lq = { ...linkQuery(ctx, ['search', 'sales_funnel_status', 'created_from', 'created_to', 'has_submissions', 'sort']), perPage };
      ctx.body = { data: rows.map(presentClient), ...offsetPage(path, lq, { page, perPage, total, count: rows.length }) };
    },
  }),
  v1Route({
    ...common,
    method: 'get',
    path: '/v1/agents/:agent_id/clients/:client_uuid',
    operationId: 'getAgentClient',
    summary: 'Read a client with its submissions and their declaration pages',
    params: clientParams,
    responses: { 200: { description: 'The client', schema: z.object({ data: clientDetail }) }, ...v1Errors(400, 401, 403, 404) },
    handler: async (ctx, { params }) => {
      await q.assertClientAgent(tx(ctx), params.agent_id);
      ctx.body = { data: await loadDetail(ctx, params.agent_id, params.client_uuid) };
    },
  }),
  v1Route({
    ...common,
    method: 'patch',
    path: '/v1/agents/:agent_id/clients/:client_uuid',
    operationId: 'updateAgentClient',
    summary: 'Change a client’s name, contact or sales-funnel status (emits client.updated and/or client.sales-funnel-status-change)',
    params: clientParams,
    authorize: clientAgentInPath,
    body: updateClientBody,
    responses: { 200: { description: 'The client', schema: z.object({ data: clientDetail }) }, ...v1Errors(400, 401, 403, 404, 422) },
    handler: async (ctx, { params, body }) => {
      await q.updateClient(tx(ctx), params.agent_id, params.client_uuid, body);
      ctx.body = { data: await loadDetail(ctx, params.agent_id, params.client_uuid) };
    },
  }),
  v1Route({
    ...common,
    method: 'get',
    path: '/v1/agents/:agent_id/clients/:client_uuid/submission/:client_submission_uuid/declaration-page/:client_submission_declaration_page_uuid',
    operationId: 'getDeclarationPageLink',
    summary: 'A signed, expiring download link to a declaration page’s stored file',
    params: declarationPageParams,
    responses: { 200: { description: 'The link and its expiry', schema: z.object({ data: declarationPageLink }) }, ...v1Errors(400, 401, 403, 404) },
    handler: async (ctx, { params }, deps: Deps) => {
      await q.assertClientAgent(tx(ctx), params.agent_id);
      const file = await q.getDeclarationPageFile(
        tx(ctx),
        params.agent_id,
        params.client_uuid,
        params.client_submission_uuid,
        params.client_submission_declaration_page_uuid,
      );
      if (!file) throw notFound('declaration page');
      if (!file.blob_key) throw notFound('declaration page file (expired by retention)');
      const ttl = deps.cfg.FILE_LINK_TTL_SECONDS;
      const link = signFileLink({
        baseUrl: deps.cfg.filesUrl,
        key: fileLinkKey(deps.secretKey),
        blobKey: file.blob_key,
        filename: file.filename ?? undefined,
        ttlSeconds: ttl,
      });
      ctx.body = { data: { url: link.url, filename: file.filename, expires_at: link.expiresAt, expires_in: ttl } };
    },
  }),
  v1Route({
    ...common,
    method: 'post',
    path: '/v1/agents/:agent_id/clients/:client_uuid/reassign',
    operationId: 'reassignAgentClient',
    summary: 'Move a client to another active agent of the same agency (emits client.reassigned)',
    params: clientParams,
    authorize: clientAgentInPath,
    body: reassignClientBody,
    responses: {
      200: { description: 'The client, now the target agent’s', schema: z.object({ data: client }) },
      ...v1Errors(400, 401, 403, 404, 422),
    },
    handler: async (ctx, { params, body }) => {
      const moved = await q.reassignClient(tx(ctx), params.agent_id, params.client_uuid, body.agent_id);
      ctx.body = { data: presentClient(moved) };
    },
  }),
  v1Route({
    ...common,
    method: 'post',
    path: '/v1/agents/:agent_id/clients/:client_uuid/destroy',
    operationId: 'destroyAgentClient',
    summary:
      'Permanently erase a client: submissions, declaration pages, extractions, stored files and the events about it; an audit row keeps who erased which client id and when',
    params: clientParams,
    responses: {
      204: { description: 'Erased; stored files are removed by a sweep job within seconds, after which earlier download links answer 404' },
      ...v1Errors(400, 401, 403, 404),
    },
    handler: async (ctx, { params }) => {
      await q.destroyClient(tx(ctx), params.agent_id, params.client_uuid);
      ctx.status = 204;
    },
  }),
  v1Route({
    ...common,
    method: 'get',
    path: '/v1/agents/:agent_id/additional-questions',
    operationId: 'getAdditionalQuestions',
    summary: 'The additional-questions setting of an agent’s clients',
    params: additionalQuestionsParams,
    responses: { 200: { description: 'The setting', schema: z.object({ data: additionalQuestionsSettings }) }, ...v1Errors(400, 401, 403, 404) },
    handler: async (ctx, { params }) => {
      await q.assertClientAgent(tx(ctx), params.agent_id);
      ctx.body = { data: presentAdditionalQuestions(params.agent_id, await q.getAdditionalQuestions(tx(ctx), params.agent_id)) };
    },
  }),
  v1Route({
    ...common,
    method: 'patch',
    path: '/v1/agents/:agent_id/additional-questions',
    operationId: 'setAdditionalQuestions',
    summary: 'Enable or disable additional questions for an agent’s clients, and set the questions (the agent itself or an admin)',
    params: additionalQuestionsParams,
    authorize: clientAgentInPath,
    body: setAdditionalQuestionsBody,
    responses: { 200: { description: 'The setting', schema: z.object({ data: additionalQuestionsSettings }) }, ...v1Errors(400, 401, 403, 404, 422) },
    handler: async (ctx, { params, body }) => {
      const s = await q.setAdditionalQuestions(tx(ctx), params.agent_id, body.enabled, body.questions ?? null);
      ctx.body = { data: presentAdditionalQuestions(params.agent_id, s) };
    },
  }),
];
