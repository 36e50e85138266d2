// v1 agencies: created and deactivated by an OAuth client; read and branded by the agency's own agents.
import { readFile } from 'node:fs/promises';
import type { Context } from 'koa';
import { hashToken, newToken } from '../../../lib/secrets.ts';
import { slugify } from '../../../lib/slug.ts';
import { ImageRejected, normaliseBrandingImage } from '../../../pipelines/images/branding.ts';
import { ApiError, notFound } from '../../errors.ts';
import { presentAgency, presentAgencyBrief, type AgencyRow, type AgentRow } from '../../presenters/v1.ts';
import { route, tx, type Deps, type RouteInput, type UploadedFile } from '../../route.ts';
import { agencyParams, agencyResponse, createAgencyBody, createAgencyResponse, updateAgencyBody } from '../../schemas/agencies.ts';
import { v1Errors } from '../../schemas/common.ts';
import type { z } from 'zod';

export const AGENT_TOKEN_PREFIX = 'agt_';

/** Validate, re-encode and store an uploaded image; returns its blob key. */
export async function storeBrandingImage(file: UploadedFile, prefix: string, deps: Deps): Promise<string> {
  if (file.size > deps.cfg.MAX_UPLOAD_BYTES) throw new ApiError(413, `${file.field} exceeds ${deps.cfg.MAX_UPLOAD_BYTES} bytes`);
  try {
    const image = await normaliseBrandingImage(await readFile(file.filepath), { maxPixels: deps.cfg.MAX_IMAGE_PIXELS });
    return await deps.blobs.put(prefix, image.bytes, image.ext);
  } catch (err) {
    if (err instanceof ImageRejected) throw new ApiError(422, `${file.field} is not an acceptable image`, [{ field: file.field, message: err.message }]);
    throw err;
  }
}

async function updateAgency(ctx: Context, { params, body, files }: RouteInput<z.infer<typeof agencyParams>, unknown, z.infer<typeof updateAgencyBody>>, deps: Deps) {
  if (ctx.method === 'POST' && body._method?.toUpperCase() !== 'PATCH') {
    throw new ApiError(400, 'a POST to this path must carry _method=PATCH', [{ field: '_method', message: 'must be PATCH' }]);
  }
  const logoKey = files.logo ? await storeBrandingImage(files.logo, 'logos', deps) : undefined;
  const { rows } = await tx(ctx).query<AgencyRow>(
    `update app_public.agencies set
       name = coalesce($2, name), color_code = coalesce($3, color_code), logo_key = coalesce($4, logo_key)
     where id = $1 returning *`,
    [params.agency_id, body.name ?? null, body.color_code ?? null, logoKey ?? null],
  );
  if (!rows[0]) throw notFound('agency');
  ctx.body = { data: presentAgency(rows[0], deps.cfg.publicUrl) };
}

const updateSpec = {
  path: '/v1/agencies/:agency_id',
  tags: ['Agencies'],
  auth: 'agent_admin' as const,
  rateLimit: 'v1' as const,
  params: agencyParams,
  body: updateAgencyBody,
  files: { logo: { description: 'Logo image (PNG, JPEG, WebP or GIF, at most 10 MB); re-encoded as WebP' } },
  responses: { 200: { description: 'The updated agency', schema: agencyResponse }, ...v1Errors(400, 401, 403, 404, 413, 422, 429) },
  handler: updateAgency,
};

export const agencyRoutes = [
  route({
    method: 'post',
    path: '/v1/agencies',
    operationId: 'createAgency',
    summary: 'Create an agency with its owner agent (an admin), linked to the calling OAuth client',
    tags: ['Agencies'],
    auth: 'oauth_client',
    rateLimit: 'v1',
    body: createAgencyBody,
    responses: { 200: { description: 'The agency and its owner agent with an access token', schema: createAgencyResponse }, ...v1Errors(401, 403, 422, 429) },
    handler: async (ctx, { body }) => {
      const token = newToken(AGENT_TOKEN_PREFIX);
      const { rows } = await tx(ctx).query<{ agency: AgencyRow; agent: AgentRow }>(
        `select to_json(r.agency) as agency, to_json(r.agent) as agent from app_public.create_agency($1, $2, $3, $4, $5, $6, $7) r`,
        [body.agency_name, body.referral ?? null, body.first_name, body.last_name, body.email, slugify(`${body.first_name} ${body.last_name}`), hashToken(token)],
      );
      const { agency, agent } = rows[0];
      ctx.body = {
        data: {
          agency: presentAgencyBrief(agency),
          agent: { id: agent.id, first_name: agent.first_name, last_name: agent.last_name, email: agent.email, slug: agent.slug, is_admin: agent.is_admin, access_token: token },
        },
      };
    },
  }),
  route({
    method: 'get',
    path: '/v1/agencies/:agency_id',
    operationId: 'getAgency',
    summary: 'Read the caller’s agency',
    tags: ['Agencies'],
    auth: 'agent',
    rateLimit: 'v1',
    params: agencyParams,
    responses: { 200: { description: 'The agency', schema: agencyResponse }, ...v1Errors(400, 401, 403, 404, 429) },
    handler: async (ctx, { params }, { cfg }) => {
      const { rows } = await tx(ctx).query<AgencyRow>({ name: 'svc_get_agency', text: 'select id, name, color_code, logo_key from app_public.agencies where id = $1', values: [params.agency_id] });
      if (!rows[0]) throw notFound('agency');
      ctx.body = { data: presentAgency(rows[0], cfg.publicUrl) };
    },
  }),
  route({ ...updateSpec, method: 'patch', operationId: 'updateAgency', summary: 'Update name, colour or logo (admin); a logo needs multipart/form-data' }),
  route({
    ...updateSpec,
    method: 'post',
    operationId: 'updateAgencyMultipart',
    summary: 'Update with a logo: multipart/form-data POST carrying _method=PATCH (admin)',
  }),
  route({
    method: 'delete',
    path: '/v1/agencies/:agency_id',
    operationId: 'deactivateAgency',
    summary: 'Deactivate an agency linked to the OAuth client, and all its agents',
    tags: ['Agencies'],
    auth: 'oauth_client',
    rateLimit: 'v1',
    params: agencyParams,
    responses: { 204: { description: 'Deactivated' }, ...v1Errors(400, 401, 403, 404, 429) },
    handler: async (ctx, { params }) => {
      await tx(ctx).query('select app_public.deactivate_agency($1)', [params.agency_id]);
      ctx.status = 204;
    },
  }),
  route({
    method: 'get',
    path: '/v1/agencies/:agency_id/logo',
    operationId: 'getAgencyLogo',
    summary: 'The agency logo image (public, for hosted forms)',
    tags: ['Agencies'],
    auth: 'none',
    params: agencyParams,
    responses: { 200: { description: 'image/webp' }, ...v1Errors(404) },
    handler: async (ctx, { params }, deps) => {
      const { rows } = await deps.db.owner.query<{ logo_key: string | null }>('select logo_key from app_public.agencies where id = $1 and status = $2', [params.agency_id, 'active']);
      await serveBlob(ctx, rows[0]?.logo_key, deps, 'logo');
    },
  }),
];

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
