// The compliance report of a lease analysis: GET …/report answers the report page (HTML, or ?format=pdf
// the same page printed) under the same key rules as the analysis; POST …/report-links makes a signed, expiring,
// revocable URL that opens the report without credentials, for the property manager to forward to the tenant.
import { randomBytes } from 'node:crypto';
import type { Context } from 'koa';
import { createReportLink, getReport, reportLinkTarget, reportOfLink, revokeReportLink } from '../../../db/queries/analysis_reports.ts';
import { consumeRateLimit } from '../../../db/queries/oauth.ts';
import { checkReportToken, reportLinkKey } from '../../../lib/links.ts';
import { ApiError, notFound, tooManyRequests } from '../../errors.ts';
import { pageAssets } from '../../pages/assets.ts';
import { contentSecurityPolicy, messagePage } from '../../pages/layout.ts';
import { presentReportLink, reportLinkPath, reportPath } from '../../presenters/reports.ts';
import { sendReport } from '../../reports.ts';
import { apiRoute, route, tx, type Deps } from '../../route.ts';
import { analysisParams } from '../../schemas/analyses.ts';
import { apiError, apiErrors } from '../../schemas/extractions.ts';
import { reportLink, reportLinkParams, reportQuery, reportTokenParams } from '../../schemas/reports.ts';

const reportResponses = {
  200: { description: 'text/html: the report page; application/pdf with ?format=pdf (X-Report-Renderer names the engine: chromium or pdf-lib)' },
  409: { description: 'conflict: the analysis is still running', schema: apiError },
};

/** A refused report link: a page for a person's browser, the §7.2 body for a program. */
async function refuseLink(ctx: Context, status: number, code: string, title: string, message: string): Promise<void> {
  if (ctx.accepts('json', 'html') !== 'html') throw new ApiError(status, `${title}: ${message}`, [], {}, code);
  const assets = await pageAssets();
  const nonce = randomBytes(16).toString('base64');
  ctx.status = status;
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', contentSecurityPolicy({ nonce, frameAncestors: [], imgOrigins: [] }));
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', 'no-store');
  ctx.body = messagePage({ title, message, brand: null, stylesheetUrl: assets.stylesheet.url, nonce }).value;
}

export const reportRoutes = [
  apiRoute({
    method: 'get',
    path: '/api/analyses/:analysis_id/report',
    operationId: 'getLeaseAnalysisReport',
    summary: 'The compliance report of a completed analysis: a printable page (or ?format=pdf) to send the tenant',
    tags: ['Lease compliance checker'],
    params: analysisParams,
    query: reportQuery,
    responses: { ...reportResponses, ...apiErrors(400, 401, 404, 422) },
    handler: async (ctx, { params, query }, deps: Deps) => {
      const row = await getReport(tx(ctx), params.analysis_id);
      if (!row) throw notFound(`analysis ${params.analysis_id}`);
      await sendReport(ctx, deps, row, { format: query.format ?? 'html', paper: query.paper ?? 'a4', pdfUrl: `${reportPath(row.id)}?format=pdf` });
    },
  }),
  apiRoute({
    method: 'post',
    path: '/api/analyses/:analysis_id/report-links',
    operationId: 'createLeaseAnalysisReportLink',
    summary: 'A signed link to the report that works without credentials until it expires (REPORT_LINK_TTL_SECONDS) or is revoked',
    tags: ['Lease compliance checker'],
    params: analysisParams,
    responses: {
      201: { description: 'The link', schema: reportLink },
      409: { description: 'conflict: the analysis is not completed', schema: apiError },
      ...apiErrors(400, 401, 403, 404),
    },
    handler: async (ctx, { params }, deps: Deps) => {
      const row = await createReportLink(tx(ctx), params.analysis_id, deps.cfg.REPORT_LINK_TTL_SECONDS);
      ctx.status = 201;
      ctx.body = presentReportLink(row, { publicUrl: deps.cfg.publicUrl, secretKey: deps.secretKey });
    },
  }),
  apiRoute({
    method: 'delete',
    path: '/api/analyses/:analysis_id/report-links/:link_id',
    operationId: 'revokeLeaseAnalysisReportLink',
    summary: 'Revoke a report link: it is refused from now on',
    tags: ['Lease compliance checker'],
    params: reportLinkParams,
    responses: { 200: { description: 'The revoked link', schema: reportLink }, ...apiErrors(400, 401, 403, 404) },
    handler: async (ctx, { params }, deps: Deps) => {
      const row = await revokeReportLink(tx(ctx), params.analysis_id, params.link_id);
      ctx.body = presentReportLink(row, { publicUrl: deps.cfg.publicUrl, secretKey: deps.secretKey });
    },
  }),
  route({
    method: 'get',
    path: '/api/reports/:token',
    operationId: 'openReportLink',
    summary: 'A report through its signed link: no credentials; refused once expired or revoked',
    tags: ['Lease compliance checker'],
    auth: 'none',
    params: reportTokenParams,
    query: reportQuery,
    responses: {
      200: reportResponses[200],
      403: { description: 'link_expired, link_revoked or forbidden (the signature does not match); an HTML page for a browser', schema: apiError },
      404: { description: 'The analysis no longer exists', schema: apiError },
      429: {
        description: 'rate_limited: the link was opened too often from this address (RATE_LIMIT_REPORT_OPENS_PER_WINDOW)',
        schema: apiError,
        headers: ['Retry-After'],
      },
    },
    handler: async (ctx, { params, query }, deps: Deps) => {
      const check = checkReportToken(reportLinkKey(deps.secretKey), params.token);
      const askAgain = 'Ask whoever sent it for a new link.';
      if (!check.ok)
        return check.reason === 'expired'
          ? refuseLink(ctx, 403, 'link_expired', 'This link has expired', askAgain)
          : refuseLink(ctx, 403, 'forbidden', 'This link is not valid', `It was changed or is incomplete. ${askAgain}`);
      // A link works without credentials and its PDF starts a browser: opens are counted per link and address.
      const budget = await consumeRateLimit(
        deps.db.owner,
        `report-link:${check.linkId}:${ctx.ip}`,
        deps.cfg.RATE_LIMIT_REPORT_OPENS_PER_WINDOW,
        deps.cfg.RATE_LIMIT_WINDOW_SECONDS,
      );
      if (!budget.allowed)
        throw tooManyRequests('this link was opened too often from here; try again shortly', {
          headers: { 'Retry-After': String(Math.max(1, budget.resetAt - Math.floor(Date.now() / 1000))) },
        });
      const target = await reportLinkTarget(deps.db.owner, check.linkId);
      if (!target) return refuseLink(ctx, 404, 'not_found', 'This report no longer exists', askAgain);
      if (target.state === 'revoked') return refuseLink(ctx, 403, 'link_revoked', 'This link was withdrawn', askAgain);
      if (target.state === 'expired') return refuseLink(ctx, 403, 'link_expired', 'This link has expired', askAgain);
      const row = await reportOfLink(deps.db.owner, target.analysis_id, target.agency_id, target.mode);
      if (!row) return refuseLink(ctx, 404, 'not_found', 'This report no longer exists', askAgain);
      await sendReport(ctx, deps, row, { format: query.format ?? 'html', paper: query.paper ?? 'a4', pdfUrl: `${reportLinkPath(params.token)}?format=pdf` });
    },
  }),
];
