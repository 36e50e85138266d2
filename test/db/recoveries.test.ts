// SQL of bulk delivery recovery (0024), called as the request role: a recovery takes the failed deliveries of its
// endpoint, mode and window, one per message, oldest first, sends one at a time (the next is made when the
// previous one's first attempt is recorded), is the same recovery for the same window, and is neither made nor seen
// by another agency or mode.
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { withIdentity, type Identity } from '../../db/pool.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { queuedJobs, sqlError, twoAgencies, type SeededAgency } from '../helpers/seed.ts';

let tdb: TestDatabase, a: SeededAgency, other: SeededAgency;
let endpoint: string;
test.before(async () => {
  ({ tdb, a, b: other } = await twoAgencies('recover'));
  const w = await tdb.db.owner.query<{ id: string }>(
    `insert into app_public.webhook_endpoints (agency_id, kind, topic, staging_url, production_url, secret_ciphertext)
     values ($1, 'topic', 'form-submission', 'https://staging.example/now', 'https://prod.example/', 'x') returning id`,
    [a.agencyId],
  );
  endpoint = w.rows[0].id;
});
test.after.always(async () => tdb?.drop());

/** A delivery as the send loop leaves it; `at` is its creation time. */
async function delivery(o: {
  mode?: 'test' | 'live';
  status: 'failed' | 'delivered' | 'pending';
  at: string;
  message?: string;
  isTest?: boolean;
}): Promise<number> {
  const { rows } = await tdb.db.owner.query<{ id: number }>(
    `insert into app_public.webhook_deliveries (agency_id, endpoint_id, message_id, mode, is_test, url, body, status, attempt_count, created_at)
     values ($1, $2, $3, $4, $5, 'https://staging.example/old', '{}', $6, 1, $7) returning id`,
    [a.agencyId, endpoint, o.message ?? `msg_${randomUUID()}`, o.mode ?? 'test', o.isTest ?? false, o.status, o.at],
  );
  return Number(rows[0].id);
}

const recover = (who: Identity, since: string, until: string | null = null, dry = false) =>
  withIdentity(tdb.db, who, (c) =>
    c.query('select * from app_public.recover_deliveries($1, $2, $3, $4)', [endpoint, since, until, dry]).then((r) => r.rows[0]),
  );
const recoveryDeliveries = (id: string) =>
  tdb.db.owner
    .query<{ id: number; redelivery_of: number; url: string; message_id: string }>(
      'select id, redelivery_of, url, message_id from app_public.webhook_deliveries where recovery_id = $1 order by id',
      [id],
    )
    .then((r) => r.rows.map((x) => ({ ...x, id: Number(x.id), redelivery_of: Number(x.redelivery_of) })));
/** The first attempt of a redelivery is recorded (what the send job does). */
const attempted = (id: number) => tdb.db.owner.query(`update app_public.webhook_deliveries set attempt_count = 1 where id = $1`, [id]);

test('failed deliveries of the window and mode are sent again one at a time, oldest first, under their message ids', async (t) => {
  const key = a.adminKey('test');
  const first = await delivery({ status: 'failed', at: '2026-10-01T10:00:00Z', message: 'msg_first' });
  const second = await delivery({ status: 'failed', at: '2026-10-01T11:00:00Z' });
  await delivery({ status: 'failed', at: '2026-10-01T11:30:00Z', isTest: true }); // a test send: not recovered
  await delivery({ status: 'delivered', at: '2026-10-01T12:00:00Z' });
  await delivery({ status: 'failed', at: '2026-10-01T12:30:00Z', mode: 'live' }); // another mode
  await delivery({ status: 'failed', at: '2026-09-30T12:00:00Z' }); // before the window
  const fixedMessage = `msg_${randomUUID()}`;
  await delivery({ status: 'failed', at: '2026-10-01T13:00:00Z', message: fixedMessage });
  await delivery({ status: 'delivered', at: '2026-10-01T14:00:00Z', message: fixedMessage }); // delivered since by hand

  const dry = await recover(key, '2026-10-01T00:00:00Z', '2026-10-02T00:00:00Z', true);
  t.deepEqual(dry.original_ids.map(Number), [first, second], 'the count before confirming');
  t.is((await tdb.db.owner.query(`select 1 from app_public.webhook_recoveries where since = '2026-10-01T00:00:00Z'`)).rowCount, 0, 'a dry run stores nothing');

  const r = await recover(key, '2026-10-01T00:00:00Z', '2026-10-02T00:00:00Z');
  t.like(r, { status: 'running', mode: 'test', next_position: 2 });
  let sent = await recoveryDeliveries(r.id);
  t.deepEqual(
    sent.map((d) => d.redelivery_of),
    [first],
    'one in flight',
  );
  t.is(sent[0].message_id, 'msg_first');
  t.is(sent[0].url, 'https://staging.example/now', 'to the endpoint’s URL of today');
  t.true((await queuedJobs(tdb, 'deliveries__send')).some((j) => Number((j.payload as { delivery_id: number }).delivery_id) === sent[0].id));

  const again = await recover(key, '2026-10-01T00:00:00Z', '2026-10-02T00:00:00Z');
  t.is(again.id, r.id, 'the same window is the same recovery');

  await attempted(sent[0].id);
  sent = await recoveryDeliveries(r.id);
  t.deepEqual(
    sent.map((d) => d.redelivery_of),
    [first, second],
    'the next goes once the previous was tried',
  );
  await attempted(sent[1].id);
  const done = await tdb.db.owner.query('select status, completed_at from app_public.webhook_recoveries where id = $1', [r.id]);
  t.is(done.rows[0].status, 'completed');
  t.truthy(done.rows[0].completed_at);
});

test('other agencies and modes neither recover nor see; plain agents and bad windows are refused', async (t) => {
  // A window of its own (August): the test above recovers October's deliveries at the same time.
  const r = await recover(a.adminKey('test'), '2026-08-01T00:00:00Z', '2026-08-02T00:00:00Z');
  const seen = (who: Identity) =>
    withIdentity(tdb.db, who, (c) => c.query('select id from app_public.webhook_recoveries where id = $1', [r.id]).then((x) => x.rowCount));
  t.is(await seen(a.adminKey('test')), 1);
  t.is(await seen(a.adminKey('live')), 0);
  t.is(await seen(other.adminKey('test')), 0);
  t.is((await sqlError(recover(other.adminKey('test'), '2026-08-01T00:00:00Z'))).code, 'NTFND');
  t.is((await sqlError(recover(a.readOnlyKey, '2026-08-01T00:00:00Z'))).code, 'FORBD');
  const backwards = await sqlError(recover(a.adminKey('test'), '2026-08-02T00:00:00Z', '2026-08-01T00:00:00Z'));
  t.like(backwards, { code: 'RCVWN', column: 'until' });
  t.like(await sqlError(recover(a.adminKey('test'), '2099-01-01T00:00:00Z')), { code: 'RCVWN', column: 'since' });
  const e = await sqlError(
    withIdentity(tdb.db, a.adminKey('test'), (c) => c.query(`update app_public.webhook_recoveries set next_position = 1 where id = $1`, [r.id])),
  );
  t.is(e.code, '42501', 'the request role cannot change a recovery');
});
