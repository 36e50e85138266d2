// Building blocks shared by the request and response schemas of every surface.
import { z } from 'zod';

export const id = z.coerce.number().int().positive().max(Number.MAX_SAFE_INTEGER);

/** A boolean as JSON, or as the text a form field carries ("true", "false", "1", "0"). */
export const formBoolean = z.union([
  z.boolean(),
  z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1'),
]);

/** A person's first or last name, trimmed. */
export const personName = (what: string) => z.string().trim().min(1, `${what} is required`).max(100);

/** An email address, trimmed and lower-cased. */
export const emailAddress = z.string().trim().toLowerCase().max(254).pipe(z.email('must be a valid email address'));

export const timestamp = z.string().meta({ format: 'date-time', description: 'ISO 8601 UTC timestamp' });

export const v1Error = z
  .object({
    error: z.object({
      message: z.string(),
      details: z.array(z.object({ field: z.string().optional(), message: z.string() })).optional(),
    }),
  })
  .meta({ id: 'V1Error' });

export const v1Errors = (...statuses: number[]) =>
  Object.fromEntries(
    statuses.map((s) => [s, { description: v1ErrorDescriptions[s] ?? 'Error', schema: v1Error }]),
  ) as Record<number, { description: string; schema: typeof v1Error }>;

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
