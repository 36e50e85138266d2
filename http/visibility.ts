// Authorisation before validation (SPEC §5 rules 4-6, §7.3): the `authorize` steps of routes whose path names a
// resource. Each looks the resource up as the caller (row-level security decides what it can see) before the
// body is validated, so another agency's resource is 404 (or 403 where a state function says so) whatever the
// body: an invalid body can never tell a caller whether someone else's resource exists.
import type { Context } from 'koa';
import { agencyVisible } from '../db/queries/agencies.ts';
import { getAgent } from '../db/queries/agents.ts';
import { apiKeyMode } from '../db/queries/api_keys.ts';
import { assertClientAgent, getClient } from '../db/queries/clients.ts';
import { getForm } from '../db/queries/forms.ts';
import { getSubscription } from '../db/queries/webhook_endpoints.ts';
import { tx } from './context.ts';
import { notFound } from './errors.ts';

type Authorize<P> = (ctx: Context, input: { params: P; body: unknown }) => Promise<void>;

/** The agency of the path is one the caller can see. */
export const agencyInPath: Authorize<{ agency_id: number }> = async (ctx, { params }) => {
  if (!(await agencyVisible(tx(ctx), params.agency_id))) throw notFound('agency');
};

/** The agent of the path (and its agency, when the path names one) is one the caller can see. */
export const agentInPath: Authorize<{ agent_id: number; agency_id?: number }> = async (ctx, { params }) => {
  if (!(await getAgent(tx(ctx), params.agent_id, params.agency_id))) throw notFound('agent');
};

/** The API key of the path belongs to an agency the caller can see. */
export const apiKeyInPath: Authorize<{ agency_id: number; key_id: number }> = async (ctx, { params }) => {
  if ((await apiKeyMode(tx(ctx), params.agency_id, params.key_id)) === undefined) throw notFound('API key');
};

/** The caller may act on the clients of the path's agent (NTFND/FORBD from SQL), and the client is one of them. */
export const clientAgentInPath: Authorize<{ agent_id: number; client_uuid?: string }> = async (ctx, { params }) => {
  await assertClientAgent(tx(ctx), params.agent_id);
  if (params.client_uuid !== undefined && !(await getClient(tx(ctx), params.agent_id, params.client_uuid))) throw notFound('client');
};

/** The v1 subscription of the path belongs to the caller's agency. */
export const subscriptionInPath: Authorize<{ webhook_uuid: string }> = async (ctx, { params }) => {
  if (!(await getSubscription(tx(ctx), params.webhook_uuid))) throw notFound('webhook subscription');
};

/** The form of the path is visible to the caller's key (its agency and mode). */
export const formInPath: Authorize<{ id: number }> = async (ctx, { params }) => {
  if (!(await getForm(tx(ctx), params.id))) throw notFound('form');
};
