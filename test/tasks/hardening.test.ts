// Issue 14, the parts that live in SQL and tasks: mode isolation of webhook data (by policy, not by route),
// fan-out that skips what cannot take an event, batched deliveries exactly once, idempotency claims that die
// with their request, and OAuth failures counted apart from the client's budget.
import test from 'ava';
import pg from 'pg';
import { createOAuthClient } from '../../db/queries/oauth.ts';
import { setIdentity } from '../../db/pool.ts';
import { sampleV1Event } from '../../pipelines/webhooks/payloads.ts';
import { formData, serviceRig } from '../helpers/rig.ts';
import { eventually } from '../helpers/worker.ts';

const rig = serviceRig({
  WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  WEBHOOK_RETRY_SCHEDULE: '1',
  WEBHOOK_MAX_ATTEMPTS: '3',
  TRUST_PROXY: 'true',
  RATE_LIMIT_TOKEN_PER_WINDOW: '5',
  RATE_LIMIT_WINDOW_SECONDS: '3600',
});
const { receiver } = rig;

const put = (key: string, body: unknown) => rig.svc.request('PUT', '/v2/webhook-endpoints/form-submission', { token: key, json: body });
const post = (key: string, path: string) => rig.svc.request('POST', path, { token: key, headers: { 'Idempotency-Key': crypto.randomUUID() } });

test('a sandbox key neither sees nor touches live webhook data or live settings, and a live key does not see test data', async (t) => {
  const a = await rig.agency();
  const staging = await receiver();
  const production = await receiver();
  t.is((await put(a.live, { staging_url: staging.url, production_url: production.url })).status, 201);
  await rig.emit(a.agencyId, 'live', 'form-submission', null, formData(1));
  await rig.emit(a.agencyId, 'test', 'form-submission', null, formData(2));
  await production.waitFor(1);
  await staging.waitFor(1);

  const list = async (key: string) =>
    (await rig.svc.request('GET', '/v2/webhook-endpoints/form-submission/deliveries', { token: key })).body.data as Array<{ id: number; mode: string }>;
  const [liveDelivery] = await eventually(async () => (await list(a.live)).length === 1 && list(a.live));
  const [testDelivery] = await list(a.test);
  t.is(liveDelivery.mode, 'live');
  t.is(testDelivery.mode, 'test');
  t.deepEqual(
    (await list(a.test)).map((d) => d.mode),
    ['test'],
    'the sandbox key lists no live delivery',
  );
  t.deepEqual(
    (await list(a.live)).map((d) => d.mode),
    ['live'],
    'the live key lists no test delivery',
  );
  t.is(
    (await rig.svc.request('GET', `/v2/webhook-endpoints/form-submission/deliveries/${liveDelivery.id}`, { token: a.test })).status,
    404,
    'no live body for a sandbox key',
  );
  t.is((await rig.svc.request('GET', `/v2/webhook-endpoints/form-submission/deliveries/${testDelivery.id}`, { token: a.live })).status, 404);
  t.is((await post(a.test, `/v2/webhook-endpoints/form-submission/deliveries/${liveDelivery.id}/redeliver`)).status, 404, 'no redelivery of live data');

  // Settings that route live data are a live key's.
  const setProd = await put(a.test, { production_url: 'https://evil.example.com/steal' });
  t.is(setProd.status, 403, setProd.text);
  t.is((await put(a.test, { enabled: false })).status, 403);
  t.is((await put(a.test, { auth: { kind: 'bearer', token: 'x' } })).status, 403);
  t.is((await post(a.test, '/v2/webhook-endpoints/form-submission/rotate-secret')).status, 403);
  const seen = (await rig.svc.request('GET', '/v2/webhook-endpoints', { token: a.test })).body.data[0];
  t.is(seen.production_url, null, 'the production URL is not shown to a sandbox key');
  // Stored in its canonical spelling (issue 28): the root path is written out.
  t.is((await rig.svc.request('GET', '/v2/webhook-endpoints', { token: a.live })).body.data[0].production_url, `${production.url}/`);
  t.is((await put(a.test, { staging_url: `${staging.url}/moved` })).status, 200, 'the staging URL is the sandbox key’s to set');
  const row = (await rig.svc.tdb.db.owner.query(`select production_url, enabled from app_public.webhook_endpoints where agency_id = $1`, [a.agencyId])).rows[0];
  t.deepEqual(row, { production_url: `${production.url}/`, enabled: true });

  // The policies themselves, with no route in between: a test-mode identity sees test rows only.
  const c = await rig.svc.tdb.db.request.connect();
  try {
    for (const [mode, other] of [
      ['test', 'live'],
      ['live', 'test'],
    ] as const) {
      await c.query('begin');
      await setIdentity(rig.svc.tdb.db, c, { role: 'admin', agencyId: a.agencyId, mode, apiKeyId: 1 });
      for (const table of ['events', 'webhook_deliveries', 'webhook_delivery_attempts']) {
        const { rows } = await c.query(`select distinct mode from app_public.${table}`);
        t.deepEqual(
          rows.map((r) => r.mode),
          [mode],
          `${table} as a ${mode} key`,
        );
      }
      const leaked = await c.query(`select count(*)::int n from app_public.webhook_deliveries where mode = $1`, [other]);
      t.is(leaked.rows[0].n, 0);
      await c.query('rollback');
    }
    // An agent token (no mode) sees both; an identity with neither mode nor agent sees nothing.
    await c.query('begin');
    await setIdentity(rig.svc.tdb.db, c, { role: 'owner', agencyId: a.agencyId, agentId: a.ownerId });
    t.is((await c.query(`select count(distinct mode)::int n from app_public.webhook_deliveries`)).rows[0].n, 2);
    await c.query('rollback');
    await c.query('begin');
    await setIdentity(rig.svc.tdb.db, c, { role: 'admin', agencyId: a.agencyId });
    t.is((await c.query(`select count(*)::int n from app_public.webhook_deliveries`)).rows[0].n, 0);
    await c.query('rollback');
  } finally {
    c.release();
  }
});

test('a failing staging URL does not disable live deliveries', async (t) => {
  const a = await rig.agency();
  const staging = await receiver();
  const production = await receiver();
  staging.script({ status: 410 });
  await put(a.live, { staging_url: staging.url, production_url: production.url });
  await rig.svc.tdb.db.owner.query(`update app_public.webhook_endpoints set failing_since = null where agency_id = $1`, [a.agencyId]);
  await rig.emit(a.agencyId, 'test', 'form-submission', null, formData(1));
  await staging.waitFor(1);
  await eventually(
    async () =>
      (await rig.svc.tdb.db.owner.query(`select status from app_public.webhook_deliveries where agency_id = $1`, [a.agencyId])).rows[0]?.status === 'failed',
  );
  const ep = (await rig.svc.tdb.db.owner.query(`select enabled, failing_since from app_public.webhook_endpoints where agency_id = $1`, [a.agencyId])).rows[0];
  t.deepEqual(ep, { enabled: true, failing_since: null });
  await rig.emit(a.agencyId, 'live', 'form-submission', null, formData(2));
  const [got] = await production.waitFor(1);
  t.is(got.json.data.submission_id, 2);
});

test('fan-out delivers to every target that can take the event and skips the others, never failing the event', async (t) => {
  const a = await rig.agency();
  const topicReceiver = await receiver();
  const subReceiver = await receiver();
  await put(a.live, { staging_url: topicReceiver.url });
  const sub = await rig.svc.request('POST', '/v1/webhooks', { token: a.ownerToken, json: { url: subReceiver.url, events: ['*'] } });
  t.is(sub.status, 200, sub.text);

  // A topic event has no v1 event name: the `*` subscription cannot take it, the topic endpoint can.
  const topicEvent = await rig.emit(a.agencyId, 'test', 'form-submission', null, formData(7));
  const [got] = await topicReceiver.waitFor(1);
  t.is(got.json.data.submission_id, 7);
  // A named v1 event reaches the subscription.
  await rig.emit(a.agencyId, 'test', null, 'client.updated', sampleV1Event('client.updated').data);
  await subReceiver.waitFor(1);
  t.is(subReceiver.received[0].json.event, 'client.updated');
  // An event that names both but whose data fits only one envelope goes where it fits.
  const both = await rig.emit(a.agencyId, 'test', 'form-submission', 'client.updated', sampleV1Event('client.updated').data);
  await subReceiver.waitFor(2);
  const deliveries = await rig.svc.tdb.db.owner.query(`select event_id, endpoint_id from app_public.webhook_deliveries where event_id = any($1)`, [
    [topicEvent, both],
  ]);
  t.is(deliveries.rows.filter((d) => d.event_id === topicEvent).length, 1, 'one delivery: the topic endpoint');
  t.is(deliveries.rows.filter((d) => d.event_id === both).length, 1, 'one delivery: the subscription (the data is no form submission)');
  // No fan-out job failed or waits for a retry.
  // (Only this test's events: other tests of the file fan out concurrently.)
  const failed = await rig.svc.tdb.db.owner.query(
    `select count(*)::int n from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id where k.identifier = 'events__fan_out' and j.attempts > 0
        and ((j.payload ->> 'event_id')::bigint = any($1::bigint[]) or (j.payload ->> 'agency_id')::bigint = $2)`,
    [[topicEvent, both], a.agencyId],
  );
  t.is(failed.rows[0].n, 0);
  const waiting = await rig.svc.tdb.db.owner.query(`select count(*)::int n from app_private.events_waiting where event_id = any($1)`, [[topicEvent, both]]);
  t.is(waiting.rows[0].n, 0, 'both events are marked fanned out');
  t.is(topicReceiver.received.length, 1);
});

test('a burst of events to one endpoint is delivered exactly once each, batched into fewer jobs', async (t) => {
  const a = await rig.agency();
  const r = await receiver();
  await put(a.live, { staging_url: r.url });
  const n = 60;
  await Promise.all(Array.from({ length: n }, (_, i) => rig.emit(a.agencyId, 'test', 'form-submission', null, formData(1000 + i))));
  await r.waitFor(n);
  await new Promise((res) => setTimeout(res, 500));
  const ids = r.received.map((x) => x.json.data.submission_id as number);
  t.is(ids.length, n, 'no delivery doubled');
  t.is(new Set(ids).size, n, 'none lost');
  const st = await rig.svc.tdb.db.owner.query(`select status, count(*)::int n from app_public.webhook_deliveries where agency_id = $1 group by status`, [
    a.agencyId,
  ]);
  t.deepEqual(st.rows, [{ status: 'delivered', n }]);
  const attempts = await rig.svc.tdb.db.owner.query(
    `select count(*)::int n, count(distinct delivery_id)::int d from app_public.webhook_delivery_attempts where agency_id = $1`,
    [a.agencyId],
  );
  t.deepEqual(attempts.rows[0], { n, d: n }, 'one logged attempt per delivery');
});

test('a fan-out transaction that dies mid-batch leaves its events waiting: the outbox poller then delivers each exactly once', async (t) => {
  const a = await rig.agency();
  const r = await receiver();
  await put(a.live, { staging_url: r.url });
  const endpoint = (await rig.svc.tdb.db.owner.query('select id from app_public.webhook_endpoints where agency_id = $1', [a.agencyId])).rows[0].id as string;
  let submissions: number[] = [];
  const doomed = new pg.Client({ connectionString: rig.svc.tdb.url });
  await doomed.connect();
  doomed.on('error', () => {}); // its connection is killed below
  try {
    // Lock the events before the worker's poller takes them (it polls every 25 ms: retry with new events if it won).
    let ids: number[] = [];
    for (let attempt = 0; attempt < 20 && !ids.length; attempt++) {
      submissions = [0, 1, 2].map((i) => 3000 + attempt * 10 + i);
      const emitted = await Promise.all(submissions.map((n) => rig.emit(a.agencyId, 'test', 'form-submission', null, formData(n))));
      await doomed.query('begin');
      const locked = await doomed.query('select event_id from app_private.events_waiting where event_id = any($1) for update skip locked', [emitted]);
      if (locked.rowCount === emitted.length) ids = emitted;
      else await doomed.query('rollback');
    }
    t.is(ids.length, 3, 'the events were locked while still waiting');
    // Half-way through the batch: deliveries made and queued, then the process dies before its commit.
    const deliveries = ids.map((id) => ({ event_id: id, endpoint_id: endpoint, url: r.url, body: JSON.stringify({ from: 'the dead batch' }) }));
    t.is((await doomed.query('select app_private.create_event_deliveries($1, $2) as n', [ids, JSON.stringify(deliveries)])).rows[0].n, 3);
    await rig.svc.tdb.db.owner.query('select pg_terminate_backend($1)', [(doomed as unknown as { processID: number }).processID]);
  } finally {
    await doomed.end().catch(() => {});
  }
  const ours = () => r.received.filter((x) => submissions.includes(x.json.data?.submission_id as number));
  await eventually(async () => ours().length >= 3, 15_000, 'the three deliveries');
  await new Promise((res) => setTimeout(res, 500)); // a doubled delivery would arrive now
  const bodies = r.received.map((x) => x.json);
  t.false(
    bodies.some((b) => b.from === 'the dead batch'),
    'nothing of the dead transaction was sent',
  );
  const got = ours().map((x) => x.json.data.submission_id as number);
  t.deepEqual([...got].sort(), submissions, 'each event once');
  const rows = await rig.svc.tdb.db.owner.query(
    `with d as (select d.id, d.event_id from app_public.webhook_deliveries d join app_public.events e on e.id = d.event_id
                 where d.agency_id = $1 and (e.data ->> 'submission_id')::int = any ($2))
     select (select count(*)::int from d) n, (select count(distinct event_id)::int from d) events,
            (select count(*)::int from app_public.webhook_delivery_attempts x where x.delivery_id in (select id from d)) attempts`,
    [a.agencyId, submissions],
  );
  t.deepEqual(rows.rows[0], { n: 3, events: 3, attempts: 3 }, 'one delivery per event and one attempt each');
});

// Serial: the fault is injected with DDL on webhook_deliveries, whose lock would queue the other tests' writes.
test.serial('an event whose fan-out fails on its own is held with its reason; the events behind it, of any agency, still go out', async (t) => {
  const a = await rig.agency();
  const b = await rig.agency();
  const ra = await receiver();
  const rb = await receiver();
  await put(a.live, { staging_url: ra.url });
  await put(b.live, { staging_url: rb.url });
  // Fault injection: the delivery of one event cannot be written (a data error raised in the statement).
  const poison = 4_747_001;
  await rig.svc.tdb.db.owner.query(`create function test_poison_delivery() returns trigger language plpgsql as $$
    begin raise exception 'poisoned delivery for the test' using errcode = '22023'; end $$`);
  await rig.svc.tdb.db.owner.query(
    `create trigger poison before insert on app_public.webhook_deliveries for each row when (position('"submission_id":${poison}' in new.body) > 0) execute function test_poison_delivery()`,
  );
  try {
    const before = await rig.emit(a.agencyId, 'test', 'form-submission', null, formData(4_747_000));
    const bad = await rig.emit(a.agencyId, 'test', 'form-submission', null, formData(poison));
    const after = [
      await rig.emit(a.agencyId, 'test', 'form-submission', null, formData(4_747_002)),
      await rig.emit(b.agencyId, 'test', 'form-submission', null, formData(4_747_003)),
    ];
    t.true(before < bad && bad < after[0]);
    await eventually(async () => ra.received.length >= 2 && rb.received.length >= 1, 15_000, 'the good deliveries');
    t.deepEqual(ra.received.map((x) => x.json.data.submission_id).sort(), [4_747_000, 4_747_002]);
    t.deepEqual(
      rb.received.map((x) => x.json.data.submission_id),
      [4_747_003],
    );
    const held = await rig.svc.tdb.db.owner.query('select held_at is not null as held, held_error from app_private.events_waiting where event_id = $1', [bad]);
    t.is(held.rows.length, 1, 'the failing event still waits');
    t.true(held.rows[0].held);
    t.regex(held.rows[0].held_error, /^22023: poisoned delivery for the test/);
  } finally {
    await rig.svc.tdb.db.owner.query('drop trigger if exists poison on app_public.webhook_deliveries');
    await rig.svc.tdb.db.owner.query('drop function if exists test_poison_delivery()');
  }
  // An operator releases it once the cause is fixed: it goes out like any other.
  await rig.svc.tdb.db.owner.query(`update app_private.events_waiting set held_at = null where held_error like '22023:%'`);
  await eventually(async () => ra.received.length >= 3, 15_000, 'the released delivery');
  t.deepEqual(ra.received.map((x) => x.json.data.submission_id).sort(), [4_747_000, 4_747_001, 4_747_002]);
});

test('an Idempotency-Key claim dies with its request: a killed request frees the key, a running one holds it', async (t) => {
  const a = await rig.agency();
  const key = crypto.randomUUID();
  const claim = (c: pg.ClientBase) =>
    c.query(`select outcome from app_private.claim_idempotency_key($1, 'test', $2, 'fp')`, [a.agencyId, key]).then((r) => r.rows[0].outcome as string);
  const first = new pg.Client({ connectionString: rig.svc.tdb.url });
  const second = new pg.Client({ connectionString: rig.svc.tdb.url });
  first.on('error', () => {});
  await first.connect();
  await second.connect();
  try {
    await first.query('begin');
    t.is(await claim(first), 'new');
    const pid = (await first.query('select pg_backend_pid() as pid')).rows[0].pid;
    t.is(await claim(second), 'running', 'a twin while the first request runs');
    // The process dies mid-request: Postgres ends its session, and the claim with it.
    await second.query('select pg_terminate_backend($1)', [pid]);
    await eventually(async () => (await second.query('select count(*)::int n from pg_stat_activity where pid = $1', [pid])).rows[0].n === 0);
    t.is(await claim(second), 'new', 'the honest retry runs at once');
    const rows = await second.query('select count(*)::int n from app_private.idempotency_keys where key = $1', [key]);
    t.is(rows.rows[0].n, 0, 'nothing was stored for the killed request');
  } finally {
    void first.end().catch(() => {}); // its session was terminated; end() of a dead client may never settle
    await second.end();
  }
  // A 'running' row left behind by the previous implementation no longer blocks the key.
  const stale = crypto.randomUUID();
  await rig.svc.tdb.db.owner.query(`insert into app_private.idempotency_keys (agency_id, mode, key, fingerprint) values ($1, 'test', $2, 'x')`, [
    a.agencyId,
    stale,
  ]);
  const r = await rig.svc.request('POST', '/v2/forms', {
    token: a.test,
    headers: { 'Idempotency-Key': stale },
    json: { name: 'F', owner: { type: 'agency', agency_id: a.agencyId }, insurance_line: 'personal_auto' },
  });
  t.is(r.status, 201, r.text);
});

test('wrong secrets from one address never lock the client out elsewhere, and unknown client ids leave no state', async (t) => {
  const c = await createOAuthClient(rig.svc.tdb.db.owner, 'target');
  const token = (secret: string, from: string, clientId = c.client_id) =>
    rig.svc.request('POST', '/oauth/token', {
      json: { grant_type: 'client_credentials', client_id: clientId, client_secret: secret },
      headers: { 'X-Forwarded-For': from },
    });
  const statuses: number[] = [];
  for (let i = 0; i < 7; i++) statuses.push((await token('wrong', '203.0.113.9')).status);
  t.deepEqual(statuses, [401, 401, 401, 401, 401, 429, 429], 'the guesser is stopped after 5 failures');
  const right = await token(c.client_secret, '198.51.100.20');
  t.is(right.status, 200, 'the owner, elsewhere, still gets a token');
  t.is(right.headers.get('x-ratelimit-remaining'), '4', 'failed attempts did not spend the client’s own budget');

  for (let i = 0; i < 5; i++) t.is((await token('x', '203.0.113.10', `oc_made_up_${i}`)).status, 401);
  // (Other tests of this file spend buckets concurrently: look only for what the made-up ids could have left.)
  const left = (
    await rig.svc.tdb.db.owner.query(
      `select count(*)::int n from app_private.rate_limit_counters where bucket like '%made_up%' or bucket like '%203.0.113.10%'`,
    )
  ).rows[0].n;
  t.is(left, 0, 'no row for made-up client ids');
});
