// Prometheus metrics of one process (API and worker share one registry when they share a process).
// Gauges that need a query (queue depth, pool usage) are added by whoever holds the database.
import client from 'prom-client';

export interface Metrics {
  registry: client.Registry;
  /** Seconds per HTTP request, by method, declared route (never the raw path) and status. */
  httpDuration: client.Histogram<'method' | 'route' | 'status'>;
  /** Seconds per job run, by task and outcome (success, error). */
  jobDuration: client.Histogram<'task' | 'outcome'>;
  /** Pages run through OCR, by engine. */
  ocrPages: client.Counter<'engine'>;
  /** Webhook delivery attempts by outcome: delivered, retry (another attempt is queued), failed (given up). */
  deliveries: client.Counter<'outcome'>;
  /** Requests refused with 429, by surface (v1, api, oauth, v2). */
  rateLimitRejections: client.Counter<'surface'>;
}

/** A fresh registry with the service's metrics and the process defaults (memory, CPU, event loop). */
export function createMetrics(opts: { defaults?: boolean } = {}): Metrics {
  const registry = new client.Registry();
  if (opts.defaults !== false) client.collectDefaultMetrics({ register: registry, prefix: 'svc_' });
  return {
    registry,
    httpDuration: new client.Histogram({
      name: 'svc_http_request_duration_seconds',
      help: 'Duration of HTTP requests by method, route and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
    jobDuration: new client.Histogram({
      name: 'svc_job_duration_seconds',
      help: 'Duration of job runs by task and outcome (success or error; an error is retried until attempts run out).',
      labelNames: ['task', 'outcome'],
      buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300],
      registers: [registry],
    }),
    ocrPages: new client.Counter({ name: 'svc_ocr_pages_total', help: 'Pages recognised with OCR, by engine.', labelNames: ['engine'], registers: [registry] }),
    deliveries: new client.Counter({
      name: 'svc_webhook_deliveries_total',
      help: 'Webhook delivery attempts by outcome: delivered, retry (another attempt queued), failed (given up).',
      labelNames: ['outcome'],
      registers: [registry],
    }),
    rateLimitRejections: new client.Counter({
      name: 'svc_rate_limit_rejections_total',
      help: 'Requests refused with 429 by surface.',
      labelNames: ['surface'],
      registers: [registry],
    }),
  };
}

/** A gauge whose values are read when the registry is scraped (a failed read leaves the gauge empty). */
export function scrapedGauge<L extends string>(
  metrics: Metrics,
  name: string,
  help: string,
  labelNames: L[],
  read: () => Promise<Array<{ labels: Partial<Record<L, string>>; value: number }>>,
): void {
  new client.Gauge<L>({
    name,
    help,
    labelNames,
    registers: [metrics.registry],
    async collect() {
      this.reset();
      const values = await read().catch(() => []);
      for (const v of values) this.set(v.labels as Partial<Record<L, string | number>>, v.value);
    },
  });
}
