import { z } from 'zod';
import { emailAddress, id, personName } from './common.ts';

export const agencyParams = z.object({ agency_id: id });

export const createAgencyBody = z
  .object({
    agency_name: z.string().trim().min(1, 'agency_name is required').max(200),
    email: emailAddress,
    first_name: personName('first_name'),
    last_name: personName('last_name'),
    referral: z.string().trim().max(200).optional(),
  })
  .strict();

export const colorCode = z.string().regex(/^[0-9A-Fa-f]{6}$/, 'must be 6 hexadecimal digits without the leading #');

export const updateAgencyBody = z
  .object({
    name: z.string().trim().min(1).max(200).optional(),
    color_code: colorCode.optional(),
    /** Multipart form posts say `_method=PATCH` (SPEC §4.2). */
    _method: z.string().optional(),
  })
  .strict();

export const agencyBrief = z
  .object({
    id: z.number().int(),
    name: z.string(),
    color_code: z.string().describe('Hex colour without the leading #; a new agency has the default brand colour 2563eb'),
  })
  .meta({ id: 'AgencyBrief' });

export const agency = z
  .object({
    id: z.number().int(),
    name: z.string(),
    color_code: z.string().describe('Hex colour without the leading #; a new agency has the default brand colour 2563eb'),
    logo_url: z.string().nullable().describe('Stable URL of the agency logo, or null'),
  })
  .meta({ id: 'Agency' });

/** Who an agent is in every answer that shows one: its id, name, email and slug. */
export const agentNames = {
  id: z.number().int(),
  first_name: z.string(),
  last_name: z.string(),
  email: z.string(),
  slug: z.string(),
};

export const ownerWithAccessToken = z
  .object({
    ...agentNames,
    is_admin: z.boolean(),
    access_token: z.string().describe('Shown once; store it now'),
  })
  .meta({ id: 'AgentWithToken' });

export const createAgencyResponse = z.object({ data: z.object({ agency: agencyBrief, agent: ownerWithAccessToken }) }).meta({ id: 'CreateAgencyResponse' });
export const agencyResponse = z.object({ data: agency }).meta({ id: 'AgencyResponse' });
