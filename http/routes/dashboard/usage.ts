// Dashboard: the agency's plan, the /api requests served this minute and today against its limits, and the
// requests refused today (429), from the rate limiter's own counters in Postgres (app_private.agency_api_usage,
// migration 0012). The plan budget is one per agency, spent by test and live keys alike, so both views show it.
import { agencyPlan } from '../../../db/queries/agencies.ts';
import { agencyApiUsage } from '../../../db/queries/dashboard.ts';
import { renderPage, when, session } from '../../dashboard.ts';
import { notFound } from '../../errors.ts';
import { html } from '../../pages/html.ts';
import { presentPlan } from '../../presenters/agencies.ts';
import { route, tx } from '../../route.ts';
import { modeParams } from '../../schemas/dashboard.ts';

const meter = (used: number, limit: number, label: string) =>
  html`<meter min="0" max="${String(limit)}" value="${String(Math.min(used, limit))}" high="${String(Math.ceil(limit * 0.8))}" optimum="0" aria-label="${label}: ${used} of ${limit}">${used} of ${limit}</meter>`;

export const dashboardUsageRoutes = [
  route({
    method: 'get',
    path: '/dashboard/:mode/usage',
    operationId: 'dashboardUsage',
    summary: 'Usage page: the plan, requests this minute and today against its limits, rejections',
    tags: ['Dashboard'],
    auth: 'dashboard_admin',
    params: modeParams,
    responses: { 200: { description: 'HTML page' }, 401: { description: 'Not signed in' }, 403: { description: 'Not an admin' } },
    handler: async (ctx) => {
      const s = session(ctx);
      const row = await agencyPlan(tx(ctx), s.agency_id);
      const u = await agencyApiUsage(tx(ctx));
      if (!row || !u) throw notFound('agency');
      const p = presentPlan(row);
      await renderPage(
        ctx,
        s,
        'Usage',
        html`<section class="dash-panel" aria-labelledby="plan-title"><h2 id="plan-title">Plan: ${p.plan}</h2>
<p>The limits apply to the lease checker and the policy extraction API (X-API-Key), to test and live keys together; a request over them is answered 429 with <code>retry_after</code>. Your integration changes the plan.</p>
<div class="dash-usage">
<section class="dash-usage__window" aria-labelledby="usage-minute"><h3 id="usage-minute">This minute</h3>
<p><strong data-usage="minute">${u.minute_requests}</strong> of ${u.per_minute} requests</p>${meter(u.minute_requests, u.per_minute, 'Requests this minute')}
<p><small>Starts again ${when(u.minute_resets_at)}</small></p></section>
<section class="dash-usage__window" aria-labelledby="usage-day"><h3 id="usage-day">Today (UTC)</h3>
<p><strong data-usage="day">${u.day_requests}</strong> of ${u.per_day} requests</p>${meter(u.day_requests, u.per_day, 'Requests today')}
<p><small>Starts again ${when(u.day_resets_at)}</small></p></section>
</div>
<p class="dash-usage__rejected"><strong>Refused today (429):</strong> <span data-usage="rejected">${u.rejected_today}</span>${u.rejected_today ? ' — requests over a limit; they are not counted above.' : ''}</p>
</section>`,
      );
    },
  }),
];
