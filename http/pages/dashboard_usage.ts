// The dashboard's usage page: the agency's plan, the /api requests of this minute and of today against its
// limits, and the requests refused today.
import type { AgencyApiUsageRow } from '../../db/queries/dashboard.ts';
import { when } from '../dashboard.ts';
import type { presentPlan } from '../presenters/agencies.ts';
import { html, type SafeHtml } from './html.ts';

const meter = (used: number, limit: number, label: string) =>
  html`<meter min="0" max="${String(limit)}" value="${String(Math.min(used, limit))}" high="${String(Math.ceil(limit * 0.8))}" optimum="0" aria-label="${label}: ${used} of ${limit}">${used} of ${limit}</meter>`;

/** The plan and its two windows, each with a meter, and today's refusals. */
export function usageBody(p: ReturnType<typeof presentPlan>, u: AgencyApiUsageRow): SafeHtml {
  return html`<section class="dash-panel" aria-labelledby="plan-title"><h2 id="plan-title">Plan: ${p.plan}</h2>
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
</section>`;
}
