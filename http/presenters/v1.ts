// Split into presenters per resource (agencies.ts, agents.ts); re-exported while branches that import this
// path are in flight.
export type { AgencyRow } from '../../db/queries/agencies.ts';
export type { AgentRow } from '../../db/queries/agents.ts';
export { presentAgency, presentAgencyBrief } from './agencies.ts';
export { presentAgent } from './agents.ts';
