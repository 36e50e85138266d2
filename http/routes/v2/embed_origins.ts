// Embed origins: the sites an agency lets frame its hosted forms; the page's CSP frame-ancestors lists them.
import { listEmbedOrigins, setEmbedOrigins } from '../../../db/queries/embed_origins.ts';
import { route, tx } from '../../route.ts';
import { problemAnswers } from '../../schemas/common.ts';
import { embedOrigins, embedOriginsBody } from '../../schemas/submissions.ts';

export const embedOriginRoutes = [
  route({
    method: 'get',
    path: '/v2/embed-origins',
    operationId: 'getEmbedOrigins',
    summary: 'The origins allowed to frame the agency’s hosted forms',
    tags: ['Hosted forms'],
    auth: 'api_key',
    responses: { 200: { description: 'The stored list', schema: embedOrigins }, ...problemAnswers({ 401: 'Invalid or missing API key' }) },
    handler: async (ctx) => {
      ctx.body = { origins: await listEmbedOrigins(tx(ctx)) };
    },
  }),
  route({
    method: 'put',
    path: '/v2/embed-origins',
    operationId: 'putEmbedOrigins',
    summary: 'Replace the origins allowed to frame the agency’s hosted forms (scheme://host[:port] each)',
    tags: ['Hosted forms'],
    auth: 'api_key_admin',
    body: embedOriginsBody,
    responses: {
      200: { description: 'The stored list', schema: embedOrigins },
      ...problemAnswers({ 401: 'Invalid or missing API key', 403: 'A read-only key', 422: 'An entry is not an origin' }),
    },
    handler: async (ctx, { body }) => {
      ctx.body = { origins: await setEmbedOrigins(tx(ctx), [...new Set(body.origins)]) };
    },
  }),
];
