// Dashboard: the agency's API keys in the chosen mode. Create (the key shown once), roll with a grace period,
// revoke after a confirmation; the same state functions as /v1/agencies/{id}/api-keys.
import { z } from 'zod';
import { apiKeyMode, createApiKey, listApiKeysPage, revokeApiKey, rollApiKey } from '../../../db/queries/api_keys.ts';
import { newApiKey } from '../../../lib/secrets.ts';
import { base, csrfField, pager, renderPage, shownOnce, when, session, type DashboardSession } from '../../dashboard.ts';
import { notFound, unprocessable } from '../../errors.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { keysetPage } from '../../pagination.ts';
import { presentApiKey } from '../../presenters/api_keys.ts';
import { route, tx } from '../../route.ts';
import { beforeId, dashboardForm, modeIdParams, modeParams } from '../../schemas/dashboard.ts';

const GRACE: [number, string][] = [
  [0, 'none: the old key stops at once'],
  [3600, '1 hour'],
  [86_400, '24 hours'],
  [7 * 86_400, '7 days'],
];

const responses = { 200: { description: 'HTML page' }, 401: { description: 'Not signed in' }, 403: { description: 'No CSRF token, or not an admin' } };

const keyShownOnce = (key: string, what: string) =>
  shownOnce(what, key, 'We store only a hash, so nobody can show it to you again. Keep it on your server; never put it in browser code or a URL.');

const PAGE = 50;

async function keysPage(
  ctx: Parameters<typeof renderPage>[0],
  s: DashboardSession,
  top: SafeHtml | null,
  status = 200,
  before: number | null = null,
): Promise<void> {
  const { page, nextCursor } = keysetPage(await listApiKeysPage(tx(ctx), s.agency_id, { mode: s.mode, before, limit: PAGE + 1 }), PAGE, (k) => String(k.id));
  const keys = page.map(presentApiKey);
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
  await renderPage(
    ctx,
    s,
    'API keys',
    html`${top}
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
<button class="button button--primary" type="submit">Create key</button></form></section>`,
    status,
  );
}

const createFields = z.object({ name: z.string().trim().min(1).max(100), permissions: z.enum(['admin', 'read_only']) });

export const dashboardApiKeyRoutes = [
  route({
    method: 'get',
    path: '/dashboard/:mode/keys',
    operationId: 'dashboardApiKeys',
    summary: 'API keys page',
    tags: ['Dashboard'],
    auth: 'dashboard_admin',
    params: modeParams,
    query: z.object({ before: beforeId }),
    responses,
    handler: (ctx, { query }) => keysPage(ctx, session(ctx), null, 200, query.before ?? null),
  }),
  route({
    method: 'post',
    path: '/dashboard/:mode/keys',
    operationId: 'dashboardCreateApiKey',
    summary: 'Create a key; the answer shows it once',
    tags: ['Dashboard'],
    auth: 'dashboard_admin',
    params: modeParams,
    urlencoded: true,
    body: dashboardForm,
    responses,
    handler: async (ctx, { body }) => {
      const s = session(ctx);
      const f = createFields.safeParse(body);
      if (!f.success) throw unprocessable('give the key a name and choose its permissions', [{ field: 'name', message: 'required, at most 100 characters' }]);
      const k = newApiKey(s.mode);
      const created = await createApiKey(tx(ctx), s.agency_id, { name: f.data.name, mode: s.mode, permissions: f.data.permissions }, k);
      await keysPage(ctx, s, keyShownOnce(k.key, `Your new key “${created.name}”`), 201);
    },
  }),
  route({
    method: 'post',
    path: '/dashboard/:mode/keys/:id/roll',
    operationId: 'dashboardRollApiKey',
    summary: 'Roll a key; the answer shows the replacement once',
    tags: ['Dashboard'],
    auth: 'dashboard_admin',
    params: modeIdParams,
    urlencoded: true,
    body: dashboardForm,
    responses,
    handler: async (ctx, { params, body }) => {
      const s = session(ctx);
      const grace = Number(body.grace_period_seconds ?? 0);
      if (!GRACE.some(([v]) => v === grace)) throw unprocessable('choose one of the grace periods offered');
      const mode = await apiKeyMode(tx(ctx), s.agency_id, params.id);
      if (mode !== s.mode) throw notFound('API key');
      const k = newApiKey(mode);
      const rolled = await rollApiKey(tx(ctx), s.agency_id, params.id, grace, k);
      await keysPage(ctx, s, keyShownOnce(k.key, `The replacement for “${rolled.name}”`));
    },
  }),
  route({
    method: 'post',
    path: '/dashboard/:mode/keys/:id/revoke',
    operationId: 'dashboardRevokeApiKey',
    summary: 'Revoke a key at once',
    tags: ['Dashboard'],
    auth: 'dashboard_admin',
    params: modeIdParams,
    urlencoded: true,
    body: dashboardForm,
    responses: { ...responses, 303: { description: 'Back to the keys' } },
    handler: async (ctx, { params }) => {
      const s = session(ctx);
      if ((await apiKeyMode(tx(ctx), s.agency_id, params.id)) !== s.mode) throw notFound('API key');
      await revokeApiKey(tx(ctx), s.agency_id, params.id);
      ctx.status = 303;
      ctx.redirect(`${base(s.mode)}/keys`);
    },
  }),
];
