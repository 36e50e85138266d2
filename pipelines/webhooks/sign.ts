// Signatures of webhook deliveries: `x-signature` (SPEC §5) and the Standard Webhooks headers
// (https://www.standardwebhooks.com/) so receivers can also reject replays by timestamp.
import { createHmac, createSecretKey, randomBytes, timingSafeEqual, type KeyObject } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';
/** Receivers should reject Standard Webhooks timestamps further than this from their clock. */
export const DEFAULT_TOLERANCE_SECONDS = 5 * 60;

/** A new signing secret: `whsec_` + base64 of 32 random bytes (the Standard Webhooks format). */
export function newSigningSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64');
}

// The HMAC keys of recently used secrets, so signing a delivery does not convert (or base64-decode) its endpoint's
// secret again. Bounded: cleared when it holds this many.
const keyCache = new Map<string, { body: KeyObject; standard: KeyObject }>();
const KEY_CACHE_SIZE = 1000;

function signingKeys(secret: string): { body: KeyObject; standard: KeyObject } {
  let keys = keyCache.get(secret);
  if (!keys) {
    keys = { body: createSecretKey(Buffer.from(secret, 'utf8')), standard: createSecretKey(standardWebhookKey(secret)) };
    if (keyCache.size >= KEY_CACHE_SIZE) keyCache.clear();
    keyCache.set(secret, keys);
  }
  return keys;
}

/** Lowercase hex HMAC-SHA256 of the exact body bytes, keyed with the whole secret string as UTF-8 (`x-signature`). */
export function signBody(secret: string, body: Buffer | string): string {
  return createHmac('sha256', signingKeys(secret).body).update(body).digest('hex');
}

/** The Standard Webhooks HMAC key: the base64-decoded part after `whsec_`, or the UTF-8 bytes of any other secret. */
export function standardWebhookKey(secret: string): Buffer {
  return secret.startsWith(SECRET_PREFIX) ? Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64') : Buffer.from(secret, 'utf8');
}

export type StandardWebhookHeaders = {
  'webhook-id': string;
  'webhook-timestamp': string;
  'webhook-signature': string;
};

/** `webhook-id`, `webhook-timestamp` (unix seconds) and `webhook-signature` (`v1,<base64 HMAC of "id.timestamp.body">`). */
export function standardWebhookHeaders(input: { id: string; timestamp: number; body: Buffer | string; secret: string }): StandardWebhookHeaders {
  const timestamp = String(Math.floor(input.timestamp));
  return {
    'webhook-id': input.id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${standardSignature(input.secret, input.id, timestamp, input.body)}`,
  };
}

function standardSignature(secret: string, id: string, timestamp: string, body: Buffer | string): string {
  return createHmac('sha256', signingKeys(secret).standard).update(`${id}.${timestamp}.`).update(body).digest('base64');
}

/** Constant-time check of an `x-signature` header against the raw body (for receivers and tests). */
export function verifySignature(secret: string, rawBody: Buffer | string, header: string | undefined | null): boolean {
  if (typeof header !== 'string' || !/^[0-9a-fA-F]{64}$/.test(header.trim())) return false;
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(header.trim(), 'hex'));
}

/**
 * Constant-time check of Standard Webhooks headers: one of the space-separated `v1,` signatures must match
 * and the timestamp must be within `toleranceSeconds` of `nowSeconds`.
 */
export function verifyStandardWebhook(input: {
  secret: string;
  rawBody: Buffer | string;
  headers: Record<string, string | string[] | undefined>;
  toleranceSeconds?: number;
  nowSeconds?: number;
}): { ok: true } | { ok: false; reason: 'missing_headers' | 'timestamp' | 'signature' } {
  const one = (name: string) => {
    const v = input.headers[name];
    return Array.isArray(v) ? v[0] : v;
  };
  const id = one('webhook-id');
  const timestamp = one('webhook-timestamp');
  const signatures = one('webhook-signature');
  if (!id || !timestamp || !signatures || !/^\d+$/.test(timestamp)) return { ok: false, reason: 'missing_headers' };
  const now = input.nowSeconds ?? Math.floor(Date.now() / 1000);
  if (Math.abs(now - Number(timestamp)) > (input.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS)) {
    return { ok: false, reason: 'timestamp' };
  }
  const expected = Buffer.from(standardSignature(input.secret, id, timestamp, input.rawBody), 'base64');
  for (const entry of signatures.split(' ')) {
    const [version, value] = entry.split(',', 2);
    if (version !== 'v1' || !value) continue;
    const given = Buffer.from(value, 'base64');
    if (given.length === expected.length && timingSafeEqual(given, expected)) return { ok: true };
  }
  return { ok: false, reason: 'signature' };
}
