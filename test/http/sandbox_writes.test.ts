// A sandbox (test) key never changes what live data uses: every /v2 write the OpenAPI document lists is called with
// a test admin key, aimed at live resources where it takes one, and the live state (forms, embed origins, endpoint
// routing and credentials, deliveries) is the same afterwards. A new /v2 write must be added to CALLS (checked).
import test from 'ava';
import { publishedForm } from '../helpers/hosted.ts';
import { agencyWithKeys } from '../helpers/rig.ts';
import { fileService } from '../helpers/server.ts';

const svc = fileService({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });

test('every /v2 write with a sandbox key leaves live data as it was', async (t) => {
  const { test: testKey, live: liveKey, ...a } = await agencyWithKeys(svc);
  const live = await publishedForm(svc, liveKey, a.agencyId);
  const put = await svc.request('PUT', '/v2/webhook-endpoints/form-submission', {
    token: liveKey,
    json: { staging_url: 'http://127.0.0.1:9/staging', production_url: 'https://hooks.example.com/live', auth: { kind: 'bearer', token: 'live-token' } },
  });
  t.true(put.status === 200 || put.status === 201, put.text);
  t.is((await svc.request('PUT', '/v2/embed-origins', { token: liveKey, json: { origins: ['https://www.agency.example'] } })).status, 200);
  const db = svc.tdb.db.owner;
  const endpointId = (await db.query(`select id from app_public.webhook_endpoints where agency_id = $1 and topic = 'form-submission'`, [a.agencyId])).rows[0]
    .id;
  const delivery = (
    await db.query(
      `insert into app_public.webhook_deliveries (agency_id, endpoint_id, message_id, mode, url, body, status)
       values ($1, $2, 'msg_live_1', 'live', 'https://hooks.example.com/live', '{}', 'failed') returning id`,
      [a.agencyId, endpointId],
    )
  ).rows[0].id;

  const liveState = async () =>
    (
      await db.query(
        `select (select json_agg(json_build_object('id', f.id, 'status', f.status, 'live', f.live_snapshot_id, 'updated', f.updated_at) order by f.id)
                   from app_public.forms f where f.agency_id = $1 and f.mode = 'live') forms,
                (select json_agg(e.origin order by e.origin) from app_public.embed_origins e where e.agency_id = $1 and e.mode = 'live') origins,
                (select json_agg(json_build_object('production_url', w.production_url, 'auth', w.auth_ciphertext, 'secret', w.secret_ciphertext,
                                                   'enabled', w.enabled) order by w.id)
                   from app_public.webhook_endpoints w where w.agency_id = $1) endpoints,
                (select json_agg(json_build_object('id', d.id, 'status', d.status) order by d.id)
                   from app_public.webhook_deliveries d where d.agency_id = $1 and d.mode = 'live') deliveries`,
        [a.agencyId],
      )
    ).rows[0];
  const before = await liveState();

  const CALLS: Record<string, { path: string; body: unknown }> = {
    'post /v2/forms': { path: '/v2/forms', body: { name: 'Sandbox form', owner: { type: 'agency', agency_id: a.agencyId }, insurance_line: 'homeowners' } },
    'patch /v2/forms/{id}': { path: `/v2/forms/${live.id}`, body: { name: 'Renamed by a sandbox key' } },
    'post /v2/forms/{id}/duplicate': { path: `/v2/forms/${live.id}/duplicate`, body: {} },
    'post /v2/forms/{id}/links': { path: `/v2/forms/${live.id}/links`, body: { agent_id: a.ownerId } },
    'post /v2/forms/{id}/publish': { path: `/v2/forms/${live.id}/publish`, body: {} },
    'put /v2/embed-origins': { path: '/v2/embed-origins', body: { origins: ['https://attacker.example'] } },
    'put /v2/webhook-endpoints/{topic}': { path: '/v2/webhook-endpoints/form-submission', body: { staging_url: 'http://127.0.0.1:9/sandbox' } },
    'put /v2/webhook-endpoints/{topic} (production_url)': {
      path: '/v2/webhook-endpoints/form-submission',
      body: { production_url: 'https://attacker.example/h' },
    },
    'put /v2/webhook-endpoints/{topic} (auth)': { path: '/v2/webhook-endpoints/form-submission', body: { auth: null } },
    'put /v2/webhook-endpoints/{topic} (enabled)': { path: '/v2/webhook-endpoints/form-submission', body: { enabled: false } },
    'post /v2/webhook-endpoints/{topic}/rotate-secret': { path: '/v2/webhook-endpoints/form-submission/rotate-secret', body: {} },
    'post /v2/webhook-endpoints/{topic}/test': { path: '/v2/webhook-endpoints/form-submission/test', body: {} },
    'post /v2/webhook-endpoints/{topic}/recover': { path: '/v2/webhook-endpoints/form-submission/recover', body: { since: '2020-01-01T00:00:00Z' } },
    'post /v2/webhook-endpoints/{topic}/deliveries/{delivery_id}/redeliver': {
      path: `/v2/webhook-endpoints/form-submission/deliveries/${delivery}/redeliver`,
      body: {},
    },
  };
  const doc = (await svc.request('GET', '/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
  const v2Writes = Object.entries(doc.paths)
    .filter(([p]) => p.startsWith('/v2/'))
    .flatMap(([p, ops]) =>
      Object.keys(ops)
        .filter((m) => m !== 'get')
        .map((m) => `${m} ${p}`),
    );
  t.deepEqual(v2Writes.sort(), [...new Set(Object.keys(CALLS).map((k) => k.replace(/ \(.*\)$/, '')))].sort(), 'every /v2 write is called');

  for (const [name, call] of Object.entries(CALLS)) {
    const r = await svc.request(name.split(' ')[0].toUpperCase(), call.path, {
      token: testKey,
      json: call.body,
      headers: { 'Idempotency-Key': crypto.randomUUID() },
    });
    t.true(r.status < 500, `${name}: ${r.status} ${r.text.slice(0, 200)}`);
    t.deepEqual(await liveState(), before, `${name} (${r.status}) changed live data`);
  }
});
