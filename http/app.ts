// The Koa application: request id, log line and metrics → errors → /graphql → routes. Each route declares its
// own auth, validation and transaction.
import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import Router from '@koa/router';
import Koa, { type Context } from 'koa';
import { ping } from '../db/queries/health.ts';
import { createMetrics } from '../lib/metrics.ts';
import { dashboardErrorPages } from './dashboard.ts';
import { apiErrorBody, errorMiddleware, oauthErrorBody, problemBody, v1ErrorBody, type ErrorPresenter } from './errors.ts';
import { graphqlMiddleware } from './graphql.ts';
import { instrumentDatabase, metricsBody } from './metrics.ts';
import { mountDocs } from './docs.ts';
import { openApiDocument } from './openapi.ts';
import { answerParseErrors } from './parse_errors.ts';
import { operatorAuth } from './operator_auth.ts';
import { mountRoutes, type Deps, type RouteSpec } from './route.ts';
import { apiFallback } from './api_auth.ts';
import { extractionRoutes } from './routes/api/extractions.ts';
import { analysisRoutes } from './routes/api/analyses.ts';
import { reportRoutes } from './routes/api/reports.ts';
import { fileRoutes } from './routes/files.ts';
import { oauthRoutes } from './routes/oauth.ts';
import { agencyRoutes } from './routes/v1/agencies.ts';
import { agentRoutes } from './routes/v1/agents.ts';
import { apiKeyRoutes } from './routes/v1/api_keys.ts';
import { clientRoutes } from './routes/v1/clients.ts';
import { formRoutes } from './routes/v2/forms.ts';
import { formLinkRoutes } from './routes/v2/form_links.ts';
import { embedOriginRoutes } from './routes/v2/embed_origins.ts';
import { submissionRoutes } from './routes/v2/submissions.ts';
import { hostedRoutes } from './routes/hosted/forms.ts';
import { dashboardApiKeyRoutes } from './routes/dashboard/api_keys.ts';
import { dashboardFormRoutes } from './routes/dashboard/forms.ts';
import { dashboardSessionRoutes } from './routes/dashboard/session.ts';
import { dashboardExtractionRoutes } from './routes/dashboard/extractions.ts';
import { dashboardReviewRoutes } from './routes/dashboard/reviews.ts';
import { dashboardAnalysisRoutes } from './routes/dashboard/analyses.ts';
import { dashboardSubmissionRoutes } from './routes/dashboard/submissions.ts';
import { dashboardSubscriptionRoutes } from './routes/dashboard/subscriptions.ts';
import { dashboardUsageRoutes } from './routes/dashboard/usage.ts';
import { dashboardWebhookRoutes } from './routes/dashboard/webhooks.ts';
import { dashboardRecoveryRoutes } from './routes/dashboard/recoveries.ts';
import { dashboardLinkRoutes } from './routes/v1/dashboard_links.ts';
import { webhookSubscriptionRoutes } from './routes/v1/webhooks.ts';
import { webhookEndpointRoutes } from './routes/v2/webhook_endpoints.ts';
import { topicRecoveryRoutes } from './routes/v2/webhook_recoveries.ts';
import { subscriptionRecoveryRoutes } from './routes/v1/webhook_recoveries.ts';

/** Every declared route of the service, in documentation order. */
export const allRoutes: RouteSpec[] = [
  ...oauthRoutes,
  ...agencyRoutes,
  ...agentRoutes,
  ...dashboardLinkRoutes,
  ...apiKeyRoutes,
  ...clientRoutes,
  ...webhookSubscriptionRoutes,
  ...subscriptionRecoveryRoutes,
  ...formRoutes,
  ...formLinkRoutes,
  ...submissionRoutes,
  ...embedOriginRoutes,
  ...webhookEndpointRoutes,
  ...topicRecoveryRoutes,
  ...extractionRoutes,
  ...analysisRoutes,
  ...reportRoutes,
  ...fileRoutes,
];

/** The dashboard's pages: mounted beside the API, outside its document. */
export const dashboardRoutes: RouteSpec[] = [
  ...dashboardSessionRoutes,
  ...dashboardApiKeyRoutes,
  ...dashboardWebhookRoutes,
  ...dashboardRecoveryRoutes,
  ...dashboardSubscriptionRoutes,
  ...dashboardFormRoutes,
  ...dashboardSubmissionRoutes,
  ...dashboardExtractionRoutes,
  ...dashboardReviewRoutes,
  ...dashboardAnalysisRoutes,
  ...dashboardUsageRoutes,
];

/** GraphQL's own error shape, for /graphql refusals (auth, limits) made before PostGraphile runs. */
const graphqlErrorBody: ErrorPresenter = (err) => ({
  errors: [{ message: err.message, extensions: { status: err.status, ...(err.code ? { code: err.code } : {}) } }],
});

/** The error body of the surface a path belongs to. */
function presenterForPath(path: string): ErrorPresenter {
  if (path === '/graphql' || path.startsWith('/graphql/')) return graphqlErrorBody;
  if (path.startsWith('/oauth/')) return oauthErrorBody;
  if (path.startsWith('/v2/')) return problemBody;
  // The hosted form's own JSON calls (uploads, submissions) answer with field pointers like /v2.
  if (/^\/[^/]+\/form\//.test(path)) return problemBody;
  if (path.startsWith('/api/') || path === '/api' || path.startsWith('/files/')) return apiErrorBody;
  return v1ErrorBody;
}

const presenterFor = (ctx: Context): ErrorPresenter => presenterForPath(ctx.path);

/** Which API a path belongs to, as a metrics label. */
function surface(path: string): string {
  const m = /^\/(v1|v2|api|oauth|files|graphql|metrics)(\/|$)/.exec(path);
  return m ? m[1] : 'other';
}

/**
 * Build the Koa app over opened dependencies. `instrument: false` leaves out request ids, the request log
 * line and HTTP metrics (only the bench uses it, as the peer that measures their cost).
 */
export function createApp(deps: Deps, opts: { instrument?: boolean } = {}): Koa {
  const app = new Koa({ proxy: deps.cfg.TRUST_PROXY });
  const metrics = (deps.metrics ??= createMetrics());
  instrumentDatabase(metrics, deps.db);
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
  router.get('/metrics', operatorAuth(deps, ['operator']), (ctx) => metricsBody(ctx, metrics));
  mountRoutes(router, allRoutes, deps);
  // Pages and their assets: not part of the API document.
  // The dashboard first: its /dashboard/... paths must not be read as /{agentSlug}/form/... hosted pages.
  mountRoutes(router, dashboardRoutes, deps);
  mountRoutes(router, hostedRoutes, deps);

  if (opts.instrument !== false) {
    app.use(async (ctx, next) => {
      const started = performance.now();
      // Accepted from the caller when it is a plain token (it goes into logs and job payloads), else ours.
      const given = ctx.get('x-request-id');
      const requestId = given && given.length <= 100 && /^[\w.:@\/+=-]+$/.test(given) ? given : randomUUID();
      ctx.state.requestId = requestId;
      ctx.state.log = deps.log.child({ requestId });
      ctx.set('X-Request-Id', requestId);
      try {
        await next();
      } finally {
        const seconds = (performance.now() - started) / 1000;
        const route = (ctx as { _matchedRoute?: unknown })._matchedRoute;
        const label = typeof route === 'string' ? route : ctx.path === '/graphql' ? '/graphql' : 'unmatched';
        metrics.httpDuration.observe({ method: ctx.method, route: label, status: String(ctx.status) }, seconds);
        if (ctx.status === 429) metrics.rateLimitRejections.inc({ surface: surface(ctx.path) });
        deps.log.info('request', { requestId, method: ctx.method, route: label, path: ctx.path, status: ctx.status, ms: Math.round(seconds * 1000) });
      }
    });
  }
  app.use(errorMiddleware(deps.log, presenterFor));
  app.use(dashboardErrorPages(deps));
  app.use(graphqlMiddleware(deps));
  app.use(router.routes());
  app.use(router.allowedMethods({ throw: false }));
  app.use(apiFallback(deps));
  // Every server made with app.listen (the service, tests, benches) answers what Node's parser refuses (an
  // unknown method, a malformed request) in the surface's error shape too.
  const listen = app.listen.bind(app) as (...args: unknown[]) => Server;
  app.listen = ((...args: unknown[]) => {
    const server = listen(...args);
    answerParseErrors(server, presenterForPath);
    return server;
  }) as Koa['listen'];
  return app;
}
