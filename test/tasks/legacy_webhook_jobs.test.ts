// Webhook jobs only older releases queued are drained by a migration, so the worker keeps one path for each:
// events__fan_out jobs go (their events wait in app_private.events_waiting for the outbox poller), and a
// deliveries__send job carrying an array of first attempts becomes those deliveries' rows in deliveries_due.
import test from 'ava';
import { acrossMigration } from '../helpers/db.ts';

const DRAIN = '0029';

test('webhook jobs queued by older releases are drained into the outbox and the send loop', async (t) => {
  await acrossMigration(DRAIN, async (q, rest) => {
    const [oc] = await q(
      `insert into app_private.oauth_clients (client_id, name, secret_hash) values ('oc_d', 'd', decode(repeat('00', 32), 'hex')) returning id`,
    );
    const [g] = await q(`insert into app_public.agencies (oauth_client_id, name) values ($1, 'A') returning id`, [oc.id]);
    const [ep] = await q(
      `insert into app_public.webhook_endpoints (agency_id, kind, topic, staging_url, secret_ciphertext)
       values ($1, 'topic', 'client-submission', 'https://stage.example/e', 'x') returning id`,
      [g.id],
    );
    const [ev] = await q(`select app_private.emit_event($1, 'test', 'client-submission', null, '{"n":1}') as id`, [g.id]);
    const delivery = async (status: string, eventId: number | null) =>
      (
        await q(
          `insert into app_public.webhook_deliveries (agency_id, endpoint_id, message_id, mode, url, body, event_id, status)
           values ($1, $2, 'msg_' || gen_random_uuid(), 'test', 'https://stage.example/e', '{}', $3, $4) returning id`,
          [g.id, ep.id, eventId, status],
        )
      )[0].id as number;
    const pending = await delivery('pending', ev.id);
    const delivered = await delivery('delivered', null);
    const retry = await delivery('pending', null);
    await q(`delete from app_private.deliveries_due where delivery_id = any($1)`, [[pending, delivered, retry]]);
    // What older releases queued: fan-out jobs per event and per agency, an endpoint's batch of first attempts, and a retry.
    await q(`select graphile_worker.add_job('events__fan_out', json_build_object('event_id', $1::bigint))`, [ev.id]);
    await q(`select graphile_worker.add_job('events__fan_out', json_build_object('agency_id', $1::bigint))`, [g.id]);
    await q(
      `select graphile_worker.add_job('deliveries__send', json_build_array(json_build_object('delivery_id', $1::bigint), json_build_object('delivery_id', $2::bigint)))`,
      [pending, delivered],
    );
    await q(`select graphile_worker.add_job('deliveries__send', json_build_object('delivery_id', $1::bigint), run_at => now() + interval '1 minute')`, [retry]);

    await rest();
    const jobs = await q(
      `select t.identifier as task, j.payload::jsonb as payload from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id`,
    );
    t.deepEqual(jobs, [{ task: 'deliveries__send', payload: { delivery_id: retry } }], 'only the one-delivery retry stays a job');
    const due = await q(`select delivery_id, endpoint_id from app_private.deliveries_due order by delivery_id`);
    t.deepEqual(due, [{ delivery_id: pending, endpoint_id: ep.id }], 'the pending first attempt waits for the send loop; the delivered one does not');
    const waiting = await q(`select event_id from app_private.events_waiting`);
    t.deepEqual(waiting, [{ event_id: ev.id }], 'the event still waits for the outbox poller');
  });
});
