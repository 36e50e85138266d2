// GET /metrics (Prometheus text format) for operator tokens, the optional separate metrics port, and the
// gauges read from Postgres at scrape time: queue depth by task and state, pool usage.
import http from 'node:http';
import type { Context } from 'koa';
import type { Database } from '../db/pool.ts';
import { jobStates } from '../db/queries/ops.ts';
import { scrapedGauge, type Metrics } from '../lib/metrics.ts';

const instrumented = new WeakSet<Metrics>();

/** Add the database gauges to `metrics` (once per registry). */
export function instrumentDatabase(metrics: Metrics, db: Database): void {
  if (instrumented.has(metrics)) return;
  instrumented.add(metrics);
  scrapedGauge(metrics, 'svc_jobs', 'Jobs in the queue by task and state (queued, scheduled, running, retry_scheduled, failed).', ['task', 'state'], async () =>
    (await jobStates(db.owner)).map((r) => ({ labels: { task: r.task, state: r.state }, value: r.jobs })),
  );
  scrapedGauge(metrics, 'svc_jobs_oldest_age_seconds', 'Age of the oldest job by task and state.', ['task', 'state'], async () =>
    (await jobStates(db.owner)).map((r) => ({ labels: { task: r.task, state: r.state }, value: r.oldest_age_seconds })),
  );
  const pools = { owner: db.owner, request: db.request };
  scrapedGauge(metrics, 'svc_pg_pool_connections', 'Postgres pool connections by pool and state (total, idle, waiting clients).', ['pool', 'state'], async () =>
    Object.entries(pools).flatMap(([pool, p]) => [
      { labels: { pool, state: 'total' }, value: p.totalCount },
      { labels: { pool, state: 'idle' }, value: p.idleCount },
      { labels: { pool, state: 'waiting' }, value: p.waitingCount },
    ]),
  );
}

/** Write the registry's text exposition to a Koa response. */
export async function metricsBody(ctx: Context, metrics: Metrics): Promise<void> {
  ctx.type = metrics.registry.contentType;
  ctx.body = await metrics.registry.metrics();
}

/** A bare HTTP server answering GET /metrics without credentials (METRICS_PORT: keep it off the public network). */
export function metricsServer(metrics: Metrics): http.Server {
  return http.createServer((req, res) => {
    if (req.method !== 'GET' || (req.url ?? '').split('?')[0] !== '/metrics') {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found\n');
      return;
    }
    metrics.registry.metrics().then(
      (text) => res.writeHead(200, { 'content-type': metrics.registry.contentType }).end(text),
      () => res.writeHead(500, { 'content-type': 'text/plain' }).end('metrics unavailable\n'),
    );
  });
}
