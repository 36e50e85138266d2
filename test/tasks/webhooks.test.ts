// Webhooks end to end: the API registers endpoints, the outbox event is fanned out and delivered by the
// real worker to real receivers on 127.0.0.1, whose checks are an independent implementation.
import { createHmac, timingSafeEqual } from 'node:crypto';
import test from 'ava';
import { sampleTopicPayload, sampleV1Event } from '../../pipelines/webhooks/payloads.ts';
import { formData, serviceRig } from '../helpers/rig.ts';
import { eventually } from '../helpers/worker.ts';

const rig = serviceRig({
  WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
  WEBHOOK_RETRY_SCHEDULE: '1',
  WEBHOOK_MAX_ATTEMPTS: '4',
  WEBHOOK_TIMEOUT_MS: '1500',
});
const { receiver } = rig;

async function agencyWithKey() {
  const a = await rig.agency();
  return { ...a, key: a.test };
}

const put = (key: string, topic: string, body: unknown) => rig.svc.request('PUT', `/v2/webhook-endpoints/${topic}`, { token: key, json: body });
const post = (key: string, path: string) => rig.svc.request('POST', path, { token: key, headers: { 'Idempotency-Key': crypto.randomUUID() } });
const clientData = () => sampleTopicPayload('client-submission').data;

/** x-signature as a receiver computes it: HMAC-SHA256 of the raw bytes, lowercase hex, constant-time compare. */
function receiverAccepts(secret: string, raw: Buffer, header: unknown): boolean {
  const expected = createHmac('sha256', secret).update(raw).digest();
  const given = Buffer.from(String(header ?? ''), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

async function deliveries(key: string, topic: string) {
  return (await rig.svc.request('GET', `/v2/webhook-endpoints/${topic}/deliveries`, { token: key })).body.data as Array<{
    id: number;
    status: string;
    attempt_count: number;
  }>;
}

test('an event of test data is delivered to the staging URL, signed over the exact bytes', async (t) => {
  const a = await agencyWithKey();
  const staging = await receiver();
  const production = await receiver();
  const created = await put(a.live, 'form-submission', { staging_url: `${staging.url}/hooks`, production_url: `${production.url}/hooks` });
  t.is(created.status, 201, created.text);
  const secret: string = created.body.signing_secret;
  t.regex(secret, /^whsec_/);
  const sample = formData(42) as { answers: Array<Record<string, unknown>> };
  const data = { ...sample, answers: [{ question_id: 'q', label: 'Ünïcode ✓', type: 'short_text', value: 'x' }] };
  await rig.emit(a.agencyId, 'test', 'form-submission', null, data);
  const [got] = await staging.waitFor(1);
  t.is(got.path, '/hooks');
  t.is(got.headers['content-type'], 'application/json');
  t.deepEqual(got.json, { topic: 'form-submission', data });
  t.true(receiverAccepts(secret, got.raw, got.headers['x-signature']));
  t.false(receiverAccepts(secret, Buffer.concat([got.raw, Buffer.from(' ')]), got.headers['x-signature']), 'one byte more fails');
  // Standard Webhooks: base64 HMAC of "id.timestamp.body" keyed with the decoded secret.
  const id = String(got.headers['webhook-id']);
  const ts = String(got.headers['webhook-timestamp']);
  const sig = createHmac('sha256', Buffer.from(secret.slice('whsec_'.length), 'base64'))
    .update(`${id}.${ts}.`)
    .update(got.raw)
    .digest('base64');
  t.true(String(got.headers['webhook-signature']).split(' ').includes(`v1,${sig}`));
  t.true(Math.abs(Number(ts) - Date.now() / 1000) < 60);
  t.is(production.received.length, 0);
  const list = await eventually(async () => {
    const d = await deliveries(a.key, 'form-submission');
    return d[0]?.status === 'delivered' && d;
  });
  t.is(list[0].attempt_count, 1);
});

test('live data goes to the production URL; a receiver answering 500 then 200 gets it, both attempts logged', async (t) => {
  const a = await agencyWithKey();
  const production = await receiver();
  production.script({ status: 500, body: 'boom '.repeat(2000) });
  await put(a.live, 'client-submission', { production_url: `${production.url}/live` });
  await rig.emit(a.agencyId, 'live', 'client-submission', null, clientData());
  await production.waitFor(2);
  t.deepEqual(production.received[0].raw, production.received[1].raw, 'the retry sends the same bytes');
  t.is(production.received[0].headers['webhook-id'], production.received[1].headers['webhook-id']);
  const [d] = await eventually(async () => {
    const list = await deliveries(a.live, 'client-submission');
    return list[0]?.status === 'delivered' && list;
  });
  const detail = await rig.svc.request('GET', `/v2/webhook-endpoints/client-submission/deliveries/${d.id}`, { token: a.live });
  t.is(detail.status, 200);
  t.is(detail.body.attempts.length, 2);
  t.like(detail.body.attempts[0], { attempt_number: 1, status_code: 500, error: { code: 'http_status' } });
  t.true(detail.body.attempts[0].response_body.length <= 4096);
  t.true(detail.body.attempts[0].duration_ms >= 0);
  t.is(detail.body.attempts[0].response_headers['content-type'], 'text/plain');
  t.like(detail.body.attempts[1], { attempt_number: 2, status_code: 200, error: null });
  t.is(JSON.parse(detail.body.body).topic, 'client-submission');
});

test('a receiver that is down gets the event after it comes back', async (t) => {
  const a = await agencyWithKey();
  const r = await receiver();
  const port = r.port;
  await r.close();
  await put(a.key, 'form-submission', { staging_url: `http://127.0.0.1:${port}/back` });
  await rig.emit(a.agencyId, 'test', 'form-submission', null, formData(7));
  await eventually(async () => (await deliveries(a.key, 'form-submission'))[0]?.attempt_count >= 1, 20_000, 'a failed attempt');
  await r.listen(port);
  await r.waitFor(1);
  const [d] = await eventually(async () => {
    const list = await deliveries(a.key, 'form-submission');
    return list[0]?.status === 'delivered' && list;
  });
  const detail = await rig.svc.request('GET', `/v2/webhook-endpoints/form-submission/deliveries/${d.id}`, { token: a.key });
  t.is(detail.body.attempts[0].error.code, 'connection');
  t.is(detail.body.attempts.at(-1).status_code, 200);
});

test('410 from the production URL disables the endpoint; re-enabling is an API call of a live key', async (t) => {
  const a = await agencyWithKey();
  const r = await receiver();
  r.script({ status: 410 });
  await put(a.live, 'form-submission', { production_url: r.url });
  await rig.emit(a.agencyId, 'live', 'form-submission', null, formData(1));
  const ep = await eventually(async () => {
    const list = (await rig.svc.request('GET', '/v2/webhook-endpoints', { token: a.live })).body.data;
    return list[0]?.enabled === false && list[0];
  });
  t.regex(ep.disabled_reason, /410/);
  t.is((await deliveries(a.live, 'form-submission'))[0].status, 'failed');
  await rig.emit(a.agencyId, 'live', 'form-submission', null, formData(2));
  const again = await put(a.live, 'form-submission', { enabled: true });
  t.is(again.status, 200);
  t.true(again.body.enabled);
  await r.waitFor(2);
  t.is(r.received[1].json.data.submission_id, 2, 'the event queued while disabled arrives after re-enabling');
});

test('a 302 is not followed and counts as a failure', async (t) => {
  const a = await agencyWithKey();
  const target = await receiver();
  const r = await receiver();
  r.script(
    { status: 302, headers: { location: `${target.url}/elsewhere` } },
    { status: 302, headers: { location: `${target.url}/elsewhere` } },
    { status: 302, headers: { location: `${target.url}/elsewhere` } },
    { status: 302, headers: { location: `${target.url}/elsewhere` } },
  );
  await put(a.key, 'form-submission', { staging_url: r.url });
  await rig.emit(a.agencyId, 'test', 'form-submission', null, formData(3));
  const [d] = await eventually(async () => {
    const list = await deliveries(a.key, 'form-submission');
    return list[0]?.status === 'failed' && list;
  });
  t.is(d.attempt_count, 4, 'every configured attempt was made');
  t.is(target.received.length, 0);
  const detail = await rig.svc.request('GET', `/v2/webhook-endpoints/form-submission/deliveries/${d.id}`, { token: a.key });
  t.is(detail.body.attempts[0].status_code, 302);
  t.regex(detail.body.last_error ?? detail.body.attempts[0].error.message, /redirect|302/);
});

test('non-global addresses are refused before any connection unless allow-listed', async (t) => {
  const a = await agencyWithKey();
  await put(a.key, 'form-submission', { staging_url: 'https://hooks.example.com/x' });
  for (const url of ['http://10.0.0.1/hook', 'http://169.254.169.254/latest/meta-data', 'http://[::1]:9/hook', 'http://192.168.1.10/x']) {
    // Refused at registration by the same rule, so the URL is planted as if it had been stored earlier.
    const refused = await put(a.key, 'form-submission', { staging_url: url });
    t.is(refused.status, 422, url);
    t.is(refused.body.errors[0].pointer, '/staging_url');
    await rig.svc.tdb.db.owner.query(`update app_public.webhook_endpoints set staging_url = $2 where agency_id = $1`, [a.agencyId, url]);
    const sent = await post(a.key, '/v2/webhook-endpoints/form-submission/test');
    t.is(sent.status, 202, sent.text);
    const detail = await eventually(async () => {
      const d = await rig.svc.request('GET', `/v2/webhook-endpoints/form-submission/deliveries/${sent.body.id}`, { token: a.key });
      return d.body.status === 'failed' && d.body;
    });
    t.is(detail.attempts[0].error.code, 'ssrf_blocked', url);
    t.is(detail.attempts[0].status_code, null);
  }
  const r = await receiver();
  t.is(
    (await put(a.key, 'form-submission', { staging_url: `http://localhost:${r.port}/named` })).status,
    422,
    'a name resolving to loopback is refused at registration',
  );
  await rig.svc.tdb.db.owner.query(`update app_public.webhook_endpoints set staging_url = $2 where agency_id = $1`, [
    a.agencyId,
    `http://localhost:${r.port}/named`,
  ]);
  const sent = await post(a.key, '/v2/webhook-endpoints/form-submission/test');
  const detail = await eventually(async () => {
    const d = await rig.svc.request('GET', `/v2/webhook-endpoints/form-submission/deliveries/${sent.body.id}`, { token: a.key });
    return d.body.status !== 'pending' && d.body;
  });
  t.is(detail.attempts[0].error?.code, 'ssrf_blocked', 'a name resolving to loopback is refused: only the literal 127.0.0.1 is allow-listed');
  t.is(r.received.length, 0);
});

test('production URLs must be https unless allow-listed; bad URLs are 422 with their field', async (t) => {
  const a = await agencyWithKey();
  const http = await put(a.live, 'form-submission', { production_url: 'http://example.com/hook' });
  t.is(http.status, 422);
  t.is(http.body.errors[0].pointer, '/production_url');
  const bad = await put(a.key, 'form-submission', { staging_url: 'ftp://example.com/x' });
  t.is(bad.status, 422);
  const creds = await put(a.key, 'form-submission', { staging_url: 'https://user:pw@example.com/x' });
  t.is(creds.status, 422);
  t.is((await put(a.key, 'nonsense-topic', { staging_url: 'https://example.com' })).status, 400);
  t.is((await put(a.key, 'form-submission', {})).status, 422);
  const ok = await put(a.live, 'form-submission', { production_url: 'https://hooks.example.com/x' });
  t.is(ok.status, 201);
});

test('alternative auth is sent; secrets and credentials never come back and are encrypted at rest', async (t) => {
  const a = await agencyWithKey();
  const r = await receiver();
  const created = await put(a.live, 'form-submission', { staging_url: r.url, auth: { kind: 'bearer', token: 'receiver-token-123' } });
  const secret = created.body.signing_secret;
  t.deepEqual(created.body.auth, { kind: 'bearer' });
  await post(a.live, '/v2/webhook-endpoints/form-submission/test');
  const [got] = await r.waitFor(1);
  t.is(got.headers.authorization, 'Bearer receiver-token-123');
  t.true(receiverAccepts(secret, got.raw, got.headers['x-signature']));
  await put(a.live, 'form-submission', { auth: { kind: 'header', name: 'X-Api-Key', value: 'k-456' } });
  await post(a.live, '/v2/webhook-endpoints/form-submission/test');
  await r.waitFor(2);
  t.is(r.received[1].headers['x-api-key'], 'k-456');
  t.is(r.received[1].headers.authorization, undefined);
  await put(a.live, 'form-submission', { auth: { kind: 'basic', username: 'u', password: 'p:w' } });
  await post(a.live, '/v2/webhook-endpoints/form-submission/test');
  await r.waitFor(3);
  t.is(r.received[2].headers.authorization, `Basic ${Buffer.from('u:p:w').toString('base64')}`);
  const everything = JSON.stringify([
    (await rig.svc.request('GET', '/v2/webhook-endpoints', { token: a.live })).body,
    (await rig.svc.request('GET', '/v2/webhook-endpoints/form-submission/deliveries', { token: a.live })).body,
  ]);
  for (const s of [secret, 'receiver-token-123', 'k-456', 'p:w']) t.false(everything.includes(s), s);
  const stored = JSON.stringify((await rig.svc.tdb.db.owner.query('select * from app_public.webhook_endpoints where agency_id = $1', [a.agencyId])).rows);
  for (const s of [secret, 'k-456', 'p:w']) t.false(stored.includes(s), `${s} is not stored in plain text`);
  t.regex(stored, /v1\.[A-Za-z0-9_-]+\./);
});

test('rotating the secret signs later attempts with the new one; redelivery keeps the message id', async (t) => {
  const a = await agencyWithKey();
  const r = await receiver();
  const first = (await put(a.key, 'form-submission', { staging_url: r.url })).body.signing_secret;
  const sent = await post(a.key, '/v2/webhook-endpoints/form-submission/test');
  await r.waitFor(1);
  t.true(receiverAccepts(first, r.received[0].raw, r.received[0].headers['x-signature']));
  const rotated = await post(a.live, '/v2/webhook-endpoints/form-submission/rotate-secret');
  t.is(rotated.status, 200);
  const second = rotated.body.signing_secret;
  t.not(second, first);
  await eventually(
    async () =>
      (await rig.svc.request('GET', `/v2/webhook-endpoints/form-submission/deliveries/${sent.body.id}`, { token: a.key })).body.status === 'delivered',
  );
  const again = await post(a.key, `/v2/webhook-endpoints/form-submission/deliveries/${sent.body.id}/redeliver`);
  t.is(again.status, 202);
  t.is(again.body.redelivery_of, sent.body.id);
  await r.waitFor(2);
  t.is(r.received[1].headers['webhook-id'], r.received[0].headers['webhook-id']);
  t.deepEqual(r.received[1].raw, r.received[0].raw);
  t.true(receiverAccepts(second, r.received[1].raw, r.received[1].headers['x-signature']));
  t.false(receiverAccepts(first, r.received[1].raw, r.received[1].headers['x-signature']));
});

test('the sample test event of each topic is realistic and goes to the staging URL only', async (t) => {
  const a = await agencyWithKey();
  const staging = await receiver();
  const production = await receiver();
  await put(a.live, 'form-submission', { staging_url: staging.url, production_url: `${production.url}/p` });
  await put(a.key, 'client-submission', { staging_url: staging.url });
  await post(a.key, '/v2/webhook-endpoints/form-submission/test');
  await post(a.key, '/v2/webhook-endpoints/client-submission/test');
  const got = await staging.waitFor(2);
  const byTopic = Object.fromEntries(got.map((g) => [g.json.topic, g.json.data]));
  t.truthy(byTopic['form-submission'].submission_id);
  t.truthy(byTopic['form-submission'].form.public_id);
  t.true(Array.isArray(byTopic['form-submission'].answers));
  t.truthy(byTopic['client-submission'].policy.provider);
  t.truthy(byTopic['client-submission'].policyholder.first_name);
  t.regex(byTopic['client-submission'].document_link, /^https?:\/\//);
  t.is(production.received.length, 0);
});

test('v1 subscriptions: CRUD by admins, unknown events 422, matching events delivered, other agencies 404', async (t) => {
  const c = await rig.svc.oauthClient();
  const a = await rig.svc.agency(c.token);
  const b = await rig.svc.agency(c.token);
  const plain = (
    await rig.svc.request('POST', `/v1/agencies/${a.agencyId}/agents`, { token: c.token, json: { first_name: 'P', last_name: 'Q', email: 'pq@example.com' } })
  ).body.data;
  const r = await receiver();
  const bad = await rig.svc.request('POST', '/v1/webhooks', { token: a.ownerToken, json: { url: r.url, events: ['client.deleted'] } });
  t.is(bad.status, 422);
  t.regex(bad.body.error.details[0].field, /^events/);
  t.is((await rig.svc.request('POST', '/v1/webhooks', { token: plain.access_token, json: { url: r.url, events: ['*'] } })).status, 403);
  const all = await rig.svc.request('POST', '/v1/webhooks', { token: a.ownerToken, json: { url: `${r.url}/all`, events: ['*'], description: 'everything' } });
  t.is(all.status, 200, all.text);
  t.regex(all.body.data.uuid, /^[0-9a-f-]{36}$/);
  t.regex(all.body.data.signing_secret, /^whsec_/);
  const one = await rig.svc.request('POST', '/v1/webhooks', { token: a.ownerToken, json: { url: `${r.url}/reassigned`, events: ['client.reassigned'] } });
  const list = await rig.svc.request('GET', '/v1/webhooks', { token: plain.access_token });
  t.is(list.body.data.length, 2);
  t.false(list.text.includes(all.body.data.signing_secret));
  t.is((await rig.svc.request('GET', `/v1/webhooks/${one.body.data.uuid}`, { token: b.ownerToken })).status, 404);
  t.is((await rig.svc.request('PATCH', `/v1/webhooks/${one.body.data.uuid}`, { token: b.ownerToken, json: { url: 'https://evil.example' } })).status, 404);
  t.is((await rig.svc.request('DELETE', `/v1/webhooks/${one.body.data.uuid}`, { token: b.ownerToken })).status, 404);
  t.is((await rig.svc.request('GET', '/v1/webhooks/not-a-uuid', { token: a.ownerToken })).status, 400);

  const updated = sampleV1Event('client.updated').data;
  await rig.emit(a.agencyId, 'live', null, 'client.updated', updated);
  const [got] = await r.waitFor(1);
  t.is(got.path, '/all');
  t.like(got.json, { event: 'client.updated', data: updated });
  t.regex(got.json.id, /^[0-9a-f-]{36}$/);
  t.true(receiverAccepts(all.body.data.signing_secret, got.raw, got.headers['x-signature']));
  await rig.emit(a.agencyId, 'live', null, 'client.reassigned', sampleV1Event('client.reassigned').data);
  await r.waitFor(3);
  t.deepEqual(
    r.received
      .slice(1)
      .map((x) => x.path)
      .sort(),
    ['/all', '/reassigned'],
  );

  const patched = await rig.svc.request('PATCH', `/v1/webhooks/${one.body.data.uuid}`, {
    token: a.ownerToken,
    json: { events: ['client.updated', 'client.reassigned'], enabled: false },
  });
  t.is(patched.status, 200);
  t.like(patched.body.data, { enabled: false, events: ['client.updated', 'client.reassigned'] });
  const log = await rig.svc.request('GET', `/v1/webhooks/${all.body.data.uuid}/deliveries`, { token: a.ownerToken });
  t.is(log.body.data.length, 2);
  // The send loop records an attempt in its next round, a few milliseconds after the receiver has answered.
  const detail = await eventually(
    async () => {
      const d = await rig.svc.request('GET', `/v1/webhooks/${all.body.data.uuid}/deliveries/${log.body.data[0].id}`, { token: a.ownerToken });
      return d.body.data.attempts.length > 0 && d;
    },
    10_000,
    'the attempt recorded',
  );
  t.is(detail.body.data.attempts.length, 1);
  const test1 = await rig.svc.request('POST', `/v1/webhooks/${all.body.data.uuid}/test`, { token: a.ownerToken });
  t.is(test1.status, 200);
  await r.waitFor(4);
  t.true(r.received[3].json.event.length > 0);
  t.is((await rig.svc.request('DELETE', `/v1/webhooks/${one.body.data.uuid}`, { token: a.ownerToken })).status, 204);
  t.is((await rig.svc.request('GET', `/v1/webhooks/${one.body.data.uuid}`, { token: a.ownerToken })).status, 404);
});

test('a fan-out that runs twice creates no second delivery', async (t) => {
  const a = await agencyWithKey();
  const r = await receiver();
  await put(a.key, 'form-submission', { staging_url: r.url });
  const eventId = await rig.emit(a.agencyId, 'test', 'form-submission', null, formData(99));
  await r.waitFor(1);
  // The event waits again, as after a crash that lost the fan-out's mark: the poller fans it out a second time.
  await rig.svc.tdb.db.owner.query(`insert into app_private.events_waiting (event_id, agency_id) select id, agency_id from app_public.events where id = $1`, [
    eventId,
  ]);
  await eventually(
    async () => (await rig.svc.tdb.db.owner.query('select 1 from app_private.events_waiting where event_id = $1', [eventId])).rowCount === 0,
    10_000,
    'the poller to take the event again',
  );
  await new Promise((res) => setTimeout(res, 1500));
  const n = await rig.svc.tdb.db.owner.query('select count(*)::int as n from app_public.webhook_deliveries where event_id = $1', [eventId]);
  t.is(n.rows[0].n, 1);
  t.is(r.received.length, 1);
});

test('an endpoint failing for longer than five days is disabled', async (t) => {
  const a = await agencyWithKey();
  const r = await receiver();
  r.script({ status: 503 });
  const created = await put(a.live, 'form-submission', { production_url: r.url });
  t.is(created.status, 201);
  await rig.svc.tdb.db.owner.query(`update app_public.webhook_endpoints set failing_since = now() - interval '5 days 1 hour' where agency_id = $1`, [
    a.agencyId,
  ]);
  await rig.emit(a.agencyId, 'live', 'form-submission', null, formData(11));
  const ep = await eventually(async () => {
    const list = (await rig.svc.request('GET', '/v2/webhook-endpoints', { token: a.live })).body.data;
    return list[0]?.enabled === false && list[0];
  });
  t.regex(ep.disabled_reason, /failing for longer than/);
  t.is(r.received.length, 1, 'no attempts after disabling');
});

test('a retried rotate-secret replays the same new secret, kept encrypted in the idempotency record', async (t) => {
  const a = await agencyWithKey();
  await put(a.live, 'form-submission', { staging_url: 'https://hooks.example.com/x' });
  const key = crypto.randomUUID();
  const first = await rig.svc.request('POST', '/v2/webhook-endpoints/form-submission/rotate-secret', { token: a.live, headers: { 'Idempotency-Key': key } });
  t.is(first.status, 200);
  const retry = await rig.svc.request('POST', '/v2/webhook-endpoints/form-submission/rotate-secret', { token: a.live, headers: { 'Idempotency-Key': key } });
  t.is(retry.headers.get('idempotent-replayed'), 'true');
  t.is(retry.body.signing_secret, first.body.signing_secret, 'no second rotation');
  const stored = await rig.svc.tdb.db.owner.query(`select response_body::text as body from app_private.idempotency_keys where key = $1`, [key]);
  t.false(stored.rows[0].body.includes(first.body.signing_secret));
  t.regex(stored.rows[0].body, /"sealed"/);
});
