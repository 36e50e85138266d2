// The /api surface's authentication with plan limits (app_private.authenticate_api_request).
import type { Client } from './types.ts';
import { namedRow } from './named.ts';

export interface ApiRequestIdentity {
  api_key_id: number | null;
  agency_id: number | null;
  mode: 'test' | 'live' | null;
  permissions: 'admin' | 'read_only' | null;
  allowed: boolean;
  lim: number;
  remaining: number;
  reset_at: string;
}

/**
 * Authenticate an API key hash (or none) and spend one unit of a budget: a document submission spends its
 * agency's per-minute and per-day plan budgets, a read (`readLimit` given) the agency's read budget; without
 * a valid key, the caller address's budget. One autocommit statement, so refusals count too.
 */
export async function authenticateApiRequest(
  c: Client,
  keyHash: Buffer | null,
  address: string,
  anon: { limit: number; windowSeconds: number },
  readLimit: number | null,
): Promise<ApiRequestIdentity> {
  const values = [keyHash, address, anon.limit, anon.windowSeconds, readLimit];
  // The function always returns its one row.
  return (await namedRow<ApiRequestIdentity>(
    c,
    'svc_auth_api_request_budget',
    'select * from app_private.authenticate_api_request($1, $2, $3, $4, $5)',
    values,
  ))!;
}
