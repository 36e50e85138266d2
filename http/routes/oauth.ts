// POST /oauth/token: OAuth 2.0 client credentials (RFC 6749 §4.4), errors as §5.2.
import { consumeRateLimit, issueAccessToken, verifyOAuthClient } from '../../db/queries/oauth.ts';
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
    body: issueTokenBody,
    urlencoded: true,
    responses: {
      200: { description: 'Access token', schema: issueTokenResponse, headers: ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'] },
      400: { description: 'invalid_request or unsupported_grant_type', schema: oauthError },
      401: { description: 'invalid_client', schema: oauthError },
      429: { description: 'More than 10 token requests a minute for this client', schema: oauthError },
    },
    handler: async (ctx, { body }, { db, cfg }) => {
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
      const rl = await consumeRateLimit(db.owner, `oauth:${clientId}`, limit, cfg.RATE_LIMIT_WINDOW_SECONDS);
      const rlHeaders = { 'X-RateLimit-Limit': String(limit), 'X-RateLimit-Remaining': String(rl.remaining), 'X-RateLimit-Reset': String(rl.resetAt) };
      if (!rl.allowed) {
        const retry = String(Math.max(1, rl.resetAt - Math.floor(Date.now() / 1000)));
        throw oauthFail(429, 'rate_limited', 'too many token requests for this client; retry later', { ...rlHeaders, 'Retry-After': retry });
      }
      ctx.set(rlHeaders);
      const oauthClientId = await verifyOAuthClient(db.owner, clientId, secret);
      if (!oauthClientId) {
        throw oauthFail(401, 'invalid_client', 'client authentication failed', basic ? { 'WWW-Authenticate': 'Basic realm="oauth"' } : {});
      }
      const token = await issueAccessToken(db.owner, oauthClientId, cfg.OAUTH_TOKEN_TTL_SECONDS);
      ctx.set('Cache-Control', 'no-store');
      ctx.set('Pragma', 'no-cache');
      ctx.body = { access_token: token, token_type: 'bearer', expires_in: cfg.OAUTH_TOKEN_TTL_SECONDS };
    },
  }),
];
