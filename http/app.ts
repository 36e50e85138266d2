// The Koa application: request id → errors → routes. Each route declares its own auth, validation and transaction.
import { randomUUID } from 'node:crypto';
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import { ping } from '../db/queries/health.ts';
import { apiErrorBody, errorMiddleware, oauthErrorBody, problemBody, v1ErrorBody, type ErrorPresenter } from './errors.ts';
import { openApiDocument } from './openapi.ts';
import { mountRoutes, type Deps, type RouteSpec } from './route.ts';
import { fileRoutes } from './routes/files.ts';
import { oauthRoutes } from './routes/oauth.ts';
import { agencyRoutes } from './routes/v1/agencies.ts';
import { agentRoutes } from './routes/v1/agents.ts';
import { apiKeyRoutes } from './routes/v1/api_keys.ts';
import { formRoutes } from './routes/v2/forms.ts';
import { formLinkRoutes } from './routes/v2/form_links.ts';
import { embedOriginRoutes } from './routes/v2/embed_origins.ts';
import { submissionRoutes } from './routes/v2/submissions.ts';
import { hostedRoutes } from './routes/hosted/forms.ts';
import { dashboardApiKeyRoutes } from './routes/dashboard/api_keys.ts';
import { dashboardFormRoutes } from './routes/dashboard/forms.ts';
import { dashboardSessionRoutes } from './routes/dashboard/session.ts';
import { dashboardSubmissionRoutes } from './routes/dashboard/submissions.ts';
import { dashboardUsageRoutes } from './routes/dashboard/usage.ts';
import { dashboardWebhookRoutes } from './routes/dashboard/webhooks.ts';
import { dashboardLinkRoutes } from './routes/v1/dashboard_links.ts';
import { webhookSubscriptionRoutes } from './routes/v1/webhooks.ts';
import { webhookEndpointRoutes } from './routes/v2/webhook_endpoints.ts';

/** Every declared route of the service, in documentation order. */
export const allRoutes: RouteSpec[] = [...oauthRoutes, ...agencyRoutes, ...agentRoutes, ...dashboardLinkRoutes, ...apiKeyRoutes, ...webhookSubscriptionRoutes, ...formRoutes, ...formLinkRoutes, ...submissionRoutes, ...embedOriginRoutes, ...webhookEndpointRoutes, ...fileRoutes];

function presenterFor(ctx: Context): ErrorPresenter {
  if (ctx.path.startsWith('/oauth/')) return oauthErrorBody;
  if (ctx.path.startsWith('/v2/')) return problemBody;
  // The hosted form's own JSON calls (uploads, submissions) answer with field pointers like /v2.
  if (/^\/[^/]+\/form\//.test(ctx.path)) return problemBody;
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
  router.get('/healthz', async (ctx) => {
    await ping(deps.db.owner);
    ctx.body = { ok: true };
  });
  mountRoutes(router, allRoutes, deps);
  // Pages and their assets: not part of the API document.
  // The dashboard first: its /dashboard/... paths must not be read as /{agentSlug}/form/... hosted pages.
  mountRoutes(router, [...dashboardSessionRoutes, ...dashboardApiKeyRoutes, ...dashboardWebhookRoutes, ...dashboardFormRoutes, ...dashboardSubmissionRoutes, ...dashboardUsageRoutes], deps);
  mountRoutes(router, hostedRoutes, deps);

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
