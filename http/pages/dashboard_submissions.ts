// The dashboard's submission pages: the list filterable by form and status, and one submission's answers with
// its files and ACORD archive through signed links.
import type { listSubmissions } from '../../db/queries/submissions.ts';
import { base, pager, when, type DashboardSession } from '../dashboard.ts';
import type { presentSubmission } from '../presenters/submissions.ts';
import { html, type SafeHtml } from './html.ts';

function answerValue(v: unknown): SafeHtml | string {
  if (v === null || v === undefined || v === '') return '—';
  if (Array.isArray(v) && v.every((x) => x && typeof x === 'object' && 'url' in x)) {
    return html`<ul>${(v as { filename: string; url: string }[]).map((f) => html`<li><a href="${f.url}" rel="noreferrer">${f.filename}</a></li>`)}</ul>`;
  }
  if (Array.isArray(v)) return v.every((x) => typeof x !== 'object') ? v.join(', ') : html`<ul>${v.map((x) => html`<li>${answerValue(x)}</li>`)}</ul>`;
  if (typeof v === 'object')
    return Object.entries(v as Record<string, unknown>)
      .map(([k, x]) => `${k.replace(/_/g, ' ')}: ${typeof x === 'object' ? JSON.stringify(x) : String(x)}`)
      .join('; ');
  return String(v);
}

/** The list of submissions with its filter form and paging links. */
export function submissionsBody(
  s: DashboardSession,
  page: Awaited<ReturnType<typeof listSubmissions>>,
  query: { form_id?: number | ''; status?: string; before?: number },
  next: string | null,
): SafeHtml {
  const b = `${base(s.mode)}/submissions`;
  return html`<form method="get" class="dash-filter">
<div class="field"><label class="field__label" for="form_id">Form id</label><input class="input" id="form_id" name="form_id" inputmode="numeric" value="${query.form_id ? String(query.form_id) : ''}"></div>
<div class="field"><label class="field__label" for="status">Status</label><select class="input" id="status" name="status"><option value="">All</option>${['processing', 'complete'].map((x) => html`<option value="${x}"${x === query.status ? ' selected' : ''}>${x}</option>`)}</select></div>
<button class="button button--secondary button--small" type="submit">Filter</button></form>
${
  page.length
    ? html`<div class="dash-table-wrap"><table class="dash-table"><caption class="visually-hidden">Submissions</caption>
<thead><tr><th scope="col">Submission</th><th scope="col">Form</th><th scope="col">Contact</th><th scope="col">Agent</th><th scope="col">Status</th><th scope="col">Submitted</th></tr></thead>
<tbody>${page.map((r) => html`<tr><th scope="row"><a href="${b}/${r.id}">#${r.id}</a></th><td>${r.form_name}</td><td>${r.contact?.name ?? r.contact?.email ?? '—'}</td><td>${r.agent_name}</td><td><span class="dash-status">${r.status}</span></td><td>${when(r.submitted_at)}</td></tr>`)}</tbody></table></div>`
    : html`<p class="lede">No submissions${query.form_id || query.status ? ' match these filters' : ' yet'}.</p>`
}
${pager(b, { form_id: query.form_id || null, status: query.status }, { paged: !!query.before, next, what: 'submissions' })}`;
}

/** One submission: its answers, the ACORD archive and the metadata of its link. */
export function submissionBody(s: DashboardSession, d: ReturnType<typeof presentSubmission>, status: string): SafeHtml {
  return html`<p>${d.form.name} · ${when(d.submitted_at)} · agent ${d.agent.name} · trace <code>${d.trace_id}</code> · ${status}</p>
<div class="dash-table-wrap"><table class="dash-table"><caption class="visually-hidden">Answers</caption><thead><tr><th scope="col">Question</th><th scope="col">Answer</th></tr></thead>
<tbody>${d.answers.map((a) => html`<tr><th scope="row">${a.label}</th><td>${answerValue(a.value)}</td></tr>`)}</tbody></table></div>
${'acord' in d && d.acord ? html`<section class="dash-panel" aria-labelledby="acord-title"><h2 id="acord-title">ACORD</h2><p>Forms: ${d.acord.form_ids.join(', ')}</p>${d.acord.archive_url ? html`<p><a href="${d.acord.archive_url}" rel="noreferrer">Download the ACORD archive</a></p>` : html`<p>The archive is being prepared.</p>`}</section>` : ''}
${Object.keys(d.metadata ?? {}).length ? html`<h2>Metadata</h2><pre class="dash-pre">${JSON.stringify(d.metadata, null, 2)}</pre>` : ''}
<p><a href="${base(s.mode)}/submissions">All submissions</a></p>`;
}
