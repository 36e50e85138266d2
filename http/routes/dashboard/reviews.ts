// Dashboard: review of uncertain fields (issue 34). The queue lists extractions with fields to check, oldest
// first, filterable by agent and kind, with the agency's hold-for-review setting of this mode (admins change
// it). The review page shows each uncertain field beside a crop of the page where it was read, its value,
// confidence and rule; the reviewer saves the value as shown (a confirmation), a typed correction (checked by
// the field's schema) or "not on the document". Each decision is app_public.review_field (0026): audited,
// under RLS, in the session's mode; the last one of a held extraction delivers it.
import type { Context } from 'koa';
import { z } from 'zod';
import { getAgencyExtraction } from '../../../db/queries/extractions.ts';
import { fieldReviews, reviewField, reviewQueue, reviewSettings, setHoldForReview, setShareReviewedDocuments } from '../../../db/queries/reviews.ts';
import { documentKinds } from '../../../pipelines/extraction/schema.ts';
import { base, csrfField, renderPage, when, session, type DashboardSession } from '../../dashboard.ts';
import { badRequest, conflict, notFound } from '../../errors.ts';
import { confidenceBadge, fieldLabel, pageCrop, showValue, valueAt, type Citation } from '../../pages/extraction_fields.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { pageSize } from '../../page_images.ts';
import { presentExtraction } from '../../presenters/extractions.ts';
import { route, tx, type Deps } from '../../route.ts';
import { dashboardForm, modeParams } from '../../schemas/dashboard.ts';
import { fieldHints, fieldKind, reviewedValue, reviewForm, reviewQueueQuery } from '../../schemas/reviews.ts';

const responses = { 200: { description: 'HTML page' }, 401: { description: 'Not signed in' }, 404: { description: 'Not found' } };
const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'an extraction id (UUID)');
const QUEUE_SIZE = 100;
const actionNames = { confirmed: 'confirmed', corrected: 'corrected', not_on_document: 'not on the document' } as const;

async function queuePage(ctx: Context, s: DashboardSession, q: { agent?: string; kind?: string }, notice?: SafeHtml): Promise<void> {
  const agentId = !s.isAdmin ? s.agent_id : q.agent ? Number(q.agent) : null;
  const kind = q.kind || null;
  const rows = await reviewQueue(tx(ctx), { agentId, kind, limit: QUEUE_SIZE });
  const { hold_for_review: hold, share_reviewed_documents: share } = await reviewSettings(tx(ctx));
  const b = `${base(s.mode)}/review`;
  const agents = [...new Map(rows.map((r) => [r.agent_id, r.agent_name])).entries()];
  await renderPage(
    ctx,
    s,
    'Review',
    html`${notice ?? ''}
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
}`,
  );
}

/** The review page of one extraction: the fields to check first, then the decisions already made. */
async function reviewPage(
  ctx: Context,
  deps: Deps,
  s: DashboardSession,
  id: string,
  o: { field?: string; problem?: { pointer: string; message: string; value: string } } = {},
): Promise<void> {
  const problem = o.problem;
  const row = await getAgencyExtraction(tx(ctx), id);
  if (!row || (!s.isAdmin && row.agent_id !== s.agent_id)) throw notFound('extraction');
  const r = presentExtraction(row);
  const data = r.extracted_data as Record<string, unknown> | null;
  if (!data) throw conflict('this extraction has no extracted data to review');
  const citations = (data.citations ?? {}) as Record<string, Citation>;
  const uncertain = (data.needs_review ?? []) as string[];
  // After delivery any cited value may be corrected: ?field= adds it to the list.
  const extra = [o.field, problem?.pointer].find((f) => f && !uncertain.includes(f) && citations[f] && r.parsing_status !== 'needs_review');
  const pending = extra ? [extra, ...uncertain] : uncertain;
  const done = await fieldReviews(tx(ctx), id);
  const b = `${base(s.mode)}/review/${id}`;
  const sizes = new Map<number, { w: number; h: number } | null>();
  if (row.blob_key)
    for (const p of new Set(pending.map((x) => citations[x]?.page).filter((p): p is number => !!p)))
      sizes.set(p, await pageSize(deps, row.blob_key, row.content_type, p));
  const next = pending.length ? null : (await reviewQueue(tx(ctx), { agentId: s.isAdmin ? null : s.agent_id, kind: null, limit: 1 }))[0];

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

  await renderPage(
    ctx,
    s,
    `Review: ${r.filename}`,
    html`<p><span class="dash-status dash-status--${r.parsing_status}">${r.parsing_status.replace(/_/g, ' ')}</span> ${String(data.policy_type ?? '')} · agent ${row.agent_name} · created ${when(r.created_at)} · <a href="${base(s.mode)}/extractions/${id}">the whole extraction</a></p>
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
}`,
  );
}

export const dashboardReviewRoutes = [
  route({
    method: 'get',
    path: '/dashboard/:mode/review',
    operationId: 'dashboardReviewQueue',
    summary: 'Review queue: extractions with uncertain fields, oldest first, by agent and kind',
    tags: ['Dashboard'],
    auth: 'dashboard',
    params: modeParams,
    query: reviewQueueQuery,
    responses,
    handler: (ctx, { query }) => queuePage(ctx, session(ctx), query),
  }),
  route({
    method: 'post',
    path: '/dashboard/:mode/review/settings',
    operationId: 'dashboardReviewSettings',
    summary: 'Hold extractions with uncertain fields for review, or share reviewed documents with the analysts (or stop), in this mode',
    tags: ['Dashboard'],
    auth: 'dashboard_admin',
    params: modeParams,
    urlencoded: true,
    body: dashboardForm,
    responses,
    handler: async (ctx, { body }) => {
      const s = session(ctx);
      const onOff = (v: unknown) => (v === 'on' ? true : v === 'off' ? false : undefined);
      const hold = onOff(body.hold);
      const share = onOff(body.share);
      if (hold === undefined && share === undefined) throw badRequest('hold or share is on or off', [{ field: 'hold', message: 'on or off' }]);
      if (hold !== undefined) await setHoldForReview(tx(ctx), hold);
      if (share !== undefined) await setShareReviewedDocuments(tx(ctx), share);
      ctx.redirect(`${base(s.mode)}/review`);
    },
  }),
  route({
    method: 'get',
    path: '/dashboard/:mode/review/:id',
    operationId: 'dashboardReview',
    summary: 'Review one extraction’s uncertain fields beside crops of the page',
    tags: ['Dashboard'],
    auth: 'dashboard',
    params: z.object({ mode: z.enum(['test', 'live']), id: uuid }),
    query: z.object({ field: reviewForm.shape.pointer.optional() }),
    responses,
    handler: (ctx, { params, query }, deps) => reviewPage(ctx, deps, session(ctx), params.id, { field: query.field }),
  }),
  route({
    method: 'post',
    path: '/dashboard/:mode/review/:id',
    operationId: 'dashboardReviewField',
    summary: 'Confirm, correct or mark "not on the document" one field',
    tags: ['Dashboard'],
    auth: 'dashboard',
    params: z.object({ mode: z.enum(['test', 'live']), id: uuid }),
    urlencoded: true,
    body: dashboardForm,
    responses,
    handler: async (ctx, { params, body }, deps) => {
      const s = session(ctx);
      const form = reviewForm.safeParse(body);
      if (!form.success)
        throw badRequest(
          'the review form is incomplete',
          form.error.issues.map((i) => ({ field: i.path.join('.'), message: i.message })),
        );
      const { pointer, action } = form.data;
      const row = await getAgencyExtraction(tx(ctx), params.id);
      if (!row || (!s.isAdmin && row.agent_id !== s.agent_id)) throw notFound('extraction');
      let decision: { action: 'confirmed' | 'corrected' | 'not_on_document'; value: unknown };
      if (action === 'not_on_document') decision = { action, value: null };
      else {
        const typed = reviewedValue(pointer, form.data.value ?? '');
        if (!typed.ok) {
          ctx.status = 422;
          await reviewPage(ctx, deps, s, params.id, { problem: { pointer, message: typed.message, value: form.data.value ?? '' } });
          ctx.status = 422;
          return;
        }
        const current = row.result ? valueAt(row.result, pointer) : undefined;
        decision = typed.value === current ? { action: 'confirmed', value: current } : { action: 'corrected', value: typed.value };
      }
      await reviewField(tx(ctx), { extractionId: params.id, pointer, ...decision });
      ctx.redirect(`${base(s.mode)}/review/${params.id}`);
    },
  }),
];
