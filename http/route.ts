// Routes are declared once (method, path, auth, zod schemas, handler); the same declaration mounts the
// Koa route with auth → validate → one transaction → present, and feeds the OpenAPI document.
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import { koaBody } from 'koa-body';
import type pg from 'pg';
import { z } from 'zod';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/log.ts';
import type { BlobStore } from '../lib/blobs.ts';
import { MAX_JSON_DEPTH, nestingExceeds } from '../lib/json.ts';
import { hashToken } from '../lib/secrets.ts';
import { setIdentity, type Database, type Identity } from '../db/pool.ts';
import { ApiError, forbidden, unauthorized, zodDetails } from './errors.ts';
import { idempotency } from './idempotency.ts';

export interface Deps {
  db: Database;
  cfg: Config;
  log: Logger;
  blobs: BlobStore;
  /** Encrypts webhook signing secrets and endpoint credentials at rest (lib/crypto.ts). */
  secretKey: Buffer;
}

/**
 * Who may call a route: an OAuth client token, an agent token (any role, or admin/owner), an API key
 * (any, or admin permissions: read-only keys get 403), or anyone.
 */
export type AuthRule = 'none' | 'oauth_client' | 'agent' | 'agent_admin' | 'api_key' | 'api_key_admin';

export interface UploadedFile {
  field: string;
  filepath: string;
  size: number;
  mimetype: string | null;
  originalFilename: string | null;
}

export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  files: Record<string, UploadedFile | undefined>;
}

export interface RouteSpec<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  operationId: string;
  summary: string;
  tags: string[];
  auth: AuthRule;
  params?: P;
  query?: Q;
  body?: B;
  /** Accept multipart/form-data with these file fields (fields other than files are validated by `body`). */
  files?: Record<string, { description: string; required?: boolean }>;
  /** Also accept a body as application/x-www-form-urlencoded. */
  urlencoded?: boolean;
  /** Rate-limit bucket prefix and limit; v1 routes are limited per token. */
  rateLimit?: 'v1';
  /**
   * Require an Idempotency-Key and replay the stored response of a repeated request (SPEC §8); 'sealed'
   * stores that response encrypted because it carries a secret.
   */
  idempotent?: boolean | 'sealed';
  /** Schema shown in OpenAPI when the handler validates the body itself (richer than `body`). */
  docBody?: z.ZodType;
  responses: Record<number, { description: string; schema?: z.ZodType; headers?: string[] }>;
  handler: (ctx: Context, input: RouteInput<z.infer<P>, z.infer<Q>, z.infer<B>>, deps: Deps) => Promise<void>;
}

/** Declare a route (a typed identity function; registration happens in `mountRoutes`). */
export function route<P extends z.ZodType = z.ZodObject<{}>, Q extends z.ZodType = z.ZodObject<{}>, B extends z.ZodType = z.ZodUnknown>(
  spec: RouteSpec<P, Q, B>,
): RouteSpec {
  return spec as unknown as RouteSpec;
}

/** The transaction of the current request, opened by the auth step as the caller's identity. */
export function tx(ctx: Context): pg.PoolClient {
  const client = ctx.state.tx as pg.PoolClient | undefined;
  if (!client) throw new Error('no request transaction: the route must declare auth');
  return client;
}

export function identity(ctx: Context): Identity {
  return ctx.state.identity as Identity;
}

const bearer = /^Bearer\s+([A-Za-z0-9._~+/=-]+)\s*$/i;

type Queryable = Pick<pg.PoolClient, 'query'>;

/** The identity behind an API key (svc_test_… / svc_live_…), checked against the route's rule. */
async function apiKeyIdentity(client: Queryable, tokenHash: Buffer, rule: AuthRule): Promise<Identity> {
  const { rows } = await client.query<{ api_key_id: number; agency_id: number; mode: 'test' | 'live'; permissions: 'admin' | 'read_only' }>({
    name: 'svc_auth_api_key',
    text: 'select * from app_private.authenticate_api_key($1)',
    values: [tokenHash],
  });
  const key = rows[0];
  if (!key) throw unauthorized('invalid, expired or revoked API key');
  if (rule === 'api_key_admin' && key.permissions !== 'admin') throw forbidden('this API key is read-only; writes need a key with admin permissions');
  return { role: key.permissions === 'admin' ? 'admin' : 'read_only', agencyId: key.agency_id, mode: key.mode, apiKeyId: key.api_key_id };
}

/** The identity behind an OAuth or agent token; v1 routes also spend one unit of the token's rate budget. */
async function bearerIdentity(ctx: Context, client: Queryable, tokenHash: Buffer, rule: AuthRule, deps: Deps, rateLimit?: 'v1'): Promise<Identity> {
  // One autocommit statement authenticates and spends one unit of the budget, so refused and failed
  // requests count too.
  const limit = deps.cfg.RATE_LIMIT_V1_PER_WINDOW;
  const { rows } = await client.query<{ kind: string; oauth_client_id: number | null; agency_id: number | null; agent_id: number | null; role: Identity['role']; allowed: boolean | null; remaining: number | null; reset_at: string | null }>({
    name: rateLimit ? 'svc_auth_bearer_limited' : 'svc_auth_bearer',
    text: rateLimit
      ? `select a.*, r.* from app_private.authenticate_bearer($1) a cross join lateral app_private.consume_rate_limit('v1:' || encode($1, 'hex'), $2, $3) r`
      : `select a.*, null::boolean as allowed, null::int as remaining, null::bigint as reset_at from app_private.authenticate_bearer($1) a where $2::int is not null and $3::int is not null`,
    values: [tokenHash, limit, deps.cfg.RATE_LIMIT_WINDOW_SECONDS],
  });
  const who = rows[0];
  if (!who) throw unauthorized('invalid, expired or revoked access token');
  if (rateLimit) {
    ctx.set('X-RateLimit-Limit', String(limit));
    ctx.set('X-RateLimit-Remaining', String(who.remaining));
    ctx.set('X-RateLimit-Reset', String(who.reset_at));
    if (!who.allowed) {
      const retry = Math.max(1, Number(who.reset_at) - Math.floor(Date.now() / 1000));
      throw new ApiError(429, 'rate limit exceeded', [], { 'Retry-After': String(retry) });
    }
  }
  if (rule === 'oauth_client' && who.kind !== 'oauth_client') throw forbidden('this operation requires an OAuth client access token');
  if ((rule === 'agent' || rule === 'agent_admin') && who.kind !== 'agent') throw forbidden('this operation requires an agent access token');
  if (rule === 'agent_admin' && who.role !== 'admin' && who.role !== 'owner') throw forbidden('this operation requires admin privileges in the agency');
  return { role: who.role, oauthClientId: who.oauth_client_id, agencyId: who.agency_id, agentId: who.agent_id };
}

/** auth → rate limit → one transaction as the caller, committed after the handler, rolled back on error. */
function authenticated(rule: Exclude<AuthRule, 'none'>, deps: Deps, rateLimit?: 'v1') {
  const wantsApiKey = rule === 'api_key' || rule === 'api_key_admin';
  return async (ctx: Context, next: Next) => {
    const m = bearer.exec(ctx.get('authorization'));
    if (!m) throw unauthorized('missing bearer token in the Authorization header');
    const isApiKey = /^svc_(test|live)_/.test(m[1]);
    if (wantsApiKey !== isApiKey) {
      throw isApiKey ? forbidden('this operation requires an OAuth client or agent access token, not an API key') : unauthorized('this operation requires an API key (svc_test_… or svc_live_…)');
    }
    const tokenHash = hashToken(m[1]);
    const client = await deps.db.request.connect();
    let open = false;
    try {
      const ident = isApiKey ? await apiKeyIdentity(client, tokenHash, rule) : await bearerIdentity(ctx, client, tokenHash, rule, deps, rateLimit);
      ctx.state.identity = ident;
      await client.query('begin');
      open = true;
      await setIdentity(deps.db, client, ident);
      ctx.state.tx = client;
      await next();
      await client.query('commit');
      open = false;
    } catch (err) {
      if (open) await client.query('rollback').catch(() => {});
      throw err;
    } finally {
      ctx.state.tx = undefined;
      client.release();
    }
  };
}

/** A body that could not be read (bad gzip/deflate, an unknown Content-Encoding, too large) as a client error. */
function unreadableBody(err: Error & { status?: number; type?: string }): never {
  if (err.status === 413) throw new ApiError(413, 'request body too large', [], {}, 'payload_too_large');
  if (err.status === 415 || err.type === 'encoding.unsupported') throw new ApiError(415, `unsupported Content-Encoding or content type: ${err.message}`, [], {}, 'unsupported_media_type');
  if (err.status && err.status < 500 && err.type === 'entity.parse.failed') throw new ApiError(400, `invalid request body: ${err.message}`, [], {}, 'bad_request');
  // zlib errors (a body that says gzip or deflate and is not), and anything else the reader refused.
  throw new ApiError(400, `the request body could not be read: ${err.message}`, [], {}, 'bad_request');
}

/** Refuse bodies nested deeper than any real document, before anything hashes, canonicalises or stores them. */
async function depthLimited(ctx: Context, next: Next) {
  if (nestingExceeds((ctx.request as { body?: unknown }).body)) {
    throw new ApiError(400, `the request body is nested more than ${MAX_JSON_DEPTH} levels deep`, [], {}, 'bad_request');
  }
  await next();
}

/** Parse the body: JSON always; multipart (files into a per-request temp dir removed afterwards) when declared. */
function bodyParser(spec: RouteSpec, deps: Deps) {
  const parseJson = koaBody({ json: true, urlencoded: !!spec.urlencoded || !!spec.files, multipart: false, jsonLimit: '1mb', formLimit: '1mb', jsonStrict: true, onError: unreadableBody });
  const json = (ctx: Context, next: Next) => parseJson(ctx, () => depthLimited(ctx, next));
  if (!spec.files) return json;
  return async (ctx: Context, next: Next) => {
    if (!ctx.is('multipart')) return json(ctx, next);
    const dir = await mkdtemp(path.join(deps.cfg.tmpDir, 'svc-upload-'));
    // Which file field came twice, so the refusal can say so instead of blaming a size limit.
    const seen = new Map<string, number>();
    let repeated: string | undefined;
    try {
      const multipart = koaBody({
        multipart: true,
        json: false,
        formidable: {
          uploadDir: dir,
          maxFileSize: deps.cfg.MAX_UPLOAD_BYTES,
          maxTotalFileSize: deps.cfg.MAX_UPLOAD_BYTES * Math.max(1, Object.keys(spec.files ?? {}).length),
          maxFiles: Object.keys(spec.files ?? {}).length,
          maxFieldsSize: 1024 * 1024,
          allowEmptyFiles: false,
          keepExtensions: false,
          onFileBegin: (name: string) => {
            const n = (seen.get(name) ?? 0) + 1;
            seen.set(name, n);
            if (n > 1) repeated ??= name;
          },
        },
        onError: (err) => {
          // formidable's error codes (FormidableError): 1006 text fields too large, 1015 too many files,
          // 1009/1016 a file too large.
          const code = (err as { code?: number }).code;
          if (repeated) throw new ApiError(400, `send one file in ${repeated}`, [{ field: repeated, message: 'only one file allowed; the part was repeated' }], {}, 'bad_request');
          if (code === 1015) throw new ApiError(400, 'too many file parts: send each file field once', [], {}, 'bad_request');
          if (code === 1006 || code === 1007) throw new ApiError(400, 'a text field is too large (text fields are limited to 1 MB in all; only files may be larger)', [], {}, 'bad_request');
          if (code === 1009 || code === 1016 || /maxFileSize|maxTotalFileSize/.test(err.message)) {
            throw new ApiError(413, `a file exceeds the ${deps.cfg.MAX_UPLOAD_BYTES} byte limit`, [], {}, 'payload_too_large');
          }
          throw new ApiError(400, `invalid multipart body: ${err.message}`, [], {}, 'bad_request');
        },
      });
      await multipart(ctx, async () => {});
      if (repeated) throw new ApiError(400, `send one file in ${repeated}`, [{ field: repeated, message: 'only one file allowed; the part was repeated' }], {}, 'bad_request');
      await next();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
}

function collectFiles(ctx: Context, spec: RouteSpec): Record<string, UploadedFile | undefined> {
  const out: Record<string, UploadedFile | undefined> = {};
  const files = (ctx.request as { files?: Record<string, unknown> }).files ?? {};
  for (const [field, value] of Object.entries(files)) {
    if (!spec.files?.[field]) throw new ApiError(400, `unexpected file field ${field}`, [{ field, message: 'is not a file field of this operation' }]);
    const f = (Array.isArray(value) ? value : [value]) as Array<{ filepath: string; size: number; mimetype: string | null; originalFilename: string | null }>;
    if (f.length > 1) throw new ApiError(400, `send one file in ${field}`, [{ field, message: 'only one file allowed' }]);
    out[field] = { field, filepath: f[0].filepath, size: f[0].size, mimetype: f[0].mimetype, originalFilename: f[0].originalFilename };
  }
  for (const [field, def] of Object.entries(spec.files ?? {})) {
    if (def.required && !out[field]) throw new ApiError(400, `${field} file is required`, [{ field, message: 'is required' }]);
  }
  return out;
}

function parse<T extends z.ZodType>(schema: T | undefined, value: unknown, status: number, where: string): z.infer<T> {
  if (!schema) return {} as z.infer<T>;
  let r: z.ZodSafeParseResult<z.infer<T>>;
  try {
    r = schema.safeParse(value) as z.ZodSafeParseResult<z.infer<T>>;
  } catch (err) {
    // A refinement that throws on input it did not expect is still the input's fault, never a 500.
    throw new ApiError(status, `invalid ${where}`, [{ message: (err as Error).message }]);
  }
  if (!r.success) throw new ApiError(status, `invalid ${where}`, zodDetails(r.error));
  return r.data;
}

/** Mount every declared route on `router`. */
export function mountRoutes(router: Router, specs: RouteSpec[], deps: Deps): void {
  for (const spec of specs) {
    const chain: Array<(ctx: Context, next: Next) => Promise<unknown>> = [];
    if (spec.auth !== 'none') chain.push(authenticated(spec.auth, deps, spec.rateLimit));
    if (spec.body || spec.files || spec.docBody) chain.push(bodyParser(spec, deps));
    if (spec.idempotent) chain.push(idempotency(deps, spec.idempotent === 'sealed'));
    chain.push(async (ctx) => {
      const files = spec.files ? collectFiles(ctx, spec) : {};
      const input = {
        params: parse(spec.params, ctx.params, 400, 'path parameter'),
        query: parse(spec.query, ctx.query, 400, 'query parameters'),
        body: spec.body ? parse(spec.body, (ctx.request as { body?: unknown }).body ?? {}, 422, 'request body') : (ctx.request as { body?: unknown }).body ?? {},
        files,
      };
      await spec.handler(ctx, input, deps);
    });
    (router[spec.method] as (path: string, ...mw: unknown[]) => unknown).call(router, spec.path, ...chain);
  }
}
