// One-time dashboard sign-in links (issue 16, SPEC §5 rule 7): the partner's server asks for a link with its
// OAuth client token and sends the agent's browser to it; no bearer credential ever reaches the browser.
import { createDashboardLink } from '../../../db/queries/dashboard.ts';
import { hashToken, newToken } from '../../../lib/secrets.ts';
import { v1Route, tx } from '../../route.ts';
import { agentParams } from '../../schemas/agents.ts';
import { v1Errors } from '../../schemas/common.ts';
import { dashboardLink } from '../../schemas/dashboard.ts';

export const dashboardLinkRoutes = [
  v1Route({
    method: 'post',
    path: '/v1/agents/:agent_id/dashboard-link',
    operationId: 'createDashboardLink',
    summary: 'A one-time sign-in link to the agency dashboard for an agent, valid for minutes and one use',
    tags: ['Agents'],
    auth: 'oauth_client',
    params: agentParams,
    responses: { 200: { description: 'The link', schema: dashboardLink }, ...v1Errors(400, 401, 403, 404, 422) },
    handler: async (ctx, { params }, deps) => {
      const token = newToken('dsl_');
      const expires = await createDashboardLink(tx(ctx), params.agent_id, hashToken(token), deps.cfg.DASHBOARD_LINK_TTL_SECONDS);
      ctx.set('Cache-Control', 'no-store');
      ctx.body = { data: { url: `${deps.cfg.publicUrl}/dashboard/sign-in/${token}`, expires_at: expires.toISOString() } };
    },
  }),
];
