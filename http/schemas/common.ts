// Building blocks shared by the request and response schemas of every surface.
import { z } from 'zod';

/**
 * A positive integer id in a path: plain decimal digits only. `0x1`, `1e0`, `+1`, `01` or `1.0` are not ids
 * (Number() would read them all as 1 and match another resource), so they are refused, never matched.
 */
export const id = z
  .string()
  .regex(/^[1-9][0-9]{0,15}$/, 'must be a positive integer written in decimal digits')
  .transform(Number)
  .pipe(z.number().int().positive().max(Number.MAX_SAFE_INTEGER))
  .meta({ type: 'integer', minimum: 1 });

/**
 * An integer in a query string, as strictly as a path id: decimal digits only (`0x10`, `1e1`, `+7`, `7.0` and ` 7`
 * are refused with 400, not read as numbers).
 */
export const queryInt = (min: number, max: number) =>
  z
    .string()
    .regex(/^(0|[1-9][0-9]{0,15})$/, 'must be an integer written in decimal digits')
    .transform(Number)
    .pipe(z.number().int().min(min).max(max))
    .meta({ type: 'integer', minimum: min, maximum: max });

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether Postgres can store every string of a JSON value (keys too): text and jsonb refuse NUL and lone surrogates. */
export function storableJson(value: unknown): boolean {
  if (typeof value === 'string') return !value.includes('\0') && !LONE_SURROGATE.test(value);
  if (Array.isArray(value)) return value.every(storableJson);
  if (value && typeof value === 'object') return Object.entries(value).every(([k, v]) => storableJson(k) && storableJson(v));
  return true;
}

/** A positive integer id in a JSON body (a number, never a string: bodies are typed, paths are not). */
export const bodyId = z.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** A boolean as JSON, or as the text a form field carries ("true", "false", "1", "0"). */
export const formBoolean = z.union([z.boolean(), z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1')]);

/** A person's first or last name, trimmed. */
export const personName = (what: string) => z.string().trim().min(1, `${what} is required`).max(100);

/** An email address, trimmed and lower-cased. */
export const emailAddress = z.string().trim().toLowerCase().max(254).pipe(z.email('must be a valid email address'));

export const timestamp = z.string().meta({ format: 'date-time', description: 'ISO 8601 UTC timestamp' });

/** A /v1 list page (SPEC §4: Laravel's paginator): the rows, the page links and the counts. */
export function v1Page<T extends z.ZodType>(row: T, id: string) {
  const pageLink = z.string().nullable();
  return z
    .object({
      data: z.array(row),
      links: z.object({ first: pageLink, last: pageLink, prev: pageLink, next: pageLink }),
      meta: z.object({
        current_page: z.number().int(),
        from: z.number().int().nullable(),
        last_page: z.number().int(),
        path: z.string(),
        per_page: z.number().int(),
        to: z.number().int().nullable(),
        total: z.number().int(),
      }),
    })
    .meta({ id });
}

export const v1Error = z
  .object({
    error: z.object({
      message: z.string(),
      details: z.array(z.object({ field: z.string().optional(), message: z.string() })).optional(),
    }),
  })
  .meta({ id: 'V1Error' });

/** Declared error answers: for each status given, `schema` described by `describe(status)`. */
export const errorAnswers =
  <S extends z.ZodType>(schema: S, describe: (status: number) => string) =>
  (...statuses: number[]) =>
    Object.fromEntries(statuses.map((s) => [s, { description: describe(s), schema }])) as Record<number, { description: string; schema: S }>;

export const v1Errors = errorAnswers(v1Error, (s) => v1ErrorDescriptions[s] ?? 'Error');

const v1ErrorDescriptions: Record<number, string> = {
  400: 'Invalid request parameters',
  401: 'Invalid or missing authentication',
  403: 'Authenticated but insufficient permissions',
  404: 'Resource not found',
  413: 'A file exceeds the size limit',
  422: 'Validation errors',
  429: 'Rate limit exceeded (see Retry-After)',
};

/** RFC 9457 problem details: the error body of the /v2 surface. */
export const problem = z
  .object({
    type: z.string(),
    title: z.string(),
    status: z.number().int(),
    detail: z.string(),
    errors: z.array(z.object({ pointer: z.string().optional(), detail: z.string() })).optional(),
  })
  .meta({ id: 'Problem', description: 'RFC 9457 problem details' });

/** Problem-details answers of these statuses, described by their status alone. */
export const problemErrors = errorAnswers(problem, (s) => `Problem details (${s})`);

/** Problem-details answers, each status described by what it means on the route that declares it. */
export const problemAnswers = (descriptions: Record<number, string>) => errorAnswers(problem, (s) => descriptions[s])(...Object.keys(descriptions).map(Number));

/**
 * The text fields of a multipart body checked by `shape`'s schemas: each trimmed, an empty one absent (HTML forms
 * and curl send empty fields), and a repeated one refused (it arrives as a list, which no text schema accepts).
 */
export function multipartFields<S extends z.ZodRawShape>(shape: z.ZodObject<S>): z.ZodType<z.output<z.ZodObject<S>>> {
  const trimmed = (v: unknown) => (typeof v === 'string' ? (v.trim() === '' ? undefined : v.trim()) : v);
  const fields = Object.fromEntries(Object.entries(shape.shape).map(([k, s]) => [k, z.preprocess(trimmed, s as z.ZodType)]));
  return z.looseObject(fields) as unknown as z.ZodType<z.output<z.ZodObject<S>>>;
}
