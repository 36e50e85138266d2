import test from 'ava';
import sharp from 'sharp';
import { fileService, twoClients } from '../helpers/server.ts';
import { solidImage } from '../helpers/images.ts';

const svc = fileService({ MAX_UPLOAD_BYTES: String(1024 * 1024) });

const addAgent = (token: string, agencyId: number, json: Record<string, unknown>) => svc.request('POST', `/v1/agencies/${agencyId}/agents`, { token, json });

test('an OAuth client adds agents; slugs are ASCII, unique, honour slug_suffix and resolve collisions', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const first = await addAgent(c.token, a.agencyId, {
    first_name: 'Zoë',
    last_name: "O'Brien-Núñez",
    email: 'zoe@example.com',
    phone_number: '+1 (555) 010-2000',
  });
  t.is(first.status, 200);
  t.like(first.body.data, { slug: 'zoe-obrien-nunez', is_admin: false, is_owner: false, status: 'active', phone_number: '+1 (555) 010-2000' });
  t.deepEqual(first.body.data.agency, { id: a.agencyId, name: first.body.data.agency.name, color_code: '2563eb' });
  t.regex(first.body.data.access_token, /^agt_/);
  const twin = await addAgent(c.token, a.agencyId, { first_name: 'Zoe', last_name: 'OBrien Nunez', email: 'zoe2@example.com' });
  t.is(twin.body.data.slug, 'zoe-obrien-nunez-2');
  const suffixed = await addAgent(c.token, a.agencyId, {
    first_name: 'Zoe',
    last_name: 'OBrien Nunez',
    email: 'zoe3@example.com',
    slug_suffix: 'Austin TX',
    is_admin: true,
  });
  t.is(suffixed.body.data.slug, 'zoe-obrien-nunez-austin-tx');
  t.true(suffixed.body.data.is_admin);
  const dupEmail = await addAgent(c.token, a.agencyId, { first_name: 'Z', last_name: 'Z', email: 'ZOE@example.com' });
  t.is(dupEmail.status, 422);
  const invalid = await addAgent(c.token, a.agencyId, { first_name: '', last_name: 'X', email: 'bad', slug_suffix: 'a/b' });
  t.is(invalid.status, 422);
  t.deepEqual(invalid.body.error.details.map((d: { field: string }) => d.field).sort(), ['email', 'first_name', 'slug_suffix']);
});

test('an agent with a profile picture is created by multipart; non-images are refused', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const form = new FormData();
  form.set('first_name', 'Pia');
  form.set('last_name', 'Pictured');
  form.set('email', 'pia@example.com');
  form.set('is_admin', 'true');
  const jpeg = await solidImage(2000, 1500, '#a0a0a0', 'jpeg');
  form.set('profile_picture', new Blob([new Uint8Array(jpeg)], { type: 'image/jpeg' }), 'me.jpg');
  const r = await svc.request('POST', `/v1/agencies/${a.agencyId}/agents`, { token: c.token, form });
  t.is(r.status, 200, r.text);
  t.true(r.body.data.is_admin);
  const pic = await fetch(r.body.data.profile_picture_url);
  t.is(pic.status, 200);
  const meta = await sharp(Buffer.from(await pic.arrayBuffer())).metadata();
  t.is(meta.width, 1024, 'downscaled to at most 1024 px');
  const bad = new FormData();
  bad.set('first_name', 'No');
  bad.set('last_name', 'Pic');
  bad.set('email', 'nopic@example.com');
  bad.set('profile_picture', new Blob(['GIF89a but really text'], { type: 'image/gif' }), 'x.gif');
  const refused = await svc.request('POST', `/v1/agencies/${a.agencyId}/agents`, { token: c.token, form: bad });
  t.is(refused.status, 422);
  t.is(refused.body.error.details[0].field, 'profile_picture');
  const list = await svc.request('GET', `/v1/agents?filterByEmail=nopic@example.com`, { token: c.token });
  t.is(list.body.meta.total, 0, 'nothing half-written');
  const big = new FormData();
  big.set('first_name', 'Big');
  big.set('last_name', 'Pic');
  big.set('email', 'big@example.com');
  big.set('profile_picture', new Blob([new Uint8Array(2 * 1024 * 1024)], { type: 'image/png' }), 'big.png');
  t.is((await svc.request('POST', `/v1/agencies/${a.agencyId}/agents`, { token: c.token, form: big })).status, 413);
});

test('GET /v1/agents pages with data, links and meta exactly as the spec, and filters', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  for (let i = 0; i < 4; i++) await addAgent(c.token, a.agencyId, { first_name: 'Page', last_name: `Agent${i}`, email: `page${i}@example.com` });
  const p1 = await svc.request('GET', '/v1/agents?perPage=2', { token: c.token });
  t.is(p1.status, 200);
  t.deepEqual(Object.keys(p1.body).sort(), ['data', 'links', 'meta']);
  t.deepEqual(p1.body.meta, { current_page: 1, from: 1, last_page: 3, path: `${svc.url}/v1/agents`, per_page: 2, to: 2, total: 5 });
  t.deepEqual(p1.body.links, {
    first: `${svc.url}/v1/agents?perPage=2&page=1`,
    last: `${svc.url}/v1/agents?perPage=2&page=3`,
    prev: null,
    next: `${svc.url}/v1/agents?perPage=2&page=2`,
  });
  const p3 = await svc.request('GET', p1.body.links.last.replace(svc.url, ''), { token: c.token });
  t.is(p3.body.data.length, 1);
  t.like(p3.body.meta, { current_page: 3, from: 5, to: 5 });
  t.is(p3.body.links.next, null);
  t.is(p3.body.links.prev, `${svc.url}/v1/agents?perPage=2&page=2`);
  const beyond = await svc.request('GET', '/v1/agents?perPage=2&page=9', { token: c.token });
  t.deepEqual(beyond.body.data, []);
  t.like(beyond.body.meta, { current_page: 9, from: null, to: null, total: 5, last_page: 3 });
  const byEmail = await svc.request('GET', '/v1/agents?filterByEmail=PAGE2@example.com', { token: c.token });
  t.is(byEmail.body.meta.total, 1);
  t.is(byEmail.body.data[0].email, 'page2@example.com');
  t.regex(byEmail.body.links.first, /filterByEmail=PAGE2%40example.com/);
  for (const q of ['perPage=0', 'perPage=101', 'page=0', 'page=x', 'includeDeactivated=maybe']) {
    const r = await svc.request('GET', `/v1/agents?${q}`, { token: c.token });
    t.is(r.status, 400, q);
  }
  const empty = await svc.request('GET', '/v1/agents', { token: (await svc.oauthClient('empty')).token });
  t.deepEqual(empty.body.meta, { current_page: 1, from: null, last_page: 1, path: `${svc.url}/v1/agents`, per_page: 15, to: null, total: 0 });
});

test('resetting a token revokes every earlier token at once and returns the documented shape', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const before = await svc.request('GET', `/v1/agencies/${a.agencyId}`, { token: a.ownerToken });
  t.is(before.status, 200);
  const r = await svc.request('POST', `/v1/agents/${a.ownerId}/reset-access-token`, { token: c.token });
  t.is(r.status, 200);
  t.deepEqual(Object.keys(r.body.data.agent).sort(), ['access_token', 'email', 'first_name', 'id', 'last_name', 'slug']);
  t.deepEqual(Object.keys(r.body.data.agency).sort(), ['color_code', 'id', 'name']);
  t.is((await svc.request('GET', `/v1/agencies/${a.agencyId}`, { token: a.ownerToken })).status, 401);
  const second = await svc.request('POST', `/v1/agents/${a.ownerId}/reset-access-token`, { token: c.token });
  t.is((await svc.request('GET', `/v1/agencies/${a.agencyId}`, { token: r.body.data.agent.access_token })).status, 401);
  t.is((await svc.request('GET', `/v1/agencies/${a.agencyId}`, { token: second.body.data.agent.access_token })).status, 200);
});

test('deactivating the owner is refused until ownership moves; other agents deactivate and lose access', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const other = await addAgent(c.token, a.agencyId, { first_name: 'Next', last_name: 'Owner', email: 'next@example.com' });
  const refused = await svc.request('DELETE', `/v1/agents/${a.ownerId}`, { token: c.token });
  t.is(refused.status, 422);
  t.regex(refused.body.error.message, /transfer ownership/);
  // Only the owner moves ownership, by PATCHing the new owner.
  const byNonOwner = await svc.request('PATCH', `/v1/agencies/${a.agencyId}/agents/${other.body.data.id}`, {
    token: other.body.data.access_token,
    json: { is_owner: true },
  });
  t.is(byNonOwner.status, 403);
  const moved = await svc.request('PATCH', `/v1/agencies/${a.agencyId}/agents/${other.body.data.id}`, { token: a.ownerToken, json: { is_owner: true } });
  t.is(moved.status, 200, moved.text);
  t.like(moved.body.data, { is_owner: true, is_admin: true });
  t.is((await svc.request('DELETE', `/v1/agents/${a.ownerId}`, { token: c.token })).status, 204);
  t.is((await svc.request('GET', `/v1/agencies/${a.agencyId}`, { token: a.ownerToken })).status, 401);
  t.is((await svc.request('DELETE', `/v1/agents/${a.ownerId}`, { token: c.token })).status, 204, 'idempotent');
  const hidden = await svc.request('GET', `/v1/agents?filterByEmail=${encodeURIComponent('owner')}`, { token: c.token });
  t.is(hidden.status, 200);
  t.is(hidden.body.meta.total, 0, 'filterByEmail matches whole addresses, not fragments');
  const listed = await svc.request('GET', '/v1/agents', { token: c.token });
  t.false(
    listed.body.data.some((x: { id: number }) => x.id === a.ownerId),
    'deactivated agents are hidden by default',
  );
  const all = await svc.request('GET', '/v1/agents?includeDeactivated=true', { token: c.token });
  t.true(all.body.data.some((x: { id: number; status: string }) => x.id === a.ownerId && x.status === 'deactivated'));
  t.is((await svc.request('POST', `/v1/agents/${a.ownerId}/reset-access-token`, { token: c.token })).status, 422);
});

test('agents read, admins update and deactivate the agents of their own agency', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const plain = (await addAgent(c.token, a.agencyId, { first_name: 'Plain', last_name: 'Agent', email: 'plain@example.com' })).body.data;
  const other = (await addAgent(c.token, a.agencyId, { first_name: 'Other', last_name: 'Agent', email: 'other@example.com' })).body.data;
  const read = await svc.request('GET', `/v1/agencies/${a.agencyId}/agents/${other.id}`, { token: plain.access_token });
  t.is(read.status, 200);
  t.is(read.body.data.access_token, undefined);
  t.is(read.body.data.email, 'other@example.com');
  t.is((await svc.request('PATCH', `/v1/agencies/${a.agencyId}/agents/${other.id}`, { token: plain.access_token, json: { first_name: 'X' } })).status, 403);
  t.is((await svc.request('DELETE', `/v1/agencies/${a.agencyId}/agents/${other.id}`, { token: plain.access_token })).status, 403);
  const upd = await svc.request('PATCH', `/v1/agencies/${a.agencyId}/agents/${other.id}`, {
    token: a.ownerToken,
    json: { first_name: 'Renamed', phone_number: '555-0100', is_admin: true },
  });
  t.is(upd.status, 200);
  t.like(upd.body.data, { first_name: 'Renamed', phone_number: '555-0100', is_admin: true, slug: other.slug });
  const clash = await svc.request('PATCH', `/v1/agencies/${a.agencyId}/agents/${other.id}`, { token: a.ownerToken, json: { email: 'PLAIN@example.com' } });
  t.is(clash.status, 422);
  t.is(clash.body.error.details[0].field, 'email');
  const demoteOwner = await svc.request('PATCH', `/v1/agencies/${a.agencyId}/agents/${a.ownerId}`, { token: a.ownerToken, json: { is_admin: false } });
  t.is(demoteOwner.status, 422);
  const unknownField = await svc.request('PATCH', `/v1/agencies/${a.agencyId}/agents/${other.id}`, { token: a.ownerToken, json: { slug: 'mine' } });
  t.is(unknownField.status, 422);
  const del = await svc.request('DELETE', `/v1/agencies/${a.agencyId}/agents/${plain.id}`, { token: a.ownerToken });
  t.is(del.status, 204);
  t.is((await svc.request('GET', `/v1/agencies/${a.agencyId}`, { token: plain.access_token })).status, 401);
  // `other` was just made an admin: even an admin cannot deactivate the owner.
  const ownerDel = await svc.request('DELETE', `/v1/agencies/${a.agencyId}/agents/${a.ownerId}`, { token: other.access_token });
  t.is(ownerDel.status, 422);
});

test('another OAuth client and another agency get 404 on every agent route of the first', async (t) => {
  const { c1, c2, a1, a2 } = await twoClients(svc, ['first', 'second']);
  const agent = (await addAgent(c1.token, a1.agencyId, { first_name: 'Kept', last_name: 'Safe', email: 'kept@example.com' })).body.data;
  t.is((await svc.request('DELETE', `/v1/agents/${agent.id}`, { token: c2.token })).status, 404);
  t.is((await svc.request('POST', `/v1/agents/${agent.id}/reset-access-token`, { token: c2.token })).status, 404);
  t.is((await svc.request('GET', `/v1/agencies/${a1.agencyId}/agents/${agent.id}`, { token: a2.ownerToken })).status, 404);
  t.is((await svc.request('GET', `/v1/agencies/${a2.agencyId}/agents/${agent.id}`, { token: a2.ownerToken })).status, 404);
  t.is((await svc.request('PATCH', `/v1/agencies/${a1.agencyId}/agents/${agent.id}`, { token: a2.ownerToken, json: { first_name: 'Evil' } })).status, 404);
  t.is((await svc.request('PATCH', `/v1/agencies/${a2.agencyId}/agents/${agent.id}`, { token: a2.ownerToken, json: { first_name: 'Evil' } })).status, 404);
  t.is((await svc.request('DELETE', `/v1/agencies/${a2.agencyId}/agents/${agent.id}`, { token: a2.ownerToken })).status, 404);
  t.is((await svc.request('PATCH', `/v1/agencies/${a2.agencyId}/agents/${agent.id}`, { token: a2.ownerToken, json: { is_owner: true } })).status, 404);
  const still = await svc.request('GET', `/v1/agencies/${a1.agencyId}/agents/${agent.id}`, { token: agent.access_token });
  t.like(still.body.data, { first_name: 'Kept', status: 'active' });
  t.is((await svc.request('GET', `/v1/agencies/${a1.agencyId}`, { token: agent.access_token })).status, 200, 'token not reset by the other client');
});

test('POST /v1/agents/{id}/dashboard-link answers in the v1 envelope: { data: { url, expires_at } }', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const r = await svc.request('POST', `/v1/agents/${a.ownerId}/dashboard-link`, { token: c.token });
  t.is(r.status, 200, r.text);
  t.deepEqual(Object.keys(r.body), ['data']);
  t.deepEqual(Object.keys(r.body.data).sort(), ['expires_at', 'url']);
  t.regex(r.body.data.url, /\/dashboard\/sign-in\/dsl_/);
  t.true(Date.parse(r.body.data.expires_at) > Date.now());
});
