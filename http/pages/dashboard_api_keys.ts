// The dashboard's API keys page: the keys of a mode with roll (and its grace period) and revoke behind a
// confirmation, paged newest first, and the form that creates a key.
import { base, csrfField, pager, when, type DashboardSession } from '../dashboard.ts';
import type { presentApiKey } from '../presenters/api_keys.ts';
import { html, type SafeHtml } from './html.ts';

/** The grace periods a roll offers: seconds the old key keeps working, and their words. */
export const GRACE: [number, string][] = [
  [0, 'none: the old key stops at once'],
  [3600, '1 hour'],
  [86_400, '24 hours'],
  [7 * 86_400, '7 days'],
];

/** The keys (`top` above them: a key shown once, or a notice), their paging links and the form of a new key. */
export function apiKeysBody(
  s: DashboardSession,
  keys: ReturnType<typeof presentApiKey>[],
  o: { top: SafeHtml | null; before: number | null; next: string | null },
): SafeHtml {
  const { top, before, next: nextCursor } = o;
  const b = base(s.mode);
  const rows = keys.map(
    (k) => html`<tr>
<th scope="row">${k.name}</th>
<td>${k.permissions === 'admin' ? 'Admin' : 'Read-only'}</td>
<td><code>${k.prefix}…${k.last_four}</code></td>
<td>${when(k.last_used_at)}</td>
<td><span class="dash-status dash-status--${k.status}">${k.status}</span>${k.expires_at && k.status === 'expiring' ? html`<br><small>until ${when(k.expires_at)}</small>` : ''}</td>
<td class="dash-actions">${
      k.status === 'active'
        ? html`<details class="dash-confirm"><summary>Roll</summary><form method="post" action="${b}/keys/${k.id}/roll">${csrfField(s)}
<label class="field__label" for="grace-${k.id}">Old key keeps working for</label>
<select class="input" id="grace-${k.id}" name="grace_period_seconds">${GRACE.map(([v, l]) => html`<option value="${v}">${l}</option>`)}</select>
<button class="button button--primary button--small" type="submit">Roll “${k.name}”</button></form></details>
<details class="dash-confirm"><summary>Revoke</summary><form method="post" action="${b}/keys/${k.id}/revoke">${csrfField(s)}
<p>Requests with this key will be refused at once. This cannot be undone.</p>
<button class="button button--danger button--small" type="submit">Revoke “${k.name}” now</button></form></details>`
        : ''
    }</td>
</tr>`,
  );
  return html`${top}
<section aria-labelledby="keys-title"><h2 id="keys-title" class="visually-hidden">Keys</h2>
${
  keys.length
    ? html`<div class="dash-table-wrap"><table class="dash-table"><caption class="visually-hidden">${s.mode === 'test' ? 'Test' : 'Live'} API keys</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Permissions</th><th scope="col">Key</th><th scope="col">Last used</th><th scope="col">Status</th><th scope="col">Actions</th></tr></thead>
<tbody>${rows}</tbody></table></div>`
    : html`<p class="lede">No ${s.mode} keys ${before ? 'older than these' : 'yet'}.</p>`
}
${pager(`${b}/keys`, {}, { paged: before !== null, next: nextCursor, what: 'keys' })}
</section>
<section class="dash-panel" aria-labelledby="new-key"><h2 id="new-key">Create a ${s.mode} key</h2>
<form method="post" action="${b}/keys" class="dash-form">${csrfField(s)}
<div class="field"><label class="field__label" for="key-name">Name</label><input class="input" id="key-name" name="name" required maxlength="100" autocomplete="off"></div>
<fieldset class="field"><legend class="field__label">Permissions</legend>
<label class="choice"><input class="choice__input" type="radio" name="permissions" value="admin" checked> <span class="choice__label">Admin (read and write)</span></label>
<label class="choice"><input class="choice__input" type="radio" name="permissions" value="read_only"> <span class="choice__label">Read-only</span></label></fieldset>
<button class="button button--primary" type="submit">Create key</button></form></section>`;
}
