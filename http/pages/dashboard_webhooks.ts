// The dashboard's webhooks page: one card per topic with its endpoint's URLs, state (disabled, failing), and the
// admin's actions (save, send a test event, rotate the secret, re-enable, the delivery log, recover).
import type { EndpointRow } from '../../db/queries/webhook_endpoints.ts';
import { base, csrfField, when, type DashboardSession } from '../dashboard.ts';
import { html, type SafeHtml } from './html.ts';

/** The two topics of /v2 webhook endpoints, as the dashboard names them. */
export const TOPICS = [
  { topic: 'form-submission', label: 'Form submissions', about: 'A consumer submitted a hosted form (SPEC §6.3).' },
  { topic: 'client-submission', label: 'Policy data', about: 'Data extracted from a policy document (SPEC §6.2).' },
] as const;
/** The card of a topic: its endpoint (none yet: the form that registers one) and what can be done with it. */
export function endpointCard(s: DashboardSession, topic: (typeof TOPICS)[number], w: EndpointRow | undefined): SafeHtml {
  const b = `${base(s.mode)}/webhooks/${topic.topic}`;
  const id = topic.topic;
  return html`<section class="dash-panel" aria-labelledby="t-${id}">
<h2 id="t-${id}">${topic.label} <small><code>${id}</code></small></h2>
<p>${topic.about}</p>
${
  w && !w.enabled
    ? html`<div class="notice" role="alert"><strong>Disabled ${when(w.disabled_at)}.</strong> ${w.disabled_reason ?? 'Deliveries kept failing.'} Pending deliveries wait until you re-enable it.
<form method="post" action="${b}/enable">${csrfField(s)}<button class="button button--primary button--small" type="submit">Re-enable ${topic.label}</button></form></div>`
    : ''
}
${w?.failing_since && w.enabled ? html`<p class="notice">Failing since ${when(w.failing_since)}: after five days of failures the endpoint is disabled.</p>` : ''}
<form method="post" action="${b}" class="dash-form">${csrfField(s)}
<div class="field"><label class="field__label" for="${id}-staging">Staging URL</label><p class="field__help" id="${id}-staging-help">Receives test-data events and test events.</p><input class="input" type="url" id="${id}-staging" name="staging_url" value="${w?.staging_url ?? ''}" aria-describedby="${id}-staging-help" inputmode="url" autocomplete="off"></div>
<div class="field"><label class="field__label" for="${id}-production">Production URL</label><p class="field__help" id="${id}-production-help">Receives live-data events; must use https.</p><input class="input" type="url" id="${id}-production" name="production_url" value="${w?.production_url ?? ''}" aria-describedby="${id}-production-help" inputmode="url" autocomplete="off"></div>
<div class="field"><label class="field__label" for="${id}-auth">Also authenticate with</label>
<select class="input" id="${id}-auth" name="auth_kind">
<option value="keep"${w ? ' selected' : ''}>${w?.auth_kind ? `Keep the current ${w.auth_kind} credentials` : w ? 'Keep as it is (signature only)' : 'Signature only'}</option>
<option value="none">Signature only (remove credentials)</option>
<option value="bearer">Bearer token</option><option value="basic">Basic auth</option><option value="header">A header</option></select></div>
<div class="field"><label class="field__label" for="${id}-auth-a">Token, user name or header name</label><input class="input" id="${id}-auth-a" name="auth_a" autocomplete="off"></div>
<div class="field"><label class="field__label" for="${id}-auth-b">Password or header value</label><input class="input" id="${id}-auth-b" name="auth_b" type="password" autocomplete="new-password"></div>
<button class="button button--primary" type="submit">${w ? 'Save' : 'Register'} ${topic.label}</button></form>
${
  w
    ? html`<div class="dash-filter">
${s.mode === 'test' ? html`<form method="post" action="${b}/test">${csrfField(s)}<button class="button button--secondary button--small" type="submit"${w.staging_url ? '' : ' disabled'}>Send test event</button></form>` : ''}
<form method="post" action="${b}/rotate-secret">${csrfField(s)}<button class="button button--secondary button--small" type="submit">Rotate signing secret</button></form>
<a class="button button--secondary button--small" href="${b}/deliveries">Delivery log</a>
<a class="button button--secondary button--small" href="${b}/recover">Recover failed deliveries since…</a></div>`
    : ''
}
</section>`;
}
