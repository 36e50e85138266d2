// Agent rows → the documented v1 shapes (SPEC §2.6).
import type { z } from 'zod';
import type { AgencyBriefRow } from '../../db/queries/agencies.ts';
import type { AgentRow } from '../../db/queries/agents.ts';
import type { agent as agentSchema } from '../schemas/agents.ts';
import { blobVersion, presentAgencyBrief } from './agencies.ts';

export function presentAgent(a: AgentRow, agency: AgencyBriefRow, publicUrl: string): z.infer<typeof agentSchema> {
  return {
    id: a.id,
    first_name: a.first_name,
    last_name: a.last_name,
    email: a.email,
    slug: a.slug,
    phone_number: a.phone_number,
    is_admin: a.is_admin,
    is_owner: a.is_owner,
    status: a.status,
    profile_picture_url: a.profile_picture_key ? `${publicUrl}/v1/agents/${a.id}/profile-picture?v=${blobVersion(a.profile_picture_key)}` : null,
    agency: presentAgencyBrief(agency),
    created_at: a.created_at.toISOString(),
    updated_at: a.updated_at.toISOString(),
    deactivated_at: a.deactivated_at ? a.deactivated_at.toISOString() : null,
  };
}

/** An agent with its freshly issued token, as the token reset response shows it. */
export function presentAgentCredentials(a: Pick<AgentRow, 'id' | 'first_name' | 'last_name' | 'email' | 'slug'>, accessToken: string) {
  return { id: a.id, first_name: a.first_name, last_name: a.last_name, email: a.email, slug: a.slug, access_token: accessToken };
}

/** The owner agent of a new agency with its first token, as the agency creation response shows it. */
export function presentNewOwner(a: AgentRow, accessToken: string) {
  return { id: a.id, first_name: a.first_name, last_name: a.last_name, email: a.email, slug: a.slug, is_admin: a.is_admin, access_token: accessToken };
}
