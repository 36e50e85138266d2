// What the report routes share (the API's report, its signed link, the dashboard's): the report model of an
// analysis with its cited pages drawn server-side, and the answer as HTML or as PDF.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import type { Context } from 'koa';
import { documentPageTexts, type ReportRow } from '../db/queries/analysis_reports.ts';
import { renderPagePreview } from '../pipelines/documents/index.ts';
import type { AnalysisResult } from '../pipelines/lease/schema.ts';
import type { PageText } from '../pipelines/documents/layout.ts';
import { cropToQuote } from '../pipelines/reports/crop.ts';
import { citedEvidence, reportModel, type EvidencePage, type ReportModel } from '../pipelines/reports/model.ts';
import { renderReportPdf, type Paper } from '../pipelines/reports/pdf.ts';
import type { Deps } from './context.ts';
import { conflict, unprocessable } from './errors.ts';
import { pageAssets } from './pages/assets.ts';
import { contentSecurityPolicy, type Brand } from './pages/layout.ts';
import { reportDocument } from './pages/report.ts';

/** Width of a drawn evidence page: sharp enough to read a clause on paper, light enough inline. */
const EVIDENCE_WIDTH = 900;

/** The report of a completed analysis; 409 while it runs, 422 when it failed. */
export async function buildReportModel(deps: Deps, row: ReportRow): Promise<ReportModel> {
  if (row.status === 'failed') throw unprocessable(`analysis ${row.id} failed: it has no report`, { code: 'analysis_failed' });
  if (row.status !== 'completed' || !row.result) throw conflict(`analysis ${row.id} is ${row.status}: its report exists once it is completed`);
  const result = row.result as unknown as AnalysisResult;
  const evidence = await drawEvidence(deps, row, citedEvidence(result.comparison));
  return reportModel({
    analysisId: row.id,
    agencyName: row.agency_name,
    asOf: row.as_of,
    completedAt: row.completed_at,
    result,
    leaseFilename: row.lease.filename,
    insuranceFilename: row.insurance.filename,
    evidence,
  });
}

/** Each piece of evidence drawn: its page rendered once, cropped to the quote where the page's text places it. */
async function drawEvidence(deps: Deps, row: ReportRow, cited: Omit<EvidencePage, 'png' | 'cropped'>[]): Promise<EvidencePage[]> {
  const rendered = new Map<string, Promise<Buffer | null>>();
  const texts = new Map<string, Promise<Map<number, unknown>>>();
  const pageOf = (side: 'lease' | 'insurance', page: number) => {
    const key = `${side}:${page}`;
    if (!rendered.has(key)) {
      const doc = row[side];
      rendered.set(
        key,
        (async () => {
          if (!doc.blob_key) return null;
          const bytes = await deps.blobs.get(doc.blob_key).catch(() => undefined);
          if (!bytes) return null;
          return renderPagePreview(bytes, doc.content_type, page, { width: EVIDENCE_WIDTH }).then(
            (r) => r.png,
            () => null,
          );
        })(),
      );
    }
    return rendered.get(key)!;
  };
  const textOf = (side: 'lease' | 'insurance') => {
    if (!texts.has(side)) {
      const pages = [...new Set(cited.filter((e) => e.side === side).map((e) => e.page))];
      // Page texts are private to the service: read with the owner pool for this analysis's own document.
      texts.set(side, documentPageTexts(deps.db.owner, row[side].id, pages));
    }
    return texts.get(side)!;
  };
  return Promise.all(
    cited.map(async (e) => {
      const png = await pageOf(e.side, e.page);
      const text = (await textOf(e.side)).get(e.page) as PageText | undefined;
      const crop = png && text && e.quote ? await cropToQuote(png, text, e.quote).catch(() => null) : null;
      return { ...e, png: crop ?? png, cropped: !!crop };
    }),
  );
}

/** The agency's brand with its logo inline (a report leaves the service: a PDF, a forwarded page). */
async function brandOf(deps: Deps, row: ReportRow): Promise<Brand> {
  let logoUrl: string | null = null;
  if (row.logo_key) {
    const bytes = await deps.blobs.get(row.logo_key).catch(() => undefined);
    const ext = row.logo_key.slice(row.logo_key.lastIndexOf('.') + 1).toLowerCase();
    const type = { webp: 'image/webp', png: 'image/png', jpg: 'image/jpeg', jpeg: 'image/jpeg', gif: 'image/gif' }[ext];
    if (bytes && type) logoUrl = `data:${type};base64,${Buffer.from(bytes).toString('base64')}`;
  }
  return { name: row.agency_name, color: row.color_code, logoUrl };
}

/** Which engine prints a report to PDF here: the configured Chromium when it is installed, else the pdf-lib layout. */
export const reportPdfEngine = (deps: Deps): 'chromium' | 'pdf-lib' => (existsSync(deps.cfg.REPORT_CHROMIUM_PATH) ? 'chromium' : 'pdf-lib');

/** Answer the report of `row` as HTML, or as a PDF of the same page. */
export async function sendReport(
  ctx: Context,
  deps: Deps,
  row: ReportRow,
  o: { format: 'html' | 'pdf'; paper: Paper; pdfUrl: string; frameAncestors?: string[] },
): Promise<void> {
  const [model, brand, assets] = await Promise.all([buildReportModel(deps, row), brandOf(deps, row), pageAssets()]);
  const nonce = randomBytes(16).toString('base64');
  ctx.set('X-Content-Type-Options', 'nosniff');
  ctx.set('Cache-Control', 'private, no-store');
  ctx.set('Referrer-Policy', 'no-referrer');
  if (o.format === 'pdf') {
    const css = `data:text/css;base64,${assets.stylesheet.body.toString('base64')}`;
    const page = reportDocument(model, { brand, stylesheetUrl: css, nonce });
    const engine = reportPdfEngine(deps);
    const pdf = await renderReportPdf(
      { html: page.value, model },
      engine === 'chromium' ? { kind: 'chromium', executablePath: deps.cfg.REPORT_CHROMIUM_PATH, paper: o.paper } : { kind: 'pdf-lib', paper: o.paper },
    );
    ctx.type = 'application/pdf';
    ctx.set('Content-Disposition', `inline; filename="compliance-report-${row.id}.pdf"`);
    ctx.set('X-Report-Renderer', engine);
    ctx.body = pdf;
    return;
  }
  const page = reportDocument(model, { brand, stylesheetUrl: assets.stylesheet.url, nonce, pdfUrl: o.pdfUrl });
  ctx.type = 'text/html; charset=utf-8';
  ctx.set('Content-Security-Policy', contentSecurityPolicy({ nonce, frameAncestors: o.frameAncestors ?? [], imgOrigins: [] }));
  ctx.body = page.value;
}
