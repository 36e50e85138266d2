// Analysis rows → the §2.8 result, or the status of one still running or failed.
import type { AnalysisRow } from '../../db/queries/analyses.ts';

export const statusUrl = (id: string) => `/api/analyses/${id}`;

/** A completed analysis: the §2.8 result with its id; otherwise its status (and error when failed). */
export function presentAnalysis(row: AnalysisRow): Record<string, unknown> {
  if (row.status === 'completed' && row.result) return { id: row.id, status: 'completed', ...row.result };
  const out: Record<string, unknown> = { id: row.id, status: row.status, as_of: row.as_of, status_url: statusUrl(row.id) };
  if (row.status === 'failed') {
    out.error = row.error_code;
    out.message = row.error_details;
  }
  return out;
}
