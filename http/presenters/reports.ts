// Report link rows → the documented body, with the signed URL made from the row's id and expiry.
import type { z } from 'zod';
import type { ReportLinkRow } from '../../db/queries/analysis_reports.ts';
import { reportLinkKey, signReportToken } from '../../lib/links.ts';
import type { reportLink } from '../schemas/reports.ts';

/** The path of the report of an analysis (API key) and of a signed link (no credentials). */
export const reportPath = (analysisId: string) => `/api/analyses/${analysisId}/report`;
export const reportLinkPath = (token: string) => `/api/reports/${token}`;

export function presentReportLink(row: ReportLinkRow, o: { publicUrl: string; secretKey: Buffer }): z.infer<typeof reportLink> {
  const token = signReportToken(reportLinkKey(o.secretKey), row.id, Math.floor(row.expires_at.getTime() / 1000));
  const url = `${o.publicUrl}${reportLinkPath(token)}`;
  return {
    id: row.id,
    analysis_id: row.analysis_id,
    url,
    pdf_url: `${url}?format=pdf`,
    expires_at: row.expires_at.toISOString(),
    revoked_at: row.revoked_at ? row.revoked_at.toISOString() : null,
    created_at: row.created_at.toISOString(),
  };
}
