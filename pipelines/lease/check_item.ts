// One check's result (a row of the comparison), and what a check is: a pure function of the lease's and the
// policy's facts. Shared by the checks in compare.ts and compare_dates.ts.
import type { LeaseFacts, InsuranceFacts, ComparisonItem, ComparisonField, CheckStatus } from './schema.ts';
import type { CheckContext } from './evidence.ts';

export type Check = (lease: LeaseFacts, ins: InsuranceFacts, ctx: CheckContext) => ComparisonItem;

export function item(
  field: ComparisonField,
  req: { text: string; page: number | null; clause?: string },
  cov: { text: string; page: number | null; evidence?: string },
  status: CheckStatus,
  gap: string | null,
  recommendation?: string,
): ComparisonItem {
  const out: ComparisonItem = {
    field,
    leaseRequired: req.text,
    leaseRequired_page: req.page,
    insuranceCoverage: cov.text,
    insuranceCoverage_page: cov.page,
    status,
    gap: status === 'pass' ? null : gap,
  };
  if (req.clause) out.leaseClause = req.clause;
  if (cov.evidence) out.insuranceText = cov.evidence;
  if (status !== 'pass' && recommendation) out.recommendation = recommendation;
  return out;
}
