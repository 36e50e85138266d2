// Rows → the documented v1 shapes (SPEC §2.5, §2.6).
import type { z } from 'zod';
import type { agency as agencySchema } from '../schemas/agencies.ts';
import type { agent as agentSchema } from '../schemas/agents.ts';

export interface AgencyRow {
  id: number;
  name: string;
  color_code: string | null;
  logo_key: string | null;
}

export interface AgentRow {
  id: number;
  agency_id: number;
  first_name: string;
  last_name: string;
  email: string;
  slug: string;
  phone_number: string | null;
  is_admin: boolean;
  is_owner: boolean;
  status: 'active' | 'deactivated';
  profile_picture_key: string | null;
  created_at: Date;
  updated_at: Date;
  deactivated_at: Date | null;
}

const version = (key: string) => key.slice(key.indexOf('/') + 1, key.indexOf('/') + 13);

export function presentAgencyBrief(a: Pick<AgencyRow, 'id' | 'name' | 'color_code'>) {
  return { id: a.id, name: a.name, color_code: a.color_code };
}

export function presentAgency(a: AgencyRow, publicUrl: string): z.infer<typeof agencySchema> {
  return {
    ...presentAgencyBrief(a),
    logo_url: a.logo_key ? `${publicUrl}/v1/agencies/${a.id}/logo?v=${version(a.logo_key)}` : null,
  };
}

export function presentAgent(a: AgentRow, agency: Pick<AgencyRow, 'id' | 'name' | 'color_code'>, publicUrl: string): z.infer<typeof agentSchema> {
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
    profile_picture_url: a.profile_picture_key ? `${publicUrl}/v1/agents/${a.id}/profile-picture?v=${version(a.profile_picture_key)}` : null,
    agency: presentAgencyBrief(agency),
    created_at: a.created_at.toISOString(),
    updated_at: a.updated_at.toISOString(),
    deactivated_at: a.deactivated_at ? a.deactivated_at.toISOString() : null,
  };
}
