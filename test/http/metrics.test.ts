// GET /metrics: Prometheus text that a real parser reads, counters that move when requests and jobs run,
// operator tokens only; and the credential-free metrics port.
import type { AddressInfo } from 'node:net';
import test from 'ava';
import parsePrometheusTextFormat, { type MetricFamily } from 'parse-prometheus-text-format';
import { createOperatorToken } from '../../db/queries/operators.ts';
import { metricsServer } from '../../http/metrics.ts';
import { hashToken, newToken } from '../../lib/secrets.ts';
import { serviceRig } from '../helpers/rig.ts';
import { agencyWithTestKey } from '../helpers/server.ts';
import { eventually } from '../helpers/worker.ts';

const rig = serviceRig({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1', RATE_LIMIT_V1_PER_WINDOW: '2' });
let operator: string;

// Serial: after the rig's own hook has started the service.
test.serial.before(async () => {
  operator = newToken('ops_', 32);
  await createOperatorToken(rig.svc.tdb.db.owner, 'Prometheus', 'operator', hashToken(operator));
});

/**
 * Scrape and parse. This parser folds a histogram's series into one unlabelled sample, losing the labels,
 * so histograms are parsed a second time with their TYPE lines removed: each `_count` series is then
 * a family of its own, labels kept.
 */
async function scrape(): Promise<MetricFamily[]> {
  const r = await rig.svc.request('GET', '/metrics', { token: operator });
  if (r.status !== 200) throw new Error(`GET /metrics: ${r.status} ${r.text}`);
  return [...parsePrometheusTextFormat(r.text), ...parsePrometheusTextFormat(r.text.replace(/^# (TYPE|HELP) \S+ .*$/gm, ''))];
}

/** The value of one series whose labels include `labels` (a histogram: its `_count`); 0 when absent. */
function value(families: MetricFamily[], name: string, labels: Record<string, string> = {}): number {
  const histogram = families.find((f) => f.name === name)?.type === 'HISTOGRAM';
  // Without TYPE lines each run of `_count` lines is a family of its own: look through all of them.
  const samples = families.filter((f) => f.name === (histogram ? `${name}_count` : name) && f.type !== 'HISTOGRAM').flatMap((f) => f.metrics);
  const sample = samples.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return sample ? Number(sample.value) : 0;
}

test('the text parses and names every family the issue asks for', async (t) => {
  const r = await rig.svc.request('GET', '/metrics', { token: operator });
  t.is(r.status, 200);
  t.regex(r.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  const names = parsePrometheusTextFormat(r.text).map((f) => f.name);
  for (const n of [
    'svc_http_request_duration_seconds',
    'svc_job_duration_seconds',
    'svc_jobs',
    'svc_ocr_pages_total',
    'svc_webhook_deliveries_total',
    'svc_rate_limit_rejections_total',
    'svc_pg_pool_connections',
    'svc_process_resident_memory_bytes',
  ]) {
    t.true(names.includes(n), n);
  }
});

test('HTTP histograms and rate-limit rejections move with requests', async (t) => {
  const c = await rig.svc.oauthClient();
  const a = await rig.svc.agency(c.token);
  const route = '/v1/agencies/:agency_id';
  const before = await scrape();
  const get = () => rig.svc.request('GET', `/v1/agencies/${a.agencyId}`, { token: a.ownerToken });
  t.is((await get()).status, 200);
  t.is((await get()).status, 200);
  t.is((await get()).status, 429);
  const after = await scrape();
  t.is(
    value(after, 'svc_http_request_duration_seconds', { route, status: '200' }) - value(before, 'svc_http_request_duration_seconds', { route, status: '200' }),
    2,
  );
  t.is(
    value(after, 'svc_http_request_duration_seconds', { route, status: '429' }) - value(before, 'svc_http_request_duration_seconds', { route, status: '429' }),
    1,
  );
  t.is(value(after, 'svc_rate_limit_rejections_total', { surface: 'v1' }) - value(before, 'svc_rate_limit_rejections_total', { surface: 'v1' }), 1);
  const unmatched = await rig.svc.request('GET', '/no/such/path/98765');
  t.is(unmatched.status, 404);
  const routes = (await scrape()).filter((f) => f.name === 'svc_http_request_duration_seconds_count').flatMap((f) => f.metrics.map((m) => m.labels?.route));
  t.false(
    routes.some((r) => r?.includes('98765')),
    'routes are labelled by their pattern, never by raw paths',
  );
  t.true(routes.includes('unmatched'));
  t.true(value(after, 'svc_pg_pool_connections', { pool: 'request', state: 'total' }) >= 1);
});

test('queue depth by task and state, job durations and delivery outcomes move with jobs', async (t) => {
  await rig.svc.tdb.db.owner.query(`select graphile_worker.add_job('metrics_test__nobody_runs', '{}')`);
  const before = await scrape();
  t.is(value(before, 'svc_jobs', { task: 'metrics_test__nobody_runs', state: 'queued' }), 1);

  const { key } = await agencyWithTestKey(rig.svc);
  const receiver = await rig.receiver();
  await rig.svc.request('PUT', '/v2/webhook-endpoints/form-submission', { token: key, json: { staging_url: `${receiver.url}/h` } });
  const sent = await rig.svc.request('POST', '/v2/webhook-endpoints/form-submission/test', { token: key, headers: { 'Idempotency-Key': crypto.randomUUID() } });
  t.is(sent.status, 202);
  // The attempt is counted when it is made, the job's duration when the job has finished (its attempt recorded):
  // a scrape between the two sees one without the other, so both are waited for.
  const after = await eventually(
    async () => {
      const m = await scrape();
      const delivered =
        value(m, 'svc_webhook_deliveries_total', { outcome: 'delivered' }) > value(before, 'svc_webhook_deliveries_total', { outcome: 'delivered' });
      const timed =
        value(m, 'svc_job_duration_seconds', { task: 'deliveries__send', outcome: 'success' }) >
        value(before, 'svc_job_duration_seconds', { task: 'deliveries__send', outcome: 'success' });
      return delivered && timed && m;
    },
    15_000,
    'a delivered attempt and its finished job',
  );
  t.true(value(after, 'svc_webhook_deliveries_total', { outcome: 'delivered' }) > value(before, 'svc_webhook_deliveries_total', { outcome: 'delivered' }));
});

test('only operator tokens read /metrics', async (t) => {
  const analyst = newToken('ops_', 32);
  await createOperatorToken(rig.svc.tdb.db.owner, 'Ana', 'analyst', hashToken(analyst));
  const { oauth: c, key, ...a } = await agencyWithTestKey(rig.svc);
  t.is((await rig.svc.request('GET', '/metrics', { token: analyst })).status, 403);
  for (const token of [key, a.ownerToken, c.token, undefined]) t.is((await rig.svc.request('GET', '/metrics', { token })).status, 401);
});

test('the metrics port serves the same registry without credentials, and nothing else', async (t) => {
  const server = metricsServer(rig.svc.deps.metrics!).listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  try {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const r = await fetch(`${base}/metrics`);
    t.is(r.status, 200);
    t.true(parsePrometheusTextFormat(await r.text()).some((f) => f.name === 'svc_jobs'));
    t.is((await fetch(`${base}/graphql`)).status, 404);
  } finally {
    await new Promise<void>((r) => server.close(() => r()));
  }
});
