// One error type for every surface, one middleware that maps it (and SQLSTATEs, and the five-character codes
// of db/ERROR_CODES.md) to a status and to the error body of the surface the request came in on.
import type { Context, Next } from 'koa';
import { z } from 'zod';
import type { Logger } from '../lib/log.ts';
import { DocumentError, type DocumentErrorCode } from '../pipelines/documents/errors.ts';

export interface ErrorDetail {
  field?: string;
  message: string;
}

export class ApiError extends Error {
  readonly status: number;
  readonly details: ErrorDetail[];
  readonly headers: Record<string, string>;
  /** Machine code for surfaces that carry one (OAuth `error`, /api `error`). */
  readonly code?: string;

  constructor(status: number, message: string, details: ErrorDetail[] = [], headers: Record<string, string> = {}, code?: string) {
    super(message);
    this.status = status;
    this.details = details;
    this.headers = headers;
    this.code = code;
  }
}

/**
 * What a named error may carry beyond its message: the bad fields (`[{ field, message }]` alone, or in `details`),
 * headers to send, and a machine code of its own. A code is shown by the surfaces that carry one (/api, /v2
 * problems, GraphQL); give one only where the answer must name it, since /api derives the code of a status.
 */
export type ErrorMore = ErrorDetail[] | { details?: ErrorDetail[]; headers?: Record<string, string>; code?: string };

/** The factory of the errors of one status: `badRequest('why', [{ field, message }])`. */
function named(status: number) {
  return (message: string, more: ErrorMore = []): ApiError => {
    const o = Array.isArray(more) ? { details: more } : more;
    return new ApiError(status, message, o.details, o.headers, o.code);
  };
}

export const badRequest = named(400);
export const unauthorized = (why = 'invalid or missing authentication', more?: ErrorMore) => named(401)(why, more);
export const forbidden = named(403);
/** `notFound('form')`: "form not found". */
export const notFound = (what: string, more?: ErrorMore) => named(404)(`${what} not found`, more);
/** A path no route answers. */
export const noRoute = (method: string, path: string) => named(404)(`no route for ${method} ${path}`);
export const methodNotAllowed = named(405);
export const requestTimeout = named(408);
export const conflict = named(409);
export const gone = named(410);
export const payloadTooLarge = named(413);
export const unsupportedMediaType = named(415);
export const unprocessable = named(422);
export const tooManyRequests = named(429);
export const headersTooLarge = named(431);
export const internalError = named(500);
export const notImplemented = named(501);

/** Five-character codes raised by SQL functions, with their HTTP status (mirrors db/ERROR_CODES.md). */
export const sqlErrorStatus: Record<string, number> = {
  NTFND: 404,
  FORBD: 403,
  DEACT: 422,
  KEYRV: 422,
  NOURL: 422,
  SUBMX: 422,
  OWNER: 422,
  EMAIL: 422,
  BADRF: 422,
  CLDUP: 422,
  FUNNL: 422,
  XAGCY: 422,
  SNAPS: 422,
  UPLDU: 422,
  LIVEK: 403,
  REVST: 409,
  REVIN: 422,
  RPTNC: 409,
  RCVWN: 422,
  DRFTS: 409,
  DRFTX: 410,
  STATE: 500,
  // invalid_parameter_value, raised by app_private.record_analysis_facts for a side other than lease/insurance:
  // a caller's bug, never a client error.
  '22023': 500,
};

/** HTTP status of each SPEC §7.2 code a document pipeline failure carries. */
export const documentErrorStatus: Record<DocumentErrorCode, number> = {
  bad_request: 400,
  payload_too_large: 413,
  extraction_failed: 422,
  internal_error: 500,
};

/** A document the pipeline refused or could not read, as the ApiError of its §7.2 code (details shown to the caller). */
export function fromDocumentError(err: DocumentError): ApiError {
  return new ApiError(documentErrorStatus[err.code], err.message, err.details === undefined ? [] : [{ message: err.details }], {}, err.code);
}

/** Zod issues as details naming each bad field by its dotted path. */
export function zodDetails(error: z.ZodError, prefix?: string): ErrorDetail[] {
  return error.issues.map((i) => {
    const field = [prefix, ...i.path.map(String)].filter(Boolean).join('.');
    return { field: field || undefined, message: i.message };
  });
}

interface PgError {
  code?: string;
  message: string;
  constraint?: string;
  column?: string;
  detail?: string;
}

/** Constraints whose violation is a client error worth naming precisely: the field and why. */
const constraintErrors: Record<string, { field: string; message: string; summary: string }> = {
  agents_email_per_agency: { field: 'email', message: 'already taken', summary: 'an agent with this email already exists in the agency' },
  owner_is_admin: { field: 'is_admin', message: 'cannot be false for the owner', summary: 'the agency owner is always an admin' },
  topic_has_url: {
    field: 'staging_url',
    message: 'one of staging_url and production_url is required',
    summary: 'an endpoint needs a staging_url, a production_url or both',
  },
};

function fromPostgres(err: PgError): ApiError | undefined {
  if (!err.code || typeof err.code !== 'string') return undefined;
  const mapped = sqlErrorStatus[err.code];
  // A state function names the bad input field with `raise … using column = 'owner.agent_id', detail = 'why'`.
  if (mapped) return new ApiError(mapped, err.message, err.column ? [{ field: err.column, message: err.detail ?? err.message }] : []);
  const known = err.constraint ? constraintErrors[err.constraint] : undefined;
  if (known && (err.code === '23505' || err.code === '23514')) return unprocessable(known.summary, [{ field: known.field, message: known.message }]);
  switch (err.code) {
    case '23505':
      return unprocessable('a resource with these values already exists', [{ field: err.constraint, message: 'must be unique' }]);
    case '23514':
      return unprocessable('a value is not allowed', [{ field: err.constraint, message: err.message }]);
    case '23502':
      return unprocessable(`${err.column ?? 'a field'} is required`, [{ field: err.column, message: 'is required' }]);
    case '22P02':
    case '22003':
      return badRequest('a parameter has an invalid format');
    case '22021': // character_not_in_repertoire: invalid UTF-8, or a NUL byte in text
    case '22P05': // untranslatable_character: \u0000 in jsonb
      return badRequest('a value contains a NUL character or bytes that are not valid UTF-8');
    case '54001': // statement_too_complex: nesting beyond Postgres' stack depth
      return badRequest('a value is nested too deeply');
    case '42501':
      return forbidden('insufficient permissions');
    default:
      // Any other data exception (class 22: a value out of range, malformed or too long) is the client's.
      if (err.code.startsWith('22')) return badRequest('a value is not valid for its field');
      return undefined;
  }
}

/** Body of an error on each surface, and its content type when not JSON. */
export type ErrorPresenter = ((err: ApiError) => unknown) & { contentType?: string };

/** SPEC §7.1: `{ error: { message, details? } }`. */
export const v1ErrorBody: ErrorPresenter = (err) => ({
  error: { message: err.message, ...(err.details.length ? { details: err.details } : {}) },
});

const apiCodes: Record<number, string> = {
  400: 'bad_request',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'not_found',
  405: 'method_not_allowed',
  408: 'request_timeout',
  409: 'conflict',
  410: 'gone',
  413: 'payload_too_large',
  415: 'unsupported_media_type',
  422: 'unprocessable',
  429: 'rate_limited',
  431: 'headers_too_large',
  500: 'internal_error',
  501: 'not_implemented',
};

/**
 * SPEC §7.2 (the /api surface and signed file links): `{ error: code, message }` plus `details` (a string)
 * and `retry_after` (seconds) where they apply.
 */
export const apiErrorBody: ErrorPresenter = (err) => {
  const retry = Number(err.headers['Retry-After']);
  return {
    error: err.code ?? apiCodes[err.status] ?? (err.status >= 500 ? 'internal_error' : 'bad_request'),
    message: err.message,
    ...(err.details.length ? { details: err.details.map((d) => (d.field ? `${d.field}: ${d.message}` : d.message)).join('; ') } : {}),
    ...(err.status === 429 && Number.isFinite(retry) ? { retry_after: retry } : {}),
  };
};

/** RFC 6749 §5.2 (the /oauth surface): `{ error, error_description }`. */
const RFC6749_CODES = new Set([
  'invalid_request',
  'invalid_client',
  'invalid_grant',
  'unauthorized_client',
  'unsupported_grant_type',
  'invalid_scope',
  'server_error',
  'rate_limited',
]);

export const oauthErrorBody: ErrorPresenter = (err) => ({
  // Codes of other surfaces (method_not_allowed, bad_request, …) are not RFC 6749 codes: a client error is invalid_request.
  // A method the service does not implement (501) is the client's malformed request, not a server fault.
  error:
    err.code && RFC6749_CODES.has(err.code)
      ? err.code
      : err.status === 401
        ? 'invalid_client'
        : err.status >= 500 && err.status !== 501
          ? 'server_error'
          : 'invalid_request',
  error_description: err.details.length ? `${err.message}: ${err.details.map((d) => `${d.field ?? ''} ${d.message}`.trim()).join('; ')}` : err.message,
});

const titles: Record<number, string> = {
  400: 'Bad Request',
  401: 'Unauthorized',
  403: 'Forbidden',
  404: 'Not Found',
  405: 'Method Not Allowed',
  408: 'Request Timeout',
  409: 'Conflict',
  410: 'Gone',
  413: 'Content Too Large',
  415: 'Unsupported Media Type',
  422: 'Unprocessable Content',
  429: 'Too Many Requests',
  431: 'Request Header Fields Too Large',
  500: 'Internal Server Error',
  501: 'Not Implemented',
};

const toPointer = (field?: string) => (field === undefined ? undefined : field.startsWith('/') ? field : `/${field.split('.').join('/')}`);

/** RFC 9457 problem details (the /v2 surface): each bad input is listed with its JSON pointer. */
export const problemBody: ErrorPresenter = Object.assign(
  (err: ApiError) => ({
    type: 'about:blank',
    title: titles[err.status] ?? 'Error',
    status: err.status,
    detail: err.message,
    ...(err.code ? { code: err.code } : {}),
    ...(err.details.length ? { errors: err.details.map((d) => ({ pointer: toPointer(d.field), detail: d.message })) } : {}),
  }),
  { contentType: 'application/problem+json' },
);

/** Any thrown value as an ApiError: ours as is, SQLSTATEs and our codes mapped, anything else a logged 500. */
export function toApiError(thrown: unknown, log?: Logger, context?: Record<string, unknown>): ApiError {
  if (thrown instanceof ApiError) return thrown;
  if (thrown instanceof z.ZodError) return unprocessable('validation failed', zodDetails(thrown));
  if (thrown instanceof DocumentError) {
    const api = fromDocumentError(thrown);
    if (api.status >= 500) log?.error('document pipeline failure', { err: thrown, ...context });
    return api;
  }
  const pg = fromPostgres(thrown as PgError);
  if (pg) return pg;
  const status = (thrown as { status?: number }).status;
  if (status && status >= 400 && status < 500 && (thrown as { expose?: boolean }).expose !== false) {
    return new ApiError(status, statusMessage(status, (thrown as Error).message));
  }
  log?.error('unhandled error', { err: thrown, ...context });
  return internalError('internal server error');
}

/** Middleware mapping every thrown error to a status and the surface's body; unknown errors are 500 and logged. */
export function errorMiddleware(log: Logger, presenterFor: (ctx: Context) => ErrorPresenter) {
  return async (ctx: Context, next: Next) => {
    try {
      await next();
      if (ctx.status === 404 && ctx.body === undefined) throw noRoute(ctx.method, ctx.path);
      // The router answers these without a body; give them the surface's error shape (Allow kept).
      if ((ctx.status === 405 || ctx.status === 501) && !ctx.body) {
        const allow = String(ctx.response.get('Allow') ?? '');
        throw ctx.status === 405
          ? methodNotAllowed(`${ctx.method} is not allowed on ${ctx.path}; allowed: ${allow}`, { headers: { Allow: allow }, code: 'method_not_allowed' })
          : notImplemented(`the method ${ctx.method} is not implemented`, { headers: allow ? { Allow: allow } : {}, code: 'not_implemented' });
      }
    } catch (thrown) {
      const err = toApiError(thrown, log, { requestId: ctx.state.requestId, path: ctx.path });
      const presenter = presenterFor(ctx);
      ctx.status = err.status;
      for (const [k, v] of Object.entries(err.headers)) ctx.set(k, v);
      ctx.body = presenter(err);
      if (presenter.contentType) ctx.type = presenter.contentType;
    }
  };
}

function statusMessage(status: number, message: string): string {
  if (status === 413) return 'request body too large';
  if (status === 415) return 'unsupported content type';
  if (status === 400) return `invalid request body: ${message}`;
  return message;
}
