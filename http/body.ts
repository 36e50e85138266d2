// Request bodies: JSON always; urlencoded when a route declares it; multipart/form-data (files into a
// per-request temp dir, removed afterwards) when a route declares file fields. Then zod validation.
import { mkdtemp, readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Context, Next } from 'koa';
import { koaBody } from 'koa-body';
import type { z } from 'zod';
import type { Deps } from './context.ts';
import { ApiError, badRequest, payloadTooLarge, unsupportedMediaType, zodDetails } from './errors.ts';
import { MAX_JSON_DEPTH, nestingExceeds } from '../lib/json.ts';

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

/** Upload folders are `svc-upload-<pid>-<random>`: the pid says whose they are, so leftovers can be told apart. */
export const UPLOAD_DIR_PREFIX = 'svc-upload-';

function processIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'; // alive, but someone else's
  }
}

/**
 * Remove upload folders a killed process left in `tmpDir`: those of processes that are gone, and any older
 * than a day (a reused pid, or the old name without a pid). Folders of live processes (another instance
 * sharing the directory) are left alone. Returns the folders removed.
 */
export async function sweepUploadDirs(tmpDir: string, now = Date.now()): Promise<string[]> {
  const removed: string[] = [];
  let names: string[];
  try {
    names = await readdir(tmpDir);
  } catch {
    return removed;
  }
  for (const name of names) {
    if (!name.startsWith(UPLOAD_DIR_PREFIX)) continue;
    const pid = Number(/^svc-upload-(\d+)-/.exec(name)?.[1]);
    const full = path.join(tmpDir, name);
    const old = await stat(full).then(
      (s) => now - s.mtimeMs > 86_400_000,
      () => false,
    );
    if (old || (pid && pid !== process.pid && !processIsAlive(pid))) {
      await rm(full, { recursive: true, force: true });
      removed.push(name);
    }
  }
  return removed;
}

// A body the reader refused names its §7.2 code on every surface (the /v2 problem and GraphQL bodies show it too).
const coded = { code: 'bad_request' };
const repeatedPart = (field: string) =>
  badRequest(`send one file in ${field}`, { ...coded, details: [{ field, message: 'only one file allowed; the part was repeated' }] });

/** A body that could not be read (bad gzip/deflate, an unknown Content-Encoding, too large) as a client error. */
function unreadableBody(err: Error & { status?: number; type?: string }): never {
  if (err.status === 413) throw payloadTooLarge('request body too large', { code: 'payload_too_large' });
  if (err.status === 415 || err.type === 'encoding.unsupported')
    throw unsupportedMediaType(`unsupported Content-Encoding or content type: ${err.message}`, { code: 'unsupported_media_type' });
  if (err.status && err.status < 500 && err.type === 'entity.parse.failed') throw badRequest(`invalid request body: ${err.message}`, coded);
  // zlib errors (a body that says gzip or deflate and is not), and anything else the reader refused.
  throw badRequest(`the request body could not be read: ${err.message}`, coded);
}

/** Refuse bodies nested deeper than any real document, before anything hashes, canonicalises or stores them. */
async function depthLimited(ctx: Context, next: Next) {
  if (nestingExceeds((ctx.request as { body?: unknown }).body)) {
    throw badRequest(`the request body is nested more than ${MAX_JSON_DEPTH} levels deep`, coded);
  }
  await next();
}

/** Parse the body: JSON always; multipart (files into a per-request temp dir removed afterwards) when declared. */
export function bodyParser(spec: BodyRules, deps: Deps) {
  const parseJson = koaBody({
    json: true,
    urlencoded: !!spec.urlencoded || !!spec.files,
    multipart: false,
    jsonLimit: '1mb',
    formLimit: '1mb',
    jsonStrict: true,
    onError: unreadableBody,
  });
  const json = (ctx: Context, next: Next) => parseJson(ctx, () => depthLimited(ctx, next));
  if (!spec.files) return json;
  return async (ctx: Context, next: Next) => {
    if (!ctx.is('multipart')) return json(ctx, next);
    const dir = await mkdtemp(path.join(deps.cfg.tmpDir, `${UPLOAD_DIR_PREFIX}${process.pid}-`));
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
          // formidable's error codes (FormidableError): 1006/1007 text fields too large or too many, 1015 too
          // many files, 1009/1016 a file too large.
          const code = (err as { code?: number }).code;
          if (repeated) throw repeatedPart(repeated);
          if (code === 1015) throw badRequest('too many file parts: send each file field once', coded);
          if (code === 1006 || code === 1007)
            throw badRequest('a text field is too large (text fields are limited to 1 MB in all; only files may be larger)', coded);
          if (code === 1009 || code === 1016 || /maxFileSize|maxTotalFileSize/.test(err.message)) {
            throw payloadTooLarge(`a file exceeds the ${deps.cfg.MAX_UPLOAD_BYTES} byte limit`, { code: 'payload_too_large' });
          }
          throw badRequest(`invalid multipart body: ${err.message}`, coded);
        },
      });
      await multipart(ctx, async () => {});
      if (repeated) throw repeatedPart(repeated);
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
    if (!spec.files?.[field]) throw badRequest(`unexpected file field ${field}`, [{ field, message: 'is not a file field of this operation' }]);
    const f = (Array.isArray(value) ? value : [value]) as Array<{ filepath: string; size: number; mimetype: string | null; originalFilename: string | null }>;
    if (f.length > 1) throw badRequest(`send one file in ${field}`, [{ field, message: 'only one file allowed' }]);
    out[field] = { field, filepath: f[0].filepath, size: f[0].size, mimetype: f[0].mimetype, originalFilename: f[0].originalFilename };
  }
  for (const [field, def] of Object.entries(spec.files ?? {})) {
    if (def.required && !out[field]) throw badRequest(`${field} file is required`, [{ field, message: 'is required' }]);
  }
  return out;
}

/** `value` parsed by `schema`, or an ApiError with `status` naming every bad field. */
export function parseInput<T extends z.ZodType>(schema: T | undefined, value: unknown, status: number, where: string, nameFields = false): z.infer<T> {
  if (!schema) return {} as z.infer<T>;
  let r: z.ZodSafeParseResult<z.infer<T>>;
  try {
    r = schema.safeParse(value) as z.ZodSafeParseResult<z.infer<T>>;
  } catch (err) {
    // A refinement that throws on input it did not expect is still the input's fault, never a 500.
    throw new ApiError(status, `invalid ${where}`, [{ message: (err as Error).message }]);
  }
  if (!r.success) {
    const details = zodDetails(r.error);
    const named = details.map((d) => (d.field ? `${d.field.replace(/^\//, '')}: ${d.message}` : d.message)).join('; ');
    throw new ApiError(status, nameFields ? `invalid ${where}: ${named}`.slice(0, 500) : `invalid ${where}`, details);
  }
  return r.data;
}
