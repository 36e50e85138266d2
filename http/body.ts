// Request bodies: JSON always; urlencoded when a route declares it; multipart/form-data (files into a
// per-request temp dir, removed afterwards) when a route declares file fields. Then zod validation.
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Context, Next } from 'koa';
import { koaBody } from 'koa-body';
import type { z } from 'zod';
import type { Deps } from './context.ts';
import { ApiError, zodDetails } from './errors.ts';

export interface UploadedFile {
  field: string;
  filepath: string;
  size: number;
  mimetype: string | null;
  originalFilename: string | null;
}

/** What a handler receives: validated path parameters, query and body, and the uploaded files. */
export interface RouteInput<P, Q, B> {
  params: P;
  query: Q;
  body: B;
  files: Record<string, UploadedFile | undefined>;
}

/** The parts of a route declaration the body parser reads. */
export interface BodyRules {
  files?: Record<string, { description: string; required?: boolean }>;
  urlencoded?: boolean;
}

/** Parse the body: JSON always; multipart (files into a per-request temp dir removed afterwards) when declared. */
export function bodyParser(spec: BodyRules, deps: Deps) {
  const json = koaBody({ json: true, urlencoded: !!spec.urlencoded || !!spec.files, multipart: false, jsonLimit: '1mb', formLimit: '1mb', jsonStrict: true });
  if (!spec.files) return json;
  return async (ctx: Context, next: Next) => {
    if (!ctx.is('multipart')) return json(ctx, next);
    const dir = await mkdtemp(path.join(deps.cfg.tmpDir, 'svc-upload-'));
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
        },
        onError: (err) => {
          const code = (err as { httpCode?: number }).httpCode;
          if (code === 413 || /maxFileSize|maxTotalFileSize/.test(err.message)) {
            throw new ApiError(413, `a file exceeds the ${deps.cfg.MAX_UPLOAD_BYTES} byte limit`, [], {}, 'payload_too_large');
          }
          throw new ApiError(400, `invalid multipart body: ${err.message}`, [], {}, 'bad_request');
        },
      });
      await multipart(ctx, async () => {});
      await next();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  };
}

/** The uploaded files by field: unknown fields, several files in one field and missing required files are 400. */
export function collectFiles(ctx: Context, spec: BodyRules): Record<string, UploadedFile | undefined> {
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

/** `value` parsed by `schema`, or an ApiError with `status` naming every bad field. */
export function parseInput<T extends z.ZodType>(schema: T | undefined, value: unknown, status: number, where: string): z.infer<T> {
  if (!schema) return {} as z.infer<T>;
  const r = schema.safeParse(value);
  if (!r.success) throw new ApiError(status, `invalid ${where}`, zodDetails(r.error));
  return r.data;
}
