// Dashboard: the agency's lease analyses of the chosen mode, newest first and paged, each linked to its
// compliance report (the same page as GET /api/analyses/{id}/report, opened with the session instead of a key).
// Admins only: an analysis belongs to the agency (made with an API key), not to an agent.
import { z } from 'zod';
import { getReport, listAgencyAnalyses } from '../../../db/queries/analysis_reports.ts';
import { overallWords } from '../../../pipelines/reports/model.ts';
import { base, beforePosition, pager, renderPage, when, session } from '../../dashboard.ts';
import { notFound } from '../../errors.ts';
import { html } from '../../pages/html.ts';
import { keysetPage, timeCursorOf } from '../../pagination.ts';
import { sendReport } from '../../reports.ts';
import { route, tx } from '../../route.ts';
import { modeParams } from '../../schemas/dashboard.ts';
import { reportQuery } from '../../schemas/reports.ts';

const responses = { 200: { description: 'HTML page' }, 401: { description: 'Not signed in' }, 404: { description: 'Not found' } };
const PAGE = 50;
const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'an analysis id (UUID)');

// A finished analysis shows its verdict in the colour of the extraction statuses that mean the same.
const verdictStyle: Record<string, string> = { compliant: 'completed', needs_review: 'partial', non_compliant: 'failed' };
function resultBadge(status: string, verdict: string | null) {
  if (status !== 'completed' || !verdict) return html`<span class="dash-status dash-status--${status}">${status}</span>`;
  return html`<span class="dash-status dash-status--${verdictStyle[verdict] ?? 'partial'}">${overallWords[verdict as keyof typeof overallWords] ?? verdict}</span>`;
}

export const dashboardAnalysisRoutes = [
  route({
    method: 'get',
    path: '/dashboard/:mode/analyses',
    operationId: 'dashboardAnalyses',
    summary: 'Lease analyses page: newest first, each with its compliance report',
    tags: ['Dashboard'],
    auth: 'dashboard_admin',
    params: modeParams,
    query: z.object({ before: z.string().max(300).optional() }),
    responses,
    handler: async (ctx, { query }) => {
      const s = session(ctx);
      const rows = await listAgencyAnalyses(tx(ctx), { after: beforePosition(query.before, 'analyses'), limit: PAGE + 1 });
      const { page: shown, nextCursor: next } = keysetPage(rows, PAGE, timeCursorOf);
      const b = `${base(s.mode)}/analyses`;
      await renderPage(
        ctx,
        s,
        'Lease checks',
        html`${
          shown.length
            ? html`<div class="dash-table-wrap"><table class="dash-table"><caption class="visually-hidden">Lease analyses</caption>
<thead><tr><th scope="col">Lease</th><th scope="col" class="dash-wide">Insurance document</th><th scope="col">Result</th><th scope="col" class="dash-wide">As of</th><th scope="col">Created</th></tr></thead>
<tbody>${shown.map(
                (r) =>
                  html`<tr><th scope="row">${
                    r.status === 'completed'
                      ? html`<a href="${b}/${r.id}/report">${r.lease_filename}<span class="visually-hidden"> (compliance report)</span></a>`
                      : r.lease_filename
                  }</th><td class="dash-wide">${r.insurance_filename}</td><td>${resultBadge(r.status, r.summary_status)}</td><td class="dash-wide">${r.as_of}</td><td>${when(r.created_at)}</td></tr>`,
              )}</tbody></table></div>`
            : html`<p class="lede">No ${s.mode} lease analyses yet. Leases are checked through the API (POST /api/analyze).</p>`
        }
${pager(b, {}, { paged: !!query.before, next, what: 'analyses' })}`,
      );
    },
  }),
  route({
    method: 'get',
    path: '/dashboard/:mode/analyses/:id/report',
    operationId: 'dashboardAnalysisReport',
    summary: 'The compliance report of an analysis (HTML, or ?format=pdf)',
    tags: ['Dashboard'],
    auth: 'dashboard_admin',
    params: z.object({ mode: z.enum(['test', 'live']), id: uuid }),
    query: reportQuery,
    responses,
    handler: async (ctx, { params, query }, deps) => {
      const s = session(ctx);
      const row = await getReport(tx(ctx), params.id);
      if (!row) throw notFound('analysis');
      await sendReport(ctx, deps, row, {
        format: query.format ?? 'html',
        paper: query.paper ?? 'a4',
        pdfUrl: `${base(s.mode)}/analyses/${row.id}/report?format=pdf`,
      });
    },
  }),
];
