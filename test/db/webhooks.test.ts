// The webhook state functions tested as SQL: called as the request role with an identity set, asserting rows,
// errors and the jobs they queue in graphile_worker.
import test from 'ava';
import { testDatabase, type TestDatabase } from '../helpers/db.ts';
import { as, jobItems, queuedJobs, seedAgency, sqlError, type SeededAgency } from '../helpers/seed.ts';

let tdb: TestDatabase;
test.before(async () => {
  tdb = await testDatabase();
});
// Tests run concurrently and an agency has one endpoint per topic, so each test seeds its own agencies.
let seeded = 0;
const fresh = () => seedAgency(tdb, `hooks-${++seeded}`);
test.after.always(async () => tdb?.drop());

const cols =
  '(r.endpoint).id, (r.endpoint).agency_id, (r.endpoint).staging_url, (r.endpoint).production_url, (r.endpoint).auth_kind, (r.endpoint).enabled, r.created';
/** put_topic_endpoint as `who`; `given` names the fields the request carried. */
const put = (
  who: SeededAgency['owner'],
  topic: string,
  p: { staging?: string | null; production?: string | null; auth?: [string, string] | null; given: string[]; enabled?: boolean },
) =>
  as(tdb, who, `select ${cols} from app_public.put_topic_endpoint($1, $2, $3, $4, $5, $6, $7, $8) r`, [
    topic,
    p.staging ?? null,
    p.production ?? null,
    p.auth?.[0] ?? null,
    p.auth?.[1] ?? null,
    p.given,
    'ciphertext-1',
    p.enabled ?? null,
  ]);
const secretOf = async (id: string) =>
  (await tdb.db.owner.query('select secret_ciphertext from app_public.webhook_endpoints where id = $1', [id])).rows[0].secret_ciphertext;

test('put_topic_endpoint creates the endpoint once, then changes only the fields given', async (t) => {
  const a = await fresh();
  const key = a.adminKey('test');
  const created = (await put(key, 'client-submission', { staging: 'https://s.example/1', given: ['staging_url'] })).rows[0];
  t.like(created, { agency_id: a.agencyId, staging_url: 'https://s.example/1', production_url: null, enabled: true, created: true });
  t.is(await secretOf(created.id), 'ciphertext-1');

  // The production URL and credentials route live data: a live key's to set (a sandbox key gets LIVEK).
  const live = a.adminKey('live');
  const refused = await sqlError(
    as(tdb, key, `select ${cols} from app_public.put_topic_endpoint($1, $2, $3, $4, $5, $6, $7, $8) r`, [
      'client-submission',
      null,
      'https://p.example/1',
      null,
      null,
      ['production_url'],
      'ciphertext-2',
      null,
    ]),
  );
  t.is(refused.code, 'LIVEK');
  const updated = (
    await as(tdb, live, `select ${cols} from app_public.put_topic_endpoint($1, $2, $3, $4, $5, $6, $7, $8) r`, [
      'client-submission',
      null,
      'https://p.example/1',
      'bearer',
      'auth-ct',
      ['production_url', 'auth'],
      'ciphertext-2',
      null,
    ])
  ).rows[0];
  t.like(updated, { id: created.id, staging_url: 'https://s.example/1', production_url: 'https://p.example/1', auth_kind: 'bearer', created: false });
  t.is(await secretOf(created.id), 'ciphertext-1', 'the secret is stored only on creation');

  const cleared = (await put(live, 'client-submission', { staging: null, auth: null, given: ['staging_url', 'auth'] })).rows[0];
  t.like(cleared, { staging_url: null, production_url: 'https://p.example/1', auth_kind: null });
});

test('put_topic_endpoint: a topic endpoint needs a URL (constraint topic_has_url), on creation and on update', async (t) => {
  const a = await fresh();
  const key = a.adminKey('test');
  const none = await sqlError(put(key, 'form-submission', { given: [] }));
  t.like(none, { code: '23514', constraint: 'topic_has_url' });
  await put(key, 'form-submission', { staging: 'https://s.example/2', given: ['staging_url'] });
  const emptied = await sqlError(put(key, 'form-submission', { staging: null, given: ['staging_url'] }));
  t.like(emptied, { code: '23514', constraint: 'topic_has_url' });
  const row = await tdb.db.owner.query(`select staging_url from app_public.webhook_endpoints where agency_id = $1 and topic = 'form-submission'`, [a.agencyId]);
  t.is(row.rows[0].staging_url, 'https://s.example/2', 'the refused update changed nothing');
});

test('put_topic_endpoint refuses read-only keys (FORBD) and keeps agencies apart', async (t) => {
  const [a, b] = [await fresh(), await fresh()];
  await put(a.adminKey('test'), 'client-submission', { staging: 'https://a.example', given: ['staging_url'] });
  t.is((await sqlError(put(b.readOnlyKey, 'client-submission', { staging: 'https://x.example', given: ['staging_url'] }))).code, 'FORBD');
  const own = (await put(b.adminKey('test'), 'client-submission', { staging: 'https://b.example', given: ['staging_url'] })).rows[0];
  t.like(own, { agency_id: b.agencyId, created: true }, 'agency B gets its own endpoint even when A has one for the topic');
});

test('put_topic_endpoint with enabled: disabling stops, enabling re-queues pending deliveries', async (t) => {
  const b = await fresh();
  const key = b.adminKey('live');
  const ep = (
    await put(key, 'form-submission', { staging: 'https://b.example/s', production: 'https://b.example/p', given: ['staging_url', 'production_url'] })
  ).rows[0];
  t.false((await put(key, 'form-submission', { given: [], enabled: false })).rows[0].enabled);
  const d = await tdb.db.owner.query<{ id: number }>(
    `insert into app_public.webhook_deliveries (agency_id, endpoint_id, message_id, mode, url, body) values ($1, $2, 'msg_x', 'live', 'https://b.example/p', '{}') returning id`,
    [b.agencyId, ep.id],
  );
  t.true((await put(key, 'form-submission', { given: [], enabled: true })).rows[0].enabled);
  // First attempts wait for the worker's send loop (0015): a due row each, no job.
  const due = await tdb.db.owner.query('select delivery_id from app_private.deliveries_due where delivery_id = $1 and due_at <= now()', [d.rows[0].id]);
  t.is(due.rowCount, 1, 'the pending delivery is due again');
  t.false((await queuedJobs(tdb, 'deliveries__send')).some((j) => jobItems(j).some((p) => p.delivery_id === d.rows[0].id)));
});

test('create_webhook_subscription records the creating agent, can start disabled, and is for admins only', async (t) => {
  const a = await fresh();
  const { rows } = await as(tdb, a.owner, 'select * from app_public.create_webhook_subscription($1, $2, $3, $4, $5, $6, $7)', [
    'https://sub.example',
    ['agent.created'],
    'mine',
    'ct',
    null,
    null,
    false,
  ]);
  t.like(rows[0], {
    agency_id: a.agencyId,
    kind: 'subscription',
    url: 'https://sub.example',
    created_by_agent_id: a.ownerId,
    enabled: false,
    disabled_reason: 'disabled by the user',
  });
  t.deepEqual(rows[0].events, ['agent.created']);
  const plain = { role: 'agent' as const, agencyId: a.agencyId, agentId: a.ownerId };
  t.is(
    (await sqlError(as(tdb, plain, 'select app_public.create_webhook_subscription($1, $2, null, $3, null, null, true)', ['https://x.example', ['*'], 'ct'])))
      .code,
    'FORBD',
  );
});

test('send_test_delivery queues a test delivery to the staging URL; NOURL without one; NTFND across agencies', async (t) => {
  const [a, b] = [await fresh(), await fresh()];
  const key = a.adminKey('live');
  const ep = (await put(key, 'form-submission', { production: 'https://prod.example', given: ['production_url'] })).rows[0];
  t.is((await sqlError(as(tdb, key, 'select app_public.send_test_delivery($1, $2)', [ep.id, '{}']))).code, 'NOURL');

  const withStaging = (await put(key, 'client-submission', { staging: 'https://stage.example', given: ['staging_url'] })).rows[0];
  const { rows } = await as(tdb, key, 'select * from app_public.send_test_delivery($1, $2)', [withStaging.id, '{"sample":true}']);
  // A sample body carries no customer data; it is filed under the caller's mode so the caller's log shows it.
  t.like(rows[0], { is_test: true, mode: 'live', url: 'https://stage.example', status: 'pending', body: '{"sample":true}' });
  t.regex(rows[0].message_id, /^msg_test_/);
  t.true((await queuedJobs(tdb, 'deliveries__send')).some((j) => j.payload.delivery_id === rows[0].id));
  t.is((await sqlError(as(tdb, b.adminKey('test'), 'select app_public.send_test_delivery($1, $2)', [withStaging.id, '{}']))).code, 'NTFND');
});

test('emit_event writes the outbox row, waiting, and queues no job (the worker polls); create_deliveries adds nothing the second time', async (t) => {
  const a = await fresh();
  const key = a.adminKey('test');
  const ep = (await put(key, 'client-submission', { staging: 'https://stage.example/e', given: ['staging_url'] })).rows[0];
  const e = await tdb.db.owner.query<{ id: number }>(`select app_private.emit_event($1, 'test', 'client-submission', null, '{"n":1}') as id`, [a.agencyId]);
  const eventId = e.rows[0].id;
  const waiting = await tdb.db.owner.query('select 1 from app_private.events_waiting where event_id = $1', [eventId]);
  t.is(waiting.rowCount, 1, 'the event waits for the outbox poller');
  const fanOut = await queuedJobs(tdb, 'events__fan_out');
  t.false(
    fanOut.some((j) => jobItems(j).some((p) => p.agency_id === a.agencyId || p.event_id === eventId)),
    'no job per event or agency: emitting is one insert',
  );

  const targets = await tdb.db.owner.query('select * from app_private.event_targets($1)', [eventId]);
  t.deepEqual(targets.rows, [{ endpoint_id: ep.id, url: 'https://stage.example/e', kind: 'topic' }]);
  const deliveries = JSON.stringify([{ endpoint_id: ep.id, url: 'https://stage.example/e', body: '{}' }]);
  t.is((await tdb.db.owner.query('select app_private.create_deliveries($1, $2) as n', [eventId, deliveries])).rows[0].n, 1);
  t.is((await tdb.db.owner.query('select app_private.create_deliveries($1, $2) as n', [eventId, deliveries])).rows[0].n, 0);
});

test('fan_out_waiting reads the oldest waiting events of every agency, skips what another poller holds, sees a late commit; fan_out_batch (0013 jobs) per agency; create_event_deliveries makes them due, once, and marks the events', async (t) => {
  const a = await fresh();
  const b = await fresh();
  const ep = (await put(a.adminKey('test'), 'form-submission', { staging: 'https://batch.example/a', given: ['staging_url'] })).rows[0];
  const emit = async (agencyId: number, n: number) =>
    (await tdb.db.owner.query<{ id: number }>(`select app_private.emit_event($1, 'test', 'form-submission', null, $2) as id`, [agencyId, { n }])).rows[0].id;
  const a1 = await emit(a.agencyId, 1);
  const a2 = await emit(a.agencyId, 2);
  const b1 = await emit(b.agencyId, 3);

  const emitter = await tdb.db.owner.connect();
  const fetcher = await tdb.db.owner.connect();
  // Other tests of this file emit too: only this test's events are looked at.
  const mine = (rows: Array<{ id: number }>, ids: number[]) => [...new Set(rows.map((r) => r.id))].filter((id) => ids.includes(id));
  try {
    // An event whose transaction is still open is not seen; a poll after its commit sees it (nothing is lost
    // when a request commits after a poll has begun).
    await emitter.query('begin');
    const late = (await emitter.query(`select app_private.emit_event($1, 'test', 'form-submission', null, '{"n":4}') as id`, [a.agencyId])).rows[0].id;
    await fetcher.query('begin');
    const before = await fetcher.query('select id from app_private.fan_out_waiting(10000)');
    t.deepEqual(mine(before.rows, [a1, a2, b1, late]), [a1, a2, b1], 'every agency, oldest first; the open transaction’s event is not there');
    // A second poller skips what the first holds.
    const other = await tdb.db.owner.query('select id from app_private.fan_out_waiting(10000)');
    t.deepEqual(mine(other.rows, [a1, a2, b1, late]), [], 'locked by the first poller');
    await fetcher.query('rollback');
    await emitter.query('commit');
    const after = await tdb.db.owner.query('select id, endpoint_id, url, kind from app_private.fan_out_waiting(10000)');
    t.deepEqual(mine(after.rows, [a1, a2, b1, late]), [a1, a2, b1, late], 'committed late, seen by the next poll');
    t.deepEqual(
      after.rows.filter((r) => r.id === late),
      [{ id: late, endpoint_id: ep.id, url: 'https://batch.example/a', kind: 'topic' }],
    );

    // Two transactions reading batches of the same agency never get the same event.
    await emitter.query('begin');
    const first = await emitter.query('select distinct id from app_private.fan_out_batch($1, 2) order by id', [a.agencyId]);
    t.deepEqual(
      first.rows.map((r) => r.id),
      [a1, a2],
    );
    await fetcher.query('begin');
    const second = await fetcher.query('select distinct id, endpoint_id, url, kind from app_private.fan_out_batch($1, 10) order by id', [a.agencyId]);
    t.deepEqual(second.rows, [{ id: late, endpoint_id: ep.id, url: 'https://batch.example/a', kind: 'topic' }]);
    await fetcher.query('rollback');
    const deliveries = JSON.stringify([a1, a2].map((id) => ({ event_id: id, endpoint_id: ep.id, url: 'https://batch.example/a', body: `{"n":${id}}` })));
    t.is((await emitter.query('select app_private.create_event_deliveries($1, $2) as n', [[a1, a2], deliveries])).rows[0].n, 2);
    await emitter.query('commit');
    t.is(
      (await tdb.db.owner.query('select app_private.create_event_deliveries($1, $2) as n', [[a1, a2], deliveries])).rows[0].n,
      0,
      'a second run adds nothing',
    );
  } finally {
    emitter.release();
    fetcher.release();
  }
  const marked = await tdb.db.owner.query(
    'select id from app_public.events e where id = any($1) and not exists (select 1 from app_private.events_waiting w where w.event_id = e.id) order by id',
    [[a1, a2, b1]],
  );
  t.deepEqual(
    marked.rows.map((r) => r.id),
    [a1, a2],
  );
  const none = await tdb.db.owner.query('select * from app_private.fan_out_batch($1, 10)', [b.agencyId]);
  t.deepEqual(
    none.rows.map((r) => [r.id, r.endpoint_id]),
    [[b1, null]],
    'an event without targets is one line with no endpoint',
  );
  const made = await tdb.db.owner.query<{ id: number }>('select id from app_public.webhook_deliveries where event_id = any($1) order by id', [[a1, a2]]);
  const due = await tdb.db.owner.query<{ delivery_id: number }>('select delivery_id from app_private.deliveries_due where delivery_id = any($1) order by 1', [
    made.rows.map((r) => r.id),
  ]);
  t.deepEqual(
    due.rows.map((r) => r.delivery_id),
    made.rows.map((r) => r.id),
    'both first attempts are due for the send loop',
  );
  t.false(
    (await queuedJobs(tdb, 'deliveries__send')).some((j) => j.key === `deliveries:${ep.id}`),
    'no send job: the worker claims due deliveries itself',
  );
});

test('fan_out_waiting gives every agency a share of a batch: a burst of one agency does not put another agency’s event behind it', async (t) => {
  const burst = await fresh();
  const quiet = await fresh();
  const emit = async (agencyId: number, n: number) =>
    (await tdb.db.owner.query<{ id: number }>(`select app_private.emit_event($1, 'test', 'form-submission', null, $2) as id`, [agencyId, { n }])).rows[0].id;
  const burstIds: number[] = [];
  for (let n = 0; n < 30; n++) burstIds.push(await emit(burst.agencyId, n));
  const quietId = await emit(quiet.agencyId, 99);
  const c = await tdb.db.owner.connect();
  try {
    await c.query('begin');
    // Other tests of this file emit too: only this test's events are looked at.
    const ids = [...new Set((await c.query<{ id: number }>('select id from app_private.fan_out_waiting(1000, 5)')).rows.map((r) => r.id))];
    t.deepEqual(
      ids.filter((id) => burstIds.includes(id)),
      burstIds.slice(0, 5),
      'the burst’s oldest five, its share',
    );
    t.true(ids.includes(quietId), 'the other agency’s event, emitted after the whole burst, is in the same batch');
    await c.query('rollback');
    await c.query('begin');
    const byDefault = [...new Set((await c.query<{ id: number }>('select id from app_private.fan_out_waiting(50)')).rows.map((r) => r.id))];
    t.is(byDefault.filter((id) => burstIds.includes(id)).length, 10, 'a fifth of the batch unless a share is given');
    await c.query('rollback');
  } finally {
    c.release();
  }
});

test('record_delivery_attempt schedules a retry as a job at next_attempt_at, then finishes the delivery', async (t) => {
  const b = await fresh();
  const ep = (await put(b.adminKey('test'), 'client-submission', { staging: 'https://b.example/r', given: ['staging_url'] })).rows[0];
  const d = await tdb.db.owner.query<{ id: number }>(
    `insert into app_public.webhook_deliveries (agency_id, endpoint_id, message_id, mode, url, body) values ($1, $2, 'msg_r', 'test', 'https://b.example/r', '{}') returning id`,
    [b.agencyId, ep.id],
  );
  const id = d.rows[0].id;
  const attempt = (ok: boolean, retry: number | null) =>
    tdb.db.owner.query(`select * from app_private.record_delivery_attempt($1, now(), 12, $2, '{}', 'body', $3, $4, $5, false, $6, interval '5 days')`, [
      id,
      ok ? 200 : 503,
      ok ? null : 'http_status',
      ok ? null : 'HTTP 503',
      ok,
      retry,
    ]);
  const failed = (await attempt(false, 60)).rows[0];
  t.like(failed, { status: 'pending', attempt_count: 1, last_status_code: 503, last_error: 'HTTP 503' });
  const job = (await queuedJobs(tdb, 'deliveries__send')).find((j) => j.payload.delivery_id === id);
  t.truthy(job);
  t.true(Math.abs(job!.run_at.getTime() - failed.next_attempt_at.getTime()) < 1000, 'the job runs when the next attempt is due');
  const done = (await attempt(true, null)).rows[0];
  t.like(done, { status: 'delivered', attempt_count: 2, next_attempt_at: null, last_error: null });
  const logged = await tdb.db.owner.query('select attempt_number, status_code from app_public.webhook_delivery_attempts where delivery_id = $1 order by 1', [
    id,
  ]);
  t.deepEqual(logged.rows, [
    { attempt_number: 1, status_code: 503 },
    { attempt_number: 2, status_code: 200 },
  ]);
  const again = (await attempt(false, 60)).rows[0];
  t.is(again.attempt_count, 2, 'a finished delivery records nothing more');
});
