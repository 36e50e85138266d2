// Agency rows → the documented v1 shapes (SPEC §2.5).
import type { z } from 'zod';
import type { AgencyBriefRow, AgencyRow, PlanRow } from '../../db/queries/agencies.ts';
import type { agency as agencySchema } from '../schemas/agencies.ts';
import { planLimits } from '../schemas/api_keys.ts';

/** The version part of a blob key, so an image URL changes when the image does. */
export const blobVersion = (key: string) => key.slice(key.indexOf('/') + 1, key.indexOf('/') + 13);

export function presentAgencyBrief(a: AgencyBriefRow) {
  return { id: a.id, name: a.name, color_code: a.color_code };
}

export function presentAgency(a: AgencyRow, publicUrl: string): z.infer<typeof agencySchema> {
  return {
    ...presentAgencyBrief(a),
    logo_url: a.logo_key ? `${publicUrl}/v1/agencies/${a.id}/logo?v=${blobVersion(a.logo_key)}` : null,
  };
}

/** The plan in force: the fixed limits of free and pro, the agency's own for enterprise. */
export function presentPlan(g: PlanRow) {
  const limits = g.plan === 'enterprise' ? { per_minute: g.plan_per_minute!, per_day: g.plan_per_day! } : planLimits[g.plan];
  return { agency_id: g.id, plan: g.plan, ...limits };
}
