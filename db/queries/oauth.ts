// OAuth clients and access tokens: the owner pool does this work (there is no tenant identity yet).
import type pg from 'pg';
import { hashToken, newToken, tokenMatches, tokenPrefix } from '../../lib/secrets.ts';

const DUMMY_HASH = hashToken('no such client');

/** Create a client; the secret is returned once and stored only as a hash. */
export async function createOAuthClient(pool: pg.Pool, name: string): Promise<{ client_id: string; client_secret: string; name: string }> {
  const clientId = newToken(tokenPrefix.oauthClientId, 12);
  const secret = newToken(tokenPrefix.oauthClientSecret, 32);
  await pool.query('insert into app_private.oauth_clients (client_id, name, secret_hash) values ($1, $2, $3)', [clientId, name, hashToken(secret)]);
  return { client_id: clientId, client_secret: secret, name };
}

/** The active client named `clientId` (its id, or undefined when there is none) and whether `secret` is its secret. */
export async function checkOAuthClient(pool: pg.Pool, clientId: string, secret: string): Promise<{ id: number | undefined; ok: boolean }> {
  const { rows } = await pool.query<{ id: number; secret_hash: Buffer }>({
    name: 'svc_oauth_client',
    text: 'select id, secret_hash from app_private.oauth_clients where client_id = $1 and revoked_at is null',
    values: [clientId],
  });
  // Compare against a dummy hash when the client is unknown so both paths cost the same.
  const ok = tokenMatches(secret, rows[0]?.secret_hash ?? DUMMY_HASH);
  return { id: rows[0]?.id, ok: ok && !!rows[0] };
}

/** Issue an access token valid for `ttlSeconds`. */
export async function issueAccessToken(pool: pg.Pool, oauthClientId: number, ttlSeconds: number): Promise<string> {
  const token = newToken(tokenPrefix.oauthAccessToken, 32);
  await pool.query(`insert into app_private.oauth_access_tokens (token_hash, oauth_client_id, expires_at) values ($1, $2, now() + make_interval(secs => $3))`, [
    hashToken(token),
    oauthClientId,
    ttlSeconds,
  ]);
  return token;
}

/** Consume one hit of a rate-limit bucket. */
export async function consumeRateLimit(pool: pg.Pool | pg.ClientBase, bucket: string, limit: number, windowSeconds: number) {
  return rateLimitBucket(pool, 'consume_rate_limit', bucket, limit, windowSeconds);
}

/** Read a rate-limit bucket without spending a hit. */
export async function peekRateLimit(pool: pg.Pool | pg.ClientBase, bucket: string, limit: number, windowSeconds: number) {
  return rateLimitBucket(pool, 'peek_rate_limit', bucket, limit, windowSeconds);
}

/** A bucket's state as one of the two rate-limit functions (same arguments, same row) leaves it. */
async function rateLimitBucket(
  pool: pg.Pool | pg.ClientBase,
  fn: 'consume_rate_limit' | 'peek_rate_limit',
  bucket: string,
  limit: number,
  windowSeconds: number,
) {
  const { rows } = await pool.query<{ allowed: boolean; remaining: number; reset_at: string }>(`select * from app_private.${fn}($1, $2, $3)`, [
    bucket,
    limit,
    windowSeconds,
  ]);
  return { allowed: rows[0].allowed, remaining: rows[0].remaining, resetAt: Number(rows[0].reset_at) };
}
