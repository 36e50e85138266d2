// The dashboard's review pages: the queue of extractions with uncertain fields (with the agency's hold and share
// settings of the mode), and one extraction's fields to check, each beside a crop of its page with the form that
// confirms, corrects or marks it not on the document, then the decisions already made.
import type { getAgencyExtraction } from '../../db/queries/extractions.ts';
import type { fieldReviews, reviewQueue } from '../../db/queries/reviews.ts';
import { documentKinds } from '../../pipelines/extraction/schema.ts';
import { base, csrfField, when, type DashboardSession } from '../dashboard.ts';
import type { presentExtraction } from '../presenters/extractions.ts';
import { fieldHints, fieldKind } from '../schemas/reviews.ts';
import { confidenceBadge, fieldLabel, pageCrop, showValue, valueAt, type Citation } from './extraction_fields.ts';
import { html, type SafeHtml } from './html.ts';

const actionNames = { confirmed: 'confirmed', corrected: 'corrected', not_on_document: 'not on the document' } as const;

type QueueRow = Awaited<ReturnType<typeof reviewQueue>>[number];

/** What the queue shows: the settings, the agents of the rows (the admin's filter) and the rows. */
export interface QueueView {
  notice?: SafeHtml;
  hold: boolean;
  share: boolean;
  agents: [number, string][];
  rows: QueueRow[];
  q: { agent?: string; kind?: string };
  kind: string | null;
}

/** The review queue with the admin's settings and the agent and kind filters. */
export function queueBody(s: DashboardSession, v: QueueView): SafeHtml {
  const { notice, hold, share, agents, rows, q, kind } = v;
  const b = `${base(s.mode)}/review`;
  return html`${notice ?? ''}
<p class="lede">Extractions with fields the engine was unsure of, oldest first. ${hold ? html`<strong>Hold for review is on</strong> in ${s.mode} data: their client-submission webhook waits until the last field is reviewed.` : html`Hold for review is off in ${s.mode} data: webhooks go out at once with the uncertain fields listed; a correction here updates the record afterwards.`}</p>
${
  s.isAdmin
    ? html`<form method="post" action="${b}/settings" class="dash-filter">${csrfField(s)}<input type="hidden" name="hold" value="${hold ? 'off' : 'on'}"><button class="button button--secondary button--small" type="submit">${hold ? 'Stop holding extractions for review' : 'Hold extractions with uncertain fields for review'}</button></form>
<form method="post" action="${b}/settings" class="dash-filter">${csrfField(s)}<input type="hidden" name="share" value="${share ? 'off' : 'on'}"><p class="dash-keys">${share ? 'Reviewed documents are shared with the service’s analysts, with their labels, to measure the engine.' : 'Reviewed values are shared with the service’s analysts as labels; the documents are not.'}</p><button class="button button--secondary button--small" type="submit">${share ? 'Stop sharing reviewed documents' : 'Share reviewed documents with the analysts'}</button></form>`
    : ''
}
<form method="get" class="dash-filter">
${s.isAdmin ? html`<div class="field"><label class="field__label" for="agent">Agent</label><select class="input" id="agent" name="agent"><option value="">All</option>${agents.map(([id, name]) => html`<option value="${id}"${String(id) === q.agent ? ' selected' : ''}>${name}</option>`)}</select></div>` : ''}
<div class="field"><label class="field__label" for="kind">Kind</label><select class="input" id="kind" name="kind"><option value="">All</option>${documentKinds.map((k) => html`<option value="${k}"${k === q.kind ? ' selected' : ''}>${k.replace(/_/g, ' ')}</option>`)}</select></div>
<button class="button button--secondary button--small" type="submit">Filter</button></form>
${
  rows.length
    ? html`<div class="dash-table-wrap"><table class="dash-table"><caption class="visually-hidden">Extractions to review</caption>
<thead><tr><th scope="col">Document</th><th scope="col">Fields to check</th><th scope="col">Status</th><th scope="col" class="dash-wide">Kind</th><th scope="col" class="dash-wide">Agent</th><th scope="col">Created</th></tr></thead>
<tbody>${rows.map(
        (r) =>
          html`<tr><th scope="row"><a href="${b}/${r.id}">${r.filename}</a></th><td>${r.to_review}</td><td><span class="dash-status dash-status--${r.status}">${r.status.replace(/_/g, ' ')}</span></td><td class="dash-wide">${r.policy_type ?? '—'}</td><td class="dash-wide">${r.agent_name}</td><td>${when(r.created_at)}</td></tr>`,
      )}</tbody></table></div>`
    : html`<p class="lede">Nothing to review${kind || q.agent ? ' with these filters' : ''}.</p>`
}`;
}

/** What an extraction's review page shows: the fields to check with their pages' sizes, and the decisions made. */
export interface ReviewView {
  id: string;
  row: NonNullable<Awaited<ReturnType<typeof getAgencyExtraction>>>;
  r: ReturnType<typeof presentExtraction>;
  data: Record<string, unknown>;
  citations: Record<string, Citation>;
  pending: string[];
  done: Awaited<ReturnType<typeof fieldReviews>>;
  sizes: Map<number, { w: number; h: number } | null>;
  /** A correction the field's schema refused, shown at its field with the value as typed. */
  problem?: { pointer: string; message: string; value: string };
  /** The next extraction of the queue, once this one has nothing left to check. */
  next: QueueRow | null | undefined;
}

/** One extraction's review: the fields to check first, then the decisions already made. */
export function reviewBody(s: DashboardSession, v: ReviewView): SafeHtml {
  const { id, row, r, data, citations, pending, done, sizes, problem, next } = v;
  const b = `${base(s.mode)}/review/${id}`;
  const item = (pointer: string, i: number) => {
    const c = citations[pointer];
    const size = c && sizes.get(c.page);
    const kind = fieldKind(pointer);
    const bad = problem?.pointer === pointer ? problem : undefined;
    const current = valueAt(data, pointer);
    const inputId = `value-${i}`;
    return html`<li class="dash-review__item" id="field-${i}">
<h2 class="dash-review__title">${fieldLabel(pointer)}</h2>
${c && c.box && size ? pageCrop({ src: `${base(s.mode)}/extractions/${id}/pages/${c.page}`, size, box: c.box, label: `Where ${fieldLabel(pointer)} was read on page ${c.page}` }) : html`<p class="dash-keys">No box on the page for this value${c ? html` (page ${c.page})` : ''}.</p>`}
<p>Read: <strong class="dash-value">${showValue(current)}</strong> · confidence ${confidenceBadge(c, true)}${c ? html` · page ${c.page} · ${c.rule ?? c.source}` : ''}</p>
<form method="post" action="${b}" class="dash-review__form">${csrfField(s)}<input type="hidden" name="pointer" value="${pointer}">
<div class="field"><label class="field__label" for="${inputId}">Value (${fieldHints[kind]})</label>
<input class="input" id="${inputId}" name="value" data-review-value value="${bad ? bad.value : current === null || current === undefined ? '' : String(current)}"${i === 0 ? ' autofocus' : ''}${bad ? html` aria-invalid="true" aria-describedby="${inputId}-error"` : ''} autocomplete="off">
${bad ? html`<p class="field__error" id="${inputId}-error" role="alert">${bad.message}</p>` : ''}</div>
<button class="button button--small" type="submit" name="action" value="save">Save</button>
<button class="button button--secondary button--small" type="submit" name="action" value="not_on_document" aria-keyshortcuts="Alt+N">Not on the document</button>
</form></li>`;
  };

  return html`<p><span class="dash-status dash-status--${r.parsing_status}">${r.parsing_status.replace(/_/g, ' ')}</span> ${String(data.policy_type ?? '')} · agent ${row.agent_name} · created ${when(r.created_at)} · <a href="${base(s.mode)}/extractions/${id}">the whole extraction</a></p>
${
  pending.length
    ? html`<p class="dash-keys">Keyboard: <kbd>Enter</kbd> saves the value as shown (a confirmation, or your correction), <kbd>↓</kbd>/<kbd>↑</kbd> next and previous field, <kbd>Alt</kbd>+<kbd>N</kbd> not on the document. ${pending.length} to check${r.parsing_status === 'needs_review' ? '; the extraction is delivered when the last one is reviewed' : ''}.</p>
<ol class="dash-review" aria-label="Fields to check">${pending.map(item)}</ol>`
    : html`<p class="notice" role="status">Every uncertain field of this extraction has been reviewed${r.parsing_status === 'needs_review' ? '' : ' and the record is up to date'}.</p>
${next ? html`<p><a class="button" href="${base(s.mode)}/review/${next.id}" autofocus>Next in the queue: ${next.filename}</a></p>` : html`<p><a href="${base(s.mode)}/review">Back to the review queue</a></p>`}`
}
${
  done.length
    ? html`<h2>Decisions</h2><div class="dash-table-wrap"><table class="dash-table"><caption class="visually-hidden">Review decisions</caption>
<thead><tr><th scope="col">Field</th><th scope="col">Decision</th><th scope="col">Before</th><th scope="col">After</th><th scope="col" class="dash-wide">By</th><th scope="col">When</th></tr></thead>
<tbody>${done.map(
        (d) =>
          html`<tr><th scope="row"><a href="${b}?field=${encodeURIComponent(d.pointer)}">${fieldLabel(d.pointer)}</a></th><td>${actionNames[d.action]}${d.after_delivery ? ' (after delivery)' : ''}</td><td>${showValue(d.old_value)}</td><td>${showValue(d.new_value)}</td><td class="dash-wide">${d.reviewer_name}</td><td>${when(d.reviewed_at)}</td></tr>`,
      )}</tbody></table></div>`
    : ''
}`;
}
