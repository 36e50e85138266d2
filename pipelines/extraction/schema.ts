// The documented shape of `extracted_data` (SPEC §2.9) and the entity types of §4.4.
import { z } from 'zod';

export const entityTypes = [
  'declaration_page',
  'auto_policy',
  'home_policy',
  'umbrella_policy',
  'cyber_security',
  'flood',
  'workers_comp',
  'd_and_o',
  'commercial_auto_policy',
  'commercial_home_policy',
  'commercial_worker_comp',
  'commercial_general_liability',
  'commercial_flood',
  'commercial_umbrella',
] as const;
export const entityTypeSchema = z.enum(entityTypes);
export type EntityType = z.infer<typeof entityTypeSchema>;

/** The kinds of document the rule extractors tell apart (finer than entity types). */
export const documentKinds = [
  'personal_auto',
  'homeowners',
  'renters',
  'businessowners',
  'commercial_general_liability',
  'certificate',
  'umbrella',
  'cyber',
  'flood',
  'workers_comp',
  'd_and_o',
  'commercial_auto',
  'commercial_property',
  'commercial_umbrella',
  'unknown',
] as const;
export type DocumentKind = (typeof documentKinds)[number];

const isoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const str = z.string().min(1).nullable();
const amount = z.number().nonnegative().nullable();
/** A single amount, or a split limit written "100000/300000". */
const limit = z.union([z.number().nonnegative(), z.string().min(1)]).nullable();

export const coverageSchema = z.object({ name: z.string().min(1), limit, deductible: limit, premium: amount });
export const vehicleSchema = z.object({ year: z.number().int().nullable(), make: str, model: str, vin: str });
export const driverSchema = z.object({ name: z.string().min(1), first_name: str, last_name: str });
export const partyRoles = [
  'additional_insured',
  'interested_party',
  'mortgagee',
  'additional_interest',
  'certificate_holder',
  'lienholder',
  'loss_payee',
] as const;
export const interestedPartySchema = z.object({ name: z.string().min(1), role: z.enum(partyRoles), address: str });
export const propertySchema = z.object({
  address: str,
  dwelling: amount,
  other_structures: amount,
  personal_property: amount,
  loss_of_use: amount,
  personal_liability: amount,
  medical_payments: amount,
  deductible: amount,
});
export const certificateCoverageTypes = [
  'general_liability',
  'automobile_liability',
  'umbrella_liability',
  'workers_compensation',
  'property',
  'other',
] as const;
export const certificateCoverageSchema = z.object({
  type: z.enum(certificateCoverageTypes),
  insurer_letter: z.string().nullable(),
  policy_number: str,
  effective_date: isoDate.nullable(),
  expiration_date: isoDate.nullable(),
  each_occurrence: amount,
  general_aggregate: amount,
  combined_single_limit: amount,
  umbrella_each_occurrence: amount,
  wc_statutory: z.boolean().nullable(),
  el_each_accident: amount,
  additional_insured: z.boolean().nullable(),
  subrogation_waived: z.boolean().nullable(),
});
export const certificateSchema = z.object({
  producer: str,
  insured: str,
  certificate_holder: str,
  insurers: z.array(z.object({ letter: z.string(), name: z.string().min(1), naic: str })),
  coverages: z.array(certificateCoverageSchema),
});
export const citationSchema = z.object({
  page: z.number().int().positive(),
  text: z.string(),
  confidence: z.number().min(0).max(1),
  source: z.enum(['rules', 'acroform', 'ocr', 'llm']),
  /** Set when the value could not be confirmed on its page and was kept only as flagged. */
  flagged: z.boolean().optional(),
  /** Which label, box or rule chose the value (e.g. "ACORD 25 box: CERTIFICATE HOLDER"), when the rule names it. */
  rule: z.string().optional(),
  /** The value's own words on the page (the shortest run of printed text that holds it); absent for classifications. */
  span: z.string().optional(),
  /** The span's box on its page, in points from the page's top-left corner. */
  box: z.object({ x: z.number(), y: z.number(), w: z.number(), h: z.number() }).optional(),
});

/** Citations below this confidence are listed in `needs_review`: guesses from free text, OCR'd or flagged values. */
export const REVIEW_THRESHOLD = 0.7;

export const extractedDataSchema = z.object({
  policy_type: z.string(),
  document_kind: z.enum(documentKinds),
  policy: z.object({ provider: str, policy_number: str, effective_date: isoDate.nullable(), expiration_date: isoDate.nullable(), premium: amount }),
  policyholder: z.object({ first_name: str, last_name: str, organization: str, address: str }),
  coverages: z.array(coverageSchema),
  vehicles: z.array(vehicleSchema),
  drivers: z.array(driverSchema),
  property: propertySchema.nullable(),
  interested_parties: z.array(interestedPartySchema),
  certificate: certificateSchema.nullable(),
  /** JSON pointer of each value (e.g. `/policy/policy_number`) → where it was read. */
  citations: z.record(z.string(), citationSchema),
  /** Pointers of values whose citation confidence is below REVIEW_THRESHOLD: a reviewer should check them. */
  needs_review: z.array(z.string()).optional(),
});
export type ExtractedData = z.infer<typeof extractedDataSchema>;
export type Citation = z.infer<typeof citationSchema>;

/** The kind an entity type implies when the caller names one (declaration_page detects it instead). */
export const kindOfEntityType: Record<EntityType, DocumentKind | undefined> = {
  declaration_page: undefined,
  auto_policy: 'personal_auto',
  home_policy: undefined, // homeowners or renters, detected
  umbrella_policy: 'umbrella',
  cyber_security: 'cyber',
  flood: 'flood',
  workers_comp: 'workers_comp',
  d_and_o: 'd_and_o',
  commercial_auto_policy: 'commercial_auto',
  commercial_home_policy: 'commercial_property',
  commercial_worker_comp: 'workers_comp',
  commercial_general_liability: undefined, // CGL or businessowners, detected
  commercial_flood: 'flood',
  commercial_umbrella: 'commercial_umbrella',
};

/**
 * An empty record of the documented shape. Its `policy_type` is the generic label until the caller names the
 * kind's own (`describePolicyType`, from the kind's module).
 */
export function emptyExtractedData(kind: DocumentKind): ExtractedData {
  return {
    policy_type: 'Insurance Policy',
    document_kind: kind,
    policy: { provider: null, policy_number: null, effective_date: null, expiration_date: null, premium: null },
    policyholder: { first_name: null, last_name: null, organization: null, address: null },
    coverages: [],
    vehicles: [],
    drivers: [],
    property: null,
    interested_parties: [],
    certificate: null,
    citations: {},
  };
}

/** JSON Schema of extracted_data, for the OpenAPI document. */
export function extractedDataJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(extractedDataSchema, { io: 'output' }) as Record<string, unknown>;
}
