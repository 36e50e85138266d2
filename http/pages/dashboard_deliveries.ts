// The dashboard's delivery log and delivery page, shared by the topic endpoints (v2) and the v1 subscriptions:
// the log filterable by status and paged newest first, and one delivery with each attempt's status, duration,
// response headers and body excerpt, and a redeliver button.
import { csrfField, pager, when, type DashboardSession } from '../dashboard.ts';
import type { presentDelivery, presentDeliveryDetail } from '../presenters/deliveries.ts';
import { DELIVERY_STATUSES } from '../schemas/dashboard.ts';
import { html, type SafeHtml } from './html.ts';

/** The log of an endpoint whose pages live under `b` (`…/deliveries`, `…/deliveries/{id}`). */
export function deliveryLogBody(
  b: string,
  rows: ReturnType<typeof presentDelivery>[],
  o: { status: string | undefined; before: string | undefined; next: string | null; back: { href: string; label: string } },
): SafeHtml {
  return html`<form method="get" class="dash-filter"><div class="field"><label class="field__label" for="status">Status</label>
<select class="input" id="status" name="status"><option value="">All</option>${DELIVERY_STATUSES.map((x) => html`<option value="${x}"${x === o.status ? ' selected' : ''}>${x}</option>`)}</select></div>
<button class="button button--secondary button--small" type="submit">Filter</button></form>
${
  rows.length
    ? html`<div class="dash-table-wrap"><table class="dash-table"><caption class="visually-hidden">Deliveries</caption>
<thead><tr><th scope="col">Delivery</th><th scope="col">Status</th><th scope="col">Last answer</th><th scope="col">Attempts</th><th scope="col">Created</th></tr></thead>
<tbody>${rows.map((d) => html`<tr><th scope="row"><a href="${b}/deliveries/${d.id}">#${d.id}${d.is_test ? ' (test event)' : ''}</a></th><td><span class="dash-status dash-status--${d.status}">${d.status}</span></td><td>${d.last_status_code ?? d.last_error ?? '—'}</td><td>${d.attempt_count}</td><td>${when(d.created_at)}</td></tr>`)}</tbody></table></div>`
    : html`<p class="lede">No deliveries${o.status ? ` with status ${o.status}` : ''} yet.</p>`
}
${pager(`${b}/deliveries`, { status: o.status }, { paged: !!o.before, next: o.next, what: 'deliveries' })}
<p><a href="${o.back.href}">${o.back.label}</a></p>`;
}

/** One delivery of an endpoint whose pages live under `b`, with every attempt. */
export function deliveryDetailBody(s: DashboardSession, b: string, d: ReturnType<typeof presentDeliveryDetail>): SafeHtml {
  return html`<p><span class="dash-status dash-status--${d.status}">${d.status}</span> ${d.is_test ? 'Test event' : 'Event'} to <code>${d.url}</code>, created ${when(d.created_at)}${d.redelivery_of ? html`, a redelivery of <a href="${b}/deliveries/${d.redelivery_of}">#${d.redelivery_of}</a>` : ''}.</p>
${d.status === 'pending' && d.next_attempt_at ? html`<p>Next attempt ${when(d.next_attempt_at)}.</p>` : ''}
<form method="post" action="${b}/deliveries/${d.id}/redeliver">${csrfField(s)}<button class="button button--secondary button--small" type="submit">Redeliver</button></form>
<h2>Attempts</h2>
${
  d.attempts.length
    ? d.attempts.map(
        (
          a,
        ) => html`<section class="dash-panel" aria-label="Attempt ${a.attempt_number}"><h3>Attempt ${a.attempt_number}: ${a.status_code ?? a.error?.code ?? 'no answer'}</h3>
<p>${when(a.started_at)} · ${a.duration_ms} ms${a.error ? ` · ${a.error.message}` : ''}</p>
<h4>Response headers</h4><pre class="dash-pre" tabindex="0">${
          Object.entries(a.response_headers ?? {})
            .map(([k, v]) => `${k}: ${v}\n`)
            .join('') || '—'
        }</pre>
<h4>Response body (excerpt)</h4><pre class="dash-pre" tabindex="0">${a.response_body ?? '—'}</pre></section>`,
      )
    : html`<p class="lede">No attempt yet: reload in a moment.</p>`
}
<h2>Body sent</h2><pre class="dash-pre" tabindex="0">${d.body}</pre>
<p><a href="${b}/deliveries">Back to the delivery log</a></p>`;
}
