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
export function checkFileLink(
  key: Buffer,
  blobKey: string,
  expires: string | undefined,
  filename: string | undefined,
  signature: string | undefined,
  now = Date.now(),
): LinkCheck {
  if (!expires || !/^\d{1,12}$/.test(expires) || !signature || !/^[A-Za-z0-9_-]{43}$/.test(signature)) return 'invalid';
  const expected = mac(key, blobKey, Number(expires), filename ?? '');
  const given = Buffer.from(signature, 'base64url');
  // The 43rd character carries 2 unused bits: only the canonical spelling of a signature is accepted.
  if (given.length !== expected.length || given.toString('base64url') !== signature || !timingSafeEqual(given, expected)) return 'invalid';
  return Number(expires) * 1000 < now ? 'expired' : 'ok';
}

// ---- hosted form links with correlation metadata -----------------------------------------------------

/** The key that signs hosted-form link context, separate from the file-link key. */
export function formLinkKey(secretKey: Buffer): Buffer {
  return createHmac('sha256', secretKey).update('svc form links v1').digest();
}

/** What a signed form link carries: the form, the agent it attributes to, the partner's metadata, the expiry. */
export interface FormLinkContext {
  form_id: number;
  agent_id: number;
  metadata: Record<string, unknown>;
  /** Unix seconds. */
  expires: number;
}

/** `<base64url JSON>.<base64url HMAC>`: metadata in a URL that cannot be changed without the key. */
export function signFormContext(key: Buffer, c: FormLinkContext): string {
  const body = Buffer.from(JSON.stringify({ f: c.form_id, a: c.agent_id, m: c.metadata, e: c.expires }), 'utf8').toString('base64url');
  return `${body}.${createHmac('sha256', key).update(body).digest('base64url')}`;
}

export type FormContextCheck = { ok: true; context: FormLinkContext } | { ok: false; reason: 'invalid' | 'expired' };

/** Verify a form link's context (constant-time signature check, then expiry). */
export function checkFormContext(key: Buffer, token: string, now = Date.now()): FormContextCheck {
  const m = /^([A-Za-z0-9_-]{1,8000})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return { ok: false, reason: 'invalid' };
  const expected = createHmac('sha256', key).update(m[1]).digest();
  const given = Buffer.from(m[2], 'base64url');
  if (given.length !== expected.length || given.toString('base64url') !== m[2] || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
  let raw: { f?: unknown; a?: unknown; m?: unknown; e?: unknown };
  try {
    raw = JSON.parse(Buffer.from(m[1], 'base64url').toString('utf8'));
  } catch {
    return { ok: false, reason: 'invalid' };
  }
  if (
    typeof raw.f !== 'number' ||
    typeof raw.a !== 'number' ||
    typeof raw.e !== 'number' ||
    typeof raw.m !== 'object' ||
    raw.m === null ||
    Array.isArray(raw.m)
  ) {
    return { ok: false, reason: 'invalid' };
  }
  if (raw.e * 1000 < now) return { ok: false, reason: 'expired' };
  return { ok: true, context: { form_id: raw.f, agent_id: raw.a, metadata: raw.m as Record<string, unknown>, expires: raw.e } };
}

// ---- compliance report links ------------------------------------------------------------------------

/** The key that signs report links, separate from file and form links. */
export function reportLinkKey(secretKey: Buffer): Buffer {
  return createHmac('sha256', secretKey).update('svc report links v1').digest();
}

/** `<link id>.<expires>.<base64url HMAC>`: a report link's token (the row makes it revocable, the MAC unguessable). */
export function signReportToken(key: Buffer, linkId: string, expires: number): string {
  return `${linkId}.${expires}.${createHmac('sha256', key).update(`${linkId}\n${expires}`).digest('base64url')}`;
}

export type ReportTokenCheck = { ok: true; linkId: string } | { ok: false; reason: 'invalid' | 'expired' };

/** Verify a report token (constant-time signature check, then the signed expiry). */
export function checkReportToken(key: Buffer, token: string, now = Date.now()): ReportTokenCheck {
  const m = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.(\d{1,12})\.([A-Za-z0-9_-]{43})$/.exec(token);
  if (!m) return { ok: false, reason: 'invalid' };
  const expected = createHmac('sha256', key).update(`${m[1]}\n${m[2]}`).digest();
  const given = Buffer.from(m[3], 'base64url');
  if (given.length !== expected.length || given.toString('base64url') !== m[3] || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
  if (Number(m[2]) * 1000 <= now) return { ok: false, reason: 'expired' };
  return { ok: true, linkId: m[1] };
}

// ---- hosted form resume links (drafts) ----------------------------------------------------------------

/** The key that signs resume links of saved hosted forms, separate from every other link key. */
export function formDraftKey(secretKey: Buffer): Buffer {
  return createHmac('sha256', secretKey).update('svc form drafts v1').digest();
}

/** What a resume link names: the draft, the form and agent it belongs to, and when it stops working. */
export interface DraftToken {
  draft_id: string;
  form_id: number;
  agent_id: number;
  /** Unix seconds. */
  expires: number;
}

const draftMac = (key: Buffer, t: DraftToken) => createHmac('sha256', key).update(`${t.draft_id}\n${t.form_id}\n${t.agent_id}\n${t.expires}`).digest();

/** `<draft id>.<form id>.<agent id>.<expires>.<base64url HMAC>`: the form and agent in clear, so a link opened elsewhere is told so. */
export function signDraftToken(key: Buffer, t: DraftToken): string {
  return `${t.draft_id}.${t.form_id}.${t.agent_id}.${t.expires}.${draftMac(key, t).toString('base64url')}`;
}

export type DraftTokenCheck = { ok: true; token: DraftToken } | { ok: false; reason: 'invalid' | 'expired' };

/** Verify a resume token (constant-time signature check, then the signed expiry). */
export function checkDraftToken(key: Buffer, token: string, now = Date.now()): DraftTokenCheck {
  const m = /^([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})\.([1-9]\d{0,14})\.([1-9]\d{0,14})\.([1-9]\d{0,11})\.([A-Za-z0-9_-]{43})$/.exec(
    token,
  );
  // (numbers in their one decimal spelling: a token is accepted only as it was signed)
  if (!m) return { ok: false, reason: 'invalid' };
  const t: DraftToken = { draft_id: m[1], form_id: Number(m[2]), agent_id: Number(m[3]), expires: Number(m[4]) };
  if (!Number.isSafeInteger(t.form_id) || !Number.isSafeInteger(t.agent_id)) return { ok: false, reason: 'invalid' };
  const expected = draftMac(key, t);
  const given = Buffer.from(m[5], 'base64url');
  if (given.length !== expected.length || given.toString('base64url') !== m[5] || !timingSafeEqual(given, expected)) return { ok: false, reason: 'invalid' };
  if (t.expires * 1000 <= now) return { ok: false, reason: 'expired' };
  return { ok: true, token: t };
}
