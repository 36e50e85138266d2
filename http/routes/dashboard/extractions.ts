// Dashboard: policy extractions of the chosen mode (admins: the agency's; agents: their own), filterable by
// status and creation date and paged newest first; one extraction's record (the same presenter as
// GET /api/v1/{agent}/policy/extractions/{id}) with every extracted field, its page and citation, beside the
// cited page rendered to PNG server-side (pipelines/documents renderPagePreview) through this session's route.
import type { Context } from 'koa';
import { z } from 'zod';
import { getAgencyExtraction, listAgencyExtractions } from '../../../db/queries/extractions.ts';
import { beforePosition, renderPage, type DashboardSession } from '../../dashboard.ts';
import { agentPageResponses, dashboardPage } from '../../dashboard_routes.ts';
import { badRequest, notFound } from '../../errors.ts';
import { extractionBody, extractionsBody, EXTRACTION_STATUSES } from '../../pages/dashboard_extractions.ts';
import type { Citation } from '../../pages/extraction_fields.ts';
import { pagePreview, pageSize } from '../../page_images.ts';
import { keysetPage, timeCursorOf } from '../../pagination.ts';
import { presentExtraction } from '../../presenters/extractions.ts';
import { tx, type Deps } from '../../route.ts';
import { modeParams } from '../../schemas/dashboard.ts';
import { queryInt } from '../../schemas/common.ts';

const PAGE = 50;
const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'an extraction id (UUID)');
const day = z
  .string()
  .refine((d) => d === '' || (/^\d{4}-\d{2}-\d{2}$/.test(d) && !Number.isNaN(Date.parse(`${d}T00:00:00Z`))), 'a date as YYYY-MM-DD')
  .optional();

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
  const canShow = !!row.blob_key && pages > 0;
  const size = canShow ? await pageSize(deps, row.blob_key!, row.content_type, shown) : null;
  const boxes = Object.entries(citations)
    .filter(([, c]) => c.page === shown && c.box)
    .map(([pointer, c]) => ({ pointer, box: c.box!, uncertain: uncertain.has(pointer) }));
  const toReview = uncertain.size;
  await renderPage(ctx, s, `Extraction: ${r.filename}`, extractionBody(s, { id, row, r, data, toReview, cited, pages, selected, shown, canShow, size, boxes }));
}

export const dashboardExtractionRoutes = [
  dashboardPage({
    path: '/dashboard/:mode/extractions',
    operationId: 'dashboardExtractions',
    summary: 'Extractions page: filter by status and date, newest first, paged',
    auth: 'dashboard',
    responses: agentPageResponses,
    params: modeParams,
    query: z.object({
      status: z.enum(EXTRACTION_STATUSES).or(z.literal('')).optional(),
      from: day,
      to: day,
      before: z.string().max(300).optional(),
    }),
    handler: async (ctx, { s, query }) => {
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
      await renderPage(ctx, s, 'Extractions', extractionsBody(s, shown, query, next));
    },
  }),
  dashboardPage({
    path: '/dashboard/:mode/extractions/:id',
    operationId: 'dashboardExtraction',
    summary: 'One extraction: the fields with their pages and citations beside the page image',
    auth: 'dashboard',
    responses: agentPageResponses,
    params: z.object({ mode: z.enum(['test', 'live']), id: uuid }),
    query: z.object({
      page: queryInt(1, 10_000).optional(),
      field: z
        .string()
        .regex(/^(\/[a-z_0-9]+)+$/, 'a field pointer such as /policy/policy_number')
        .max(200)
        .optional(),
    }),
    handler: (ctx, { s, params, query }, deps) => detail(ctx, deps, s, params.id, query.page, query.field),
  }),
  dashboardPage({
    path: '/dashboard/:mode/extractions/:id/pages/:page',
    operationId: 'dashboardExtractionPage',
    summary: 'A page of the extraction’s document as PNG (for the signed-in agent only)',
    auth: 'dashboard',
    params: z.object({ mode: z.enum(['test', 'live']), id: uuid, page: queryInt(1, 10_000) }),
    responses: { 200: { description: 'image/png' }, 401: { description: 'Not signed in' }, 404: { description: 'Not found' } },
    handler: async (ctx, { s, params }, deps) => {
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
