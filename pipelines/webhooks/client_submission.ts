// The `data` of a `client-submission` delivery (SPEC §6.2) from extracted policy data: document_link,
// policy_type, policy (provider, policy_number, …), policyholder (first_name, last_name, …), vehicles for
// vehicle policies, and the other extracted fields of the policy type. Citations (where each value was read)
// stay in the extraction record; they are not policy data.
import { ClientSubmissionData } from './payloads.ts';

/** Extracted data as the extraction engine returns it (pipelines/extraction ExtractedData), loosely typed. */
export interface ExtractedPolicy {
  policy_type: string;
  document_kind?: string;
  policy: Record<string, unknown> & { provider: string | null; policy_number: string | null };
  policyholder: Record<string, unknown> & { first_name: string | null; last_name: string | null };
  vehicles?: unknown[];
  [k: string]: unknown;
}

const VEHICLE_KINDS = new Set(['personal_auto', 'commercial_auto']);

/** The validated §6.2 `data` of one extraction. */
export function clientSubmissionData(extracted: ExtractedPolicy, documentLink: string): ClientSubmissionData {
  const { citations: _citations, vehicles, policy_type, ...rest } = extracted;
  const hasVehicles = VEHICLE_KINDS.has(String(extracted.document_kind)) || (Array.isArray(vehicles) && vehicles.length > 0);
  return ClientSubmissionData.parse({
    ...rest,
    document_link: documentLink,
    policy_type: policy_type || 'Insurance Policy',
    ...(hasVehicles ? { vehicles: vehicles ?? [] } : {}),
  });
}
