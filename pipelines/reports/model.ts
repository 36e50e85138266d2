// What a compliance report shows, drawn from a completed lease analysis (SPEC §2.8 result): the HTML page and the
// pdf-lib layout are two renderings of this one model.
import type { AnalysisResult, CheckStatus, ComparisonItem, Summary } from '../lease/schema.ts';

/** Where a value was read, shown as evidence: a quote on a document's page, with the checks that cite it. */
export interface EvidencePage {
  side: 'lease' | 'insurance';
  page: number;
  checks: string[];
  /** The clause or text the values were read from (null: the check names the page only). */
  quote: string | null;
  /** The page drawn (PNG), cropped to the quote when it was found; null when the file is gone or could not be drawn. */
  png: Buffer | null;
  /** Whether `png` is the crop around the quote (else the whole page). */
  cropped: boolean;
}

export interface ReportCheck {
  field: string;
  status: CheckStatus;
  leaseRequired: string;
  leasePage: number | null;
  leaseClause: string | null;
  insuranceCoverage: string;
  insurancePage: number | null;
  insuranceText: string | null;
  gap: string | null;
}

export interface ReportModel {
  analysisId: string;
  agencyName: string;
  asOf: string;
  /** When the analysis completed (ISO). */
  completedAt: string | null;
  status: Summary['status'];
  counts: Pick<Summary, 'total' | 'pass' | 'fail' | 'warning' | 'uncertain'>;
  lease: { filename: string; property: string | null; tenant: string | null; landlord: string | null; start: string | null; end: string | null };
  insurance: {
    filename: string;
    carrier: string | null;
    policyNumber: string | null;
    insured: string | null;
    effective: string | null;
    expiration: string | null;
  };
  checks: ReportCheck[];
  recommendations: string[];
  /** What the verdicts could not be sure of: each warning's gap, then the reading notes. */
  uncertain: string[];
  evidence: EvidencePage[];
}

export const statusWords: Record<CheckStatus, string> = { pass: 'Met', fail: 'Not met', warning: 'Check' };
export const overallWords: Record<Summary['status'], string> = {
  compliant: 'Compliant',
  non_compliant: 'Not compliant',
  needs_review: 'Needs review',
};

/** At most this many pieces of evidence are drawn (lease before insurance, in page order), so a report stays light. */
export const MAX_EVIDENCE = 16;

/** Where the checks' values were read: each quote on its page once, with the checks citing it, lease first, in page order. */
export function citedEvidence(comparison: ComparisonItem[]): Omit<EvidencePage, 'png' | 'cropped'>[] {
  const byKey = new Map<string, Omit<EvidencePage, 'png' | 'cropped'>>();
  for (const c of comparison) {
    for (const [side, page, quote] of [
      ['lease', c.leaseRequired_page, c.leaseClause],
      ['insurance', c.insuranceCoverage_page, c.insuranceText],
    ] as const) {
      if (page === null || page === undefined) continue;
      const key = `${side}:${page}:${quote ?? ''}`;
      const e = byKey.get(key) ?? { side, page, checks: [], quote: quote ?? null };
      if (!e.checks.includes(c.field)) e.checks.push(c.field);
      byKey.set(key, e);
    }
  }
  return [...byKey.values()].sort((a, b) => (a.side === b.side ? a.page - b.page : a.side === 'lease' ? -1 : 1)).slice(0, MAX_EVIDENCE);
}

/** The report model of a completed analysis (evidence pages drawn by the caller). */
export function reportModel(o: {
  analysisId: string;
  agencyName: string;
  asOf: string;
  completedAt: Date | null;
  result: AnalysisResult;
  leaseFilename: string;
  insuranceFilename: string;
  evidence: EvidencePage[];
}): ReportModel {
  const r = o.result;
  return {
    analysisId: o.analysisId,
    agencyName: o.agencyName,
    asOf: r.summary.asOf ?? o.asOf,
    completedAt: o.completedAt ? o.completedAt.toISOString() : null,
    status: r.summary.status,
    counts: { total: r.summary.total, pass: r.summary.pass, fail: r.summary.fail, warning: r.summary.warning, uncertain: r.summary.uncertain },
    lease: {
      filename: o.leaseFilename,
      property: r.lease.propertyAddress,
      tenant: r.lease.tenant,
      landlord: r.lease.landlord,
      start: r.lease.leaseStart,
      end: r.lease.leaseEnd,
    },
    insurance: {
      filename: o.insuranceFilename,
      carrier: r.insurance.carrier,
      policyNumber: r.insurance.policyNumber,
      insured: r.insurance.insured,
      effective: r.insurance.effectiveDate,
      expiration: r.insurance.expirationDate,
    },
    checks: r.comparison.map((c) => ({
      field: c.field,
      status: c.status,
      leaseRequired: c.leaseRequired,
      leasePage: c.leaseRequired_page,
      leaseClause: c.leaseClause ?? null,
      insuranceCoverage: c.insuranceCoverage,
      insurancePage: c.insuranceCoverage_page,
      insuranceText: c.insuranceText ?? null,
      gap: c.gap,
    })),
    recommendations: r.recommendations,
    uncertain: [...r.comparison.filter((c) => c.status === 'warning' && c.gap).map((c) => `${c.field}: ${c.gap}`), ...r.extractionNotes],
    evidence: o.evidence,
  };
}
