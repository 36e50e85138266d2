// Request and response schemas of the lease compliance checker (SPEC §2.8, §4.3).
import { z } from 'zod';
import { comparisonFields } from '../../pipelines/lease/schema.ts';
import { multipartFields } from './common.ts';

export const analyzeQuery = z.object({
  async: z.enum(['true', 'false', '1', '0']).optional().describe('true: answer 202 with the analysis id at once instead of waiting for the result'),
});

/** A YYYY-MM-DD that is a real day. */
const isDay = (v: string) => {
  const d = new Date(`${v}T00:00:00Z`);
  return /^\d{4}-\d{2}-\d{2}$/.test(v) && !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === v;
};

/** Multipart fields beside the two files (a bad value is a 400 `bad_request` naming it). */
export const analyzeBody = z.looseObject({
  as_of: z
    .string()
    .refine(isDay, 'must be a date written YYYY-MM-DD')
    .optional()
    .describe('YYYY-MM-DD: the day policy status and period are judged on (default: today, UTC)'),
});
export const analyzeFields = multipartFields(analyzeBody);

export const analysisParams = z.object({ analysis_id: z.uuid().describe('id of the analysis (from a 202 answer)') });

const paged = (names: string[]) =>
  z.object(
    Object.fromEntries(
      names.flatMap((n) => [
        [n, z.string().nullable()],
        [`${n}_page`, z.number().int().nullable()],
      ]),
    ),
  );

export const comparisonItem = z.object({
  field: z.enum(comparisonFields),
  leaseRequired: z.string(),
  leaseRequired_page: z.number().int().nullable(),
  insuranceCoverage: z.string(),
  insuranceCoverage_page: z.number().int().nullable(),
  status: z.enum(['pass', 'fail', 'warning']),
  gap: z.string().nullable(),
  leaseClause: z.string().optional().describe('evidence: the lease clause the requirement was read from'),
  insuranceText: z.string().optional().describe('evidence: the insurance text the coverage was read from'),
});

/** The §2.8 result (plus the analysis id and status). */
export const analysisResult = z.object({
  id: z.uuid(),
  status: z.literal('completed'),
  lease: paged(['propertyAddress', 'landlord', 'tenant', 'leaseStart', 'leaseEnd']),
  insurance: paged(['carrier', 'policyNumber', 'insured', 'effectiveDate', 'expirationDate']),
  comparison: z.array(comparisonItem).length(15),
  summary: z.object({
    status: z.enum(['compliant', 'non_compliant', 'needs_review']),
    total: z.number().int(),
    pass: z.number().int(),
    fail: z.number().int(),
    warning: z.number().int(),
    /** Verdicts resting on a missing or uncertain fact (each a warning naming it in `gap`). */
    uncertain: z.number().int(),
    asOf: z.string(),
  }),
  recommendations: z.array(z.string()),
  extractionNotes: z.array(z.string()),
  _raw: z.record(z.string(), z.unknown()),
});

/** An analysis still running (202, or GET before it finished), or failed (GET). */
export const analysisStatus = z.object({
  id: z.uuid(),
  status: z.enum(['queued', 'processing', 'failed']),
  as_of: z.string(),
  status_url: z.string(),
  error: z.string().optional().describe('failed: the §7.2 error code'),
  message: z.string().optional(),
});
