// Dashboard: forms of the chosen mode (admins see the agency's, agents their own and the agency-wide ones),
// publish and duplicate (the same state functions as /v2/forms), the embed snippet (iframe plus the
// message listener with its origin check), signed agent links with metadata, and the embed origins.
import type { Context } from 'koa';
import { z } from 'zod';
import { listAgents } from '../../../db/queries/agents.ts';
import { listEmbedOrigins, setEmbedOrigins } from '../../../db/queries/embed_origins.ts';
import { activeAgent, linkTarget } from '../../../db/queries/form_links.ts';
import { duplicateForm, getForm, listForms, publishForm, type FormRow } from '../../../db/queries/forms.ts';
import { base, csrfField, pager, renderPage, when, session, type DashboardSession } from '../../dashboard.ts';
import type { Deps } from '../../context.ts';
import { notFound, unprocessable } from '../../errors.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { keysetPage } from '../../pagination.ts';
import { presentFormLink } from '../../presenters/form_links.ts';
import { hostedFormPath } from '../../pages/urls.ts';
import { route, tx } from '../../route.ts';
import { beforeId, dashboardForm, modeIdParams, modeParams } from '../../schemas/dashboard.ts';
import { id, storableJson } from '../../schemas/common.ts';

const responses = {
  200: { description: 'HTML page' },
  401: { description: 'Not signed in' },
  403: { description: 'No CSRF token, or not an admin' },
  404: { description: 'Not found' },
};

const PAGE = 50;

/** Forms an agent (not an admin) works with: its own and the agency-wide ones. */
const visibleTo = (s: DashboardSession, f: FormRow) => s.isAdmin || f.owner_agent_id === null || f.owner_agent_id === s.agent_id;

async function loadForm(ctx: Context, s: DashboardSession, id: number): Promise<FormRow> {
  const f = await getForm(tx(ctx), id);
  if (!f || !visibleTo(s, f)) throw notFound('form');
  return f;
}

/** The snippet a partner pastes: the framed form and a listener that trusts only the form host's messages. */
export function embedSnippet(appUrl: string, path: string): string {
  const origin = new URL(appUrl).origin;
  return `<iframe id="service-form" src="${appUrl}${path}?embed=1" title="Quote form" style="width:100%;border:0;min-height:600px"></iframe>
<script>
  window.addEventListener('message', function (e) {
    if (e.origin !== '${origin}') return; // only messages from the form host
    var frame = document.getElementById('service-form');
    if (e.data && e.data.type === 'service:resize') frame.style.height = e.data.height + 'px';
    if (e.data && e.data.type === 'service:completed') console.log('submitted', e.data.submission_id);
  });
</script>`;
}

function copyBox(id: string, label: string, value: string, multiline: boolean): SafeHtml {
  return html`<div class="field"><label class="field__label" for="${id}">${label}</label>
<div class="dash-copy">${multiline ? html`<textarea class="input dash-code" id="${id}" readonly rows="9">${value}</textarea>` : html`<input class="input dash-copy__value" id="${id}" readonly value="${value}">`}<button type="button" class="button button--secondary" data-copy="${id}">Copy</button></div>
<p class="dash-copy__status" role="status" aria-live="polite"></p></div>`;
}

async function formPage(ctx: Context, deps: Deps, s: DashboardSession, f: FormRow, top: SafeHtml | null, status = 200): Promise<void> {
  const b = `${base(s.mode)}/forms/${f.id}`;
  const target = await linkTarget(tx(ctx), f.id);
  const me = await activeAgent(tx(ctx), s.agent_id);
  const published = f.status === 'active' && target?.live_name;
  const path = published && me ? hostedFormPath(me.slug, f.public_id, target.live_name!) : null;
  const agents = s.isAdmin ? await listAgents(tx(ctx), { email: null, includeDeactivated: false }, 200, 0) : [];
  const origins = await listEmbedOrigins(tx(ctx));
  await renderPage(
    ctx,
    s,
    f.name,
    html`${top}
<p><span class="dash-status dash-status--${f.status}">${f.status === 'active' ? 'published' : 'draft'}</span> ${f.insurance_line} · id ${f.id} · <code>${f.public_id}</code>${f.published_at ? ` · published ${when(f.published_at)}` : ''}</p>
${
  s.isAdmin
    ? html`<div class="dash-filter">
<form method="post" action="${b}/publish">${csrfField(s)}<button class="button button--primary button--small" type="submit">${f.status === 'active' ? 'Publish the current version' : 'Publish'}</button></form>
<form method="post" action="${b}/duplicate">${csrfField(s)}<button class="button button--secondary button--small" type="submit">Duplicate</button></form></div>`
    : ''
}
${
  path
    ? html`<section class="dash-panel" aria-labelledby="embed-title"><h2 id="embed-title">Share and embed</h2>
${copyBox('form-link', 'Your link to this form', `${deps.cfg.appUrl}${path}`, false)}
${copyBox('embed-code', 'Embed code (paste into your site; add the site to the embed origins below)', embedSnippet(deps.cfg.appUrl, path), true)}
</section>`
    : html`<p class="notice">Publish the form to get its link and embed code.</p>`
}
${
  s.isAdmin && published
    ? html`<section class="dash-panel" aria-labelledby="link-title"><h2 id="link-title">A link for an agent, with metadata</h2>
<p>The agent gets the submission; the metadata comes back in the webhook’s <code>data.metadata</code> and cannot be changed by the consumer.</p>
<form method="post" action="${b}/links" class="dash-form">${csrfField(s)}
<div class="field"><label class="field__label" for="link-agent">Agent</label><select class="input" id="link-agent" name="agent_id">${agents
        .filter((a) => f.owner_agent_id === null || a.id === f.owner_agent_id)
        .map((a) => html`<option value="${a.id}"${a.id === s.agent_id ? ' selected' : ''}>${a.first_name} ${a.last_name}</option>`)}</select></div>
<div class="field"><label class="field__label" for="link-key">Metadata name</label><input class="input" id="link-key" name="meta_key" maxlength="64" autocomplete="off"></div>
<div class="field"><label class="field__label" for="link-value">Metadata value</label><input class="input" id="link-value" name="meta_value" maxlength="500" autocomplete="off"></div>
<button class="button button--secondary" type="submit">Make link</button></form></section>`
    : ''
}
<section class="dash-panel" aria-labelledby="origins-title"><h2 id="origins-title">Embed origins</h2>
<p>Sites allowed to frame the agency’s forms; any other site gets a blank frame.</p>
${origins.length ? html`<ul>${origins.map((o) => html`<li><code>${o}</code></li>`)}</ul>` : html`<p>None yet.</p>`}
${
  s.isAdmin
    ? html`<form method="post" action="${b}/embed-origins" class="dash-form">${csrfField(s)}
<div class="field"><label class="field__label" for="origins">Origins, one a line (https://www.agency.example)</label><textarea class="input" id="origins" name="origins" rows="4">${origins.join('\n')}</textarea></div>
<button class="button button--secondary" type="submit">Save origins</button></form>`
    : ''
}</section>
<p><a href="${base(s.mode)}/forms">All forms</a></p>`,
    status,
  );
}

export const dashboardFormRoutes = [
  route({
    method: 'get',
    path: '/dashboard/:mode/forms',
    operationId: 'dashboardForms',
    summary: 'Forms page',
    tags: ['Dashboard'],
    auth: 'dashboard',
    params: modeParams,
    query: z.object({
      status: z.enum(['draft', 'active']).or(z.literal('')).optional(),
      before: beforeId,
    }),
    responses,
    handler: async (ctx, { query }) => {
      const s = session(ctx);
      const { page: forms, nextCursor: next } = keysetPage(
        await listForms(tx(ctx), {
          before: query.before ?? null,
          status: query.status || null,
          insuranceLine: null,
          limit: PAGE + 1,
          visibleToAgentId: s.isAdmin ? null : s.agent_id,
        }),
        PAGE,
        (f) => String(f.id),
      );
      await renderPage(
        ctx,
        s,
        'Forms',
        html`<form method="get" class="dash-filter"><div class="field"><label class="field__label" for="status">Status</label>
<select class="input" id="status" name="status"><option value="">All</option><option value="active"${query.status === 'active' ? ' selected' : ''}>Published</option><option value="draft"${query.status === 'draft' ? ' selected' : ''}>Draft</option></select></div>
<button class="button button--secondary button--small" type="submit">Filter</button></form>
${
  forms.length
    ? html`<div class="dash-table-wrap"><table class="dash-table"><caption class="visually-hidden">Forms</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Line</th><th scope="col">Status</th><th scope="col">Updated</th></tr></thead>
<tbody>${forms.map((f) => html`<tr><th scope="row"><a href="${base(s.mode)}/forms/${f.id}">${f.name}</a></th><td>${f.insurance_line}</td><td><span class="dash-status dash-status--${f.status}">${f.status === 'active' ? 'published' : 'draft'}</span></td><td>${when(f.updated_at)}</td></tr>`)}</tbody></table></div>`
    : html`<p class="lede">No ${s.mode} forms${query.status ? ' with this status' : ''}${query.before ? ' older than these' : ''}. Forms are made through the API (POST /v2/forms).</p>`
}
${pager(`${base(s.mode)}/forms`, { status: query.status }, { paged: !!query.before, next, what: 'forms' })}`,
      );
    },
  }),
  route({
    method: 'get',
    path: '/dashboard/:mode/forms/:id',
    operationId: 'dashboardForm',
    summary: 'One form: publish, duplicate, link and embed code',
    tags: ['Dashboard'],
    auth: 'dashboard',
    params: modeIdParams,
    responses,
    handler: async (ctx, { params }, deps) => {
      const s = session(ctx);
      await formPage(ctx, deps, s, await loadForm(ctx, s, params.id), null);
    },
  }),
  route({
    method: 'post',
    path: '/dashboard/:mode/forms/:id/publish',
    operationId: 'dashboardPublishForm',
    summary: 'Publish a form',
    tags: ['Dashboard'],
    auth: 'dashboard_admin',
    params: modeIdParams,
    urlencoded: true,
    body: dashboardForm,
    responses,
    handler: async (ctx, { params }, deps) => {
      const s = session(ctx);
      await loadForm(ctx, s, params.id);
      const f = await publishForm(tx(ctx), params.id);
      await formPage(ctx, deps, s, f, html`<p class="notice" role="status">Published.</p>`);
    },
  }),
  route({
    method: 'post',
    path: '/dashboard/:mode/forms/:id/duplicate',
    operationId: 'dashboardDuplicateForm',
    summary: 'Duplicate a form into a new draft',
    tags: ['Dashboard'],
    auth: 'dashboard_admin',
    params: modeIdParams,
    urlencoded: true,
    body: dashboardForm,
    responses: { ...responses, 303: { description: 'To the copy' } },
    handler: async (ctx, { params }) => {
      const s = session(ctx);
      await loadForm(ctx, s, params.id);
      const copy = await duplicateForm(tx(ctx), params.id);
      ctx.status = 303;
      ctx.redirect(`${base(s.mode)}/forms/${copy.id}`);
    },
  }),
  route({
    method: 'post',
    path: '/dashboard/:mode/forms/:id/links',
    operationId: 'dashboardFormLink',
    summary: 'A signed link for an agent with metadata',
    tags: ['Dashboard'],
    auth: 'dashboard_admin',
    params: modeIdParams,
    urlencoded: true,
    body: dashboardForm,
    responses,
    handler: async (ctx, { params, body }, deps) => {
      const s = session(ctx);
      const f = await loadForm(ctx, s, params.id);
      const target = await linkTarget(tx(ctx), f.id);
      if (!target || target.status !== 'active' || !target.live_name) throw unprocessable('publish the form before making links to it');
      const agentId = id.safeParse(body.agent_id);
      const agent = agentId.success ? await activeAgent(tx(ctx), agentId.data) : undefined;
      if (!agent || (target.owner_agent_id !== null && target.owner_agent_id !== agent.id))
        throw unprocessable('choose an active agent who may share this form', [{ field: 'agent_id', message: 'not allowed' }]);
      const key = String(body.meta_key ?? '').trim();
      const metadata = key ? { [key]: String(body.meta_value ?? '') } : {};
      if (!storableJson(metadata)) {
        throw unprocessable('metadata must not contain NUL characters', [{ field: 'meta_value', message: 'must not contain NUL characters' }]);
      }
      const link = presentFormLink(deps, { ...target, live_name: target.live_name }, agent, metadata);
      await formPage(
        ctx,
        deps,
        s,
        f,
        html`<section class="dash-secret" aria-label="New link">${copyBox('new-link', `Link for the agent, valid until ${when(link.expires_at)}`, link.url, false)}</section>`,
        201,
      );
    },
  }),
  route({
    method: 'post',
    path: '/dashboard/:mode/forms/:id/embed-origins',
    operationId: 'dashboardEmbedOrigins',
    summary: 'Replace the embed origins',
    tags: ['Dashboard'],
    auth: 'dashboard_admin',
    params: modeIdParams,
    urlencoded: true,
    body: dashboardForm,
    responses,
    handler: async (ctx, { params, body }, deps) => {
      const s = session(ctx);
      const f = await loadForm(ctx, s, params.id);
      const origins = [
        ...new Set(
          String(body.origins ?? '')
            .split(/[\s,]+/)
            .map((o) => o.trim().replace(/\/+$/, '').toLowerCase())
            .filter(Boolean),
        ),
      ];
      const bad = origins.filter((o) => !/^https?:\/\/[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?$/.test(o));
      if (bad.length)
        throw unprocessable(
          'each origin is scheme://host[:port], without a path',
          bad.map((o) => ({ field: 'origins', message: o })),
        );
      await setEmbedOrigins(tx(ctx), origins);
      await formPage(ctx, deps, s, f, html`<p class="notice" role="status">Origins saved.</p>`);
    },
  }),
];
