// Dashboard: the agency's plan, the /api requests served this minute and today against its limits, and the
// requests refused today (429), from the rate limiter's own counters in Postgres (app_private.agency_api_usage,
// migration 0012). The plan budget is one per agency, spent by test and live keys alike, so both views show it.
import { agencyPlan } from '../../../db/queries/agencies.ts';
import { agencyApiUsage } from '../../../db/queries/dashboard.ts';
import { renderPage } from '../../dashboard.ts';
import { dashboardPage } from '../../dashboard_routes.ts';
import { notFound } from '../../errors.ts';
import { usageBody } from '../../pages/dashboard_usage.ts';
import { presentPlan } from '../../presenters/agencies.ts';
import { tx } from '../../route.ts';
import { modeParams } from '../../schemas/dashboard.ts';

export const dashboardUsageRoutes = [
  dashboardPage({
    path: '/dashboard/:mode/usage',
    operationId: 'dashboardUsage',
    summary: 'Usage page: the plan, requests this minute and today against its limits, rejections',
    auth: 'dashboard_admin',
    params: modeParams,
    responses: { 200: { description: 'HTML page' }, 401: { description: 'Not signed in' }, 403: { description: 'Not an admin' } },
    handler: async (ctx, { s }) => {
      const row = await agencyPlan(tx(ctx), s.agency_id);
      const u = await agencyApiUsage(tx(ctx));
      if (!row || !u) throw notFound('agency');
      await renderPage(ctx, s, 'Usage', usageBody(presentPlan(row), u));
    },
  }),
];
