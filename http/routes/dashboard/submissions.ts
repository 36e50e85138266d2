// Dashboard: hosted-form submissions of the chosen mode (admins: the agency's; agents: their own), filterable
// by form and status, and one submission's answers with files and the ACORD archive through signed links
// (the same presenter as GET /v2/submissions/{id}).
import { z } from 'zod';
import { getSubmission, listSubmissions } from '../../../db/queries/submissions.ts';
import { renderPage } from '../../dashboard.ts';
import { agentPageResponses, dashboardPage } from '../../dashboard_routes.ts';
import { notFound } from '../../errors.ts';
import { submissionBody, submissionsBody } from '../../pages/dashboard_submissions.ts';
import { keysetPage } from '../../pagination.ts';
import { presentSubmission } from '../../presenters/submissions.ts';
import { tx } from '../../route.ts';
import { beforeId, modeIdParams, modeParams } from '../../schemas/dashboard.ts';
import { id } from '../../schemas/common.ts';

const PAGE = 50;

export const dashboardSubmissionRoutes = [
  dashboardPage({
    path: '/dashboard/:mode/submissions',
    operationId: 'dashboardSubmissions',
    summary: 'Submissions page',
    auth: 'dashboard',
    responses: agentPageResponses,
    params: modeParams,
    query: z.object({
      form_id: id.or(z.literal('')).optional(),
      status: z.enum(['processing', 'complete']).or(z.literal('')).optional(),
      before: beforeId,
    }),
    handler: async (ctx, { s, query }) => {
      const rows = await listSubmissions(tx(ctx), {
        before: query.before ?? null,
        formId: query.form_id || null,
        agentId: s.isAdmin ? null : s.agent_id,
        status: query.status || null,
        limit: PAGE + 1,
      });
      const { page, nextCursor: next } = keysetPage(rows, PAGE, (r) => String(r.id));
      await renderPage(ctx, s, 'Submissions', submissionsBody(s, page, query, next));
    },
  }),
  dashboardPage({
    path: '/dashboard/:mode/submissions/:id',
    operationId: 'dashboardSubmission',
    summary: 'One submission: answers, files and the ACORD archive',
    auth: 'dashboard',
    responses: agentPageResponses,
    params: modeIdParams,
    handler: async (ctx, { s, params }, deps) => {
      const row = await getSubmission(tx(ctx), params.id);
      if (!row || (!s.isAdmin && row.agent_id !== s.agent_id)) throw notFound('submission');
      const d = presentSubmission(row, deps);
      await renderPage(ctx, s, `Submission #${d.submission_id}`, submissionBody(s, d, row.status));
    },
  }),
];
