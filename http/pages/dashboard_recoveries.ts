// The dashboard's recovery pages of a topic endpoint: choose since when, see how many failed deliveries would be
// sent again and confirm; then the progress of the recovery.
import { base, csrfField, when, type DashboardSession } from '../dashboard.ts';
import type { presentRecovery } from '../presenters/recoveries.ts';
import { html, type SafeHtml } from './html.ts';

/** A date-time input's value (UTC, to the minute). */
const localValue = (d: Date) => d.toISOString().slice(0, 16);

/** The choice of the instant, and once chosen the count of deliveries it would send again with the confirmation. */
export function recoverBody(s: DashboardSession, topic: string, since: Date | null, count: number | null): SafeHtml {
  const b = `${base(s.mode)}/webhooks/${topic}`;
  return html`<p class="lede">After an outage of your receiver, send every ${s.mode} delivery that ended failed since a moment again, in the original order and under its original <code>webhook-id</code> (receivers that de-duplicate drop any they already have).</p>
<form method="get" action="${b}/recover" class="dash-filter">
<div class="field"><label class="field__label" for="since">Failed since (UTC)</label><input class="input" type="datetime-local" id="since" name="since" required value="${since ? localValue(since) : localValue(new Date(Date.now() - 86_400_000))}"></div>
<button class="button button--secondary button--small" type="submit">Count failed deliveries</button></form>
${
  since && count !== null
    ? count > 0
      ? html`<section class="dash-panel" aria-labelledby="confirm-title"><h2 id="confirm-title">${count} failed ${count === 1 ? 'delivery' : 'deliveries'} since ${when(since)}</h2>
<p>They will be sent again one at a time, oldest first.</p>
<form method="post" action="${b}/recover">${csrfField(s)}<input type="hidden" name="since" value="${since.toISOString()}"><button class="button button--primary" type="submit">Send ${count} again</button></form></section>`
      : html`<p class="notice" role="status">No failed ${s.mode} deliveries to recover since ${when(since)}.</p>`
    : ''
}
<p><a href="${base(s.mode)}/webhooks">Back to webhooks</a></p>`;
}

/** A recovery's progress: how many were sent again, delivered, failed again or are being tried. */
export function recoveryBody(s: DashboardSession, topic: string, r: ReturnType<typeof presentRecovery>): SafeHtml {
  return html`<p><span class="dash-status dash-status--${r.status === 'completed' ? 'completed' : 'pending'}">${r.status}</span> since ${when(r.since)} · started ${when(r.created_at)}${r.completed_at ? html` · all sent by ${when(r.completed_at)}` : ''}</p>
<dl class="dash-counts">
<div><dt>To send again</dt><dd>${r.total}</dd></div>
<div><dt>Sent again</dt><dd>${r.queued}</dd></div>
<div><dt>Delivered</dt><dd>${r.delivered}</dd></div>
<div><dt>Failed again</dt><dd>${r.failed}</dd></div>
<div><dt>Being tried</dt><dd>${r.pending}</dd></div>
</dl>
${r.status === 'running' ? html`<p><a href="${base(s.mode)}/webhooks/${topic}/recoveries/${r.id}">Reload</a> to see the progress.</p>` : ''}
<p><a href="${base(s.mode)}/webhooks/${topic}/deliveries">Delivery log</a> · <a href="${base(s.mode)}/webhooks">Back to webhooks</a></p>`;
}
