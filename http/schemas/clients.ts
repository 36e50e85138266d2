// v1 clients (SPEC §2.7, §4.2 "Further operations"): request and response schemas, and the closed list of
// sales-funnel statuses with the moves allowed between them (db/migrations/0009_clients.sql holds the same
// list as data, and test/db/clients.test.ts checks the two agree).
import { z } from 'zod';
import { clientContactFields } from '../../pipelines/webhooks/payloads.ts';
import { bodyId, emailAddress, formBoolean, id, personName, queryInt, timestamp, v1Page } from './common.ts';

/** Sales-funnel statuses, in funnel order. */
export const SALES_FUNNEL_STATUSES = ['new', 'contacted', 'quoted', 'bound', 'lost'] as const;
export type SalesFunnelStatus = (typeof SALES_FUNNEL_STATUSES)[number];

/**
 * Allowed moves (from → to). Setting the current status again is a no-op, never an error. A lost client can be
 * re-engaged (lost → contacted); a bound client can be re-marketed at renewal (bound → quoted) or lost.
 */
export const SALES_FUNNEL_MOVES: Record<SalesFunnelStatus, readonly SalesFunnelStatus[]> = {
  new: ['contacted', 'quoted', 'bound', 'lost'],
  contacted: ['quoted', 'bound', 'lost'],
  quoted: ['contacted', 'bound', 'lost'],
  bound: ['quoted', 'lost'],
  lost: ['contacted'],
};

export const salesFunnelStatus = z.enum(SALES_FUNNEL_STATUSES, `must be one of ${SALES_FUNNEL_STATUSES.join(', ')}`).meta({
  id: 'SalesFunnelStatus',
  description:
    'Closed list, in funnel order. Allowed moves: ' +
    Object.entries(SALES_FUNNEL_MOVES)
      .map(([from, to]) => `${from} → ${to.join(' | ')}`)
      .join('; ') +
    '. Setting the current status again changes nothing; any other move is a 422.',
});

const uuidParam = (name: string) => z.uuid(`${name} must be a UUID`).describe(`${name} (UUID)`);

export const agentClientsParams = z.object({ agent_id: id });
export const clientParams = z.object({ agent_id: id, client_uuid: uuidParam('client_uuid') });
export const declarationPageParams = z.object({
  agent_id: id,
  client_uuid: uuidParam('client_uuid'),
  client_submission_uuid: uuidParam('client_submission_uuid'),
  client_submission_declaration_page_uuid: uuidParam('client_submission_declaration_page_uuid'),
});

const phone = z
  .string()
  .trim()
  .max(40)
  .regex(/^[0-9+().\-\s]*$/, 'may contain digits, spaces and + ( ) . - only');
const line = (max: number) => z.string().trim().max(max);

export const address = z
  .object({
    line1: line(200).nullable().optional(),
    line2: line(200).nullable().optional(),
    city: line(100).nullable().optional(),
    state: line(100).nullable().optional(),
    postal_code: line(20).nullable().optional(),
    country: line(2)
      .regex(/^[A-Za-z]{0,2}$/, 'is an ISO 3166-1 alpha-2 code')
      .nullable()
      .optional(),
  })
  .strict()
  .meta({ id: 'ClientAddress', description: 'Postal address; every part optional.' });

export const createClientBody = z
  .object({
    first_name: personName('first_name'),
    last_name: personName('last_name'),
    email: emailAddress.nullable().optional().describe('Unique among the clients of the agency (case-insensitive); a duplicate is a 422 naming `email`'),
    phone: phone.nullable().optional(),
    address: address.nullable().optional(),
    sales_funnel_status: salesFunnelStatus.default('new'),
    agent_id: bodyId.optional().describe('The agent the client belongs to; default the caller. Another agent of the agency needs admin privileges.'),
  })
  .strict();

export const updateClientBody = z
  .object({
    first_name: personName('first_name').optional(),
    last_name: personName('last_name').optional(),
    email: emailAddress.nullable().optional(),
    phone: phone.nullable().optional(),
    address: address.nullable().optional(),
    sales_funnel_status: salesFunnelStatus.optional(),
  })
  .strict()
  .refine((b) => Object.keys(b).length > 0, 'send at least one field to change');

export const reassignClientBody = z.object({ agent_id: bodyId.describe('An active agent of the same agency') }).strict();

const isoDateOrTime = z
  .string()
  .trim()
  .refine((s) => /^\d{4}-\d{2}-\d{2}([T ][0-9:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(s) && !Number.isNaN(Date.parse(s)), 'must be an ISO 8601 date or date-time')
  .transform((s) => new Date(/^\d{4}-\d{2}-\d{2}$/.test(s) ? `${s}T00:00:00Z` : s));

const statusList = z
  .string()
  .trim()
  .transform((s) =>
    s
      .split(',')
      .map((x) => x.trim())
      .filter(Boolean),
  )
  .pipe(z.array(salesFunnelStatus).min(1).max(SALES_FUNNEL_STATUSES.length));

export const CLIENT_SORTS = ['updated_at', '-updated_at', 'created_at', '-created_at', 'last_name', '-last_name'] as const;

export const listClientsQuery = z.object({
  search: z.string().trim().min(1).max(200).optional().describe('Fragment of the first name, last name, full name or email (case-insensitive)'),
  sales_funnel_status: statusList.optional().describe('One status or a comma-separated list'),
  created_from: isoDateOrTime.optional().describe('Created at or after (ISO 8601 date or date-time, UTC when no offset)'),
  created_to: isoDateOrTime.optional().describe('Created before (exclusive; a date means its midnight UTC)'),
  has_submissions: formBoolean.optional().describe('true: only clients with at least one submission; false: only clients without'),
  sort: z.enum(CLIENT_SORTS).default('-updated_at').describe('Field to sort by; a leading - is descending. Default -updated_at'),
  page: queryInt(1, 1_000_000).default(1),
  perPage: queryInt(1, 100).default(15),
});

export const additionalQuestionsParams = z.object({ agent_id: id });

export const ADDITIONAL_QUESTION_TYPES = ['short_text', 'long_text', 'email', 'number', 'date', 'dropdown', 'single_choice', 'multi_choice'] as const;

export const additionalQuestion = z
  .object({
    id: z
      .string()
      .trim()
      .regex(/^[a-z][a-z0-9_]{0,39}$/, 'is 1-40 lower-case letters, digits or _, starting with a letter'),
    label: z.string().trim().min(1).max(300),
    type: z.enum(ADDITIONAL_QUESTION_TYPES),
    required: z.boolean().default(false),
    options: z.array(z.string().trim().min(1).max(200)).max(50).optional(),
  })
  .strict()
  .superRefine((q, ctx) => {
    const choice = q.type === 'dropdown' || q.type === 'single_choice' || q.type === 'multi_choice';
    if (choice && !q.options?.length) ctx.addIssue({ code: 'custom', path: ['options'], message: `is required for ${q.type}` });
    if (!choice && q.options) ctx.addIssue({ code: 'custom', path: ['options'], message: `is only for dropdown, single_choice and multi_choice` });
  })
  .meta({ id: 'AdditionalQuestion' });

export const setAdditionalQuestionsBody = z
  .object({
    enabled: z.boolean().describe('Ask the agent’s clients the additional questions after they upload a declaration page'),
    questions: z
      .array(additionalQuestion)
      .max(20)
      .superRefine((qs, ctx) => {
        const seen = new Set<string>();
        qs.forEach((q, i) => {
          if (seen.has(q.id)) ctx.addIssue({ code: 'custom', path: [i, 'id'], message: `duplicate question id ${q.id}` });
          seen.add(q.id);
        });
      })
      .optional()
      .describe('The questions asked (replaces the whole list; omit to keep the current list)'),
  })
  .strict();

export const additionalQuestionsSettings = z
  .object({
    agent_id: z.number().int(),
    enabled: z.boolean(),
    questions: z.array(additionalQuestion),
    updated_at: timestamp.nullable(),
  })
  .meta({ id: 'AdditionalQuestionsSettings' });

// ---- responses ------------------------------------------------------------------------------------------

const addressOut = z.object({
  formatted: z.string().optional().describe('The address as one text, when it was read that way from a document'),
  line1: z.string().nullable().optional(),
  line2: z.string().nullable().optional(),
  city: z.string().nullable().optional(),
  state: z.string().nullable().optional(),
  postal_code: z.string().nullable().optional(),
  country: z.string().nullable().optional(),
});

export const client = z
  .object({
    uuid: z.uuid(),
    agent_id: z.number().int(),
    ...clientContactFields,
    address: addressOut.nullable(),
    sales_funnel_status: salesFunnelStatus,
    mode: z.enum(['test', 'live']).describe('live for clients created here or from live-key extractions; test for test-key extractions'),
    submissions_count: z.number().int(),
    created_at: timestamp,
    updated_at: timestamp,
  })
  .meta({ id: 'Client' });

export const declarationPage = z
  .object({
    uuid: z.uuid(),
    filename: z.string().nullable(),
    content_type: z.string().nullable(),
    size_bytes: z.number().int().nullable(),
    extraction_status: z.string().nullable().describe('parsing_status of the extraction of this page (queued, processing, completed, partial, failed)'),
    policy_type: z.string().nullable(),
    carrier: z.string().nullable(),
    policy_number: z.string().nullable(),
    created_at: timestamp,
  })
  .meta({ id: 'DeclarationPage' });

export const clientSubmission = z
  .object({
    uuid: z.uuid(),
    created_at: timestamp,
    declaration_pages: z.array(declarationPage),
  })
  .meta({ id: 'ClientSubmission' });

export const clientDetail = client.extend({ submissions: z.array(clientSubmission) }).meta({ id: 'ClientDetail' });

export const declarationPageLink = z
  .object({
    url: z.string().describe('Signed GET link to the file; works without credentials until it expires, and stops working once the client is destroyed'),
    filename: z.string().nullable(),
    expires_at: timestamp,
    expires_in: z.number().int().describe('Seconds until the link expires'),
  })
  .meta({ id: 'DeclarationPageLink' });

export const clientList = v1Page(client, 'ClientList');
