// Dashboard: policy extractions of the chosen mode (admins: the agency's; agents: their own), filterable by
// status and creation date and paged newest first; one extraction's record (the same presenter as
// GET /api/v1/{agent}/policy/extractions/{id}) with every extracted field, its page and citation, beside the
// cited page rendered to PNG server-side (pipelines/documents renderPagePreview) through this session's route.
import type { Context } from 'koa';
import { z } from 'zod';
import { getAgencyExtraction, listAgencyExtractions } from '../../../db/queries/extractions.ts';
import { base, beforePosition, pager, renderPage, when, session, type DashboardSession } from '../../dashboard.ts';
import { badRequest, notFound } from '../../errors.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { confidenceBadge, fieldLabel, leaves, pageView, shortSpan, showValue, type Citation } from '../../pages/extraction_fields.ts';
import { pagePreview, pageSize } from '../../page_images.ts';
import { keysetPage, timeCursorOf } from '../../pagination.ts';
import { presentExtraction } from '../../presenters/extractions.ts';
import { route, tx, type Deps } from '../../route.ts';
import { modeParams } from '../../schemas/dashboard.ts';
import { queryInt } from '../../schemas/common.ts';

const responses = { 200: { description: 'HTML page' }, 401: { description: 'Not signed in' }, 404: { description: 'Not found' } };
const PAGE = 50;
const STATUSES = ['queued', 'processing', 'needs_review', 'completed', 'partial', 'failed'] as const;
const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'an extraction id (UUID)');
const day = z
  .string()
  .refine((d) => d === '' || (/^\d{4}-\d{2}-\d{2}$/.test(d) && !Number.isNaN(Date.parse(`${d}T00:00:00Z`))), 'a date as YYYY-MM-DD')
  .optional();

/** The table of extracted fields: value, confidence and the value's own words; the selected one highlighted. */
function fieldsTable(b: string, reviewUrl: string | null, data: Record<string, unknown>, selected: string | null): SafeHtml {
  const citations = (data.citations ?? {}) as Record<string, Citation>;
  const uncertain = new Set((data.needs_review ?? []) as string[]);
  return html`<table class="dash-table dash-fields dash-stack"><caption class="visually-hidden">Extracted fields</caption>
<thead><tr><th scope="col">Field</th><th scope="col">Value</th><th scope="col">Confidence</th><th scope="col">Read from</th></tr></thead>
<tbody>${leaves(data).map(({ pointer, value }) => {
    const c = citations[pointer];
    const on = pointer === selected;
    return html`<tr${on ? html` class="is-selected" aria-current="true" id="selected-field"` : ''}><th scope="row">${fieldLabel(pointer)}${uncertain.has(pointer) ? html` <span class="dash-check">check</span>` : ''}</th><td class="dash-value">${showValue(value)}</td>
<td data-label="Confidence">${confidenceBadge(c, uncertain.has(pointer))}</td>
<td>${c ? html`<a href="${b}?field=${encodeURIComponent(pointer)}#page-image" aria-label="p.${c.page}: Show page ${c.page} (${fieldLabel(pointer)})">p.${c.page}</a>${shortSpan(c) ? html` <q class="dash-cite">${shortSpan(c)}</q>` : ''}${c.flagged ? html` <strong>not confirmed on the page</strong>` : ''}${reviewUrl ? html` <a class="dash-correct" href="${reviewUrl}?field=${encodeURIComponent(pointer)}" aria-label="Correct ${fieldLabel(pointer)}">Correct</a>` : ''}` : html`<small>no citation</small>`}</td></tr>`;
  })}</tbody></table>`;
}

async function detail(ctx: Context, deps: Deps, s: DashboardSession, id: string, page: number | undefined, field: string | undefined): Promise<void> {
  const row = await getAgencyExtraction(tx(ctx), id);
  if (!row || (!s.isAdmin && row.agent_id !== s.agent_id)) throw notFound('extraction');
  const r = presentExtraction(row);
  const data = r.extracted_data as Record<string, unknown> | null;
  const citations = (data?.citations ?? {}) as Record<string, Citation>;
  const uncertain = new Set((data?.needs_review ?? []) as string[]);
  const cited = [...new Set(Object.values(citations).map((c) => c.page))].sort((a, b) => a - b);
  const pages = row.page_count ?? (row.content_type === 'application/pdf' ? Math.max(0, ...cited) : 1);
  const selected = field && citations[field] ? field : null;
  const wanted = page ?? (selected ? citations[selected].page : undefined);
  const shown = wanted && wanted <= pages ? wanted : (cited[0] ?? 1);
  const b = `${base(s.mode)}/extractions/${id}`;
  const canShow = !!row.blob_key && pages > 0;
  const size = canShow ? await pageSize(deps, row.blob_key!, row.content_type, shown) : null;
  const boxes = Object.entries(citations)
    .filter(([, c]) => c.page === shown && c.box)
    .map(([pointer, c]) => ({ pointer, box: c.box!, uncertain: uncertain.has(pointer) }));
  const toReview = uncertain.size;
  await renderPage(
    ctx,
    s,
    `Extraction: ${r.filename}`,
    html`<p><span class="dash-status dash-status--${r.parsing_status}">${r.parsing_status.replace(/_/g, ' ')}</span> ${r.entity_type.replace(/_/g, ' ')}${data ? html` · ${String(data.policy_type ?? '')}` : ''} · ${r.parsing_method ?? 'not read yet'} · agent ${row.agent_name} · created ${when(r.created_at)}</p>
<p class="dash-id">Extraction <code>${r.extraction_id}</code>${'client_uuid' in r && r.client_uuid ? html` · client <code>${r.client_uuid}</code>` : ''}</p>
${toReview && data ? html`<p class="notice">${toReview} ${toReview === 1 ? 'field needs' : 'fields need'} a person to check ${toReview === 1 ? 'it' : 'them'}${r.parsing_status === 'needs_review' ? ' before the extraction is delivered' : ''}. <a href="${base(s.mode)}/review/${id}">Review ${toReview === 1 ? 'it' : 'them'}</a></p>` : ''}
${'error' in r && r.error ? html`<p class="notice" role="alert"><strong>${r.error}</strong>: ${r.details}</p>` : ''}
${r.file_expired ? html`<p class="notice">The document was removed after the retention period; its page images are no longer available.</p>` : ''}
<div class="dash-split dash-split--fit">
<section class="dash-split__main" aria-labelledby="fields-title" tabindex="0"><h2 id="fields-title">Extracted fields</h2>
${canShow ? html`<p class="dash-jump"><a href="#page-image">Go to the page image</a></p>` : ''}
${data ? fieldsTable(b, r.parsing_status === 'completed' || r.parsing_status === 'partial' ? `${base(s.mode)}/review/${id}` : null, data, selected) : html`<p class="lede">${r.parsing_status === 'failed' ? 'Nothing was extracted.' : 'The extraction is not finished yet: reload in a moment.'}</p>`}
</section>
${
  canShow
    ? html`<section class="dash-split__side" aria-labelledby="page-title" id="page-image" tabindex="0"><h2 id="page-title">Page ${shown} of ${pages}${selected ? html` <small>· ${fieldLabel(selected)}</small>` : ''}</h2>
${pages > 1 ? html`<nav class="dash-pages" aria-label="Pages of the document"><ul>${Array.from({ length: pages }, (_, i) => i + 1).map((n) => html`<li><a href="${b}?page=${n}#page-image"${n === shown ? html` aria-current="page"` : ''}>${n}${cited.includes(n) ? html`<span class="visually-hidden"> (cited)</span><span aria-hidden="true">•</span>` : ''}</a></li>`)}</ul></nav>` : ''}
${pageView({ src: `${b}/pages/${shown}`, alt: `Page ${shown} of ${r.filename}, as uploaded`, size, boxes, selected, href: (p) => `${b}?field=${encodeURIComponent(p)}#page-image` })}</section>`
    : ''
}
</div>
<p><a href="${base(s.mode)}/extractions">All extractions</a></p>`,
  );
}

export const dashboardExtractionRoutes = [
  route({
    method: 'get',
    path: '/dashboard/:mode/extractions',
    operationId: 'dashboardExtractions',
    summary: 'Extractions page: filter by status and date, newest first, paged',
    tags: ['Dashboard'],
    auth: 'dashboard',
    params: modeParams,
    query: z.object({
      status: z.enum(STATUSES).or(z.literal('')).optional(),
      from: day,
      to: day,
      before: z.string().max(300).optional(),
    }),
    responses,
    handler: async (ctx, { query }) => {
      const s = session(ctx);
      const from = query.from ? new Date(`${query.from}T00:00:00Z`) : null;
      // "to" is a day, included: everything before the next midnight (UTC).
      const to = query.to ? new Date(Date.parse(`${query.to}T00:00:00Z`) + 86_400_000) : null;
      if (from && to && from >= to) throw badRequest('the “from” day must not be after the “to” day', [{ field: 'from', message: 'after to' }]);
      const rows = await listAgencyExtractions(tx(ctx), {
        agentId: s.isAdmin ? null : s.agent_id,
        status: query.status || null,
        from,
        to,
        after: beforePosition(query.before, 'extractions'),
        limit: PAGE + 1,
      });
      const { page: shown, nextCursor: next } = keysetPage(rows, PAGE, timeCursorOf);
      const b = `${base(s.mode)}/extractions`;
      const filtered = !!(query.status || query.from || query.to);
      await renderPage(
        ctx,
        s,
        'Extractions',
        html`<form method="get" class="dash-filter">
<div class="field"><label class="field__label" for="status">Status</label><select class="input" id="status" name="status"><option value="">All</option>${STATUSES.map((x) => html`<option value="${x}"${x === query.status ? ' selected' : ''}>${x}</option>`)}</select></div>
<div class="field"><label class="field__label" for="from">Created from</label><input class="input" type="date" id="from" name="from" value="${query.from ?? ''}"></div>
<div class="field"><label class="field__label" for="to">Created until</label><input class="input" type="date" id="to" name="to" value="${query.to ?? ''}"></div>
<button class="button button--secondary button--small" type="submit">Filter</button></form>
${
  shown.length
    ? html`<div class="dash-table-wrap"><table class="dash-table"><caption class="visually-hidden">Extractions</caption>
<thead><tr><th scope="col">Document</th><th scope="col" class="dash-wide">Kind</th><th scope="col">Status</th><th scope="col" class="dash-wide">Read by</th><th scope="col" class="dash-wide">Agent</th><th scope="col">Created</th></tr></thead>
<tbody>${shown.map((row) => {
        const r = presentExtraction(row);
        return html`<tr><th scope="row"><a href="${b}/${r.extraction_id}">${r.filename}</a></th><td class="dash-wide">${r.entity_type.replace(/_/g, ' ')}</td><td><span class="dash-status dash-status--${r.parsing_status}">${r.parsing_status}</span></td><td class="dash-wide">${r.parsing_method ?? '—'}</td><td class="dash-wide">${row.agent_name}</td><td>${when(r.created_at)}</td></tr>`;
      })}</tbody></table></div>`
    : html`<p class="lede">No ${s.mode} extractions${filtered ? ' match these filters' : ' yet'}.${filtered ? '' : ' Documents are uploaded through the API (POST /api/v1/{agent_id}/policy/extract).'}</p>`
}
${pager(b, { status: query.status, from: query.from, to: query.to }, { paged: !!query.before, next, what: 'extractions' })}`,
      );
    },
  }),
  route({
    method: 'get',
    path: '/dashboard/:mode/extractions/:id',
    operationId: 'dashboardExtraction',
    summary: 'One extraction: the fields with their pages and citations beside the page image',
    tags: ['Dashboard'],
    auth: 'dashboard',
    params: z.object({ mode: z.enum(['test', 'live']), id: uuid }),
    query: z.object({
      page: queryInt(1, 10_000).optional(),
      field: z
        .string()
        .regex(/^(\/[a-z_0-9]+)+$/, 'a field pointer such as /policy/policy_number')
        .max(200)
        .optional(),
    }),
    responses,
    handler: (ctx, { params, query }, deps) => detail(ctx, deps, session(ctx), params.id, query.page, query.field),
  }),
  route({
    method: 'get',
    path: '/dashboard/:mode/extractions/:id/pages/:page',
    operationId: 'dashboardExtractionPage',
    summary: 'A page of the extraction’s document as PNG (for the signed-in agent only)',
    tags: ['Dashboard'],
    auth: 'dashboard',
    params: z.object({ mode: z.enum(['test', 'live']), id: uuid, page: queryInt(1, 10_000) }),
    responses: { 200: { description: 'image/png' }, 401: { description: 'Not signed in' }, 404: { description: 'Not found' } },
    handler: async (ctx, { params }, deps) => {
      const s = session(ctx);
      const row = await getAgencyExtraction(tx(ctx), params.id);
      if (!row || (!s.isAdmin && row.agent_id !== s.agent_id)) throw notFound('extraction');
      if (!row.blob_key) throw notFound('document file (removed after the retention period)');
      if (params.page > (row.page_count ?? 1)) throw notFound(`page ${params.page}`);
      const { png } = await pagePreview(deps, row.blob_key, row.content_type, params.page);
      ctx.type = 'image/png';
      ctx.set('Cache-Control', 'private, max-age=300');
      ctx.set('X-Content-Type-Options', 'nosniff');
      ctx.set('Content-Disposition', 'inline');
      ctx.body = png;
    },
  }),
];
