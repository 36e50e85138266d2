// The facts the lease checker reads from both documents and the SPEC §2.8 result it returns.

/** A value read from a document, with the page it is on and the text it was read from. */
export interface Cited<T> {
  value: T;
  page: number;
  /** The line or clause the value was read from (grounding checks it is on `page`). */
  text: string;
}

/** The twelve insurance requirements a lease can state (the other three checks come from the lease's facts). */
export const requirementKinds = [
  'renters',
  'liability',
  'propertyDamage',
  'workersComp',
  'umbrella',
  'auto',
  'professional',
  'additionalInsured',
  'interestedParty',
  'certificateHolder',
  'waiverOfSubrogation',
  'primaryNonContributory',
] as const;
export type RequirementKind = (typeof requirementKinds)[number];

export interface LeaseRequirement {
  kind: RequirementKind;
  /** False when the lease says explicitly that the coverage is not required. */
  required: boolean;
  /** Minimum limit in dollars, when the clause states one. */
  amount: number | null;
  /** The aggregate limit, when the clause states one apart from the per-occurrence amount. */
  aggregate?: number | null;
  /** The amount is a combined single limit (bodily injury and property damage together). */
  combinedSingleLimit?: boolean;
  /**
   * Where the amount is stated when it is not in the clause: incorporated by reference ("the limits set forth in
   * Section 1.1", `how: 'reference'`) or on the next page of a sentence a page break cut (`how: 'continued'`).
   */
  amountSource?: { page: number; text: string; how?: 'reference' | 'continued' };
  /** Workers compensation "statutory limits". */
  statutory: boolean;
  /**
   * The party the clause names to be listed, when it names one by name rather than by its role ("listing Keystone
   * Realty Management LLC as an interested party"): the policy must name that party.
   */
  party?: string;
  /** The clause accepts either role ("as additional insured or interested party"): either on the policy meets it. */
  eitherRole?: boolean;
  /** Why the lease's words do not settle the requirement (an unticked form option): no verdict passes on it. */
  uncertain?: string;
  /** The clause stating the requirement, and its page. */
  clause: string;
  page: number;
}

export interface LeaseFacts {
  type: 'residential' | 'commercial';
  propertyAddress: Cited<string> | null;
  landlord: Cited<string> | null;
  /** A management company or agent acting for the landlord, when the lease names one. */
  manager: Cited<string> | null;
  tenant: Cited<string> | null;
  /** ISO dates. */
  leaseStart: Cited<string> | null;
  leaseEnd: Cited<string> | null;
  /** A commencement or expiration the lease defines by an event or a formula, not a calendar date (quoted). */
  termRules: { start: Cited<string> | null; end: Cited<string> | null };
  /** The words that make the term open-ended ("month-to-month"): no expiration is a fact, not a gap. */
  openTerm?: Cited<string> | null;
  requirements: Partial<Record<RequirementKind, LeaseRequirement>>;
}

export interface CitedLimit extends Cited<number | null> {
  /** The coverage's label on the document ("Personal Liability", "EACH OCCURRENCE"). */
  label: string;
  statutory?: boolean;
}

export type PolicyMarker = 'binder' | 'pending' | 'cancelled' | 'quote' | 'application';

export interface PartyMention extends Cited<string> {
  role: 'additional_insured' | 'interested_party' | 'additional_interest' | 'certificate_holder' | 'loss_payee' | 'mortgagee';
}

export interface InsuranceFacts {
  /** The document kind the extraction rules detected (renters, homeowners, certificate, personal_auto...). */
  kind: string;
  policyType: string;
  carrier: Cited<string> | null;
  policyNumber: Cited<string> | null;
  /** Every distinct policy number on the document. */
  policyNumbers: string[];
  insured: Cited<string> | null;
  /** ISO dates. */
  effectiveDate: Cited<string> | null;
  expirationDate: Cited<string> | null;
  liability: CitedLimit | null;
  /** The general aggregate of the liability cover, where the document shows one (a certificate, a CGL page). */
  liabilityAggregate?: CitedLimit | null;
  propertyDamage: CitedLimit | null;
  workersComp: CitedLimit | null;
  umbrella: CitedLimit | null;
  auto: CitedLimit | null;
  professional: CitedLimit | null;
  parties: PartyMention[];
  /** Whether the document has a certificate-holder section at all (a declarations page has none). */
  hasCertificateHolderSection: boolean;
  waiverOfSubrogation: Cited<boolean> | null;
  primaryNonContributory: Cited<boolean> | null;
  propertyAddress: (Cited<string> & { from: 'premises' | 'mailing' }) | null;
  /** Words on the document that say it is not an issued, in-force policy. */
  markers: Cited<PolicyMarker>[];
}

export const comparisonFields = [
  'Renters Insurance Required',
  'General Liability',
  'Property Damage',
  'Workers Compensation',
  'Umbrella/Excess Liability',
  'Auto Liability',
  'Professional Liability',
  'Additional Insured',
  'Interested Party',
  'Certificate Holder',
  'Waiver of Subrogation',
  'Primary & Non-Contributory',
  'Property Address',
  'Policy Period',
  'Policy Status',
] as const;
export type ComparisonField = (typeof comparisonFields)[number];
export type CheckStatus = 'pass' | 'fail' | 'warning';

export interface ComparisonItem {
  field: ComparisonField;
  leaseRequired: string;
  leaseRequired_page: number | null;
  insuranceCoverage: string;
  insuranceCoverage_page: number | null;
  status: CheckStatus;
  gap: string | null;
  /** Evidence: the lease clause and the insurance text the two values were read from. */
  leaseClause?: string;
  insuranceText?: string;
  /** The one-sentence action for a fail or warning (collected into `recommendations`). */
  recommendation?: string;
}

export interface Summary {
  status: 'compliant' | 'non_compliant' | 'needs_review';
  total: number;
  pass: number;
  fail: number;
  warning: number;
  /** Verdicts that rest on a missing or uncertain fact (each a warning naming the fact in its gap). */
  uncertain: number;
  /** The date the policy status and period were judged on. */
  asOf: string;
}

type Paged<K extends string> = { [P in K]: string | null } & { [P in K as `${P}_page`]: number | null };

export type LeaseSection = Paged<'propertyAddress' | 'landlord' | 'tenant' | 'leaseStart' | 'leaseEnd'>;
export type InsuranceSection = Paged<'carrier' | 'policyNumber' | 'insured' | 'effectiveDate' | 'expirationDate'>;

export interface AnalysisResult {
  lease: LeaseSection;
  insurance: InsuranceSection;
  comparison: ComparisonItem[];
  summary: Summary;
  recommendations: string[];
  extractionNotes: string[];
  _raw: Record<string, unknown>;
}
