// Dashboard: the agency's plan and its limits (SPEC plans: lease checker and extraction API requests).
// Request counts against the limits come from the extraction API's per-agency counters, which are not on
// this branch yet; the page says so rather than inventing numbers.
import { agencyPlan } from '../../../db/queries/agencies.ts';
import { renderPage, withSession } from '../../dashboard.ts';
import { notFound } from '../../errors.ts';
import { html } from '../../pages/html.ts';
import { presentPlan } from '../../presenters/agencies.ts';
import { route, tx } from '../../route.ts';
import { modeParams } from '../../schemas/dashboard.ts';

export const dashboardUsageRoutes = [
  route({
    method: 'get',
    path: '/dashboard/:mode/usage',
    operationId: 'dashboardUsage',
    summary: 'Usage page: the plan and its limits',
    tags: ['Dashboard'],
    auth: 'none',
    params: modeParams,
    responses: { 200: { description: 'HTML page' }, 401: { description: 'Not signed in' }, 403: { description: 'Not an admin' } },
    handler: (ctx, { params }, deps) =>
      withSession(ctx, deps, params.mode, true, async (s) => {
        const row = await agencyPlan(tx(ctx), s.agency_id);
        if (!row) throw notFound('agency');
        const p = presentPlan(row);
        await renderPage(
          ctx,
          s,
          'Usage',
          html`<section class="dash-panel" aria-labelledby="plan-title"><h2 id="plan-title">Plan: ${p.plan}</h2>
<dl class="dash-dl"><dt>Requests per minute</dt><dd>${p.per_minute}</dd><dt>Requests per day</dt><dd>${p.per_day}</dd></dl>
<p>These limits apply to the lease checker and the policy extraction API (X-API-Key); a request over them is answered 429 with <code>retry_after</code>. Your integration changes the plan.</p></section>
<p class="notice">Request counts for this minute and today, and rate-limit rejections, appear here once the extraction API’s usage counters are available on this service.</p>`,
        );
      }),
  }),
];
