// v1 agencies: created and deactivated by an OAuth client; read and branded by the agency's own agents.
import type { Context } from 'koa';
import type { z } from 'zod';
import { activeAgencyLogoKey, deactivateAgency, getAgency, updateAgencyBranding } from '../../../db/queries/agencies.ts';
import { createAgency } from '../../../db/queries/agents.ts';
import { hashToken, newToken, tokenPrefix } from '../../../lib/secrets.ts';
import { slugify } from '../../../lib/slug.ts';
import { publicImageRoute, storeBrandingImage } from '../../blobs.ts';
import { badRequest, notFound } from '../../errors.ts';
import { presentAgency, presentAgencyBrief } from '../../presenters/agencies.ts';
import { presentNewOwner } from '../../presenters/agents.ts';
import { v1Route, tx, type Deps, type RouteInput } from '../../route.ts';
import { agencyParams, agencyResponse, createAgencyBody, createAgencyResponse, updateAgencyBody } from '../../schemas/agencies.ts';
import { v1Errors } from '../../schemas/common.ts';
import { agencyInPath } from '../../visibility.ts';

async function updateAgency(
  ctx: Context,
  { params, body, files }: RouteInput<z.infer<typeof agencyParams>, unknown, z.infer<typeof updateAgencyBody>>,
  deps: Deps,
) {
  if (ctx.method === 'POST' && body._method?.toUpperCase() !== 'PATCH') {
    throw badRequest('a POST to this path must carry _method=PATCH', [{ field: '_method', message: 'must be PATCH' }]);
  }
  const logoKey = files.logo ? await storeBrandingImage(files.logo, 'logos', deps) : undefined;
  const agency = await updateAgencyBranding(tx(ctx), params.agency_id, {
    name: body.name ?? null,
    colorCode: body.color_code ?? null,
    logoKey: logoKey ?? null,
  });
  if (!agency) throw notFound('agency');
  ctx.body = { data: presentAgency(agency, deps.cfg.publicUrl) };
}

const updateSpec = {
  path: '/v1/agencies/:agency_id',
  tags: ['Agencies'],
  auth: 'agent_admin' as const,
  params: agencyParams,
  authorize: agencyInPath,
  body: updateAgencyBody,
  files: { logo: { description: 'Logo image (PNG, JPEG, WebP or GIF, at most 10 MB); re-encoded as WebP' } },
  responses: { 200: { description: 'The updated agency', schema: agencyResponse }, ...v1Errors(400, 401, 403, 404, 413, 422) },
  handler: updateAgency,
};

export const agencyRoutes = [
  v1Route({
    method: 'post',
    path: '/v1/agencies',
    operationId: 'createAgency',
    summary: 'Create an agency with its owner agent (an admin), linked to the calling OAuth client',
    tags: ['Agencies'],
    auth: 'oauth_client',
    body: createAgencyBody,
    responses: { 200: { description: 'The agency and its owner agent with an access token', schema: createAgencyResponse }, ...v1Errors(401, 403, 422) },
    handler: async (ctx, { body }) => {
      const token = newToken(tokenPrefix.agentToken);
      const { agency, agent } = await createAgency(tx(ctx), {
        name: body.agency_name,
        referral: body.referral ?? null,
        firstName: body.first_name,
        lastName: body.last_name,
        email: body.email,
        slugBase: slugify(`${body.first_name} ${body.last_name}`),
        tokenHash: hashToken(token),
      });
      ctx.body = { data: { agency: presentAgencyBrief(agency), agent: presentNewOwner(agent, token) } };
    },
  }),
  v1Route({
    method: 'get',
    path: '/v1/agencies/:agency_id',
    operationId: 'getAgency',
    summary: 'Read the caller’s agency',
    tags: ['Agencies'],
    auth: 'agent',
    params: agencyParams,
    responses: { 200: { description: 'The agency', schema: agencyResponse }, ...v1Errors(400, 401, 403, 404) },
    handler: async (ctx, { params }, { cfg }) => {
      const agency = await getAgency(tx(ctx), params.agency_id);
      if (!agency) throw notFound('agency');
      ctx.body = { data: presentAgency(agency, cfg.publicUrl) };
    },
  }),
  v1Route({ ...updateSpec, method: 'patch', operationId: 'updateAgency', summary: 'Update name, colour or logo (admin); a logo needs multipart/form-data' }),
  v1Route({
    ...updateSpec,
    method: 'post',
    operationId: 'updateAgencyMultipart',
    summary: 'Update with a logo: multipart/form-data POST carrying _method=PATCH (admin)',
  }),
  v1Route({
    method: 'delete',
    path: '/v1/agencies/:agency_id',
    operationId: 'deactivateAgency',
    summary: 'Deactivate an agency linked to the OAuth client, and all its agents',
    tags: ['Agencies'],
    auth: 'oauth_client',
    params: agencyParams,
    responses: { 204: { description: 'Deactivated' }, ...v1Errors(400, 401, 403, 404) },
    handler: async (ctx, { params }) => {
      await deactivateAgency(tx(ctx), params.agency_id);
      ctx.status = 204;
    },
  }),
  publicImageRoute({
    path: '/v1/agencies/:agency_id/logo',
    operationId: 'getAgencyLogo',
    summary: 'The agency logo image (public, for hosted forms)',
    tags: ['Agencies'],
    params: agencyParams,
    what: 'logo',
    key: (deps, params) => activeAgencyLogoKey(deps.db.owner, params.agency_id),
  }),
];
