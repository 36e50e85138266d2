// Request and response schemas of the policy extraction API (SPEC §2.9, §4.4, §7.2).
import { z } from 'zod';
import { entityTypeSchema } from '../../pipelines/extraction/schema.ts';
import { id, multipartFields, queryInt, timestamp } from './common.ts';

/**
 * SPEC §2.9's statuses, plus `needs_review` (an extension, issue 34): the agency holds extractions with uncertain
 * fields for review, and the record waits there, its extracted_data readable, until a person reviews the last one.
 */
export const extractionStatuses = ['queued', 'processing', 'needs_review', 'completed', 'partial', 'failed'] as const;

export const agentPathParams = z.object({ agent_id: id.describe('agent of the API key’s agency') });
export const extractionParams = agentPathParams.extend({ extraction_id: z.uuid().describe('extraction_id of the record') });

/** Multipart fields beside `file` (a bad value is a 400 `bad_request` naming it). */
export const extractBody = z.looseObject({
  entity_type: z
    .enum(entityTypeSchema.options, { error: (iss) => `"${String(iss.input).slice(0, 60)}" is not one of ${entityTypeSchema.options.join(', ')}` })
    .optional()
    .describe('kind of document (default declaration_page)'),
  client_uuid: z.uuid({ error: 'must be a UUID' }).optional().describe('attach the result to this existing client of the agent’s agency'),
});
export const extractFields = multipartFields(extractBody);

export const listExtractionsQuery = z.object({
  status: z.enum(extractionStatuses).optional().describe('only records with this parsing_status'),
  limit: queryInt(1, 100).default(20),
  cursor: z.string().max(300).optional().describe('next_cursor of the previous page'),
});

export const extractionRecord = z
  .object({
    success: z.boolean(),
    extraction_id: z.uuid(),
    document_id: z.uuid(),
    agent_id: z.number().int(),
    filename: z.string(),
    entity_type: entityTypeSchema,
    parsing_status: z
      .enum(extractionStatuses)
      .describe('SPEC §2.9 statuses; needs_review (extension) while the agency holds the record for a person to check its uncertain fields'),
    parsing_method: z
      .string()
      .nullable()
      .describe(
        'text, ocr or hybrid (text plus OCR pages), with +llm when an LLM took part: what was used, also on a failed record (ocr for an image); null until read',
      ),
    extracted_data: z.record(z.string(), z.unknown()).nullable().describe('structured policy data; null until completed and after the retention period'),
    error: z.enum(['bad_request', 'payload_too_large', 'extraction_failed', 'internal_error']).optional().describe('§7.2 error code of a failed record'),
    message: z.string().optional().describe('§7.2 message of a failed record: what the code means'),
    details: z.string().optional().describe('§7.2 details of a failed record: what happened to this document'),
    client_uuid: z.uuid().nullable().optional(),
    client_submission_uuid: z.uuid().nullable().optional(),
    declaration_page_uuid: z.uuid().nullable().optional(),
    file_expired: z.boolean().optional().describe('true once the retention period deleted the stored file and its data'),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'PolicyExtractionRecord' });

export const extractionList = z.object({ data: z.array(extractionRecord), next_cursor: z.string().nullable() });

export const apiError = z
  .object({ error: z.string(), message: z.string(), details: z.string().optional(), retry_after: z.number().int().optional() })
  .meta({ id: 'ApiError' });

const apiErrorDescriptions: Record<number, string> = {
  400: 'bad_request: missing or invalid file or parameter',
  401: 'unauthorized: invalid or missing API key',
  404: 'not_found: agent or record outside the key’s agency and mode',
  413: 'payload_too_large: the file exceeds 10 MB',
  422: 'extraction_failed',
  429: 'rate_limited: plan limit exceeded (retry_after seconds)',
  500: 'internal_error',
};

/** §7.2 error responses (every one carries the X-RateLimit headers). */
export const apiErrors = (...statuses: number[]) =>
  Object.fromEntries(statuses.map((s) => [s, { description: apiErrorDescriptions[s] ?? 'Error', schema: apiError }])) as Record<
    number,
    { description: string; schema: typeof apiError }
  >;
