// The dashboard's v1 subscriptions page: each subscription with its events, state and actions (a test event,
// the delivery log, delete after a confirmation), and the form that subscribes a URL (in the live view only).
import { base, csrfField, when, type DashboardSession } from '../dashboard.ts';
import type { presentSubscription } from '../presenters/webhooks.ts';
import { SUBSCRIPTION_EVENTS } from '../schemas/webhooks.ts';
import { html, type SafeHtml } from './html.ts';

/** The subscriptions (`top` above them: a secret shown once, or a notice) and the form of a new one. */
export function subscriptionsBody(s: DashboardSession, subs: ReturnType<typeof presentSubscription>[], top: SafeHtml | null): SafeHtml {
  const b = `${base(s.mode)}/subscriptions`;
  const live = s.mode === 'live';
  return html`${top}<p>Subscriptions of the v1 API: each URL gets the events it names, test and live alike, signed with its own secret. The delivery logs below show ${live ? 'live' : 'test'} deliveries only.</p>
${
  subs.length
    ? html`<div class="dash-table-wrap"><table class="dash-table dash-stack"><caption class="visually-hidden">Subscriptions</caption>
<thead><tr><th scope="col">URL</th><th scope="col">Events</th><th scope="col">Status</th><th scope="col" class="dash-wide">Created</th><th scope="col">Actions</th></tr></thead>
<tbody>${subs.map(
        (
          w,
        ) => html`<tr><th scope="row"><code>${w.url}</code>${w.description ? html`<br><small>${w.description}</small>` : ''}</th><td data-label="Events:">${w.events.join(', ')}</td>
<td><span class="dash-status dash-status--${w.enabled ? 'active' : 'disabled'}">${w.enabled ? 'enabled' : 'disabled'}</span>${w.disabled_reason ? html`<br><small>${w.disabled_reason}</small>` : ''}</td><td class="dash-wide">${when(w.created_at)}</td>
<td class="dash-actions"><a href="${b}/${w.uuid}/deliveries">Delivery log<span class="visually-hidden"> of ${w.url}</span></a>${
          live
            ? ''
            : html`<form method="post" action="${b}/${w.uuid}/test">${csrfField(s)}<button class="button button--secondary button--small" type="submit">Send test event<span class="visually-hidden"> to ${w.url}</span></button></form>`
        }${
          live
            ? html`<details class="dash-confirm"><summary>Delete<span class="visually-hidden"> ${w.url}</span></summary><form method="post" action="${b}/${w.uuid}/delete">${csrfField(s)}
<p>Events stop going to this URL at once, and its delivery log is removed. This cannot be undone.</p>
<button class="button button--danger button--small" type="submit">Delete the subscription now</button></form></details>`
            : ''
        }</td></tr>`,
      )}</tbody></table></div>`
    : html`<p class="lede">No subscriptions yet.</p>`
}
${
  live
    ? html`<section class="dash-panel" aria-labelledby="new-sub"><h2 id="new-sub">Subscribe a URL</h2>
<form method="post" action="${b}" class="dash-form">${csrfField(s)}
<div class="field"><label class="field__label" for="sub-url">URL</label><input class="input" type="url" id="sub-url" name="url" required maxlength="2000" inputmode="url" autocomplete="off"></div>
<fieldset class="field"><legend class="field__label">Events</legend>${SUBSCRIPTION_EVENTS.map(
        (e, i) =>
          html`<label class="choice"><input class="choice__input" type="checkbox" name="events" value="${e}"${i === 0 ? ' checked' : ''}> <span class="choice__label">${e === '*' ? 'Every event (*)' : e}</span></label>`,
      )}</fieldset>
<div class="field"><label class="field__label" for="sub-description">Description (optional)</label><input class="input" id="sub-description" name="description" maxlength="500" autocomplete="off"></div>
<button class="button button--primary" type="submit">Subscribe</button></form></section>`
    : html`<p class="notice">Subscriptions receive live events too, so they are created and deleted in the <a href="${base('live')}/subscriptions">live view</a>.</p>`
}`;
}
