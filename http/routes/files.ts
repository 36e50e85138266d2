// Signed file downloads ({files_url}/files/<blob key>?expires=…&signature=…): no credentials, only a valid,
// unexpired signature over the key, the expiry and the download name (lib/links.ts). Used by document_link,
// declaration-page links, form uploads and ACORD archives.
import { z } from 'zod';
import { blobListedForDeletion } from '../../db/queries/files.ts';
import { checkFileLink, fileLinkKey } from '../../lib/links.ts';
import { ApiError, forbidden } from '../errors.ts';
import { route } from '../route.ts';
import { apiError } from '../schemas/extractions.ts';

const contentTypes: Record<string, string> = {
  pdf: 'application/pdf',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  zip: 'application/zip',
  json: 'application/json',
};

// The router gives a wildcard as its segments; the blob key is them joined.
const fileParams = z.object({
  key: z
    .union([z.string(), z.array(z.string())])
    .transform((v) => (Array.isArray(v) ? v.join('/') : v))
    .describe('blob key of the file'),
});

const fileQuery = z.object({
  expires: z.string().optional(),
  filename: z.string().max(255).optional(),
  signature: z.string().optional(),
});

export const fileRoutes = [
  route({
    method: 'get',
    path: '/files/*key',
    operationId: 'downloadFile',
    summary: 'Download a stored file through a signed, expiring link',
    tags: ['Files'],
    auth: 'none',
    params: fileParams,
    query: fileQuery,
    responses: {
      200: { description: 'The file bytes' },
      403: { description: 'The link is expired or its signature does not match', schema: apiError },
      404: { description: 'The file no longer exists (expired by retention or erased)', schema: apiError },
    },
    handler: async (ctx, { params, query }, deps) => {
      const key = params.key;
      const check = checkFileLink(fileLinkKey(deps.secretKey), key, query.expires, query.filename, query.signature);
      if (check === 'expired') throw forbidden('this link has expired; request a fresh one', { code: 'link_expired' });
      if (check !== 'ok') throw forbidden('this link is not valid (its signature does not match)');
      // A file listed for deletion is gone already, whether or not the sweep has removed its bytes yet.
      const bytes = (await blobListedForDeletion(deps.db.owner, key)) ? undefined : await deps.blobs.get(key).catch(() => undefined);
      if (!bytes) throw new ApiError(404, 'this file no longer exists');
      const ext = key.slice(key.lastIndexOf('.') + 1).toLowerCase();
      ctx.type = contentTypes[ext] ?? 'application/octet-stream';
      ctx.set('Cache-Control', 'private, no-store');
      ctx.set('X-Content-Type-Options', 'nosniff');
      const name = (query.filename ?? '').replace(/[^\w.() -]+/g, '_') || key.slice(key.lastIndexOf('/') + 1);
      ctx.set('Content-Disposition', `attachment; filename="${name}"`);
      ctx.body = bytes;
    },
  }),
];
