// Secrets the service must use again (webhook signing secrets, endpoint credentials) are encrypted at rest
// with AES-256-GCM; only hashes would do for secrets it merely checks (lib/secrets.ts).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

const KEY_BYTES = 32;
const IV_BYTES = 12;
const TAG_BYTES = 16;
const VERSION = 'v1';

/** A 32-byte key from its base64 (or base64url) text, e.g. a configuration variable; throws on any other length. */
export function parseKey(text: string): Buffer {
  const trimmed = text.trim();
  if (!/^[A-Za-z0-9+/_-]+={0,2}$/.test(trimmed)) throw new Error('encryption key must be base64 of 32 bytes');
  const key = Buffer.from(trimmed.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
  if (key.length !== KEY_BYTES) throw new Error(`encryption key must be 32 bytes, got ${key.length}`);
  return key;
}

/** The key stored in `file` (base64, mode 0600), created with 32 random bytes when the file does not exist. */
export function loadOrCreateKey(file: string): Buffer {
  try {
    return parseKey(readFileSync(file, 'utf8'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const key = randomBytes(KEY_BYTES);
  try {
    // 'wx' so two processes starting at once cannot overwrite each other's key.
    writeFileSync(file, key.toString('base64') + '\n', { mode: 0o600, flag: 'wx' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return parseKey(readFileSync(file, 'utf8'));
    throw err;
  }
  chmodSync(file, 0o600); // the umask may have narrowed the mode further; never wider
  return key;
}

/** `v1.<iv>.<tag>.<ciphertext>` (base64url parts): AES-256-GCM with a random 12-byte IV. */
export function encryptSecret(key: Buffer, plaintext: string): string {
  checkKey(key);
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  const tag = cipher.getAuthTag();
  return [VERSION, iv.toString('base64url'), tag.toString('base64url'), ciphertext.toString('base64url')].join('.');
}

/** The plaintext of an `encryptSecret` blob; throws when the blob was altered or the key is wrong. */
export function decryptSecret(key: Buffer, blob: string): string {
  checkKey(key);
  const parts = blob.split('.');
  if (parts.length !== 4 || parts[0] !== VERSION) throw new Error('not an encrypted secret of a known version');
  const [, ivText, tagText, ctText] = parts;
  const iv = Buffer.from(ivText, 'base64url');
  const tag = Buffer.from(tagText, 'base64url');
  if (iv.length !== IV_BYTES || tag.length !== TAG_BYTES) throw new Error('malformed encrypted secret');
  const decipher = createDecipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES });
  decipher.setAuthTag(tag);
  try {
    return Buffer.concat([decipher.update(Buffer.from(ctText, 'base64url')), decipher.final()]).toString('utf8');
  } catch {
    throw new Error('encrypted secret failed authentication (wrong key or altered)');
  }
}

function checkKey(key: Buffer): void {
  if (key.length !== KEY_BYTES) throw new Error('encryption key must be 32 bytes');
}
