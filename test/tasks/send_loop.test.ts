// The worker's send loop (0015): first attempts are claimed from app_private.deliveries_due for a lease (or handed
// over claimed by the fan-out of the same process, 0019), sent and recorded with the next claim in one statement. A killed worker's claims come back, a failing or hanging
// receiver does not hold up the others, two loops never send one delivery twice, and work lost with an
// asynchronous commit is redone under the same webhook-id.
import test from 'ava';
import type { Runner } from 'graphile-worker';
import type { DueDeliveryRow } from '../../db/queries/deliveries.ts';
import { beginAs, commit } from '../../db/pool.ts';
import { startSendLoop } from '../../tasks/webhooks/send_loop.ts';
import { startOutboxPoller } from '../../tasks/webhooks/outbox.ts';
import { startWorker } from '../../tasks/index.ts';
import type { Receiver } from '../helpers/receiver.ts';
import { formData, serviceRig } from '../helpers/rig.ts';
import { eventually, startTestWorker } from '../helpers/worker.ts';

const rig = serviceRig(
  { WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '60', WEBHOOK_MAX_ATTEMPTS: '3', WEBHOOK_TIMEOUT_MS: '4000' },
  { worker: false },
);
const { receiver } = rig;

const db = () => rig.svc.tdb.db.owner;

const emit = (agencyId: number, submissionId: number) => rig.emit(agencyId, 'test', 'form-submission', null, formData(submissionId));

/** Disable an endpoint through its state function, as a live admin of its agency would. */
async function disable(agencyId: number, endpointId: string): Promise<void> {
  const c = await db().connect();
  try {
    await beginAs(rig.svc.tdb.db, c, { role: 'admin', agencyId, mode: 'live' });
    await c.query('select app_public.set_webhook_endpoint_enabled($1, false)', [endpointId]);
    await commit(c);
  } finally {
    c.release();
  }
}

/** A disabled endpoint and an event for it, emitted while it is disabled. */
async function eventOfDisabledEndpoint(submissionId: number) {
  const r = await receiver();
  const { agencyId, endpointId } = await rig.endpointTo(r.url);
  await disable(agencyId, endpointId);
  return { r, agencyId, endpointId, eventId: await emit(agencyId, submissionId) };
}

/** The due rows of an event's deliveries: who holds each, and whether it is due now. */
const dueOf = async (eventId: number) =>
  (
    await db().query(
      `select q.claimed_by, q.due_at <= now() due from app_private.deliveries_due q join app_public.webhook_deliveries d on d.id = q.delivery_id where d.event_id = $1`,
      [eventId],
    )
  ).rows;

const submission = (r: Receiver, i: number) => r.received.filter((x) => x.json?.data?.submission_id === i);

async function withWorker<T>(fn: (w: Runner) => Promise<T>): Promise<T> {
  const w = await startTestWorker(rig.svc);
  try {
    return await fn(w);
  } finally {
    await w.stop();
  }
}

/** A receiver, an endpoint to it, and a test-mode delivery `messageId` with `body` (no event) queued to be sent. */
async function queuedDelivery(messageId: string, body: string) {
  const r = await receiver();
  const { agencyId, endpointId } = await rig.endpointTo(r.url);
  const { rows } = await db().query<{ id: number }>(
    `insert into app_public.webhook_deliveries (agency_id, endpoint_id, message_id, mode, url, body)
     values ($1, $2, $3, 'test', $4, $5) returning id`,
    [agencyId, endpointId, messageId, `${r.url}/h`, body],
  );
  const id = rows[0].id;
  await db().query('select app_private.queue_deliveries($1, $2)', [endpointId, [id]]);
  return { r, agencyId, endpointId, id };
}

// Serial: each test starts the worker it needs; another test's worker would take this one's claims.
test.serial('the claim of a worker that hangs while sending comes back when its lease ends, and the delivery is sent once', async (t) => {
  const { r, id } = await queuedDelivery('msg_killed_claim', '{"topic":"form-submission","data":{"submission_id":1}}');
  // A worker claims it for a 3-second lease and hangs (its process still beats) without recording anything.
  await db().query(`insert into app_private.worker_heartbeats (worker_id) values ('send_loop_hung') on conflict (worker_id) do update set last_seen = now()`);
  const claimed = await db().query(
    `select id from app_private.send_round('send_loop_hung', '[]', '{}', '{}', 100, interval '3 seconds', '{}', interval '5 days')`,
  );
  t.true(
    claimed.rows.some((x) => Number(x.id) === id),
    'the dead worker held the claim',
  );
  const claimedAt = Date.now();
  await withWorker(async () => {
    await new Promise((res) => setTimeout(res, 1000));
    t.is(submission(r, 1).length, 0, 'not sent while the lease runs');
    await eventually(async () => submission(r, 1).length >= 1, 15_000, 'the delivery after the lease');
    t.true(Date.now() - claimedAt >= 2500, 'sent only once the lease had ended');
    await new Promise((res) => setTimeout(res, 500));
  });
  t.is(submission(r, 1).length, 1, 'sent once');
  t.is(submission(r, 1)[0].headers['webhook-id'], 'msg_killed_claim');
  const d = await db().query(
    `select d.status, d.attempt_count, (select count(*)::int from app_public.webhook_delivery_attempts a where a.delivery_id = d.id) attempts,
            exists (select 1 from app_private.deliveries_due q where q.delivery_id = d.id) due
       from app_public.webhook_deliveries d where d.id = $1`,
    [id],
  );
  t.deepEqual(d.rows[0], { status: 'delivered', attempt_count: 1, attempts: 1, due: false });
});

test.serial('the claims of a worker that stopped beating come back at the next heartbeat, long before their lease ends', async (t) => {
  const { r, id } = await queuedDelivery('msg_dead_claim', '{"topic":"form-submission","data":{"submission_id":2}}');
  // Killed an hour ago with a claim of an hour: its last heartbeat is older than WORKER_STALE_AFTER_SECONDS.
  await db().query(
    `insert into app_private.worker_heartbeats (worker_id, last_seen) values ('send_loop_killed', now() - interval '1 hour')
     on conflict (worker_id) do update set last_seen = excluded.last_seen`,
  );
  const claimed = await db().query(
    `select id from app_private.send_round('send_loop_killed', '[]', '{}', '{}', 100, interval '1 hour', '{}', interval '5 days')`,
  );
  t.true(claimed.rows.some((x) => Number(x.id) === id));
  await withWorker(async () => {
    await eventually(async () => submission(r, 2).length >= 1, 10_000, 'the delivery released by the heartbeat');
  });
  t.is(submission(r, 2).length, 1);
  const beats = await db().query(`select 1 from app_private.worker_heartbeats where worker_id = 'send_loop_killed'`);
  t.is(beats.rowCount, 0, 'the dead loop is forgotten');
});

test.serial('a failing and a hanging receiver among good ones: the good ones arrive at once, the failing one is retried by a job', async (t) => {
  const good = await receiver();
  const failing = await receiver();
  const hanging = await receiver();
  const g = await rig.endpointTo(good.url);
  const f = await rig.endpointTo(failing.url);
  const h = await rig.endpointTo(hanging.url);
  failing.script({ status: 500, body: 'down' });
  hanging.script('hang');
  await withWorker(async () => {
    // The hanging one first, so it is claimed with (or before) the others.
    await emit(h.agencyId, 201);
    await emit(f.agencyId, 202);
    const started = Date.now();
    for (let i = 0; i < 20; i++) await emit(g.agencyId, 300 + i);
    await good.waitFor(20, 15_000);
    t.true(Date.now() - started < 3500, `the good receiver's deliveries did not wait for the hanging one (${Date.now() - started} ms)`);
    await failing.waitFor(1, 15_000);
    await eventually(
      async () => (await db().query(`select 1 from app_public.webhook_delivery_attempts where agency_id = $1`, [h.agencyId])).rowCount,
      15_000,
      'the hanging attempt to time out and be logged',
    );
  });
  t.deepEqual(
    good.received.map((x) => x.json.data.submission_id as number).sort((a, b) => a - b),
    Array.from({ length: 20 }, (_, i) => 300 + i),
    'each good delivery once',
  );
  const failed = await db().query(
    `select d.id, d.status, d.attempt_count, d.last_status_code, d.next_attempt_at > now() later,
            exists (select 1 from app_private.deliveries_due q where q.delivery_id = d.id) due
       from app_public.webhook_deliveries d where d.agency_id = $1`,
    [f.agencyId],
  );
  t.like(failed.rows[0], { status: 'pending', attempt_count: 1, last_status_code: 500, later: true, due: false });
  const job = await db().query(`select run_at > now() later from graphile_worker.jobs where key = $1`, [`delivery:${failed.rows[0].id}`]);
  t.deepEqual(job.rows, [{ later: true }], 'the retry is a job at next_attempt_at');
  const hung = await db().query(`select error_code from app_public.webhook_delivery_attempts where agency_id = $1`, [h.agencyId]);
  t.deepEqual(hung.rows, [{ error_code: 'timeout' }]);
});

test.serial('two workers claiming at once send every delivery exactly once', async (t) => {
  const r1 = await receiver();
  const r2 = await receiver();
  const a = await rig.endpointTo(r1.url);
  const b = await rig.endpointTo(r2.url);
  const n = 150;
  const w1 = await startTestWorker(rig.svc);
  const w2 = await startTestWorker(rig.svc);
  try {
    await Promise.all(Array.from({ length: n }, (_, i) => emit(i % 2 ? a.agencyId : b.agencyId, 5000 + i)));
    await r1.waitFor(n / 2, 30_000);
    await r2.waitFor(n / 2, 30_000);
    await new Promise((res) => setTimeout(res, 500)); // a doubled delivery would arrive now
  } finally {
    await Promise.all([w1.stop(), w2.stop()]);
  }
  const got = [...r1.received, ...r2.received].map((x) => x.json.data.submission_id as number);
  t.is(got.length, n, 'none doubled');
  t.is(new Set(got).size, n, 'none lost');
  const logged = await db().query(
    `select count(*)::int n, count(distinct delivery_id)::int d from app_public.webhook_delivery_attempts where agency_id = any ($1)`,
    [[a.agencyId, b.agencyId]],
  );
  t.deepEqual(logged.rows[0], { n, d: n }, 'one attempt logged per delivery');
  const left = await db().query(
    `select count(*)::int n from app_private.deliveries_due q join app_public.webhook_deliveries d on d.id = q.delivery_id where d.agency_id = any ($1)`,
    [[a.agencyId, b.agencyId]],
  );
  t.is(left.rows[0].n, 0, 'no claim left behind');
});

test.serial('a fan-out or a record lost with an asynchronous commit is redone, under the same webhook-id', async (t) => {
  const r = await receiver();
  const { agencyId } = await rig.endpointTo(r.url);
  let firstId = '';
  await withWorker(async () => {
    const eventId = await emit(agencyId, 77);
    await eventually(async () => submission(r, 77).length >= 1, 15_000, 'the first delivery');
    const first = submission(r, 77)[0];
    firstId = String(first.headers['webhook-id']);

    // Postgres lost the fan-out's commit: the delivery (and its attempt) are gone, the event waits again.
    await db().query('delete from app_public.webhook_deliveries where event_id = $1', [eventId]);
    await db().query('insert into app_private.events_waiting (event_id, agency_id) select id, agency_id from app_public.events where id = $1', [eventId]);
    await eventually(async () => submission(r, 77).length >= 2, 15_000, 'the redone fan-out');
    const second = submission(r, 77)[1];
    t.is(second.headers['webhook-id'], first.headers['webhook-id'], 'the same webhook-id: receivers drop the duplicate');
    t.deepEqual(second.raw, first.raw, 'the same bytes');

    // Postgres lost the commit that recorded the attempt: the delivery is pending again, still claimed.
    const c = await db().connect();
    try {
      await c.query('begin');
      await c.query(`select set_config('svc.transition', 'on', true)`);
      const { rows } = await c.query(
        `update app_public.webhook_deliveries set status = 'pending', attempt_count = 0, completed_at = null where event_id = $1 returning id`,
        [eventId],
      );
      await c.query('delete from app_public.webhook_delivery_attempts where delivery_id = $1', [rows[0].id]);
      await c.query(`insert into app_private.deliveries_due (delivery_id, due_at) values ($1, now())`, [rows[0].id]);
      await c.query('commit');
    } finally {
      c.release();
    }
    await eventually(async () => submission(r, 77).length >= 3, 15_000, 'the redone attempt');
    t.is(submission(r, 77)[2].headers['webhook-id'], first.headers['webhook-id']);
    await new Promise((res) => setTimeout(res, 500));
  });
  t.is(submission(r, 77).length, 3, 'each loss redone once, nothing more');
  const d = await db().query(`select status, message_id from app_public.webhook_deliveries where agency_id = $1`, [agencyId]);
  t.is(d.rows.length, 1);
  t.is(d.rows[0].status, 'delivered');
  t.is(d.rows[0].message_id, firstId, "the webhook-id is the delivery's message_id (msg_<event>_<endpoint>)");
});

test.serial('a delivery made due again while a loop holds its claim (its endpoint enabled again) is not dropped by that loop', async (t) => {
  const { endpointId, id } = await queuedDelivery('msg_requeued', '{}');
  const claimed = (
    await db().query(`select id from app_private.send_round('send_loop_a', '[]', '{}', '{}', 100, interval '1 hour', '{}', interval '5 days')`)
  ).rows.map((x) => Number(x.id));
  t.true(claimed.includes(id));
  // The loop found the endpoint disabled; meanwhile it is enabled again, which makes its pending deliveries due.
  await db().query('select app_private.queue_deliveries($1, $2)', [endpointId, [id]]);
  await db().query(`select * from app_private.send_round('send_loop_a', '[]', $1, $2, 0, interval '1 hour', '{}', interval '5 days')`, [
    [id],
    claimed.filter((x) => x !== id),
  ]);
  const due = await db().query(`select due_at <= now() as now, claimed_by from app_private.deliveries_due where delivery_id = $1`, [id]);
  t.deepEqual(due.rows, [{ now: true, claimed_by: null }], 'still due, for any loop');
  await db().query('delete from app_public.webhook_deliveries where id = $1', [id]);
});

test.serial('the fan-out hands its send loop the deliveries the loop has room for, claimed in its commit; the rest wait due for any loop', async (t) => {
  const r = await receiver();
  const { agencyId, endpointId } = await rig.endpointTo(r.url);
  const events = [await emit(agencyId, 901), await emit(agencyId, 902), await emit(agencyId, 903)];
  // The poller of a process whose send loop has room for two deliveries (a loop of our own that only collects them).
  const taken: DueDeliveryRow[] = [];
  const asked: string[][] = [];
  const poller = startOutboxPoller(rig.svc.tdb.db.owner, rig.svc.deps, {
    intervalMs: 10,
    sendLoop: {
      workerId: 'send_loop_room_for_two',
      leaseSeconds: 600,
      room: (endpointIds) => (asked.push(endpointIds), endpointIds.map((_, i) => i < 2)),
      take: (rows) => taken.push(...rows),
      wake: () => {},
    },
  });
  try {
    await eventually(async () => taken.length >= 2, 15_000, 'the hand-over');
    await eventually(async () => (await db().query('select 1 from app_private.events_waiting where event_id = any ($1)', [events])).rows.length === 0);
  } finally {
    await poller.stop();
  }
  t.deepEqual(asked, [[endpointId, endpointId, endpointId]], 'asked once, for the batch of three');
  const rows = await db().query<{ id: number; event_id: number; message_id: string; body: string; claimed_by: string | null; leased: boolean; due: boolean }>(
    `select d.id, d.event_id, d.message_id, d.body, q.claimed_by, q.due_at > now() + interval '500 seconds' leased, q.due_at <= now() due
       from app_public.webhook_deliveries d join app_private.deliveries_due q on q.delivery_id = d.id
      where d.agency_id = $1 order by d.id`,
    [agencyId],
  );
  t.deepEqual(
    rows.rows.map((x) => [x.event_id, x.claimed_by, x.leased, x.due]),
    [
      [events[0], 'send_loop_room_for_two', true, false],
      [events[1], 'send_loop_room_for_two', true, false],
      [events[2], null, false, true],
    ],
    'two claimed by the loop for its lease, the third due now',
  );
  // What the loop was given is what a claim of its own would have read back.
  const claimed = await db().query(`select * from app_private.deliveries_to_send($1) order by id`, [rows.rows.slice(0, 2).map((x) => x.id)]);
  t.deepEqual(
    taken.map((d) => ({ ...d })),
    claimed.rows.map((c) => ({ ...c, status: 'pending', request_id: null })),
  );
  await db().query('delete from app_public.webhook_deliveries where agency_id = $1', [agencyId]);
});

test.serial("a disabled endpoint's deliveries are not handed over: they wait due, so the loop reads the endpoint after the fan-out's commit", async (t) => {
  const { agencyId, eventId } = await eventOfDisabledEndpoint(911);
  const taken: DueDeliveryRow[] = [];
  let woken = 0;
  const poller = startOutboxPoller(rig.svc.tdb.db.owner, rig.svc.deps, {
    intervalMs: 10,
    sendLoop: {
      workerId: 'send_loop_disabled',
      leaseSeconds: 600,
      room: (endpointIds) => endpointIds.map(() => true),
      take: (rows) => taken.push(...rows),
      wake: () => void woken++,
    },
  });
  try {
    await eventually(async () => (await db().query('select 1 from app_private.events_waiting where event_id = $1', [eventId])).rows.length === 0);
  } finally {
    await poller.stop();
  }
  t.deepEqual(taken, [], 'nothing handed over');
  t.true(woken > 0, 'the loop is woken to claim it itself');
  const due = await dueOf(eventId);
  t.deepEqual(due, [{ claimed_by: null, due: true }]);
  await db().query('delete from app_public.webhook_deliveries where agency_id = $1', [agencyId]);
});

test.serial('an endpoint enabled while the fan-out writes its delivery gets that delivery: the fan-out does not hand it over as disabled', async (t) => {
  const { r, agencyId, endpointId, eventId } = await eventOfDisabledEndpoint(921);
  // A live admin enables the endpoint: set_webhook_endpoint_enabled locks it, so the fan-out's delivery insert (its
  // foreign key check) waits for that commit and keeps the snapshot it began with, in which the endpoint is disabled.
  const enabling = await db().connect();
  const fanOut = await db().connect();
  try {
    await beginAs(rig.svc.tdb.db, enabling, { role: 'admin', agencyId, mode: 'live' });
    await enabling.query('select app_public.set_webhook_endpoint_enabled($1, true)', [endpointId]);
    const pid = (await fanOut.query<{ pid: number }>('select pg_backend_pid() pid')).rows[0].pid;
    const written = fanOut.query<{ id: number; enabled: boolean }>(
      `select * from app_private.create_event_deliveries_claimed($1, $2, 'send_loop_race', interval '10 minutes')`,
      [[eventId], JSON.stringify([{ event_id: eventId, endpoint_id: endpointId, url: `${r.url}/h`, body: '{}', claim: true }])],
    );
    await eventually(async () => (await db().query(`select 1 from pg_stat_activity where pid = $1 and wait_event_type = 'Lock'`, [pid])).rows.length > 0);
    await enabling.query('commit'); // its requeue of pending deliveries could not see the one being written
    t.deepEqual((await written).rows, [], 'not handed over: a loop would drop a claim it reads as disabled');
  } finally {
    enabling.release();
    fanOut.release();
  }
  const due = await dueOf(eventId);
  t.deepEqual(due, [{ claimed_by: null, due: true }], 'due for any loop, which reads the endpoint enabled');
  await db().query('delete from app_public.webhook_deliveries where agency_id = $1', [agencyId]);
});

test.serial('an endpoint is claimed until the loop holds `hold` times its share of the slots, no further; the fan-out is offered no more of it', async (t) => {
  // A receiver that never answers keeps every claimed delivery of its endpoint held by the loop.
  const r = await receiver();
  r.script(...Array.from({ length: 20 }, () => 'hang' as const));
  const { agencyId, endpointId } = await rig.endpointTo(r.url);
  const events: number[] = [];
  for (let i = 0; i < 20; i++) events.push(await emit(agencyId, 2000 + i));
  // Fanned out by a poller without a loop: all 20 wait due.
  const poller = startOutboxPoller(rig.svc.tdb.db.owner, rig.svc.deps, { intervalMs: 10 });
  try {
    await eventually(async () => (await db().query('select 1 from app_private.events_waiting where event_id = any ($1)', [events])).rows.length === 0);
  } finally {
    await poller.stop();
  }
  const claimed = async (id: string) =>
    (await db().query<{ n: number }>('select count(*)::int n from app_private.deliveries_due where claimed_by = $1', [id])).rows[0].n;
  // One slot per endpoint (of 8), claims of 4: the first round takes 4; with hold 3 the endpoint then holds more
  // than three times its share and is not claimed again; with hold 6 a second claim takes it to 8.
  for (const [hold, expected] of [
    [3, 4],
    [6, 8],
  ] as const) {
    const workerId = `send_loop_hold_${hold}`;
    const loop = startSendLoop(rig.svc.tdb.db.owner, rig.svc.deps, { workerId, intervalMs: 10, inFlight: 8, perEndpoint: 1, claim: 4, hold, roundGapMs: 5 });
    try {
      await eventually(async () => (await claimed(workerId)) >= expected);
      await new Promise((resolve) => setTimeout(resolve, 300)); // rounds go on meanwhile (the loop polls every 10 ms)
      t.is(await claimed(workerId), expected, `hold ${hold}: claimed ${expected} and no more`);
      t.deepEqual(loop.room([endpointId, 'another-endpoint']), [false, true], `hold ${hold}: the fan-out is offered no more of this endpoint, others still`);
    } finally {
      await loop.stop(); // the hanging attempts are aborted and every claim given back
    }
    t.is(await claimed(workerId), 0);
  }
  await db().query('delete from app_public.webhook_deliveries where agency_id = $1', [agencyId]);
});

test('a worker asked to run only the outbox poller fans events out and keeps running until stopped', async (t) => {
  const r = await receiver();
  const { agencyId } = await rig.endpointTo(r.url);
  const w = await startWorker(db(), {
    concurrency: 1,
    log: rig.svc.deps.log,
    deps: { cfg: rig.svc.deps.cfg, log: rig.svc.deps.log, secretKey: rig.svc.deps.secretKey, blobs: rig.svc.deps.blobs },
    pollInterval: 100,
    only: ['events__fan_out'],
  });
  try {
    const eventId = await emit(agencyId, 7001);
    const due = await eventually(
      async () => {
        const rows = await dueOf(eventId);
        return rows.length ? rows : undefined;
      },
      10_000,
      'the event fanned out',
    );
    t.is(due.length, 1, 'one delivery, due for a send loop this worker does not run');
    const second = await emit(agencyId, 7002);
    await eventually(async () => (await dueOf(second)).length === 1, 10_000, 'a later event fanned out too: the poller is still running');
    t.is(submission(r, 7001).length, 0, 'nothing sent: this worker runs no send loop');
  } finally {
    await w.stop();
  }
});
