// Never a pass on evidence the checker is not sure of: each check's verdict is gated on the evidence it rests on
// (a lease clause and an insurance value, with their pages, not read with low confidence) and on the lease pages
// that could not be read. A gated pass becomes a warning whose gap names the missing or uncertain fact.
import type { LeaseFacts, ComparisonItem, ComparisonField, RequirementKind } from './schema.ts';

export interface CheckContext {
  /** ISO date the policy's status and period are judged on. */
  asOf: string;
  /** Pages read with low confidence (OCR below the floor), per document: a value read there is uncertain. */
  uncertainPages?: { lease: number[]; insurance: number[] };
  /** Lease pages not read at all (OCR failed or was off on a page without a text layer). */
  unreadPages?: { lease: number[] };
}

/** What a check says when the lease requires nothing of its kind. */
export const NOT_REQUIRED = 'Not required';

/** Gaps that say a verdict rests on a fact that is missing or uncertain, not on a shortfall found. */
const UNCERTAIN_GAP =
  /could not be (?:read|matched|checked)|not readable|not shown|does not show|shows no|no address|not a calendar date|by a rule|low confidence|OCR|not found|uncertain/i;

/** Whether a verdict rests on a missing or uncertain fact (the count `summary.uncertain` reports). */
export const restsOnUncertainFact = (c: ComparisonItem) => c.status === 'warning' && !!c.gap && UNCERTAIN_GAP.test(c.gap);

/**
 * Never a pass without evidence: a pass on a requirement needs the lease clause and the insurance text it rests
 * on, and neither may come from a page read with low confidence. Otherwise the verdict is a warning whose gap
 * names the missing or uncertain fact.
 */
export function requireEvidence(c: ComparisonItem, ctx: CheckContext): ComparisonItem {
  if (c.status !== 'pass' || c.leaseRequired === NOT_REQUIRED) return c;
  const low = ctx.uncertainPages;
  const warn = (gap: string): ComparisonItem => ({
    ...c,
    status: 'warning',
    gap,
    recommendation: `Check the ${c.field.toLowerCase()} by hand against both documents.`,
  });
  if (c.field !== 'Policy Status' && c.leaseRequired_page === null) return warn(`The lease fact this check rests on was not found (${c.leaseRequired}).`);
  if (c.insuranceCoverage_page === null) return warn(`The insurance document does not show what this check needs (${c.insuranceCoverage}).`);
  if (low?.insurance.includes(c.insuranceCoverage_page))
    return warn(`The insurance value was read by OCR with low confidence on page ${c.insuranceCoverage_page}; it is uncertain.`);
  if (c.leaseRequired_page !== null && low?.lease.includes(c.leaseRequired_page))
    return warn(`The lease clause was read by OCR with low confidence on page ${c.leaseRequired_page}; it is uncertain.`);
  return c;
}

/** The lease requirement each coverage check rests on. */
export const checkRequirement: Partial<Record<ComparisonField, RequirementKind>> = {
  'Renters Insurance Required': 'renters',
  'General Liability': 'liability',
  'Property Damage': 'propertyDamage',
  'Workers Compensation': 'workersComp',
  'Umbrella/Excess Liability': 'umbrella',
  'Auto Liability': 'auto',
  'Professional Liability': 'professional',
  'Additional Insured': 'additionalInsured',
  'Interested Party': 'interestedParty',
  'Certificate Holder': 'certificateHolder',
  'Waiver of Subrogation': 'waiverOfSubrogation',
  'Primary & Non-Contributory': 'primaryNonContributory',
};

/** A pass on a requirement the lease's words leave uncertain is a warning. */
export function settledRequirement(c: ComparisonItem, lease: LeaseFacts): ComparisonItem {
  const kind = checkRequirement[c.field];
  const why = kind ? lease.requirements[kind]?.uncertain : undefined;
  if (c.status !== 'pass' || !why) return c;
  return {
    ...c,
    status: 'warning',
    gap: `Whether the lease requires this is uncertain: ${why}.`,
    recommendation: `Confirm with the landlord whether the lease requires ${c.field.toLowerCase()}.`,
  };
}

/**
 * What the lease does not require is read from every page of it: a "Not required" pass on a lease with a page
 * read by OCR with low confidence (the requirement may stand there, unread) is a warning, and so is a pass whose
 * limit the lease states on such a page away from its clause (by reference, or past a page break).
 */
export function settledAbsence(c: ComparisonItem, lease: LeaseFacts, ctx: CheckContext): ComparisonItem {
  if (c.status !== 'pass') return c;
  const low = ctx.uncertainPages?.lease ?? [];
  const unread = ctx.unreadPages?.lease ?? [];
  if (!low.length && !unread.length) return c;
  const kind = checkRequirement[c.field];
  if (!kind) return c;
  const list = (ps: number[]) => `page${ps.length > 1 ? 's' : ''} ${ps.length > 3 ? `${ps.slice(0, 3).join(', ')} and ${ps.length - 3} more` : ps.join(', ')}`;
  const why = [
    ...(unread.length ? [`${list(unread)} could not be read`] : []),
    ...(low.length ? [`${list(low)} ${low.length > 1 ? 'were' : 'was'} read by OCR with low confidence`] : []),
  ].join(' and ');
  if (c.leaseRequired === NOT_REQUIRED)
    return {
      ...c,
      status: 'warning',
      gap: `The lease states no such requirement on the pages read, but ${why}; that it is not required is uncertain.`,
      recommendation: `Check the lease by hand for a ${c.field.toLowerCase()} requirement.`,
    };
  const source = lease.requirements[kind]?.amountSource;
  if (source && low.includes(source.page))
    return {
      ...c,
      status: 'warning',
      gap: `The lease's limit was read by OCR with low confidence on page ${source.page}; it is uncertain.`,
      recommendation: `Check the ${c.field.toLowerCase()} by hand against both documents.`,
    };
  return c;
}
