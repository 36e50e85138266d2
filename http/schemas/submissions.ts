// Schemas of submissions (§6.3 shape), embed origins and signed form links.
import { z } from 'zod';
import { id, storableJson, timestamp } from './common.ts';

export const submissionParams = z.object({ submission_id: id });

export const submission = z
  .object({
    form: z.object({ id: z.number().int(), public_id: z.string(), name: z.string(), insurance_line: z.string() }),
    submission_id: z.number().int(),
    trace_id: z.string(),
    submitted_at: timestamp,
    agent: z.object({ id: z.number().int(), name: z.string(), email: z.string() }),
    contact: z.object({ name: z.string().optional(), email: z.string().optional(), phone: z.string().optional() }).optional(),
    answers: z.array(z.object({ question_id: z.string(), label: z.string(), type: z.string(), value: z.unknown() })),
    acord: z
      .object({ is_acord_ready: z.boolean(), form_ids: z.array(z.string()), archive_url: z.string().nullable() })
      .optional()
      .describe('Present when the form maps to ACORD forms; archive_url is null until is_acord_ready.'),
    metadata: z.record(z.string(), z.unknown()),
    acord_report: z
      .object({ missing_fields: z.array(z.object({ form_id: z.string(), field: z.string(), label: z.string() })) })
      .optional()
      .describe('Required ACORD fields the form did not capture (not part of the webhook payload).'),
  })
  .meta({ id: 'Submission', description: 'The form-submission payload (SPEC §6.3) with freshly signed links, plus the ACORD report.' });

/** scheme://host[:port], lower-cased, nothing else (no path, query, credentials or trailing slash). */
export const embedOrigin = z
  .string()
  .trim()
  .max(300)
  .transform((v, ctx) => {
    let u: URL;
    try {
      u = new URL(v);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an origin like https://www.agency.example' });
      return z.NEVER;
    }
    const bare = `${u.protocol}//${u.host}`;
    if (
      !/^https?:$/.test(u.protocol) ||
      u.username ||
      u.password ||
      u.search ||
      u.hash ||
      (u.pathname !== '/' && u.pathname !== '') ||
      !/^https?:\/\/[^/]+\/?$/i.test(v)
    ) {
      ctx.addIssue({ code: 'custom', message: 'must be scheme://host[:port] only (http or https, no path, query or credentials)' });
      return z.NEVER;
    }
    return bare.toLowerCase();
  });

export const embedOriginsBody = z.object({ origins: z.array(embedOrigin).max(50) }).strict();
export const embedOrigins = z
  .object({ origins: z.array(z.string()) })
  .meta({ id: 'EmbedOrigins', description: 'Origins allowed to frame the agency’s hosted forms (CSP frame-ancestors).' });

export const formLinkBody = z
  .object({
    agent_id: z.number().int().positive(),
    metadata: z
      .record(z.string(), z.unknown())
      .default({})
      .refine((m) => JSON.stringify(m).length <= 4000, 'metadata must be at most 4000 bytes of JSON')
      // Refused when the link is made: each submission through the link would otherwise fail to store it.
      .refine(storableJson, 'metadata must not contain NUL characters or unpaired surrogates'),
    expires_in: z
      .number()
      .int()
      .min(60)
      .max(366 * 86_400)
      .optional()
      .describe('Lifetime in seconds; default FORM_LINK_TTL_SECONDS (30 days).'),
  })
  .strict();
export const formLink = z
  .object({ url: z.string(), expires_at: timestamp })
  .meta({ id: 'FormLink', description: 'A signed hosted-form link carrying the agent and metadata.' });
