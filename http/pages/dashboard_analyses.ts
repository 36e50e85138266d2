// The dashboard's lease checks: the agency's analyses of a mode, newest first, each finished one linked to its
// compliance report and showing its verdict.
import type { AnalysisListRow } from '../../db/queries/analysis_reports.ts';
import { overallWords } from '../../pipelines/reports/model.ts';
import { base, pager, when, type DashboardSession } from '../dashboard.ts';
import { html, type SafeHtml } from './html.ts';

// A finished analysis shows its verdict in the colour of the extraction statuses that mean the same.
const verdictStyle: Record<string, string> = { compliant: 'completed', needs_review: 'partial', non_compliant: 'failed' };
function resultBadge(status: string, verdict: string | null) {
  if (status !== 'completed' || !verdict) return html`<span class="dash-status dash-status--${status}">${status}</span>`;
  return html`<span class="dash-status dash-status--${verdictStyle[verdict] ?? 'partial'}">${overallWords[verdict as keyof typeof overallWords] ?? verdict}</span>`;
}

/** The list of lease checks, with its paging links (`before`: this page's position; `next`: the next page's). */
export function analysesBody(s: DashboardSession, shown: AnalysisListRow[], query: { before?: string }, next: string | null): SafeHtml {
  const b = `${base(s.mode)}/analyses`;
  return html`${
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
${pager(b, {}, { paged: !!query.before, next, what: 'analyses' })}`;
}
