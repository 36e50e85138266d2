import { readdir } from 'node:fs/promises';
import test from 'ava';
import sharp from 'sharp';
import { fileService, twoClients } from '../helpers/server.ts';
import { solidImage } from '../helpers/images.ts';

const svc = fileService({ MAX_UPLOAD_BYTES: String(2 * 1024 * 1024), MAX_IMAGE_PIXELS: String(4_000_000) });

const png = (w = 64, h = 32) => solidImage(w, h, '#3366cc');

/** Upload folders left in this service's own temporary directory. */
async function uploadDirs(): Promise<string[]> {
  return (await readdir(svc.cfg.tmpDir)).filter((n) => n.startsWith('svc-upload-'));
}

test('creating an agency returns it with an owner agent who is an admin and holds a working token', async (t) => {
  const c = await svc.oauthClient();
  const r = await svc.request('POST', '/v1/agencies', {
    token: c.token,
    json: { agency_name: 'Harbor Insurance', email: 'Mia.Chen@Harbor.example', first_name: 'Mia', last_name: 'Chen', referral: 'partner-x' },
  });
  t.is(r.status, 200);
  t.deepEqual(r.body.data.agency, { id: r.body.data.agency.id, name: 'Harbor Insurance', color_code: '2563eb' });
  const agent = r.body.data.agent;
  t.like(agent, { first_name: 'Mia', last_name: 'Chen', email: 'mia.chen@harbor.example', slug: 'mia-chen', is_admin: true });
  t.regex(agent.access_token, /^agt_/);
  const own = await svc.request('GET', `/v1/agencies/${r.body.data.agency.id}`, { token: agent.access_token });
  t.is(own.status, 200);
  t.deepEqual(own.body, { data: { id: r.body.data.agency.id, name: 'Harbor Insurance', color_code: '2563eb', logo_url: null } });
  t.truthy(own.headers.get('x-ratelimit-limit'));
});

test('agency creation validates every field and names the bad ones', async (t) => {
  const c = await svc.oauthClient();
  const r = await svc.request('POST', '/v1/agencies', { token: c.token, json: { agency_name: '', email: 'not-an-email', first_name: 'A' } });
  t.is(r.status, 422);
  const fields = r.body.error.details.map((d: { field: string }) => d.field).sort();
  t.deepEqual(fields, ['agency_name', 'email', 'last_name']);
  const extra = await svc.request('POST', '/v1/agencies', {
    token: c.token,
    json: { agency_name: 'X', email: 'a@b.co', first_name: 'A', last_name: 'B', plan: 'pro' },
  });
  t.is(extra.status, 422);
});

test('an agent token cannot call OAuth-client operations and vice versa', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const r = await svc.request('POST', '/v1/agencies', { token: a.ownerToken, json: { agency_name: 'X', email: 'a@b.co', first_name: 'A', last_name: 'B' } });
  t.is(r.status, 403);
  const g = await svc.request('GET', `/v1/agencies/${a.agencyId}`, { token: c.token });
  t.is(g.status, 403);
  const none = await svc.request('GET', `/v1/agencies/${a.agencyId}`);
  t.is(none.status, 401);
  t.deepEqual(Object.keys(none.body), ['error']);
});

test('PATCH updates name and colour for admins; a bad colour is 422 naming color_code; non-admins get 403', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const ok = await svc.request('PATCH', `/v1/agencies/${a.agencyId}`, { token: a.ownerToken, json: { color_code: 'FF8800', name: 'Renamed' } });
  t.is(ok.status, 200);
  t.like(ok.body.data, { name: 'Renamed', color_code: 'FF8800' });
  for (const bad of ['#FF8800', 'FF88', 'GG0000', 123]) {
    const r = await svc.request('PATCH', `/v1/agencies/${a.agencyId}`, { token: a.ownerToken, json: { color_code: bad } });
    t.is(r.status, 422, String(bad));
    t.is(r.body.error.details[0].field, 'color_code');
  }
  const plain = await svc.request('POST', `/v1/agencies/${a.agencyId}/agents`, {
    token: c.token,
    json: { first_name: 'Pat', last_name: 'Plain', email: 'pat@example.com' },
  });
  const denied = await svc.request('PATCH', `/v1/agencies/${a.agencyId}`, { token: plain.body.data.access_token, json: { name: 'Mine' } });
  t.is(denied.status, 403);
});

// Serial: ava runs serial tests before the concurrent ones, so no other upload is in flight when the
// temporary directory is checked.
test.serial('a logo is uploaded by multipart POST with _method=PATCH, re-encoded, and served at a stable logo_url', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const form = new FormData();
  form.set('_method', 'PATCH');
  form.set('color_code', '00aa55');
  form.set('logo', new Blob([await png()], { type: 'image/png' }), 'logo.png');
  const r = await svc.request('POST', `/v1/agencies/${a.agencyId}`, { token: a.ownerToken, form });
  t.is(r.status, 200, r.text);
  t.regex(r.body.data.logo_url, new RegExp(`^${svc.url}/v1/agencies/${a.agencyId}/logo\\?v=[0-9a-f]{12}$`));
  const img = await fetch(r.body.data.logo_url);
  t.is(img.status, 200);
  t.is(img.headers.get('content-type'), 'image/webp');
  const meta = await sharp(Buffer.from(await img.arrayBuffer())).metadata();
  t.is(meta.format, 'webp');
  t.is(meta.width, 64);
  const again = await svc.request('GET', `/v1/agencies/${a.agencyId}`, { token: a.ownerToken });
  t.is(again.body.data.logo_url, r.body.data.logo_url);
  t.deepEqual(await uploadDirs(), []);
});

test('a multipart POST without _method=PATCH is refused with 400', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const form = new FormData();
  form.set('logo', new Blob([await png()], { type: 'image/png' }), 'logo.png');
  const r = await svc.request('POST', `/v1/agencies/${a.agencyId}`, { token: a.ownerToken, form });
  t.is(r.status, 400);
  t.is(r.body.error.details[0].field, '_method');
});

test.serial('a non-image logo, a decompression bomb and an oversize file are refused and leave no temp file', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const send = async (bytes: Buffer, name: string) => {
    const form = new FormData();
    form.set('_method', 'PATCH');
    form.set('logo', new Blob([new Uint8Array(bytes)], { type: 'image/png' }), name);
    return svc.request('POST', `/v1/agencies/${a.agencyId}`, { token: a.ownerToken, form });
  };
  const text = await send(Buffer.from('%PDF-1.4 definitely not an image'), 'logo.png');
  t.is(text.status, 422);
  t.is(text.body.error.details[0].field, 'logo');
  // 10000×10000 of one colour compresses to a few KB but would decode to 300 MB.
  const bomb = await sharp({ create: { width: 10000, height: 10000, channels: 3, background: '#000' } })
    .png({ compressionLevel: 9 })
    .toBuffer();
  t.true(bomb.length < 2 * 1024 * 1024);
  const b = await send(bomb, 'bomb.png');
  t.is(b.status, 422);
  t.regex(b.body.error.details[0].message, /pixel/);
  const big = await send(Buffer.alloc(3 * 1024 * 1024, 1), 'big.png');
  t.is(big.status, 413);
  t.truthy(big.body.error.message);
  const truncated = await send((await png()).subarray(0, 40), 'cut.png');
  t.is(truncated.status, 422);
  t.deepEqual(await uploadDirs(), []);
  const still = await svc.request('GET', `/v1/agencies/${a.agencyId}`, { token: a.ownerToken });
  t.is(still.body.data.logo_url, null);
});

test('deactivating an agency deactivates its agents; their tokens then get 401; it is idempotent', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const extra = await svc.request('POST', `/v1/agencies/${a.agencyId}/agents`, {
    token: c.token,
    json: { first_name: 'Al', last_name: 'Extra', email: 'al@example.com' },
  });
  const r = await svc.request('DELETE', `/v1/agencies/${a.agencyId}`, { token: c.token });
  t.is(r.status, 204);
  t.is(r.text, '');
  t.is((await svc.request('GET', `/v1/agencies/${a.agencyId}`, { token: a.ownerToken })).status, 401);
  t.is((await svc.request('GET', `/v1/agencies/${a.agencyId}`, { token: extra.body.data.access_token })).status, 401);
  const list = await svc.request('GET', '/v1/agents?includeDeactivated=true', { token: c.token });
  const mine = list.body.data.filter((x: { agency: { id: number } }) => x.agency.id === a.agencyId);
  t.is(mine.length, 2);
  t.true(mine.every((x: { status: string; deactivated_at: string }) => x.status === 'deactivated' && x.deactivated_at));
  t.is((await svc.request('DELETE', `/v1/agencies/${a.agencyId}`, { token: c.token })).status, 204);
  const add = await svc.request('POST', `/v1/agencies/${a.agencyId}/agents`, {
    token: c.token,
    json: { first_name: 'Late', last_name: 'Comer', email: 'late@example.com' },
  });
  t.is(add.status, 422);
});

test('another OAuth client and another agency get 404 on every agency route of the first', async (t) => {
  const { c2, a1, a2 } = await twoClients(svc, ['one', 'two']);
  t.is((await svc.request('DELETE', `/v1/agencies/${a1.agencyId}`, { token: c2.token })).status, 404);
  t.is(
    (await svc.request('POST', `/v1/agencies/${a1.agencyId}/agents`, { token: c2.token, json: { first_name: 'X', last_name: 'Y', email: 'x@y.co' } })).status,
    404,
  );
  t.is((await svc.request('GET', `/v1/agencies/${a1.agencyId}`, { token: a2.ownerToken })).status, 404);
  t.is((await svc.request('PATCH', `/v1/agencies/${a1.agencyId}`, { token: a2.ownerToken, json: { name: 'Stolen' } })).status, 404);
  const form = new FormData();
  form.set('_method', 'PATCH');
  form.set('name', 'Stolen');
  t.is((await svc.request('POST', `/v1/agencies/${a1.agencyId}`, { token: a2.ownerToken, form })).status, 404);
  const still = await svc.request('GET', `/v1/agencies/${a1.agencyId}`, { token: a1.ownerToken });
  t.is(still.status, 200);
  t.not(still.body.data.name, 'Stolen');
  const list = await svc.request('GET', '/v1/agents', { token: c2.token });
  t.false(list.body.data.some((x: { agency: { id: number } }) => x.agency.id === a1.agencyId));
});

test('a non-numeric id is a 400 and an unknown route a 404, both in the v1 error shape', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const bad = await svc.request('GET', '/v1/agencies/abc', { token: a.ownerToken });
  t.is(bad.status, 400);
  t.truthy(bad.body.error.message);
  const none = await svc.request('GET', '/v1/nothing-here', { token: a.ownerToken });
  t.is(none.status, 404);
  t.truthy(none.body.error.message);
});
