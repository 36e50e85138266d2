// Authentication of a request: API keys, and OAuth/agent bearer tokens with the v1 rate budget. Named
// prepared statements: every authenticated request runs one of them.
import type { Client } from './types.ts';
import { namedRow } from './named.ts';

export interface ApiKeyIdentityRow {
  api_key_id: number;
  agency_id: number;
  mode: 'test' | 'live';
  permissions: 'admin' | 'read_only';
}

/** The live API key with this hash (and marks it used), or undefined. */
export async function authenticateApiKey(db: Client, tokenHash: Buffer): Promise<ApiKeyIdentityRow | undefined> {
  return namedRow<ApiKeyIdentityRow>(db, 'svc_auth_api_key', 'select * from app_private.authenticate_api_key($1)', [tokenHash]);
}

export interface BearerIdentityRow {
  kind: string;
  oauth_client_id: number | null;
  agency_id: number | null;
  agent_id: number | null;
  role: 'oauth_client' | 'agent' | 'admin' | 'owner';
  /** Rate budget columns: null unless the statement spent from a bucket. */
  allowed: boolean | null;
  remaining: number | null;
  reset_at: string | null;
}

/**
 * The OAuth client or agent behind a bearer token; with `rateLimit`, the same autocommit statement spends one
 * unit of the token's `v1:` bucket, so refused and failed requests count too.
 */
export async function authenticateBearer(
  db: Client,
  tokenHash: Buffer,
  rateLimit: { limit: number; windowSeconds: number } | undefined,
): Promise<BearerIdentityRow | undefined> {
  return namedRow<BearerIdentityRow>(
    db,
    rateLimit ? 'svc_auth_bearer_limited' : 'svc_auth_bearer',
    rateLimit
      ? `select a.*, r.* from app_private.authenticate_bearer($1) a cross join lateral app_private.consume_rate_limit('v1:' || encode($1, 'hex'), $2, $3) r`
      : `select a.*, null::boolean as allowed, null::int as remaining, null::bigint as reset_at from app_private.authenticate_bearer($1) a`,
    rateLimit ? [tokenHash, rateLimit.limit, rateLimit.windowSeconds] : [tokenHash],
  );
}
