// Dashboard: the agency's lease analyses of the chosen mode, newest first and paged, each linked to its
// compliance report (the same page as GET /api/analyses/{id}/report, opened with the session instead of a key).
// Admins only: an analysis belongs to the agency (made with an API key), not to an agent.
import { z } from 'zod';
import { getReport, listAgencyAnalyses } from '../../../db/queries/analysis_reports.ts';
import { base, beforePosition, renderPage } from '../../dashboard.ts';
import { dashboardPage } from '../../dashboard_routes.ts';
import { notFound } from '../../errors.ts';
import { analysesBody } from '../../pages/dashboard_analyses.ts';
import { keysetPage, timeCursorOf } from '../../pagination.ts';
import { sendReport } from '../../reports.ts';
import { tx } from '../../route.ts';
import { modeParams } from '../../schemas/dashboard.ts';
import { reportQuery } from '../../schemas/reports.ts';

const PAGE = 50;
const uuid = z.string().regex(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/, 'an analysis id (UUID)');

export const dashboardAnalysisRoutes = [
  dashboardPage({
    path: '/dashboard/:mode/analyses',
    operationId: 'dashboardAnalyses',
    summary: 'Lease analyses page: newest first, each with its compliance report',
    auth: 'dashboard_admin',
    params: modeParams,
    query: z.object({ before: z.string().max(300).optional() }),
    handler: async (ctx, { s, query }) => {
      const rows = await listAgencyAnalyses(tx(ctx), { after: beforePosition(query.before, 'analyses'), limit: PAGE + 1 });
      const { page: shown, nextCursor: next } = keysetPage(rows, PAGE, timeCursorOf);
      await renderPage(ctx, s, 'Lease checks', analysesBody(s, shown, query, next));
    },
  }),
  dashboardPage({
    path: '/dashboard/:mode/analyses/:id/report',
    operationId: 'dashboardAnalysisReport',
    summary: 'The compliance report of an analysis (HTML, or ?format=pdf)',
    auth: 'dashboard_admin',
    params: z.object({ mode: z.enum(['test', 'live']), id: uuid }),
    query: reportQuery,
    handler: async (ctx, { s, params, query }, deps) => {
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
