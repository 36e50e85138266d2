// Routes are declared once (method, path, auth, zod schemas, handler); the same declaration mounts the
// Koa route with auth → body → idempotency → validate → handler, and feeds the OpenAPI document.
// Auth lives in auth.ts, body parsing in body.ts, the request's transaction and identity in context.ts;
// they are re-exported here so a route file imports from one place.
import type Router from '@koa/router';
import type { Context, Next } from 'koa';
import type { z } from 'zod';
import { authenticated, isDashboardRule, type AuthRule } from './auth.ts';
import { bodyParser, collectFiles, parseInput, type RouteInput } from './body.ts';
import { identity, type Deps } from './context.ts';
import { withSession, type Mode } from './dashboard.ts';
import { forbidden } from './errors.ts';
import { idempotency } from './idempotency.ts';
import { v1Errors } from './schemas/common.ts';
import { apiErrors } from './schemas/extractions.ts';

export type { AuthRule } from './auth.ts';
export type { RouteInput, UploadedFile } from './body.ts';
export { identity, tx, type Deps } from './context.ts';

export interface RouteSpec<P extends z.ZodType = z.ZodType, Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> {
  method: 'get' | 'post' | 'put' | 'patch' | 'delete';
  path: string;
  operationId: string;
  summary: string;
  tags: string[];
  /** Who may call it (http/auth.ts); a dashboard rule ('dashboard', 'dashboard_admin') needs a `mode` path parameter. */
  auth: AuthRule;
  /**
   * Whether the route changes anything (default: every method but GET). A read-only API key gets 403 on every write
   * route, whatever its auth rule, before its body is read.
   */
  writes?: boolean;
  params?: P;
  query?: Q;
  body?: B;
  /** Accept multipart/form-data with these file fields (fields other than files are validated by `body`). */
  files?: Record<string, { description: string; required?: boolean }>;
  /** Also accept a body as application/x-www-form-urlencoded. */
  urlencoded?: boolean;
  /** Rate-limit bucket prefix and limit; v1 routes are limited per token. */
  rateLimit?: 'v1' | 'plan';
  /**
   * Require an Idempotency-Key and replay the stored response of a repeated request (SPEC §8); 'sealed'
   * stores that response encrypted because it carries a secret.
   */
  idempotent?: boolean | 'sealed';
  /**
   * Decide whether the caller may touch the resource the path (or the raw body) names, before the body is
   * validated: another agency's resource answers 404/403 whatever the body, never a validation error first.
   */
  authorize?: (ctx: Context, input: { params: z.infer<P>; body: unknown }) => Promise<void>;
  /**
   * The status of a body that fails `body`: 422 (default), or 400 `bad_request` where the surface's SPEC says so (the
   * /api multipart uploads); the message then names each bad field.
   */
  bodyStatus?: 400 | 422;
  /** Schema shown in OpenAPI instead of `body` (the documented shape when `body` adds parsing, e.g. multipartFields). */
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

/**
 * Declare a /v1 route of an authenticated caller: its token's v1 rate budget is spent on every call, so the route
 * also answers 429 (in the v1 error shape), whatever else it declares.
 */
export function v1Route<P extends z.ZodType = z.ZodObject<{}>, Q extends z.ZodType = z.ZodObject<{}>, B extends z.ZodType = z.ZodUnknown>(
  spec: Omit<RouteSpec<P, Q, B>, 'rateLimit'>,
): RouteSpec {
  return route<P, Q, B>({ ...spec, rateLimit: 'v1', responses: { ...spec.responses, ...v1Errors(429) } });
}

/**
 * Declare an /api route (SPEC §7): an API key in X-API-Key spends its agency's plan budget on every call, so the
 * route also answers 429 (in the /api error shape), whatever else it declares.
 */
export function apiRoute<P extends z.ZodType = z.ZodObject<{}>, Q extends z.ZodType = z.ZodObject<{}>, B extends z.ZodType = z.ZodUnknown>(
  spec: Omit<RouteSpec<P, Q, B>, 'auth' | 'rateLimit'>,
): RouteSpec {
  return route<P, Q, B>({ ...spec, auth: 'api_key_header', rateLimit: 'plan', responses: { ...spec.responses, ...apiErrors(429) } });
}

/** Whether a route writes: declared, or every method but GET. */
export function isWrite(spec: Pick<RouteSpec, 'method' | 'writes'>): boolean {
  return spec.writes ?? spec.method !== 'get';
}

/** A read-only API key may call read routes only (README: read-only keys get 403 on every write). */
async function refuseReadOnly(ctx: Context, next: Next): Promise<void> {
  if (identity(ctx).role === 'read_only') throw forbidden('this API key is read-only; writes need a key with admin permissions');
  await next();
}

/** Mount every declared route on `router`. */
export function mountRoutes(router: Router, specs: RouteSpec[], deps: Deps): void {
  for (const spec of specs) {
    const chain: Array<(ctx: Context, next: Next) => Promise<unknown>> = [];
    const rule = spec.auth;
    if (rule !== 'none' && !isDashboardRule(rule)) {
      chain.push(authenticated(rule, deps, spec.rateLimit));
      if (isWrite(spec)) chain.push(refuseReadOnly);
    }
    if (spec.body || spec.files || spec.docBody) chain.push(bodyParser(spec, deps));
    if (spec.idempotent) chain.push(idempotency(deps, spec.idempotent === 'sealed'));
    chain.push(async (ctx) => {
      const params = parseInput(spec.params, ctx.params, 400, 'path parameter');
      if (spec.authorize) await spec.authorize(ctx, { params, body: (ctx.request as { body?: unknown }).body });
      const files = spec.files ? collectFiles(ctx, spec) : {};
      const input = {
        params,
        query: parseInput(spec.query, ctx.query, 400, 'query parameters'),
        body: spec.body
          ? parseInput(spec.body, (ctx.request as { body?: unknown }).body ?? {}, spec.bodyStatus ?? 422, 'request body', spec.bodyStatus === 400)
          : ((ctx.request as { body?: unknown }).body ?? {}),
        files,
      };
      // A dashboard page checks its session after its input, so a bad link is a 400 page whoever opens it.
      if (isDashboardRule(rule)) {
        await withSession(ctx, deps, (params as { mode: Mode }).mode, rule === 'dashboard_admin', () => spec.handler(ctx, input, deps));
      } else await spec.handler(ctx, input, deps);
    });
    (router[spec.method] as (path: string, ...mw: unknown[]) => unknown).call(router, spec.path, ...chain);
  }
}
