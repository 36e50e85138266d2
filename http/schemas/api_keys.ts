import { z } from 'zod';
import { id, timestamp } from './common.ts';

export const apiKeyParams = z.object({ agency_id: id, key_id: id });

export const createApiKeyBody = z
  .object({
    name: z.string().trim().min(1, 'name is required').max(100),
    mode: z.enum(['test', 'live']).describe('test keys see only sandbox data, live keys only live data'),
    permissions: z.enum(['admin', 'read_only']).default('admin').describe('read_only keys get 403 on every write'),
  })
  .strict();

export const rollApiKeyBody = z
  .object({
    grace_period_seconds: z
      .number()
      .int()
      .min(0)
      .max(30 * 86_400)
      .default(0)
      .describe('How long the old key keeps working (default 0: revoked at once)'),
  })
  .strict();

export const apiKey = z
  .object({
    id: z.number().int(),
    name: z.string(),
    mode: z.enum(['test', 'live']),
    permissions: z.enum(['admin', 'read_only']),
    prefix: z.string().describe('First characters of the key, for recognising it'),
    last_four: z.string(),
    created_by_agent_id: z
      .number()
      .int()
      .nullable()
      .describe(
        'The admin agent who created the key. A key belongs to its agency, not to that agent: it keeps working when the agent is deactivated (revoke it explicitly), and stops when the agency is deactivated',
      ),
    status: z.enum(['active', 'expiring', 'expired', 'revoked']),
    created_at: timestamp,
    last_used_at: timestamp.nullable(),
    expires_at: timestamp.nullable(),
    revoked_at: timestamp.nullable(),
    replaced_by_id: z.number().int().nullable(),
  })
  .meta({ id: 'ApiKey' });

export const apiKeyWithSecret = apiKey.extend({ key: z.string().describe('The key itself, shown only in this response') }).meta({ id: 'ApiKeyWithSecret' });

export const setAgencyPlanBody = z
  .object({
    plan: z.enum(['free', 'pro', 'enterprise']),
    per_minute: z.number().int().min(1).max(100_000).optional().describe('Requests a minute (enterprise only, required there)'),
    per_day: z.number().int().min(1).max(10_000_000).optional().describe('Requests a day (enterprise only, required there)'),
  })
  .strict()
  .superRefine((v, ctx) => {
    if (v.plan === 'enterprise') {
      for (const k of ['per_minute', 'per_day'] as const)
        if (v[k] === undefined) ctx.addIssue({ code: 'custom', path: [k], message: 'is required for the enterprise plan' });
    } else {
      for (const k of ['per_minute', 'per_day'] as const)
        if (v[k] !== undefined) ctx.addIssue({ code: 'custom', path: [k], message: `is set by the ${v.plan} plan and cannot be customised` });
    }
  });

export const plan = z
  .object({ agency_id: z.number().int(), plan: z.enum(['free', 'pro', 'enterprise']), per_minute: z.number().int(), per_day: z.number().int() })
  .meta({ id: 'AgencyPlan' });

/** Limits of each plan (SPEC §8); enterprise limits are the agency's own. */
export const planLimits = { free: { per_minute: 5, per_day: 50 }, pro: { per_minute: 30, per_day: 1000 } } as const;
