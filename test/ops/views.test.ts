// The operators' views (app_ops) over real jobs, deliveries and rate-limit counters made by the real
// service, worker and receivers; and what the svc_operator role can and cannot read.
import test from 'ava';
import { PassThrough } from 'node:stream';
import { setLogLevel, setLogStream } from '../../lib/log.ts';
import { sampleTopicPayload } from '../../pipelines/webhooks/payloads.ts';
import { asRole, refusedAs } from '../helpers/db.ts';
import { serviceRig } from '../helpers/rig.ts';
import { agencyWithTestKey } from '../helpers/server.ts';
import { eventually } from '../helpers/worker.ts';

const rig = serviceRig({
  WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  WEBHOOK_RETRY_SCHEDULE: '60',
  WEBHOOK_MAX_ATTEMPTS: '3',
  WEBHOOK_TIMEOUT_MS: '3000',
  RATE_LIMIT_V1_PER_WINDOW: '2',
});
const { receiver } = rig;

/** Run `sql` as svc_operator, the role operators log in with. */
const asOperator = (sql: string, values?: unknown[]) => asRole(rig.svc.tdb.db, 'svc_operator', sql, values);

async function agencyWithKey() {
  const { key, ...a } = await agencyWithTestKey(rig.svc);
  return { ...a, key };
}

const sendTest = (key: string, topic: string, requestId?: string) =>
  rig.svc.request('POST', `/v2/webhook-endpoints/${topic}/test`, {
    token: key,
    headers: { 'Idempotency-Key': crypto.randomUUID(), ...(requestId ? { 'X-Request-Id': requestId } : {}) },
  });

test('jobs: queued, scheduled and failed jobs by task with age, attempts and the last error', async (t) => {
  const o = rig.svc.tdb.db.owner;
  await o.query(`select graphile_worker.add_job('ops_test__nobody_runs', '{}')`);
  await o.query(`select graphile_worker.add_job('ops_test__nobody_runs', '{}')`);
  await o.query(`select graphile_worker.add_job('ops_test__later', '{}', run_at => now() + interval '1 hour')`);
  // A payload the task rejects, with one attempt: the real worker fails it for good.
  await o.query(`select graphile_worker.add_job('deliveries__send', '{"delivery_id": "not a number"}', max_attempts => 1, job_key => 'ops-bad-send')`);
  const failed = await eventually(
    async () => (await asOperator(`select * from app_ops.jobs where key = 'ops-bad-send' and state = 'failed'`))[0],
    30_000,
    'the bad job to fail',
  );
  t.is(failed.task, 'deliveries__send');
  t.is(failed.attempts, 1);
  t.regex(failed.last_error, /delivery_id/);

  const states = await asOperator(
    `select task, state, jobs, max_attempts, last_error, extract(epoch from oldest_age) >= 0 as aged from app_ops.job_states where task like 'ops_test%' or task = 'deliveries__send' order by task, state`,
  );
  const by = (task: string, state: string) => states.find((s) => s.task === task && s.state === state);
  t.is(by('ops_test__nobody_runs', 'queued')?.jobs, 2);
  t.is(by('ops_test__later', 'scheduled')?.jobs, 1);
  t.is(by('deliveries__send', 'failed')?.jobs, 1);
  t.regex(by('deliveries__send', 'failed')?.last_error ?? '', /delivery_id/);
  t.true(by('ops_test__nobody_runs', 'queued')?.aged);
  const queued = await asOperator(`select waiting_for is not null as waiting from app_ops.jobs where task = 'ops_test__nobody_runs'`);
  t.true(queued.every((q) => q.waiting));
});

test('deliveries by endpoint: success rate, failure streak, last error, next retry, and a disabled endpoint with its reason', async (t) => {
  const a = await agencyWithKey();
  const flaky = await receiver();
  const gone = await receiver();
  flaky.script({ status: 500 }, { status: 503 });
  gone.script({ status: 410 });
  t.is((await rig.svc.request('PUT', '/v2/webhook-endpoints/form-submission', { token: a.key, json: { staging_url: `${flaky.url}/h` } })).status, 201);
  t.is((await rig.svc.request('PUT', '/v2/webhook-endpoints/client-submission', { token: a.key, json: { staging_url: `${gone.url}/h` } })).status, 201);

  const endpoint = async (topic: string) =>
    (await asOperator(`select * from app_ops.webhook_endpoints where agency_id = $1 and topic = $2`, [a.agencyId, topic]))[0];
  t.is((await sendTest(a.key, 'form-submission')).status, 202);
  await flaky.waitFor(1);
  t.is((await sendTest(a.key, 'form-submission')).status, 202);
  await flaky.waitFor(2);
  const streakOf = (n: number, what: string) =>
    eventually(
      async () => {
        const row = await endpoint('form-submission');
        return row.failure_streak === n && row;
      },
      10_000,
      what,
    );
  let e = await streakOf(2, 'two failed attempts');
  t.is(e.attempts_24h, 2);
  t.is(Number(e.success_rate_24h), 0);
  t.is(e.last_error, 'HTTP 503');
  // Test sends to a staging URL never mark a topic endpoint failing (test data must not switch off live delivery).
  t.is(e.failing_since, null);
  t.true(e.enabled);

  t.is((await sendTest(a.key, 'form-submission')).status, 202);
  e = await streakOf(0, 'a successful attempt');
  t.is(e.succeeded_24h, 1);
  t.is(Number(e.success_rate_24h), 0.333);
  t.is(e.failing_since, null);
  t.truthy(e.last_success_at);

  // A real event is retried: pending with the next retry 60 s ahead, and its send job scheduled.
  flaky.script({ status: 500 });
  await rig.svc.tdb.db.owner.query(`select app_private.emit_event($1, 'test', 'form-submission', null, $2)`, [
    a.agencyId,
    JSON.stringify(sampleTopicPayload('form-submission').data),
  ]);
  e = await eventually(
    async () => {
      const row = await endpoint('form-submission');
      return row.pending === 1 && row.next_retry_at && row;
    },
    15_000,
    'a pending retry',
  );
  t.true(e.next_retry_at.getTime() > Date.now() + 30_000);
  t.is(e.failure_streak, 1);
  const [delivery] = await asOperator(`select * from app_ops.webhook_deliveries where endpoint_id = $1 and status = 'pending'`, [e.endpoint_id]);
  t.is(delivery.attempt_count, 1);
  const [job] = await asOperator(`select * from app_ops.jobs where key = $1`, [`delivery:${delivery.id}`]);
  t.is(job.state, 'scheduled');
  t.is(job.task, 'deliveries__send');

  // A live event answered 410 Gone disables the endpoint (a staging URL's 410 would not).
  const live = await rig.svc.apiKey(a.ownerToken, a.agencyId, 'live');
  t.is((await rig.svc.request('PUT', '/v2/webhook-endpoints/client-submission', { token: live, json: { production_url: `${gone.url}/h` } })).status, 200);
  await rig.svc.tdb.db.owner.query(`select app_private.emit_event($1, 'live', 'client-submission', null, $2)`, [
    a.agencyId,
    JSON.stringify(sampleTopicPayload('client-submission').data),
  ]);
  const disabled = await eventually(
    async () => {
      const row = await endpoint('client-submission');
      return !row.enabled && row;
    },
    10_000,
    'the endpoint to be disabled',
  );
  t.regex(disabled.disabled_reason, /410/);
  t.truthy(disabled.disabled_at);
  t.is(disabled.failure_streak, 1);
});

test('rate limits: v1 token counters name their agency and agent; plan limits per agency', async (t) => {
  const c = await rig.svc.oauthClient();
  const a = await rig.svc.agency(c.token);
  const get = () => rig.svc.request('GET', `/v1/agencies/${a.agencyId}`, { token: a.ownerToken });
  t.is((await get()).status, 200);
  t.is((await get()).status, 200);
  t.is((await get()).status, 429);
  const counters = await asOperator(`select * from app_ops.rate_limit_counters where agency_id = $1 and kind = 'v1_token'`, [a.agencyId]);
  t.is(counters.length, 1);
  t.is(counters[0].agent_id, a.ownerId);
  t.is(counters[0].hits, 3);
  t.false(counters[0].bucket.includes(a.ownerToken), 'the bucket is named by a hash, never by the token');
  const oauth = await asOperator(`select * from app_ops.rate_limit_counters where kind = 'oauth_token_requests' and oauth_client_id is not null`);
  t.true(oauth.length >= 1);

  const [plan] = await asOperator(`select * from app_ops.agency_rate_limits where agency_id = $1`, [a.agencyId]);
  t.like(plan, { plan: 'free', per_minute_limit: 5, per_day_limit: 50, minute_hits: 0, day_hits: 0 });
});

test('request id: from X-Request-Id to the delivery, its job payload and the attempt; an emitted event carries it to the fan-out and delivery', async (t) => {
  const a = await agencyWithKey();
  const r = await receiver();
  await rig.svc.request('PUT', '/v2/webhook-endpoints/form-submission', { token: a.key, json: { staging_url: `${r.url}/h` } });
  const lines: Array<Record<string, unknown>> = [];
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => {
    for (const l of chunk.toString('utf8').split('\n')) if (l.trim()) lines.push(JSON.parse(l));
  });
  setLogStream(stream);
  setLogLevel('debug');
  const sent = await sendTest(a.key, 'form-submission', 'req-ops-test-1');
  t.is(sent.status, 202);
  t.is(sent.headers.get('x-request-id'), 'req-ops-test-1');
  await r.waitFor(1);
  const attempt = await eventually(
    async () => (await asOperator(`select * from app_ops.webhook_delivery_attempts where request_id = 'req-ops-test-1'`))[0],
    10_000,
    'the attempt',
  );
  t.true(attempt.succeeded);
  const [delivery] = await asOperator(`select * from app_ops.webhook_deliveries where id = $1`, [attempt.delivery_id]);
  t.is(delivery.request_id, 'req-ops-test-1');
  const mine = await eventually(
    async () => {
      const l = lines.filter((x) => x.requestId === 'req-ops-test-1');
      return l.some((x) => x.msg === 'job') && l;
    },
    10_000,
    'the job log line',
  );
  setLogLevel('silent');
  t.true(
    mine.some((x) => x.msg === 'request' && x.route === '/v2/webhook-endpoints/:topic/test' && x.status === 202),
    'the HTTP line',
  );
  t.true(
    mine.some((x) => x.msg === 'delivery attempt' && x.task === 'deliveries__send' && typeof x.jobId === 'number'),
    "the task's own line",
  );
  t.true(
    mine.some((x) => x.msg === 'job' && x.task === 'deliveries__send' && x.outcome === 'success'),
    'the job line',
  );
  for (const l of lines) t.false(JSON.stringify(l).includes(a.key), 'no API key in any log line');

  // A state function called in a request's transaction: the event, its fan-out by the outbox poller, the delivery and its attempt.
  const c = await rig.svc.tdb.db.owner.connect();
  try {
    await c.query('begin');
    await c.query(`select set_config('svc.request_id', 'req-ops-test-2', true)`);
    const { rows } = await c.query(`select app_private.emit_event($1, 'test', 'form-submission', null, $2) as id`, [
      a.agencyId,
      JSON.stringify(sampleTopicPayload('form-submission').data),
    ]);
    const event = await c.query(`select request_id from app_public.events where id = $1`, [rows[0].id]);
    t.is(event.rows[0].request_id, 'req-ops-test-2');
    // No job carries the id: the outbox poller serves many requests, and the event carries it to its delivery.
    await c.query('commit');
  } finally {
    c.release();
  }
  const second = await eventually(
    async () => (await asOperator(`select * from app_ops.webhook_delivery_attempts where request_id = 'req-ops-test-2'`))[0],
    15_000,
    'the attempt of the event',
  );
  t.true(second.succeeded);
});

test('request id: an X-Request-Id that is not a plain token is replaced by a generated one', async (t) => {
  const r = await rig.svc.request('GET', '/healthz', { headers: { 'X-Request-Id': 'bad id\twith spaces' } });
  t.regex(r.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
  const none = await rig.svc.request('GET', '/healthz');
  t.regex(none.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
});

test('svc_operator reads the ops views and nothing else: no tenant tables, no secrets, no worker tables', async (t) => {
  await refusedAs(t, rig.svc.tdb.db, 'svc_operator', [
    'select * from app_public.webhook_endpoints',
    'select * from app_public.agencies',
    'select * from app_private.agent_tokens',
    'select * from app_private.operator_tokens',
    'select * from app_private.rate_limit_counters',
    'select * from graphile_worker.jobs',
    'select * from graphile_worker._private_jobs',
    'select * from app_analyst.nothing_here',
  ]);
  // Every column operators can see, checked against names that would carry a secret or customer content.
  const cols = await rig.svc.tdb.db.owner.query<{ table_name: string; column_name: string }>(
    `select c.table_name, c.column_name from information_schema.columns c where c.table_schema = 'app_ops'`,
  );
  t.true(cols.rows.length > 20);
  for (const { table_name, column_name } of cols.rows) {
    t.notRegex(column_name, /secret|cipher|hash|password|token|body|headers|payload|data$/, `${table_name}.${column_name}`);
  }
  const grants = await rig.svc.tdb.db.owner.query<{ table_schema: string; table_name: string; privilege_type: string }>(
    `select table_schema, table_name, privilege_type from information_schema.role_table_grants where grantee = 'svc_operator'`,
  );
  for (const g of grants.rows) {
    t.is(g.table_schema, 'app_ops', `${g.table_schema}.${g.table_name}`);
    t.is(g.privilege_type, 'SELECT', `${g.table_name}: ${g.privilege_type}`);
  }
});

test('every ops view and the ops schema are documented', async (t) => {
  const { rows } = await rig.svc.tdb.db.owner.query<{ relname: string; doc: string | null }>(
    `select c.relname, obj_description(c.oid, 'pg_class') doc from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname in ('app_ops', 'app_analyst') and c.relkind in ('v', 'r', 'm')`,
  );
  t.true(rows.length >= 6);
  for (const r of rows) t.truthy(r.doc, `${r.relname} has a comment`);
});
