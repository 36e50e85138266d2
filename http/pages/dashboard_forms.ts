// The dashboard's form pages: the list filterable by status, and one form with publish and duplicate, its link
// and embed snippet, a signed link for an agent with metadata, and the agency's embed origins.
import type { AgentRow } from '../../db/queries/agents.ts';
import type { FormRow } from '../../db/queries/forms.ts';
import { base, csrfField, pager, when, type DashboardSession } from '../dashboard.ts';
import { html, type SafeHtml } from './html.ts';

/** The snippet a partner pastes: the framed form and a listener that trusts only the form host's messages. */
export function embedSnippet(appUrl: string, path: string): string {
  const origin = new URL(appUrl).origin;
  return `<iframe id="service-form" src="${appUrl}${path}?embed=1" title="Quote form" style="width:100%;border:0;min-height:600px"></iframe>
<script>
  window.addEventListener('message', function (e) {
    if (e.origin !== '${origin}') return; // only messages from the form host
    var frame = document.getElementById('service-form');
    if (e.data && e.data.type === 'service:resize') frame.style.height = e.data.height + 'px';
    if (e.data && e.data.type === 'service:saved') console.log('resume link to email', e.data.resume_url, e.data.expires_at);
    if (e.data && e.data.type === 'service:completed') console.log('submitted', e.data.submission_id);
  });
</script>`;
}

/** A read-only value with a copy button (a link, the embed code). */
export function copyBox(id: string, label: string, value: string, multiline: boolean): SafeHtml {
  return html`<div class="field"><label class="field__label" for="${id}">${label}</label>
<div class="dash-copy">${multiline ? html`<textarea class="input dash-code" id="${id}" readonly rows="9">${value}</textarea>` : html`<input class="input dash-copy__value" id="${id}" readonly value="${value}">`}<button type="button" class="button button--secondary" data-copy="${id}">Copy</button></div>
<p class="dash-copy__status" role="status" aria-live="polite"></p></div>`;
}

/** The list of forms with its filter form and paging links. */
export function formsBody(s: DashboardSession, forms: FormRow[], query: { status?: string; before?: number }, next: string | null): SafeHtml {
  return html`<form method="get" class="dash-filter"><div class="field"><label class="field__label" for="status">Status</label>
<select class="input" id="status" name="status"><option value="">All</option><option value="active"${query.status === 'active' ? ' selected' : ''}>Published</option><option value="draft"${query.status === 'draft' ? ' selected' : ''}>Draft</option></select></div>
<button class="button button--secondary button--small" type="submit">Filter</button></form>
${
  forms.length
    ? html`<div class="dash-table-wrap"><table class="dash-table"><caption class="visually-hidden">Forms</caption>
<thead><tr><th scope="col">Name</th><th scope="col">Line</th><th scope="col">Status</th><th scope="col">Updated</th></tr></thead>
<tbody>${forms.map((f) => html`<tr><th scope="row"><a href="${base(s.mode)}/forms/${f.id}">${f.name}</a></th><td>${f.insurance_line}</td><td><span class="dash-status dash-status--${f.status}">${f.status === 'active' ? 'published' : 'draft'}</span></td><td>${when(f.updated_at)}</td></tr>`)}</tbody></table></div>`
    : html`<p class="lede">No ${s.mode} forms${query.status ? ' with this status' : ''}${query.before ? ' older than these' : ''}. Forms are made through the API (POST /v2/forms).</p>`
}
${pager(`${base(s.mode)}/forms`, { status: query.status }, { paged: !!query.before, next, what: 'forms' })}`;
}

/** What a form's page shows beside the form: its hosted path when published, the agents and the embed origins. */
export interface FormView {
  top: SafeHtml | null;
  appUrl: string;
  path: string | null;
  published: boolean;
  agents: Pick<AgentRow, 'id' | 'first_name' | 'last_name'>[];
  origins: string[];
}

/** One form: status, the admin's buttons, share and embed, a link for an agent, the embed origins. */
export function formBody(s: DashboardSession, f: FormRow, v: FormView): SafeHtml {
  const { top, appUrl, path, published, agents, origins } = v;
  const b = `${base(s.mode)}/forms/${f.id}`;
  return html`${top}
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
${copyBox('form-link', 'Your link to this form', `${appUrl}${path}`, false)}
${copyBox('embed-code', 'Embed code (paste into your site; add the site to the embed origins below)', embedSnippet(appUrl, path), true)}
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
<p><a href="${base(s.mode)}/forms">All forms</a></p>`;
}
