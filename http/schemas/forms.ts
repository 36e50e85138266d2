import { z } from 'zod';
import { formStructureInputSchema, insuranceLineSchema, stepSchema, templateIdSchema } from '../../pipelines/forms/schema.ts';
import { id, queryInt, timestamp } from './common.ts';

export const formParams = z.object({ id });

export const formOwner = z
  .discriminatedUnion('type', [
    z.object({ type: z.literal('agency'), agency_id: z.number().int().positive() }).strict(),
    z.object({ type: z.literal('agent'), agency_id: z.number().int().positive(), agent_id: z.number().int().positive() }).strict(),
  ])
  .meta({ id: 'FormOwner', description: 'An agency-owned form is shared by the agency; an agent-owned one belongs to one agent (and the agency’s admins).' });

export const createFormBody = z
  .object({
    name: z.string().trim().min(1, 'name is required').max(200),
    owner: formOwner,
    insurance_line: insuranceLineSchema,
    template_id: templateIdSchema.optional(),
  })
  .strict();

/**
 * The keys of a form that GET shows and PATCH cannot change. A GET → PATCH round trip (SPEC §2.3, the same
 * model in and out) sends them back; they are accepted when they equal the stored values and then ignored.
 */
export const READ_ONLY_FORM_KEYS = ['id', 'public_id', 'status', 'owner', 'created_at', 'updated_at', 'template_id', 'published_at'] as const;

/** PATCH: the whole structure (steps) replaces the working copy; name and insurance_line may change too. */
export const updateFormBody = z
  .object({
    steps: z.array(z.unknown()),
    name: z.string().trim().min(1).max(200).optional(),
    insurance_line: insuranceLineSchema.optional(),
    ...Object.fromEntries(READ_ONLY_FORM_KEYS.map((k) => [k, z.unknown().optional()])),
  })
  .strict();

export const updateFormDoc = formStructureInputSchema
  .extend({
    name: z.string().min(1).max(200).optional(),
    insurance_line: insuranceLineSchema.optional(),
    id: z.number().int().optional().describe('Read only: accepted when it equals the stored value, then ignored'),
    public_id: z.string().optional().describe('Read only: accepted when it equals the stored value, then ignored'),
    status: z.enum(['draft', 'active']).optional().describe('Read only: accepted when it equals the stored value, then ignored'),
    owner: formOwner.optional().describe('Read only: accepted when it equals the stored value, then ignored'),
    created_at: timestamp.optional().describe('Read only: accepted when it equals the stored value, then ignored'),
    updated_at: timestamp.optional().describe('Read only: accepted when it equals the stored value, then ignored'),
    template_id: templateIdSchema.nullable().optional().describe('Read only: accepted when it equals the stored value, then ignored'),
    published_at: timestamp.nullable().optional().describe('Read only: accepted when it equals the stored value, then ignored'),
  })
  .meta({ id: 'FormPatch' });

export const listFormsQuery = z.object({
  limit: queryInt(1, 100).default(20),
  cursor: z.string().max(200).optional().describe('next_cursor of the previous page'),
  status: z.enum(['draft', 'active']).optional(),
  insurance_line: insuranceLineSchema.optional(),
});

export const formSummary = z
  .object({
    id: z.number().int(),
    public_id: z.string(),
    name: z.string(),
    status: z.enum(['draft', 'active']),
    insurance_line: insuranceLineSchema,
    owner: formOwner,
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'FormSummary' });

export const form = formSummary
  .extend({
    template_id: templateIdSchema.nullable(),
    steps: z.array(stepSchema),
    published_at: timestamp.nullable(),
  })
  .meta({ id: 'Form' });

export const formList = z.object({ data: z.array(formSummary), next_cursor: z.string().nullable() }).meta({ id: 'FormList' });

/** The /v2 error body; it lives in common.ts with the other surfaces' error schemas. */
export { problem } from './common.ts';
