// Issue 28, High: a credential that cannot go into a header is refused when an endpoint or subscription is saved
// (422 naming the field), and any error before or during a send is a failed attempt in the delivery log with its
// backoff: one bad endpoint neither spins the send loop nor holds up another endpoint's deliveries.
import { Writable } from 'node:stream';
import test from 'ava';
import { encryptSecret } from '../../lib/crypto.ts';
import { setLogLevel, setLogStream } from '../../lib/log.ts';
import { formData, serviceRig } from '../helpers/rig.ts';
import { eventually, startTestWorker } from '../helpers/worker.ts';

const rig = serviceRig(
  { WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_RETRY_SCHEDULE: '60', WEBHOOK_MAX_ATTEMPTS: '3', WEBHOOK_TIMEOUT_MS: '4000' },
  { worker: false },
);
const { receiver } = rig;

const db = () => rig.svc.tdb.db.owner;

const unsafe: Array<[string, unknown, string]> = [
  ['a NUL in a bearer token', { kind: 'bearer', token: 't\u0000' }, 'auth.token'],
  ['a line break in a bearer token', { kind: 'bearer', token: 'abc\r\nX-Injected: 1' }, 'auth.token'],
  ['a character beyond Latin-1 in a bearer token', { kind: 'bearer', token: 'tok€n' }, 'auth.token'],
  ['a NUL in a header value', { kind: 'header', name: 'x-key', value: 'v\u0000' }, 'auth.value'],
  ['a control character in a header value', { kind: 'header', name: 'x-key', value: 'v\u0001' }, 'auth.value'],
  ['a NUL in a basic password', { kind: 'basic', username: 'u', password: 'p\u0000' }, 'auth.password'],
  ['a colon in a basic user name', { kind: 'basic', username: 'u:x', password: 'p' }, 'auth.username'],
];

test('a topic endpoint (v2) with a credential that cannot go into a header is refused with 422 naming the field', async (t) => {
  const c = await rig.svc.oauthClient();
  const a = await rig.svc.agency(c.token);
  const key = await rig.svc.apiKey(a.ownerToken, a.agencyId, 'live');
  for (const [what, auth, field] of unsafe) {
    const put = await rig.svc.request('PUT', '/v2/webhook-endpoints/form-submission', { token: key, json: { staging_url: 'http://127.0.0.1:9/h', auth } });
    t.is(put.status, 422, `${what}: ${put.text}`);
    t.true(
      put.body.errors.some((e: { pointer: string }) => e.pointer === `/${field.replace('.', '/')}`),
      `${what}: names ${field}: ${put.text}`,
    );
  }
  const ok = await rig.svc.request('PUT', '/v2/webhook-endpoints/form-submission', {
    token: key,
    json: { staging_url: 'http://127.0.0.1:9/h', auth: { kind: 'bearer', token: 'abc.DEF-123_~+/=' } },
  });
  t.true(ok.status === 200 || ok.status === 201, ok.text);
});

test('a v1 subscription with a credential that cannot go into a header is refused with 422 naming the field, on create and update', async (t) => {
  const c = await rig.svc.oauthClient();
  const a = await rig.svc.agency(c.token);
  for (const [what, auth, field] of unsafe) {
    const post = await rig.svc.request('POST', '/v1/webhooks', {
      token: a.ownerToken,
      json: { url: 'http://127.0.0.1:9/h', events: ['client.updated'], auth },
    });
    t.is(post.status, 422, `${what}: ${post.text}`);
    t.true(
      post.body.error.details.some((d: { field: string }) => d.field === field),
      `${what}: names ${field}: ${post.text}`,
    );
  }
  const created = await rig.svc.request('POST', '/v1/webhooks', { token: a.ownerToken, json: { url: 'http://127.0.0.1:9/h', events: ['client.updated'] } });
  t.is(created.status, 200, created.text);
  const patch = await rig.svc.request('PATCH', `/v1/webhooks/${created.body.data.uuid}`, {
    token: a.ownerToken,
    json: { auth: { kind: 'bearer', token: 't\u0000' } },
  });
  t.is(patch.status, 422, patch.text);
});

const emit = (agencyId: number, submissionId: number) => rig.emit(agencyId, 'test', 'form-submission', null, formData(submissionId));

const deliveryOf = async (eventId: number) =>
  (
    await db().query(
      `select d.id, d.status, d.attempt_count, d.next_attempt_at > now() + interval '30 seconds' backed_off,
              (select json_agg(json_build_object('error_code', a.error_code, 'error_message', a.error_message, 'body', a.response_body))
                 from app_public.webhook_delivery_attempts a where a.delivery_id = d.id) attempts
         from app_public.webhook_deliveries d where d.event_id = $1`,
      [eventId],
    )
  ).rows[0];

/** The event's delivery once its first attempt is recorded. */
const attempted = (eventId: number, what: string) =>
  eventually(
    async () => {
      const d = await deliveryOf(eventId);
      return d?.attempt_count >= 1 ? d : null;
    },
    15_000,
    what,
  );

test.serial('a stored credential that makes the send throw is a failed attempt with backoff, and other endpoints are served meanwhile', async (t) => {
  const bad = await receiver();
  const good = await receiver();
  const b = await rig.endpointTo(bad.url);
  const g = await rig.endpointTo(good.url);
  // A credential saved before registration checked it: sealed as the route would, bypassing its validation.
  await db().query(`update app_public.webhook_endpoints set auth_kind = 'bearer', auth_ciphertext = $2 where id = $1`, [
    b.endpointId,
    encryptSecret(rig.svc.deps.secretKey, JSON.stringify({ kind: 'bearer', token: 't\u0000' })),
  ]);
  let logs = '';
  setLogStream(new Writable({ write: (chunk, _enc, cb) => ((logs += chunk.toString()), cb()) }));
  setLogLevel('info');
  const worker = await startTestWorker(rig.svc);
  try {
    const badEvent = await emit(b.agencyId, 1);
    const goodEvents = [];
    for (let i = 0; i < 5; i++) goodEvents.push(await emit(g.agencyId, 100 + i));
    const failed = await attempted(badEvent, 'the failed attempt');
    await eventually(async () => good.received.length >= 5, 15_000, 'the other endpoint’s deliveries');
    // Another second of the loop: no second attempt (the retry waits its 60 s), no flood of log lines.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const after = await deliveryOf(badEvent);
    t.is(after.status, 'pending');
    t.is(after.attempt_count, 1, 'one attempt, not a retry at once');
    t.true(after.backed_off, 'the next attempt waits its backoff');
    t.is(failed.attempts.length, 1);
    t.is(failed.attempts[0].error_code, 'request');
    t.regex(failed.attempts[0].error_message, /could not be made/);
    t.false(failed.attempts[0].error_message.includes('t\u0000'), 'the credential is not in the log');
    t.is(bad.received.length, 0, 'nothing was sent with the unsafe header');
    const lines = logs.split('\n').filter(Boolean);
    t.true(lines.length < 50, `a few log lines, not a flood: ${lines.length}`);
  } finally {
    setLogLevel('silent');
    await worker.stop();
  }
});

test.serial('a receiver answering with a NUL in its body is recorded (the NUL replaced) and does not stop the rounds', async (t) => {
  const r = await receiver();
  const other = await receiver();
  const e = await rig.endpointTo(r.url);
  const o = await rig.endpointTo(other.url);
  r.script({ status: 500, body: 'bad\u0000body' });
  const worker = await startTestWorker(rig.svc);
  try {
    const eventId = await emit(e.agencyId, 7);
    const d = await attempted(eventId, 'the recorded attempt');
    t.is(d.attempts[0].body, 'bad\uFFFDbody');
    t.true(d.backed_off);
    await emit(o.agencyId, 8);
    await eventually(async () => other.received.length >= 1, 15_000, 'a later delivery');
    t.pass();
  } finally {
    await worker.stop();
  }
});
