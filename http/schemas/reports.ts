// Request and response schemas of the compliance report: the report of an analysis and its signed links.
import { z } from 'zod';
import { paperSizes } from '../../pipelines/reports/pdf.ts';

export const reportQuery = z.object({
  format: z.enum(['html', 'pdf']).optional().describe('html (default): the report page; pdf: the same page printed'),
  paper: z.enum(paperSizes).optional().describe('paper of the PDF: a4 (default) or letter'),
});

export const reportLinkParams = z.object({
  analysis_id: z.uuid().describe('id of the analysis'),
  link_id: z.uuid().describe('id of the report link'),
});

export const reportTokenParams = z.object({
  token: z.string().max(200).describe('the signed token of a report link (from POST /api/analyses/{id}/report-links)'),
});

/** A report link: the URL to forward (no credentials needed) until it expires or is revoked. */
export const reportLink = z.object({
  id: z.uuid(),
  analysis_id: z.uuid(),
  url: z.string().describe('the report page, for anyone holding the link'),
  pdf_url: z.string().describe('the same report as PDF'),
  expires_at: z.string().describe('ISO 8601: the link is refused after this instant'),
  revoked_at: z.string().nullable().describe('ISO 8601: when the link was revoked, or null'),
  created_at: z.string(),
});
