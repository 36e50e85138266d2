import test from 'ava';
import { fileService } from '../helpers/server.ts';

const svc = fileService();

test('an admin creates test and live keys, shown once; the list has no secrets', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const r = await svc.request('POST', `/v1/agencies/${a.agencyId}/api-keys`, {
    token: a.ownerToken,
    json: { name: 'Server', mode: 'live', permissions: 'admin' },
  });
  t.is(r.status, 200);
  t.regex(r.body.data.key, /^svc_live_[A-Za-z0-9_-]{40}$/);
  t.like(r.body.data, { name: 'Server', mode: 'live', permissions: 'admin', status: 'active', last_used_at: null, last_four: r.body.data.key.slice(-4) });
  t.true(r.body.data.key.startsWith(r.body.data.prefix));
  const test = await svc.request('POST', `/v1/agencies/${a.agencyId}/api-keys`, { token: a.ownerToken, json: { name: 'Sandbox', mode: 'test' } });
  t.regex(test.body.data.key, /^svc_test_/);
  t.is(test.body.data.permissions, 'admin');
  await svc.request('GET', '/v2/forms', { token: r.body.data.key });
  const list = await svc.request('GET', `/v1/agencies/${a.agencyId}/api-keys`, { token: a.ownerToken });
  t.is(list.status, 200);
  t.is(list.body.data.length, 2);
  t.false(list.text.includes(r.body.data.key));
  t.false(list.text.includes(test.body.data.key));
  t.truthy(list.body.data.find((k: { id: number }) => k.id === r.body.data.id).last_used_at);
  const { rows } = await svc.tdb.db.owner.query(`select encode(key_hash, 'hex') h from app_public.api_keys`);
  t.false(JSON.stringify(rows).includes(Buffer.from(r.body.data.key).toString('hex')));
});

test('non-admin agents, other agencies and OAuth clients cannot manage keys', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const b = await svc.agency(c.token);
  const plain = await svc.request('POST', `/v1/agencies/${a.agencyId}/agents`, {
    token: c.token,
    json: { first_name: 'P', last_name: 'Q', email: 'pq@example.com' },
  });
  t.is(
    (await svc.request('POST', `/v1/agencies/${a.agencyId}/api-keys`, { token: plain.body.data.access_token, json: { name: 'x', mode: 'test' } })).status,
    403,
  );
  t.is((await svc.request('GET', `/v1/agencies/${a.agencyId}/api-keys`, { token: plain.body.data.access_token })).status, 403);
  t.is((await svc.request('POST', `/v1/agencies/${a.agencyId}/api-keys`, { token: b.ownerToken, json: { name: 'x', mode: 'test' } })).status, 404);
  t.is((await svc.request('GET', `/v1/agencies/${a.agencyId}/api-keys`, { token: b.ownerToken })).status, 404);
  t.is((await svc.request('POST', `/v1/agencies/${a.agencyId}/api-keys`, { token: c.token, json: { name: 'x', mode: 'test' } })).status, 403);
  const key = await svc.apiKey(a.ownerToken, a.agencyId);
  const keyId = (await svc.request('GET', `/v1/agencies/${a.agencyId}/api-keys`, { token: a.ownerToken })).body.data[0].id;
  t.is((await svc.request('DELETE', `/v1/agencies/${b.agencyId}/api-keys/${keyId}`, { token: b.ownerToken })).status, 404);
  t.is((await svc.request('POST', `/v1/agencies/${b.agencyId}/api-keys/${keyId}/roll`, { token: b.ownerToken, json: {} })).status, 404);
  t.is((await svc.request('GET', '/v2/forms', { token: key })).status, 200, 'untouched');
  const bad = await svc.request('POST', `/v1/agencies/${a.agencyId}/api-keys`, { token: a.ownerToken, json: { name: '', mode: 'prod', permissions: 'root' } });
  t.is(bad.status, 422);
  t.deepEqual(bad.body.error.details.map((d: { field: string }) => d.field).sort(), ['mode', 'name', 'permissions']);
});

test('rolling issues a replacement and keeps the old key for the grace period; revoking is immediate', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const created = await svc.request('POST', `/v1/agencies/${a.agencyId}/api-keys`, { token: a.ownerToken, json: { name: 'Rolled', mode: 'test' } });
  const oldKey = created.body.data.key;
  const graceful = await svc.request('POST', `/v1/agencies/${a.agencyId}/api-keys/${created.body.data.id}/roll`, {
    token: a.ownerToken,
    json: { grace_period_seconds: 3600 },
  });
  t.is(graceful.status, 200);
  t.not(graceful.body.data.key, oldKey);
  t.like(graceful.body.data, { name: 'Rolled', mode: 'test', permissions: 'admin' });
  t.is((await svc.request('GET', '/v2/forms', { token: oldKey })).status, 200, 'old key alive during grace');
  t.is((await svc.request('GET', '/v2/forms', { token: graceful.body.data.key })).status, 200);
  const list = await svc.request('GET', `/v1/agencies/${a.agencyId}/api-keys`, { token: a.ownerToken });
  t.like(
    list.body.data.find((k: { id: number }) => k.id === created.body.data.id),
    { status: 'expiring', replaced_by_id: graceful.body.data.id },
  );
  const immediate = await svc.request('POST', `/v1/agencies/${a.agencyId}/api-keys/${graceful.body.data.id}/roll`, { token: a.ownerToken, json: {} });
  t.is((await svc.request('GET', '/v2/forms', { token: graceful.body.data.key })).status, 401, 'default grace is 0');
  t.is((await svc.request('DELETE', `/v1/agencies/${a.agencyId}/api-keys/${immediate.body.data.id}`, { token: a.ownerToken })).status, 204);
  t.is((await svc.request('GET', '/v2/forms', { token: immediate.body.data.key })).status, 401);
  t.is((await svc.request('POST', `/v1/agencies/${a.agencyId}/api-keys/${immediate.body.data.id}/roll`, { token: a.ownerToken, json: {} })).status, 422);
});

test('keys of a deactivated agency stop working', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const key = await svc.apiKey(a.ownerToken, a.agencyId);
  t.is((await svc.request('GET', '/v2/forms', { token: key })).status, 200);
  await svc.request('DELETE', `/v1/agencies/${a.agencyId}`, { token: c.token });
  t.is((await svc.request('GET', '/v2/forms', { token: key })).status, 401);
});

test('the OAuth client sets the plan; enterprise needs custom limits; other clients get 404', async (t) => {
  const c = await svc.oauthClient();
  const other = await svc.oauthClient('other');
  const a = await svc.agency(c.token);
  const pro = await svc.request('PUT', `/v1/agencies/${a.agencyId}/plan`, { token: c.token, json: { plan: 'pro' } });
  t.is(pro.status, 200);
  t.deepEqual(pro.body.data, { agency_id: a.agencyId, plan: 'pro', per_minute: 30, per_day: 1000 });
  const noLimits = await svc.request('PUT', `/v1/agencies/${a.agencyId}/plan`, { token: c.token, json: { plan: 'enterprise' } });
  t.is(noLimits.status, 422);
  t.deepEqual(noLimits.body.error.details.map((d: { field: string }) => d.field).sort(), ['per_day', 'per_minute']);
  const ent = await svc.request('PUT', `/v1/agencies/${a.agencyId}/plan`, { token: c.token, json: { plan: 'enterprise', per_minute: 120, per_day: 50000 } });
  t.deepEqual(ent.body.data, { agency_id: a.agencyId, plan: 'enterprise', per_minute: 120, per_day: 50000 });
  t.is((await svc.request('PUT', `/v1/agencies/${a.agencyId}/plan`, { token: other.token, json: { plan: 'free' } })).status, 404);
  t.is((await svc.request('PUT', `/v1/agencies/${a.agencyId}/plan`, { token: a.ownerToken, json: { plan: 'free' } })).status, 403);
  const free = await svc.request('PUT', `/v1/agencies/${a.agencyId}/plan`, { token: c.token, json: { plan: 'free' } });
  t.deepEqual(free.body.data, { agency_id: a.agencyId, plan: 'free', per_minute: 5, per_day: 50 });
});

test('a key reports the admin who created it and outlives that admin’s deactivation (it belongs to the agency)', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const admin = (
    await svc.request('POST', `/v1/agencies/${a.agencyId}/agents`, {
      token: c.token,
      json: { first_name: 'Ad', last_name: 'Min', email: 'admin-creator@example.com', is_admin: true },
    })
  ).body.data;
  const created = await svc.request('POST', `/v1/agencies/${a.agencyId}/api-keys`, {
    token: admin.access_token,
    json: { name: 'Made by an admin', mode: 'test' },
  });
  t.is(created.status, 200, created.text);
  t.is(created.body.data.created_by_agent_id, admin.id);
  t.is((await svc.request('DELETE', `/v1/agents/${admin.id}`, { token: c.token })).status, 204);
  t.is((await svc.request('GET', '/v2/forms', { token: created.body.data.key })).status, 200, 'the key still works');
  const listed = (await svc.request('GET', `/v1/agencies/${a.agencyId}/api-keys`, { token: a.ownerToken })).body.data as Array<{
    id: number;
    created_by_agent_id: number | null;
  }>;
  t.is(listed.find((k) => k.id === created.body.data.id)?.created_by_agent_id, admin.id);
});
