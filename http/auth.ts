// Who may call a route and how the caller is recognised: bearer tokens (OAuth client, agent) and API keys,
// the v1 rate budget, and the one transaction per request opened as the caller's identity.
import type { Context, Next } from 'koa';
import { hashToken, isApiKeyToken } from '../lib/secrets.ts';
import type { Identity } from '../db/pool.ts';
import { authenticateApiKey, authenticateBearer } from '../db/queries/auth.ts';
import type { Client } from '../db/queries/types.ts';
import { inRequestTransaction, type Deps } from './context.ts';
import { forbidden, tooManyRequests, unauthorized } from './errors.ts';
import { planLimitedApiKey } from './api_auth.ts';

/**
 * Who may call an API route: an OAuth client token, an agent token (any role, or admin/owner), an API key
 * (any, or admin permissions: read-only keys get 403), or an API key of the /api surface in `X-API-Key` or
 * `Authorization: Bearer svc_…` (always with the agency plan's rate limits, http/api_auth.ts).
 */
export type ApiAuthRule = 'oauth_client' | 'agent' | 'agent_admin' | 'api_key' | 'api_key_admin' | 'api_key_header';

/**
 * Who may open a dashboard page: the agent of the session cookie (any role, or admin/owner), with the CSRF
 * token of the session on every write (http/dashboard.ts `withSession`).
 */
export type DashboardAuthRule = 'dashboard' | 'dashboard_admin';

/** Who may call a route: an API caller, a dashboard session, or anyone. */
export type AuthRule = 'none' | ApiAuthRule | DashboardAuthRule;

export const isDashboardRule = (rule: AuthRule): rule is DashboardAuthRule => rule === 'dashboard' || rule === 'dashboard_admin';

const bearer = /^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i;

/** The identity behind an API key (svc_test_… / svc_live_…), checked against the route's rule. */
async function apiKeyIdentity(client: Client, tokenHash: Buffer, rule: ApiAuthRule): Promise<Identity> {
  const key = await authenticateApiKey(client, tokenHash);
  if (!key) throw unauthorized('invalid, expired or revoked API key');
  if (rule === 'api_key_admin' && key.permissions !== 'admin') throw forbidden('this API key is read-only; writes need a key with admin permissions');
  return { role: key.permissions === 'admin' ? 'admin' : 'read_only', agencyId: key.agency_id, mode: key.mode, apiKeyId: key.api_key_id };
}

/** The identity behind an OAuth or agent token; v1 routes also spend one unit of the token's rate budget. */
async function bearerIdentity(ctx: Context, client: Client, tokenHash: Buffer, rule: ApiAuthRule, deps: Deps, rateLimit?: 'v1' | 'plan'): Promise<Identity> {
  const limit = deps.cfg.RATE_LIMIT_V1_PER_WINDOW;
  const who = await authenticateBearer(client, tokenHash, rateLimit ? { limit, windowSeconds: deps.cfg.RATE_LIMIT_WINDOW_SECONDS } : undefined);
  if (!who) throw unauthorized('invalid, expired or revoked access token');
  if (rateLimit) {
    ctx.set('X-RateLimit-Limit', String(limit));
    ctx.set('X-RateLimit-Remaining', String(who.remaining));
    ctx.set('X-RateLimit-Reset', String(who.reset_at));
    if (!who.allowed) {
      const retry = Math.max(1, Number(who.reset_at) - Math.floor(Date.now() / 1000));
      throw tooManyRequests('rate limit exceeded', { headers: { 'Retry-After': String(retry) } });
    }
  }
  if (rule === 'oauth_client' && who.kind !== 'oauth_client') throw forbidden('this operation requires an OAuth client access token');
  if ((rule === 'agent' || rule === 'agent_admin') && who.kind !== 'agent') throw forbidden('this operation requires an agent access token');
  if (rule === 'agent_admin' && who.role !== 'admin' && who.role !== 'owner') throw forbidden('this operation requires admin privileges in the agency');
  return { role: who.role, oauthClientId: who.oauth_client_id, agencyId: who.agency_id, agentId: who.agent_id };
}

/**
 * auth → rate limit → one transaction as the caller, committed after the handler, rolled back on error; then the
 * handler's after-commit work (http/context.ts afterCommit), outside any transaction.
 */
export function authenticated(rule: ApiAuthRule, deps: Deps, rateLimit?: 'v1' | 'plan') {
  const wantsApiKey = rule === 'api_key' || rule === 'api_key_admin';
  return async (ctx: Context, next: Next) => {
    let resolve: (client: Client) => Promise<Identity>;
    if (rule === 'api_key_header') {
      // The /api surface: X-API-Key or a bearer API key, always counted against the agency's plan.
      resolve = async (client) => (await planLimitedApiKey(ctx, client, deps))!;
    } else {
      const m = bearer.exec(ctx.get('authorization'));
      if (!m) throw unauthorized('missing bearer token in the Authorization header');
      const isApiKey = isApiKeyToken(m[1]);
      if (wantsApiKey !== isApiKey) {
        throw isApiKey
          ? forbidden('this operation requires an OAuth client or agent access token, not an API key')
          : unauthorized('this operation requires an API key (svc_test_… or svc_live_…)');
      }
      const tokenHash = hashToken(m[1]);
      resolve = (client) => (isApiKey ? apiKeyIdentity(client, tokenHash, rule) : bearerIdentity(ctx, client, tokenHash, rule, deps, rateLimit));
    }
    const client = await deps.db.request.connect();
    try {
      const ident = await resolve(client);
      ctx.state.identity = ident;
      await inRequestTransaction(ctx, deps.db, client, ident, next);
    } finally {
      client.release();
    }
    for (const fn of (ctx.state.afterCommit as (() => Promise<void>)[] | undefined) ?? []) await fn();
  };
}
