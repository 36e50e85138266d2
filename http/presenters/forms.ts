// Form rows → the documented v2 shape (SPEC §2.1); GET returns exactly what PATCH accepts.
import type { FormRow } from '../../db/queries/forms.ts';

export type { FormRow };

const owner = (f: FormRow) =>
  f.owner_agent_id ? { type: 'agent' as const, agency_id: f.agency_id, agent_id: f.owner_agent_id } : { type: 'agency' as const, agency_id: f.agency_id };

export function presentFormSummary(f: FormRow) {
  return {
    id: f.id,
    public_id: f.public_id,
    name: f.name,
    status: f.status,
    insurance_line: f.insurance_line,
    owner: owner(f),
    created_at: f.created_at.toISOString(),
    updated_at: f.updated_at.toISOString(),
  };
}

export function presentForm(f: FormRow) {
  return {
    ...presentFormSummary(f),
    template_id: f.template_id,
    steps: f.structure.steps,
    published_at: f.published_at?.toISOString() ?? null,
  };
}
