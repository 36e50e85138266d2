import { z } from 'zod';
import { agencyBrief, agentNames } from './agencies.ts';
import { emailAddress, formBoolean, id, personName, queryInt, timestamp, v1Page } from './common.ts';

const phone = z
  .string()
  .trim()
  .max(40)
  .regex(/^[0-9+().\-\s]*$/, 'may contain digits, spaces and + ( ) . - only');

export const agentParams = z.object({ agent_id: id });
export const agencyAgentParams = z.object({ agency_id: id, agent_id: id });

export const listAgentsQuery = z.object({
  filterByEmail: z.string().trim().max(254).optional().describe('Exact email, case-insensitive'),
  includeDeactivated: formBoolean.default(false),
  page: queryInt(1, 1_000_000).default(1),
  perPage: queryInt(1, 100).default(15),
});

export const createAgentBody = z
  .object({
    first_name: personName('first_name'),
    last_name: personName('last_name'),
    email: emailAddress,
    slug_suffix: z
      .string()
      .trim()
      .max(30)
      .regex(/^[A-Za-z0-9 _-]*$/, 'may contain letters, digits, spaces, - and _ only')
      .optional(),
    phone_number: phone.optional(),
    is_admin: formBoolean.default(false),
  })
  .strict();

export const updateAgentBody = z
  .object({
    first_name: personName('first_name').optional(),
    last_name: personName('last_name').optional(),
    email: emailAddress.optional(),
    phone_number: phone.nullable().optional(),
    is_admin: z.boolean().optional(),
    is_owner: z.literal(true, 'only true: ownership moves to this agent').optional(),
  })
  .strict();

export const agent = z
  .object({
    ...agentNames,
    phone_number: z.string().nullable(),
    is_admin: z.boolean(),
    is_owner: z.boolean(),
    status: z.enum(['active', 'deactivated']),
    profile_picture_url: z.string().nullable(),
    agency: agencyBrief,
    created_at: timestamp,
    updated_at: timestamp,
    deactivated_at: timestamp.nullable(),
  })
  .meta({ id: 'Agent' });

export const agentWithAccessToken = agent.extend({ access_token: z.string().describe('Shown once; store it now') }).meta({ id: 'AgentWithAccessToken' });

export const agentList = v1Page(agent, 'AgentList');

export const resetTokenResponse = z
  .object({
    data: z.object({
      agency: agencyBrief,
      agent: z.object({ ...agentNames, access_token: z.string() }),
    }),
  })
  .meta({ id: 'ResetTokenResponse' });
