// Client changes through the API reach a local receiver through a v1 subscription, delivered by the real worker,
// signed (checked by hand and with the standardwebhooks package); an erasure's file sweep removes the stored files
// so a link issued before the erasure stops working, and a crashed sweep is finished by the next one.
import { createHmac, timingSafeEqual } from 'node:crypto';
import test from 'ava';
import type { Runner } from 'graphile-worker';
import { Webhook } from 'standardwebhooks';
import { V1EventEnvelope } from '../../pipelines/webhooks/payloads.ts';
import { agencyWithAgents, extractFor } from '../helpers/clients.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { startService, type TestService } from '../helpers/server.ts';
import { eventually, startTestWorker } from '../helpers/worker.ts';

let svc: TestService;
let worker: Runner;
let receiver: Receiver;

test.before(async () => {
  svc = await startService({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '1', WEBHOOK_TIMEOUT_MS: '2000' });
  worker = await startTestWorker(svc);
  receiver = await startReceiver();
});
test.after.always(async () => {
  await worker?.stop();
  await receiver?.close();
  await svc?.close();
});

function xSignatureValid(secret: string, raw: Buffer, header: unknown): boolean {
  const expected = createHmac('sha256', secret).update(raw).digest();
  const given = Buffer.from(String(header ?? ''), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

test.serial('client.updated, client.sales-funnel-status-change and client.reassigned arrive signed through a v1 subscription', async (t) => {
  const a = await agencyWithAgents(svc, 2);
  const [pat, sam] = a.agents;
  const sub = await svc.request('POST', '/v1/webhooks', {
    token: a.ownerToken,
    json: { url: `${receiver.url}/clients`, events: ['client.updated', 'client.sales-funnel-status-change', 'client.reassigned'] },
  });
  t.is(sub.status, 200, sub.text);
  const secret: string = sub.body.data.signing_secret;
  const created = await svc.request('POST', '/v1/client', {
    token: pat.token,
    json: { first_name: 'Jordan', last_name: 'Alvarez', email: 'jordan@example.com' },
  });
  const uuid: string = created.body.data.uuid;
  const path = `/v1/agents/${pat.id}/clients/${uuid}`;
  t.is((await svc.request('PATCH', path, { token: pat.token, json: { phone: '+1 512 555 0142', email: 'jordan@example.com' } })).status, 200);
  t.is((await svc.request('PATCH', path, { token: pat.token, json: { sales_funnel_status: 'contacted' } })).status, 200);
  t.is((await svc.request('POST', `${path}/reassign`, { token: pat.token, json: { agent_id: sam.id } })).status, 200);

  const got = await receiver.waitFor(3);
  const byEvent = Object.fromEntries(got.map((g) => [g.json.event, g]));
  const verifier = new Webhook(secret);
  for (const g of got) {
    t.is(g.path, '/clients');
    t.true(xSignatureValid(secret, g.raw, g.headers['x-signature']), `x-signature of ${g.json.event}`);
    t.notThrows(() => verifier.verify(g.raw.toString('utf8'), g.headers as Record<string, string>), `standard webhook signature of ${g.json.event}`);
    t.throws(() => verifier.verify(`${g.raw.toString('utf8')} `, g.headers as Record<string, string>), undefined, 'one byte more fails');
    t.true(V1EventEnvelope.safeParse(g.json).success, `${g.json.event} matches the documented envelope`);
    t.is(g.json.data.client.uuid, uuid);
  }
  const updated = byEvent['client.updated'].json.data;
  t.deepEqual(updated.changed_fields, ['phone'], 'only the fields that really changed');
  t.like(updated.client, { phone: '+1 512 555 0142', email: 'jordan@example.com', agent: { id: pat.id } });
  const funnel = byEvent['client.sales-funnel-status-change'].json.data;
  t.like(funnel, { previous_status: 'new', status: 'contacted', client: { sales_funnel_status: 'contacted' } });
  const moved = byEvent['client.reassigned'].json.data;
  t.is(moved.previous_agent.id, pat.id);
  t.is(moved.agent.id, sam.id);
  t.is(moved.client.agent.id, sam.id);
  t.regex(moved.reassigned_at, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  // A refused change emits nothing.
  t.is((await svc.request('PATCH', `/v1/agents/${sam.id}/clients/${uuid}`, { token: sam.token, json: { sales_funnel_status: 'new' } })).status, 422);
  await new Promise((r) => setTimeout(r, 700));
  t.is(receiver.received.length, 3);
  // Erasing the client erases the delivery log of the events about it too.
  const log = (sql: string) => svc.tdb.db.owner.query(sql, [uuid]).then((r) => r.rows[0].n as number);
  const deliveries = `select count(*)::int n from app_public.webhook_deliveries where body like '%' || $1 || '%'`;
  t.is(await log(deliveries), 3);
  t.is((await svc.request('POST', `/v1/agents/${sam.id}/clients/${uuid}/destroy`, { token: a.ownerToken })).status, 204);
  t.is(await log(deliveries), 0);
  t.is(await log(`select count(*)::int n from app_public.webhook_delivery_attempts where response_body like '%' || $1 || '%' or url like '%' || $1 || '%'`), 0);
  const audit = await svc.tdb.db.owner.query('select erased_by_agent_id, erased_by_role from app_public.client_erasures where client_uuid = $1', [uuid]);
  t.deepEqual(audit.rows, [{ erased_by_agent_id: a.ownerId, erased_by_role: 'owner' }]);
});

test.serial('destroy: the sweep deletes the stored files and a link issued before the erasure stops working', async (t) => {
  const a = await agencyWithAgents(svc, 1);
  const [pat] = a.agents;
  const x = await extractFor(svc, a.agencyId, pat.id);
  const linkReply = await svc.request('GET', `/v1/agents/${pat.id}/clients/${x.clientId}/submission/${x.submissionId}/declaration-page/${x.pageId}`, {
    token: pat.token,
  });
  const link: string = linkReply.body.data.url;
  t.is((await fetch(link)).status, 200);
  t.deepEqual(await svc.deps.blobs.get(x.blobKey), x.bytes);
  await worker.stop();
  try {
    t.is((await svc.request('POST', `/v1/agents/${pat.id}/clients/${x.clientId}/destroy`, { token: pat.token })).status, 204);
    t.truthy(await svc.deps.blobs.get(x.blobKey), 'the sweep has not run yet');
    t.is((await fetch(link)).status, 404, 'the old link stops working at the erasure’s commit, before the sweep');
  } finally {
    worker = await startTestWorker(svc);
  }
  await eventually(async () => (await svc.deps.blobs.get(x.blobKey)) === undefined, 20_000, 'the blob to be deleted');
  const after = await fetch(link);
  t.is(after.status, 404, 'the old link no longer downloads anything');
  await eventually(
    async () => (await svc.tdb.db.owner.query('select 1 from app_private.expired_blobs where blob_key = $1', [x.blobKey])).rowCount === 0,
    10_000,
    'the key to be forgotten',
  );
});

test.serial('a sweep that died before deleting leaves its list, and the next sweep finishes it', async (t) => {
  const a = await agencyWithAgents(svc, 1);
  const [pat] = a.agents;
  const x = await extractFor(svc, a.agencyId, pat.id);
  await worker.stop();
  try {
    t.is((await svc.request('POST', `/v1/agents/${pat.id}/clients/${x.clientId}/destroy`, { token: pat.token })).status, 204);
    // As if the process died mid-sweep: the job is gone, the list and the file remain.
    await svc.tdb.db.owner.query(
      `delete from graphile_worker._private_jobs where task_id = (select id from graphile_worker._private_tasks where identifier = 'blobs__sweep')`,
    );
    t.truthy(await svc.deps.blobs.get(x.blobKey));
  } finally {
    worker = await startTestWorker(svc);
  }
  // The backstop (cron every 15 minutes) runs the same task; queue it now instead of waiting.
  await svc.tdb.db.owner.query(`select graphile_worker.add_job('blobs__sweep', '{}'::json)`);
  await eventually(async () => (await svc.deps.blobs.get(x.blobKey)) === undefined, 20_000, 'the blob to be deleted');
  t.pass();
});
