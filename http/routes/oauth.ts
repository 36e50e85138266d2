// POST /oauth/token: OAuth 2.0 client credentials (RFC 6749 §4.4), errors as §5.2.
import { checkOAuthClient, consumeRateLimit, issueAccessToken, peekRateLimit } from '../../db/queries/oauth.ts';
import { ApiError } from '../errors.ts';
import { route } from '../route.ts';
import { oauthError, issueTokenBody, issueTokenResponse } from '../schemas/oauth.ts';

const oauthFail = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
  new ApiError(status, message, [], { 'Cache-Control': 'no-store', Pragma: 'no-cache', ...headers }, code);

function basicCredentials(header: string): { id: string; secret: string } | undefined {
  const m = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!m) return undefined;
  const decoded = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon < 0) return undefined;
  // RFC 6749 §2.3.1: both parts are form-urlencoded before base64.
  const dec = (s: string) => decodeURIComponent(s.replace(/\+/g, ' '));
  try {
    return { id: dec(decoded.slice(0, colon)), secret: dec(decoded.slice(colon + 1)) };
  } catch {
    return undefined;
  }
}

export const oauthRoutes = [
  route({
    method: 'post',
    path: '/oauth/token',
    operationId: 'issueToken',
    summary: 'Exchange client credentials for an access token',
    tags: ['OAuth'],
    auth: 'none',
    // Validated in the handler: a malformed request is 400 invalid_request (RFC 6749 §5.2), not a 422.
    docBody: issueTokenBody,
    urlencoded: true,
    responses: {
      200: { description: 'Access token', schema: issueTokenResponse, headers: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] },
      400: { description: 'invalid_request or unsupported_grant_type', schema: oauthError },
      401: { description: 'invalid_client', schema: oauthError },
      429: { description: 'More than 10 token requests a minute for this client, or 10 failed attempts from this address', schema: oauthError },
    },
    handler: async (ctx, input, { db, cfg }) => {
      const parsed = issueTokenBody.safeParse(input.body ?? {});
      if (!parsed.success) {
        const i = parsed.error.issues[0];
        throw oauthFail(400, 'invalid_request', `${i.path.join('.') || 'body'}: ${i.message}`);
      }
      const body = parsed.data;
      const authHeader = ctx.get('authorization');
      const basic = authHeader ? basicCredentials(authHeader) : undefined;
      if (authHeader && !basic) throw oauthFail(401, 'invalid_client', 'malformed HTTP Basic credentials', { 'WWW-Authenticate': 'Basic realm="oauth"' });
      if (basic && (body.client_id !== undefined || body.client_secret !== undefined)) {
        throw oauthFail(400, 'invalid_request', 'send client credentials either by HTTP Basic or in the body, not both');
      }
      if (!body.grant_type) throw oauthFail(400, 'invalid_request', 'grant_type is required');
      if (body.grant_type !== 'client_credentials') throw oauthFail(400, 'unsupported_grant_type', 'only grant_type=client_credentials is supported');
      const clientId = basic?.id ?? body.client_id;
      const secret = basic?.secret ?? body.client_secret;
      if (!clientId || !secret) throw oauthFail(400, 'invalid_request', 'client_id and client_secret are required');

      const limit = cfg.RATE_LIMIT_TOKEN_PER_WINDOW;
      const window = cfg.RATE_LIMIT_WINDOW_SECONDS;
      const headersOf = (rl: { remaining: number; resetAt: number }) => ({
        'X-RateLimit-Limit': String(limit),
        'X-RateLimit-Remaining': String(rl.remaining),
        'X-RateLimit-Reset': String(rl.resetAt),
      });
      const tooMany = (rl: { remaining: number; resetAt: number }, why: string) =>
        oauthFail(429, 'rate_limited', why, { ...headersOf(rl), 'Retry-After': String(Math.max(1, rl.resetAt - Math.floor(Date.now() / 1000))) });
      // Failed attempts are counted per source address and client, apart from the client's own budget, so
      // guessing secrets from elsewhere never locks the client out; unknown client ids leave no state at all.
      const check = await checkOAuthClient(db.owner, clientId, secret);
      const failBucket = check.id === undefined ? undefined : `oauth-fail:${check.id}:${ctx.ip}`;
      if (failBucket) {
        const failures = await peekRateLimit(db.owner, failBucket, limit, window);
        if (!failures.allowed) throw tooMany(failures, 'too many failed token requests for this client from this address; retry later');
      }
      if (!check.ok || check.id === undefined) {
        if (failBucket) await consumeRateLimit(db.owner, failBucket, limit, window);
        throw oauthFail(401, 'invalid_client', 'client authentication failed', basic ? { 'WWW-Authenticate': 'Basic realm="oauth"' } : {});
      }
      const oauthClientId = check.id;
      const rl = await consumeRateLimit(db.owner, `oauth:${oauthClientId}`, limit, window);
      if (!rl.allowed) throw tooMany(rl, 'too many token requests for this client; retry later');
      ctx.set(headersOf(rl));
      const token = await issueAccessToken(db.owner, oauthClientId, cfg.OAUTH_TOKEN_TTL_SECONDS);
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Pragma', 'no-cache');
      ctx.body = { access_token: token, token_type: 'bearer', expires_in: cfg.OAUTH_TOKEN_TTL_SECONDS };
    },
  }),
];
