// What the worker's statements read (0018): each takes its batch by primary key, so its cost follows the batch,
// not the size of a table or of a backlog. Counted with pg_stat_xact_user_tables (this transaction's reads) on a
// database holding a backlog: a statement that reads each waiting row's event, delivery or the whole events table
// fails here, whatever the machine's speed.
import test from 'ava';
import type pg from 'pg';
import { beginFanOutWaiting, createEventDeliveriesAndCommit } from '../../db/queries/events.ts';
import { sampleTopicPayload } from '../../pipelines/webhooks/payloads.ts';
import { testDatabase, type TestDatabase } from '../helpers/db.ts';
import { seedAgency } from '../helpers/seed.ts';

let tdb: TestDatabase;
test.before(async () => {
  tdb = await testDatabase();
});
test.after.always(async () => tdb?.drop());

const BACKLOG = 1500;

/** Rows of `table` this transaction read so far (sequential scans and index fetches). */
async function readsOf(c: pg.PoolClient, table: string): Promise<number> {
  const { rows } = await c.query<{ n: string }>(
    `select coalesce(seq_tup_read, 0) + coalesce(idx_tup_fetch, 0) as n from pg_stat_xact_user_tables where relid = $1::regclass`,
    [table],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Run `fn` in a transaction that is rolled back (tests share the database; the backlog stays as it was). */
async function inRolledBack<T>(fn: (c: pg.PoolClient) => Promise<T>): Promise<T> {
  const c = await tdb.db.owner.connect();
  try {
    await c.query('begin');
    return await fn(c);
  } finally {
    await c.query('rollback').catch(() => {});
    c.release();
  }
}

/** An agency with a form-submission and a client-submission endpoint; their ids. */
async function agencyWithEndpoints(label: string): Promise<{ agencyId: number; busy: string; other: string }> {
  const a = await seedAgency(tdb, label);
  const { rows } = await tdb.db.owner.query<{ id: string; topic: string }>(
    `insert into app_public.webhook_endpoints (agency_id, kind, topic, staging_url, secret_ciphertext)
     values ($1, 'topic', 'form-submission', 'https://busy.example/h', 'c1'), ($1, 'topic', 'client-submission', 'https://other.example/h', 'c2')
     returning id, topic`,
    [a.agencyId],
  );
  return {
    agencyId: a.agencyId,
    busy: rows.find((r) => r.topic === 'form-submission')!.id,
    other: rows.find((r) => r.topic === 'client-submission')!.id,
  };
}

/** `n` pending deliveries to `endpointId`, made due (queue_deliveries); their ids. */
async function dueDeliveries(agencyId: number, endpointId: string, n: number, tag: string): Promise<number[]> {
  const { rows } = await tdb.db.owner.query<{ id: number }>(
    `insert into app_public.webhook_deliveries (agency_id, endpoint_id, message_id, mode, url, body)
     select $1, $2, 'msg_' || $4 || '_' || i, 'test', 'https://x.example/h', '{}' from generate_series(1, $3) i returning id`,
    [agencyId, endpointId, n, tag],
  );
  const ids = rows.map((r) => Number(r.id));
  await tdb.db.owner.query('select app_private.queue_deliveries($1, $2)', [endpointId, ids]);
  return ids;
}

test.serial("a claim passing over a busy endpoint's backlog reads the due rows, not each delivery, and takes the other endpoint's", async (t) => {
  const { agencyId, busy, other } = await agencyWithEndpoints('claim');
  await dueDeliveries(agencyId, busy, BACKLOG, 'busy');
  const [wanted] = await dueDeliveries(agencyId, other, 1, 'other'); // due last: behind the whole backlog
  await tdb.db.owner.query('analyze app_private.deliveries_due, app_public.webhook_deliveries');
  const { claimed, reads } = await inRolledBack(async (c) => {
    const before = await readsOf(c, 'app_public.webhook_deliveries');
    const { rows } = await c.query<{ id: number; endpoint_id: string }>(
      `select id, endpoint_id from app_private.send_round('send_loop_cost', '[]', '{}', '{}', 10, interval '1 hour', $1, interval '5 days')`,
      [[busy]],
    );
    return { claimed: rows.map((r) => ({ id: Number(r.id), endpoint: r.endpoint_id })), reads: (await readsOf(c, 'app_public.webhook_deliveries')) - before };
  });
  t.deepEqual(claimed, [{ id: wanted, endpoint: other }], "only the other endpoint's delivery is claimed");
  t.true(reads < 20, `deliveries read for one claim: ${reads} (the busy endpoint's ${BACKLOG} must not be read one by one)`);
});

test.serial("recording a round's attempts reads the round's deliveries, not every pending one", async (t) => {
  const { agencyId, busy } = await agencyWithEndpoints('record');
  const ids = await dueDeliveries(agencyId, busy, BACKLOG, 'pending');
  await tdb.db.owner.query('analyze app_public.webhook_deliveries');
  const attempts = ids.slice(0, 3).map((id) => ({
    delivery_id: id,
    started_at: new Date().toISOString(),
    duration_ms: 3,
    status_code: 204,
    headers: {},
    body: '',
    error_code: null,
    error_message: null,
    ok: true,
    gone: false,
    retry_in_seconds: null,
  }));
  const { statuses, reads } = await inRolledBack(async (c) => {
    const before = await readsOf(c, 'app_public.webhook_deliveries');
    await c.query(`select app_private.record_delivery_attempts($1, interval '5 days')`, [JSON.stringify(attempts)]);
    const reads = (await readsOf(c, 'app_public.webhook_deliveries')) - before;
    const { rows } = await c.query<{ status: string }>('select status from app_public.webhook_deliveries where id = any ($1) order by id', [ids.slice(0, 4)]);
    return { statuses: rows.map((r) => r.status), reads };
  });
  t.deepEqual(statuses, ['delivered', 'delivered', 'delivered', 'pending'], 'the three recorded are delivered, the rest still pending');
  t.true(reads < 30, `deliveries read to record 3 attempts: ${reads} (of ${BACKLOG} pending)`);
});

test.serial('a fan-out batch reads its waiting events by key, not the events table from its start', async (t) => {
  const { agencyId } = await agencyWithEndpoints('fanout');
  const data = JSON.stringify(sampleTopicPayload('form-submission').data);
  // Events fanned out long ago (no waiting row), then more waiting than one batch takes.
  await tdb.db.owner.query(
    `insert into app_public.events (agency_id, mode, topic, data) select $1, 'test', 'form-submission', $2::jsonb from generate_series(1, $3)`,
    [agencyId, data, BACKLOG],
  );
  const { rows: emitted } = await tdb.db.owner.query<{ id: string }>(
    `select app_private.emit_event($1, 'test', 'form-submission', null, $2::jsonb) as id from generate_series(1, 700)`,
    [agencyId, data],
  );
  await tdb.db.owner.query('analyze app_public.events, app_private.events_waiting');
  const batch = 500;
  const { events, reads } = await inRolledBack(async (c) => {
    const before = await readsOf(c, 'app_public.events');
    // One agency's events, its share the whole batch.
    const { rows } = await c.query<{ id: number; endpoint_id: string | null }>('select id, endpoint_id from app_private.fan_out_waiting($1, $1)', [batch]);
    return { events: rows.map((r) => Number(r.id)), reads: (await readsOf(c, 'app_public.events')) - before };
  });
  t.deepEqual(
    events,
    emitted
      .map((r) => Number(r.id))
      .sort((a, b) => a - b)
      .slice(0, batch),
    'the oldest waiting events, one line each',
  );
  // Each event of the batch is read twice (the batch, and its targets by the event's agency), nothing more.
  t.true(reads <= 2 * batch + 10, `events read for a batch of ${batch}: ${reads} (of ${BACKLOG + 700} in the table)`);
});

test.serial('deleting an agency still deletes its deliveries and their attempts (through endpoint and delivery)', async (t) => {
  const { agencyId, busy } = await agencyWithEndpoints('deleted');
  const ids = await dueDeliveries(agencyId, busy, 2, 'deleted');
  const attempt = { delivery_id: ids[0], started_at: new Date().toISOString(), duration_ms: 3, status_code: 204, headers: {}, body: '', ok: true, gone: false };
  await tdb.db.owner.query(`select app_private.record_delivery_attempts($1, interval '5 days')`, [JSON.stringify([attempt])]);
  const count = async () =>
    (
      await tdb.db.owner.query<{ d: number; a: number; q: number }>(
        `select (select count(*)::int from app_public.webhook_deliveries where agency_id = $1) d,
                (select count(*)::int from app_public.webhook_delivery_attempts where agency_id = $1) a,
                (select count(*)::int from app_private.deliveries_due where delivery_id = any ($2)) q`,
        [agencyId, ids],
      )
    ).rows[0];
  t.deepEqual(await count(), { d: 2, a: 1, q: 2 });
  await tdb.db.owner.query('delete from app_public.agencies where id = $1', [agencyId]);
  t.deepEqual(await count(), { d: 0, a: 0, q: 0 });
});

test.serial("the poller's batch in two round trips (begin with the read, commit with the write) stores every body byte for byte", async (t) => {
  const { agencyId, busy } = await agencyWithEndpoints('literal');
  await tdb.db.owner.query('delete from app_private.events_waiting'); // the earlier tests' (rolled back) batches
  const tricky = { note: "it's a \\ back\\slash, a 'quote', $$ dollars $$, a line\nbreak, \u2028, é and 😀" };
  const { rows: emitted } = await tdb.db.owner.query(`select app_private.emit_event($1, 'test', 'form-submission', null, $2) as id`, [
    agencyId,
    JSON.stringify({ ...sampleTopicPayload('form-submission').data, metadata: tricky }),
  ]);
  const eventId = Number(emitted[0].id);
  const c = await tdb.db.owner.connect();
  let body = '';
  try {
    const rows = await beginFanOutWaiting(c, 500, 100);
    t.deepEqual([...new Set(rows.map((r) => Number(r.id)))], [eventId]);
    body = JSON.stringify({ topic: 'form-submission', data: rows[0].data });
    t.is(await createEventDeliveriesAndCommit(c, [eventId], [{ event_id: eventId, endpoint_id: busy, url: 'https://busy.example/h', body }]), 1);
    t.false(((await c.query('select pg_current_xact_id_if_assigned() is not null as open')).rows[0] as { open: boolean }).open, 'committed');
  } finally {
    c.release();
  }
  const stored = await tdb.db.owner.query('select body from app_public.webhook_deliveries where event_id = $1', [eventId]);
  t.is(stored.rows[0].body, body, 'the exact text given');
  t.deepEqual((JSON.parse(stored.rows[0].body) as { data: { metadata: unknown } }).data.metadata, tricky);
  const waiting = await tdb.db.owner.query('select count(*)::int n from app_private.events_waiting where event_id = $1', [eventId]);
  t.is(waiting.rows[0].n, 0, 'the event is no longer waiting');
});
