// Stored images of the v1 surface: uploaded logos and profile pictures are validated and re-encoded before
// they are stored, and served back with caching headers on their public links.
import { readFile } from 'node:fs/promises';
import type { Context } from 'koa';
import type { z } from 'zod';
import { ImageRejected, normaliseBrandingImage } from '../pipelines/images/branding.ts';
import type { UploadedFile } from './body.ts';
import type { Deps } from './context.ts';
import { notFound, payloadTooLarge, unprocessable } from './errors.ts';
import { route, type RouteSpec } from './route.ts';
import { v1Errors } from './schemas/common.ts';

/** Validate, re-encode and store an uploaded image; returns its blob key. */
export async function storeBrandingImage(file: UploadedFile, prefix: string, deps: Deps): Promise<string> {
  if (file.size > deps.cfg.MAX_UPLOAD_BYTES) throw payloadTooLarge(`${file.field} exceeds ${deps.cfg.MAX_UPLOAD_BYTES} bytes`);
  try {
    const image = await normaliseBrandingImage(await readFile(file.filepath), { maxPixels: deps.cfg.MAX_IMAGE_PIXELS });
    return await deps.blobs.put(prefix, image.bytes, image.ext);
  } catch (err) {
    if (err instanceof ImageRejected) throw unprocessable(`${file.field} is not an acceptable image`, [{ field: file.field, message: err.message }]);
    throw err;
  }
}

/** Send a stored image with caching headers, or 404. */
export async function serveBlob(ctx: Context, key: string | null | undefined, deps: Deps, what: string): Promise<void> {
  const bytes = key ? await deps.blobs.get(key) : undefined;
  if (!key || !bytes) throw notFound(what);
  const etag = `"${key.slice(key.indexOf('/') + 1, key.indexOf('/') + 17)}"`;
  ctx.set('ETag', etag);
  ctx.set('Cache-Control', 'public, max-age=300');
  ctx.set('X-Content-Type-Options', 'nosniff');
  if (ctx.get('if-none-match') === etag) {
    ctx.status = 304;
    return;
  }
  ctx.type = 'image/webp';
  ctx.body = bytes;
}

/**
 * Declare the public link of a stored image the hosted forms show (an agency's logo, an agent's picture): no
 * credentials, the image `key` finds for the row the path names while that row is active, or 404 naming `what`.
 */
export function publicImageRoute<P extends z.ZodType>(spec: {
  path: string;
  operationId: string;
  summary: string;
  tags: string[];
  params: P;
  what: string;
  key: (deps: Deps, params: z.infer<P>) => Promise<string | null | undefined>;
}): RouteSpec {
  return route({
    method: 'get',
    path: spec.path,
    operationId: spec.operationId,
    summary: spec.summary,
    tags: spec.tags,
    auth: 'none',
    params: spec.params,
    responses: { 200: { description: 'image/webp' }, ...v1Errors(404) },
    handler: async (ctx, { params }, deps) => serveBlob(ctx, await spec.key(deps, params), deps, spec.what),
  });
}
