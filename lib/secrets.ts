// Opaque credentials: random, prefixed by kind, stored only as SHA-256 hashes.
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';

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
