// The Koa application: request id → errors → routes. Each route declares its own auth, validation and transaction.
import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import { ping } from '../db/queries/health.ts';
import { apiErrorBody, errorMiddleware, oauthErrorBody, problemBody, v1ErrorBody, type ErrorPresenter } from './errors.ts';
import { mountDocs } from './docs.ts';
import { openApiDocument } from './openapi.ts';
import { mountRoutes, type Deps, type RouteSpec } from './route.ts';
import { fileRoutes } from './routes/files.ts';
import { oauthRoutes } from './routes/oauth.ts';
import { agencyRoutes } from './routes/v1/agencies.ts';
import { agentRoutes } from './routes/v1/agents.ts';
import { apiKeyRoutes } from './routes/v1/api_keys.ts';
import { formRoutes } from './routes/v2/forms.ts';
import { webhookSubscriptionRoutes } from './routes/v1/webhooks.ts';
import { webhookEndpointRoutes } from './routes/v2/webhook_endpoints.ts';

/** Every declared route of the service, in documentation order. */
export const allRoutes: RouteSpec[] = [...oauthRoutes, ...agencyRoutes, ...agentRoutes, ...apiKeyRoutes, ...webhookSubscriptionRoutes, ...formRoutes, ...webhookEndpointRoutes, ...fileRoutes];

function presenterFor(ctx: Context): ErrorPresenter {
  if (ctx.path.startsWith('/oauth/')) return oauthErrorBody;
  if (ctx.path.startsWith('/v2/')) return problemBody;
  if (ctx.path.startsWith('/api/') || ctx.path === '/api' || ctx.path.startsWith('/files/')) return apiErrorBody;
  return v1ErrorBody;
}

/** Build the Koa app over opened dependencies. */
export function createApp(deps: Deps): Koa {
  const app = new Koa({ proxy: deps.cfg.TRUST_PROXY });
  app.silent = true;
  const router = new Router();
  let openapi: unknown;
  router.get('/openapi.json', (ctx) => {
    openapi ??= openApiDocument(allRoutes, deps.cfg.publicUrl);
    ctx.body = openapi;
  });
  mountDocs(router);
  router.get('/healthz', async (ctx) => {
    await ping(deps.db.owner);
    ctx.body = { ok: true };
  });
  mountRoutes(router, allRoutes, deps);

  app.use(async (ctx, next) => {
    const started = performance.now();
    ctx.state.requestId = ctx.get('x-request-id').slice(0, 100) || randomUUID();
    ctx.set('X-Request-Id', ctx.state.requestId);
    try {
      await next();
    } finally {
      deps.log.debug('request', { requestId: ctx.state.requestId, method: ctx.method, path: ctx.path, status: ctx.status, ms: Math.round(performance.now() - started) });
    }
  });
  app.use(errorMiddleware(deps.log, presenterFor));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: false }));
  return app;
}
