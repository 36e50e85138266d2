// Opaque credentials: random, prefixed by kind, stored only as SHA-256 hashes. Every credential prefix the
// service issues or recognises is named here and nowhere else.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

/** The prefix of each kind of credential; a prefix tells an operator what a leaked string is. */
export const tokenPrefix = {
  oauthClientId: 'oc_',
  oauthClientSecret: 'ocs_',
  oauthAccessToken: 'oat_',
  agentToken: 'agt_',
  apiKey: (mode: 'test' | 'live') => `svc_${mode}_`,
} as const;

/** Whether a bearer credential is an API key (svc_test_… or svc_live_…) rather than an OAuth or agent token. */
export function isApiKeyToken(token: string): boolean {
  return token.startsWith(tokenPrefix.apiKey('test')) || token.startsWith(tokenPrefix.apiKey('live'));
}

/** A new random credential such as `agt_3kD…`, 256 bits of entropy. */
export function newToken(prefix: string, bytes = 32): string {
  return `${prefix}${randomBytes(bytes).toString('base64url')}`;
}

/** SHA-256 of a credential, the only form in which it is stored. */
export function hashToken(token: string): Buffer {
  return createHash('sha256').update(token, 'utf8').digest();
}

/** Constant-time comparison of a presented credential with a stored hash. */
export function tokenMatches(presented: string, storedHash: Buffer): boolean {
  const h = hashToken(presented);
  return h.length === storedHash.length && timingSafeEqual(h, storedHash);
}

/** A new API key for `mode`, with the parts stored beside its hash (a display prefix and the last four). */
export function newApiKey(mode: 'test' | 'live'): { key: string; hash: Buffer; prefix: string; lastFour: string } {
  const p = tokenPrefix.apiKey(mode);
  const key = newToken(p, 30);
  return { key, hash: hashToken(key), prefix: key.slice(0, p.length + 4), lastFour: key.slice(-4) };
}
