// Signed, expiring links to stored files: an HMAC-SHA256 over the path, the expiry and the download name,
// checked in constant time. A link works without credentials until it expires; nothing is stored per link,
// so a link stops working when its expiry passes or its file is removed from the blob store.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** The key that signs file links, derived from the service's secret key so it never signs anything else. */
export function fileLinkKey(secretKey: Buffer): Buffer {
  return createHmac('sha256', secretKey).update('svc file links v1').digest();
}

function mac(key: Buffer, blobKey: string, expires: number, filename: string): Buffer {
  return createHmac('sha256', key).update(`${blobKey}\n${expires}\n${filename}`).digest();
}

export interface SignedLink {
  url: string;
  /** Unix seconds after which the link is refused. */
  expires: number;
  expiresAt: string;
}

export interface SignLinkOptions {
  /** Base URL of the host that serves files (Config.filesUrl). */
  baseUrl: string;
  key: Buffer;
  /** Blob store key of the file. */
  blobKey: string;
  /** Name offered to the browser when downloading. */
  filename?: string;
  ttlSeconds: number;
  now?: number;
}

/** A URL of `GET /files/<blobKey>` that is valid for `ttlSeconds`. */
export function signFileLink(o: SignLinkOptions): SignedLink {
  const expires = Math.floor((o.now ?? Date.now()) / 1000) + o.ttlSeconds;
  const filename = o.filename ?? '';
  const sig = mac(o.key, o.blobKey, expires, filename).toString('base64url');
  const q = new URLSearchParams({ expires: String(expires), ...(filename ? { filename } : {}), signature: sig });
  const path = o.blobKey.split('/').map(encodeURIComponent).join('/');
  return { url: `${o.baseUrl.replace(/\/+$/, '')}/files/${path}?${q}`, expires, expiresAt: new Date(expires * 1000).toISOString() };
}

export type LinkCheck = 'ok' | 'expired' | 'invalid';

/** Check a presented link's signature (constant time) and expiry. */
export function checkFileLink(key: Buffer, blobKey: string, expires: string | undefined, filename: string | undefined, signature: string | undefined, now = Date.now()): LinkCheck {
  if (!expires || !/^\d{1,12}$/.test(expires) || !signature || !/^[A-Za-z0-9_-]{43}$/.test(signature)) return 'invalid';
  const expected = mac(key, blobKey, Number(expires), filename ?? '');
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'invalid';
  return Number(expires) * 1000 < now ? 'expired' : 'ok';
}
