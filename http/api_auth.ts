// The /api surface's credentials and plan limits (SPEC §5, §8): an API key in `X-API-Key` (or
// `Authorization: Bearer svc_…`). A document submission (an extraction upload, a lease analysis: every
// non-GET request) spends one unit of the agency's plan budget per minute and per day; a read (polling a
// record, a list) spends one unit of the agency's read budget (RATE_LIMIT_API_READS_PER_WINDOW), so a
// partner polling its upload never runs out of submissions. Counted in Postgres so every process shares them.
// The X-RateLimit headers (of the budget spent) go on every /api response, success or error; requests without
// a valid key are counted per client address instead.
import type { Context } from 'koa';
import type { Identity } from '../db/pool.ts';
import { authenticateApiRequest } from '../db/queries/api_limits.ts';
import type { Client } from '../db/queries/types.ts';
import { hashToken } from '../lib/secrets.ts';
import type { Deps } from './context.ts';
import { methodNotAllowed, noRoute, tooManyRequests, unauthorized } from './errors.ts';

const bearer = /^Bearer\s+(\S+)\s*$/i;

/** The API key a request presents, if any: `X-API-Key`, else a bearer credential. */
export function presentedApiKey(ctx: Context): string | undefined {
  const header = ctx.get('x-api-key').trim();
  if (header) return header;
  return bearer.exec(ctx.get('authorization'))?.[1];
}

/** Which budget a request of the /api surface spends: reads (GET, HEAD) have their own; anything else submits a document. */
export const apiBudgetOf = (method: string): 'read' | 'submission' => (method === 'GET' || method === 'HEAD' ? 'read' : 'submission');

/**
 * Authenticate the request's API key and spend one unit of its budget (`apiBudgetOf`, or the one given) in one
 * autocommit statement (so refused and failed requests count too). Sets the X-RateLimit headers; throws 429
 * over a limit, 401 without a valid key (`requireKey`).
 */
export async function planLimitedApiKey(
  ctx: Context,
  client: Client,
  deps: Deps,
  requireKey = true,
  budget = apiBudgetOf(ctx.method),
): Promise<Identity | undefined> {
  const key = presentedApiKey(ctx);
  const hash = key && /^svc_(test|live)_[A-Za-z0-9_-]{8,200}$/.test(key) ? hashToken(key) : null;
  const r = await authenticateApiRequest(
    client,
    hash,
    ctx.ip,
    { limit: deps.cfg.RATE_LIMIT_V1_PER_WINDOW, windowSeconds: deps.cfg.RATE_LIMIT_WINDOW_SECONDS },
    budget === 'read' ? deps.cfg.RATE_LIMIT_API_READS_PER_WINDOW : null,
  );
  ctx.set('X-RateLimit-Limit', String(r.lim));
  ctx.set('X-RateLimit-Remaining', String(r.remaining));
  ctx.set('X-RateLimit-Reset', String(r.reset_at));
  if (!r.allowed) {
    const retry = Math.max(1, Number(r.reset_at) - Math.floor(Date.now() / 1000));
    throw tooManyRequests(
      `rate limit exceeded: ${r.lim} ${!r.agency_id ? 'requests per window without a valid API key' : budget === 'read' ? 'reads per window' : 'document submissions per plan window'}; retry after ${retry} s`,
      { headers: { 'Retry-After': String(retry) }, code: 'rate_limited' },
    );
  }
  if (!r.api_key_id) {
    if (!requireKey) return undefined;
    throw unauthorized(key ? 'invalid, expired or revoked API key' : 'missing API key: send it in the X-API-Key header');
  }
  return { role: r.permissions === 'admin' ? 'admin' : 'read_only', agencyId: r.agency_id, mode: r.mode, apiKeyId: r.api_key_id };
}

/** For paths under /api that no route answered: count the request as a read (it submits nothing), then 404 in the §7.2 body. */
export function apiFallback(deps: Deps) {
  return async (ctx: Context) => {
    if (!(ctx.path === '/api' || ctx.path.startsWith('/api/')) || ctx.body !== undefined) return;
    const client = await deps.db.request.connect();
    try {
      await planLimitedApiKey(ctx, client, deps, false, 'read');
    } finally {
      client.release();
    }
    if (ctx.status === 405) throw methodNotAllowed(`${ctx.method} is not allowed on ${ctx.path}`);
    throw noRoute(ctx.method, ctx.path);
  };
}
