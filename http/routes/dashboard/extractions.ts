// Dashboard: policy extractions of the chosen mode (admins: the agency's; agents: their own), filterable by
// status and creation date and paged newest first; one extraction's record (the same presenter as
// GET /api/v1/{agent}/policy/extractions/{id}) with every extracted field, its page and citation, beside the
// cited page rendered to PNG server-side (pipelines/documents renderPagePreview) through this session's route.
import type { Context } from 'koa';
import { z } from 'zod';
import { getAgencyExtraction, listAgencyExtractions } from '../../../db/queries/extractions.ts';
import { renderPagePreview } from '../../../pipelines/documents/index.ts';
import { base, pageOf, pager, renderPage, when, withSession, type DashboardSession } from '../../dashboard.ts';
import { ApiError, notFound } from '../../errors.ts';
import { html, type SafeHtml } from '../../pages/html.ts';
import { presentExtraction } from '../../presenters/extractions.ts';
import { route, tx, type Deps } from '../../route.ts';
import { modeParams } from '../../schemas/dashboard.ts';
import { queryInt } from '../../schemas/common.ts';

const responses = { 200: { description: 'HTML page' }, 401: { description: 'Not signed in' }, 404: { description: 'Not found' } };
const PAGE = 50;
const STATUSES = ['queued', 'processing', 'completed', 'partial', 'failed'] as const;
const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'an extraction id (UUID)');
const day = z
  .string()
  .refine((d) => d === '' || (/^\d{4}-\d{2}-\d{2}$/.test(d) && !Number.isNaN(Date.parse(`${d}T00:00:00Z`))), 'a date as YYYY-MM-DD')
  .optional();

/** The keyset position of the next page: created_at to the microsecond (as Postgres prints it) and the id. */
const cursorOf = (r: { created_key: string; id: string }) => Buffer.from(JSON.stringify([r.created_key, r.id])).toString('base64url');
function positionOf(cursor: string | undefined): { t: string; id: string } | null {
  if (!cursor) return null;
  try {
    const [t, id] = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown[];
    if (typeof t === 'string' && /^\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}:\d{2}(\.\d{1,6})?([+-]\d{2}(:\d{2})?|Z)$/.test(t) && uuid.safeParse(id).success)
      return { t, id: id as string };
  } catch {}
  throw new ApiError(400, 'this “older extractions” link is damaged; start again from the first page', [{ field: 'before', message: 'not a page position' }]);
}

const label = (pointer: string) =>
  pointer
    .slice(1)
    .split('/')
    .map((p) => (/^\d+$/.test(p) ? `#${Number(p) + 1}` : p.replace(/_/g, ' ')))
    .join(' › ');

interface Citation {
  page: number;
  text: string;
  confidence: number;
  source: string;
  flagged?: boolean;
}

/** Every value of extracted_data (citations aside) as a JSON pointer, in document order. */
function leaves(v: unknown, pointer = ''): { pointer: string; value: unknown }[] {
  if (Array.isArray(v)) return v.length ? v.flatMap((x, i) => leaves(x, `${pointer}/${i}`)) : [];
  if (v && typeof v === 'object')
    return Object.entries(v as Record<string, unknown>)
      .filter(([k]) => !(pointer === '' && (k === 'citations' || k === 'policy_type' || k === 'document_kind')))
      .flatMap(([k, x]) => leaves(x, `${pointer}/${k}`));
  return [{ pointer, value: v }];
}

// Numbers as they are: a year or a policy number must not gain a thousands separator.
const show = (v: unknown) => (v === null || v === undefined || v === '' ? '—' : String(v));

function fieldsTable(s: DashboardSession, id: string, data: Record<string, unknown>, shownPage: number | null): SafeHtml {
  const citations = (data.citations ?? {}) as Record<string, Citation>;
  const rows = leaves(data);
  const b = `${base(s.mode)}/extractions/${id}`;
  return html`<div class="dash-table-wrap"><table class="dash-table dash-fields dash-stack"><caption class="visually-hidden">Extracted fields</caption>
<thead><tr><th scope="col">Field</th><th scope="col">Value</th><th scope="col">Page</th><th scope="col">Citation</th></tr></thead>
<tbody>${rows.map(({ pointer, value }) => {
    const c = citations[pointer];
    return html`<tr${c && c.page === shownPage ? html` class="is-on-page"` : ''}><th scope="row">${label(pointer)}</th><td>${show(value)}</td>
<td data-label="Page">${c ? html`<a href="${b}?page=${c.page}#page-image" aria-label="Show page ${c.page} (${label(pointer)})">${c.page}</a>` : '—'}</td>
<td>${c ? html`<q class="dash-cite">${c.text}</q><br><small>${c.source}, confidence ${Math.round(c.confidence * 100)}%${c.flagged ? html` · <strong>not confirmed on the page</strong>` : ''}</small>` : html`<small>no citation</small>`}</td></tr>`;
  })}</tbody></table></div>`;
}

async function detail(ctx: Context, s: DashboardSession, id: string, page: number | undefined): Promise<void> {
  const row = await getAgencyExtraction(tx(ctx), id);
  if (!row || (!s.isAdmin && row.agent_id !== s.agent_id)) throw notFound('extraction');
  const r = presentExtraction(row);
  const data = r.extracted_data as Record<string, unknown> | null;
  const cited = [...new Set(Object.values((data?.citations ?? {}) as Record<string, Citation>).map((c) => c.page))].sort((a, b) => a - b);
  const pages = row.page_count ?? (row.content_type === 'application/pdf' ? Math.max(0, ...cited) : 1);
  const shown = page && page <= pages ? page : (cited[0] ?? 1);
  const b = `${base(s.mode)}/extractions/${id}`;
  const canShow = !!row.blob_key && pages > 0;
  await renderPage(
    ctx,
    s,
    `Extraction: ${r.filename}`,
    html`<p><span class="dash-status dash-status--${r.parsing_status}">${r.parsing_status}</span> ${r.entity_type.replace(/_/g, ' ')}${data ? html` · ${String(data.policy_type ?? '')}` : ''} · ${r.parsing_method ?? 'not read yet'} · agent ${row.agent_name} · created ${when(r.created_at)}</p>
<p class="dash-id">Extraction <code>${r.extraction_id}</code>${'client_uuid' in r && r.client_uuid ? html` · client <code>${r.client_uuid}</code>` : ''}</p>
${'error' in r && r.error ? html`<p class="notice" role="alert"><strong>${r.error}</strong>: ${r.details}</p>` : ''}
${r.file_expired ? html`<p class="notice">The document was removed after the retention period; its page images are no longer available.</p>` : ''}
<div class="dash-split">
<section class="dash-split__main" aria-labelledby="fields-title"><h2 id="fields-title">Extracted fields</h2>
${canShow ? html`<p class="dash-jump"><a href="#page-image">Go to the page image</a></p>` : ''}
${data ? fieldsTable(s, id, data, pages > 1 ? shown : null) : html`<p class="lede">${r.parsing_status === 'failed' ? 'Nothing was extracted.' : 'The extraction is not finished yet: reload in a moment.'}</p>`}
</section>
${
  canShow
    ? html`<section class="dash-split__side" aria-labelledby="page-title" id="page-image"><h2 id="page-title">Page ${shown} of ${pages}</h2>
${pages > 1 ? html`<nav class="dash-pages" aria-label="Pages of the document"><ul>${Array.from({ length: pages }, (_, i) => i + 1).map((n) => html`<li><a href="${b}?page=${n}#page-image"${n === shown ? html` aria-current="page"` : ''}>${n}${cited.includes(n) ? html`<span class="visually-hidden"> (cited)</span><span aria-hidden="true">•</span>` : ''}</a></li>`)}</ul></nav>` : ''}
<img class="dash-page-image" src="${b}/pages/${shown}" alt="Page ${shown} of ${r.filename}, as uploaded" width="1000"></section>`
    : ''
}
</div>
<p><a href="${base(s.mode)}/extractions">All extractions</a></p>`,
  );
}

// Rendered pages of the last documents looked at, per process: rendering a PDF page takes pdf.js a few hundred
// ms, and people flip between a document's pages. Keyed by blob key, which is unique per document and null once
// the file expired (the route checks that before it looks here), so an expired document's page is never served.
const renderedPages = new Map<string, Promise<Buffer>>();
const RENDERED_PAGES_KEPT = 24;

function pagePng(deps: Deps, blobKey: string, contentType: string, page: number): Promise<Buffer> {
  const key = `${blobKey}#${page}`;
  let png = renderedPages.get(key);
  if (png) {
    renderedPages.delete(key); // most recently used last
  } else {
    png = (async () => {
      const bytes = await deps.blobs.get(blobKey);
      if (!bytes) throw notFound('document file');
      return (await renderPagePreview(bytes, contentType, page, { width: 1000 })).png;
    })();
    // A failure is not kept.
    png.catch(() => renderedPages.delete(key));
  }
  renderedPages.set(key, png);
  while (renderedPages.size > RENDERED_PAGES_KEPT) renderedPages.delete(renderedPages.keys().next().value!);
  return png;
}

export const dashboardExtractionRoutes = [
  route({
    method: 'get',
    path: '/dashboard/:mode/extractions',
    operationId: 'dashboardExtractions',
    summary: 'Extractions page: filter by status and date, newest first, paged',
    tags: ['Dashboard'],
    auth: 'none',
    params: modeParams,
    query: z.object({
      status: z.enum(STATUSES).or(z.literal('')).optional(),
      from: day,
      to: day,
      before: z.string().max(300).optional(),
    }),
    responses,
    handler: (ctx, { params, query }, deps) =>
      withSession(ctx, deps, params.mode, false, async (s) => {
        const from = query.from ? new Date(`${query.from}T00:00:00Z`) : null;
        // "to" is a day, included: everything before the next midnight (UTC).
        const to = query.to ? new Date(Date.parse(`${query.to}T00:00:00Z`) + 86_400_000) : null;
        if (from && to && from >= to) throw new ApiError(400, 'the “from” day must not be after the “to” day', [{ field: 'from', message: 'after to' }]);
        const rows = await listAgencyExtractions(tx(ctx), {
          agentId: s.isAdmin ? null : s.agent_id,
          status: query.status || null,
          from,
          to,
          after: positionOf(query.before),
          limit: PAGE + 1,
        });
        const { rows: shown, next } = pageOf(rows, PAGE, cursorOf);
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
      }),
  }),
  route({
    method: 'get',
    path: '/dashboard/:mode/extractions/:id',
    operationId: 'dashboardExtraction',
    summary: 'One extraction: the fields with their pages and citations beside the page image',
    tags: ['Dashboard'],
    auth: 'none',
    params: z.object({ mode: z.enum(['test', 'live']), id: uuid }),
    query: z.object({ page: queryInt(1, 10_000).optional() }),
    responses,
    handler: (ctx, { params, query }, deps) => withSession(ctx, deps, params.mode, false, (s) => detail(ctx, s, params.id, query.page)),
  }),
  route({
    method: 'get',
    path: '/dashboard/:mode/extractions/:id/pages/:page',
    operationId: 'dashboardExtractionPage',
    summary: 'A page of the extraction’s document as PNG (for the signed-in agent only)',
    tags: ['Dashboard'],
    auth: 'none',
    params: z.object({ mode: z.enum(['test', 'live']), id: uuid, page: queryInt(1, 10_000) }),
    responses: { 200: { description: 'image/png' }, 401: { description: 'Not signed in' }, 404: { description: 'Not found' } },
    handler: (ctx, { params }, deps) =>
      withSession(ctx, deps, params.mode, false, async (s) => {
        const row = await getAgencyExtraction(tx(ctx), params.id);
        if (!row || (!s.isAdmin && row.agent_id !== s.agent_id)) throw notFound('extraction');
        if (!row.blob_key) throw notFound('document file (removed after the retention period)');
        if (params.page > (row.page_count ?? 1)) throw notFound(`page ${params.page}`);
        const png = await pagePng(deps, row.blob_key, row.content_type, params.page);
        ctx.type = 'image/png';
        ctx.set('Cache-Control', 'private, max-age=300');
        ctx.set('X-Content-Type-Options', 'nosniff');
        ctx.set('Content-Disposition', 'inline');
        ctx.body = png;
      }),
  }),
];
