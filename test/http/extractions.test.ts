// The policy extraction API over HTTP: §7.2 error bodies, plan limits with their headers, test/live mode
// isolation, other agencies' agents, listing. No worker runs here, so records stay queued.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { policyFixture, upload } from '../helpers/extraction.ts';
import { fileService, type Reply } from '../helpers/server.ts';

const svc = fileService({ RATE_LIMIT_API_READS_PER_WINDOW: '40' });

async function agency(plan?: { plan: string; per_minute?: number; per_day?: number }) {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const test = await svc.apiKey(a.ownerToken, a.agencyId, 'test');
  const live = await svc.apiKey(a.ownerToken, a.agencyId, 'live');
  if (plan) {
    const r = await svc.request('PUT', `/v1/agencies/${a.agencyId}/plan`, { token: c.token, json: plan });
    if (r.status !== 200) throw new Error(r.text);
  }
  return { ...a, test, live, oauth: c.token };
}

const big = { plan: 'enterprise', per_minute: 10_000, per_day: 100_000 };
const pdf = policyFixture('auto_acme_mutual.pdf');
const get = (key: string | undefined, p: string) => svc.request('GET', p, { headers: key ? { 'x-api-key': key } : {} });

/** A §7.2 body: exactly error and message, plus the extra fields named. */
function isApiError(t: import('ava').ExecutionContext, r: Reply, status: number, code: string, extra: string[] = []) {
  t.is(r.status, status, r.text);
  t.deepEqual(Object.keys(r.body).sort(), ['error', 'message', ...extra].sort(), r.text);
  t.is(r.body.error, code);
  t.is(typeof r.body.message, 'string');
  for (const h of ['x-ratelimit-limit', 'x-ratelimit-remaining', 'x-ratelimit-reset']) t.regex(r.headers.get(h) ?? '', /^\d+$/, `${h} on ${status}`);
}

test('a missing, unknown or revoked key is 401 unauthorized in the §7.2 body, with the rate-limit headers', async (t) => {
  const a = await agency(big);
  isApiError(t, await get(undefined, `/api/v1/${a.ownerId}/policy/extractions`), 401, 'unauthorized');
  isApiError(t, await get('svc_test_' + 'x'.repeat(30), `/api/v1/${a.ownerId}/policy/extractions`), 401, 'unauthorized');
  const keys = await svc.request('GET', `/v1/agencies/${a.agencyId}/api-keys`, { token: a.ownerToken });
  const liveKey = keys.body.data.find((k: { mode: string }) => k.mode === 'live');
  t.is((await svc.request('DELETE', `/v1/agencies/${a.agencyId}/api-keys/${liveKey.id}`, { token: a.ownerToken })).status, 204);
  isApiError(t, await get(a.live, `/api/v1/${a.ownerId}/policy/extractions`), 401, 'unauthorized');
  // The bearer form of the same key works too.
  const bearer = await svc.request('GET', `/api/v1/${a.ownerId}/policy/extractions`, { token: a.test });
  t.is(bearer.status, 200, bearer.text);
});

test('unknown routes, other agencies’ agents and unknown records are 404 not_found in the §7.2 body', async (t) => {
  const a = await agency(big);
  const b = await agency(big);
  isApiError(t, await get(a.test, '/api/v1/nothing/here'), 404, 'not_found');
  isApiError(t, await get(undefined, '/api/nope'), 404, 'not_found');
  isApiError(t, await get(a.test, `/api/v1/${b.ownerId}/policy/extractions`), 404, 'not_found');
  isApiError(t, await upload(svc, a.test, b.ownerId, pdf, 'p.pdf'), 404, 'not_found');
  isApiError(t, await get(a.test, `/api/v1/${a.ownerId}/policy/extractions/${crypto.randomUUID()}`), 404, 'not_found');
  isApiError(t, await get(a.test, `/api/v1/${a.ownerId}/policy/extractions/not-a-uuid`), 400, 'bad_request', ['details']);
  const { rows } = await svc.tdb.db.owner.query('select count(*)::int n from app_public.documents where agency_id = $1', [b.agencyId]);
  t.is(rows[0].n, 0, 'nothing was stored for the other agency');
});

test.serial('bad uploads are 400 bad_request naming the problem; over 10 MB is 413 and nothing is kept', async (t) => {
  const a = await agency(big);
  const bad = await upload(svc, a.test, a.ownerId, pdf, 'p.pdf', { entity_type: 'boat_policy' });
  isApiError(t, bad, 400, 'bad_request', ['details']);
  t.regex(bad.body.message, /boat_policy/);
  const noFile = await svc.request('POST', `/api/v1/${a.ownerId}/policy/extract`, {
    headers: { 'x-api-key': a.test },
    form: (() => {
      const f = new FormData();
      f.append('entity_type', 'auto_policy');
      return f;
    })(),
  });
  isApiError(t, noFile, 400, 'bad_request', ['details']);
  t.regex(noFile.body.message, /file/);
  const text = await upload(svc, a.test, a.ownerId, Buffer.from('just some text, not a policy document'), 'notes.pdf');
  isApiError(t, text, 400, 'bad_request');
  const tooBig = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.alloc(10 * 1024 * 1024 + 10, 0x20)]);
  isApiError(t, await upload(svc, a.test, a.ownerId, tooBig, 'big.pdf'), 413, 'payload_too_large');
  const { rows } = await svc.tdb.db.owner.query('select count(*)::int n from app_public.documents where agency_id = $1', [a.agencyId]);
  t.is(rows[0].n, 0);
  // Serial: no other upload is in flight, so every stored file must belong to a recorded document.
  const stored = await readdir(path.join(svc.dataDir, 'blobs', 'documents')).catch(() => [] as string[]);
  const known = (await svc.tdb.db.owner.query<{ blob_key: string }>('select blob_key from app_public.documents')).rows.map((r) => r.blob_key);
  t.deepEqual(
    stored.map((f) => `documents/${f}`).filter((k) => !known.includes(k)),
    [],
    'no file was kept',
  );
  const ok = await upload(svc, a.test, a.ownerId, pdf, 'p.pdf', { entity_type: 'auto_policy' });
  t.is(ok.status, 200, ok.text);
  t.is(ok.body.entity_type, 'auto_policy');
});

test('a test key never sees a live extraction and the reverse; agent tokens are refused', async (t) => {
  const a = await agency(big);
  const inTest = (await upload(svc, a.test, a.ownerId, pdf, 'test.pdf')).body.extraction_id;
  const inLive = (await upload(svc, a.live, a.ownerId, pdf, 'live.pdf')).body.extraction_id;
  t.is((await get(a.test, `/api/v1/${a.ownerId}/policy/extractions/${inTest}`)).status, 200);
  isApiError(t, await get(a.test, `/api/v1/${a.ownerId}/policy/extractions/${inLive}`), 404, 'not_found');
  isApiError(t, await get(a.live, `/api/v1/${a.ownerId}/policy/extractions/${inTest}`), 404, 'not_found');
  t.deepEqual(
    (await get(a.live, `/api/v1/${a.ownerId}/policy/extractions`)).body.data.map((r: { extraction_id: string }) => r.extraction_id),
    [inLive],
  );
  t.deepEqual(
    (await get(a.test, `/api/v1/${a.ownerId}/policy/extractions`)).body.data.map((r: { extraction_id: string }) => r.extraction_id),
    [inTest],
  );
  isApiError(t, await svc.request('GET', `/api/v1/${a.ownerId}/policy/extractions`, { token: a.ownerToken }), 401, 'unauthorized');
});

test('the list is newest first, filtered by status and paginated by cursor', async (t) => {
  const a = await agency(big);
  const ids: string[] = [];
  for (let i = 0; i < 5; i++) ids.push((await upload(svc, a.test, a.ownerId, pdf, `p${i}.pdf`)).body.extraction_id);
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const r = await get(a.test, `/api/v1/${a.ownerId}/policy/extractions?limit=2${cursor ? `&cursor=${cursor}` : ''}`);
    t.is(r.status, 200, r.text);
    t.true(r.body.data.length <= 2);
    seen.push(...r.body.data.map((x: { extraction_id: string }) => x.extraction_id));
    cursor = r.body.next_cursor;
  } while (cursor);
  t.deepEqual(seen, [...ids].reverse());
  t.is((await get(a.test, `/api/v1/${a.ownerId}/policy/extractions?status=queued`)).body.data.length, 5);
  t.is((await get(a.test, `/api/v1/${a.ownerId}/policy/extractions?status=completed`)).body.data.length, 0);
  isApiError(t, await get(a.test, `/api/v1/${a.ownerId}/policy/extractions?status=done`), 400, 'bad_request', ['details']);
  isApiError(t, await get(a.test, `/api/v1/${a.ownerId}/policy/extractions?cursor=bogus`), 400, 'bad_request', ['details']);
});

test('the cursor keeps microseconds: records created in the same millisecond are neither skipped nor repeated', async (t) => {
  const a = await agency(big);
  const ids: string[] = [];
  for (let i = 0; i < 4; i++) ids.push((await upload(svc, a.test, a.ownerId, pdf, `m${i}.pdf`)).body.extraction_id);
  // One millisecond, four microseconds apart, as a batch inserted in one transaction would be.
  await svc.tdb.db.owner.query(
    `update app_public.extractions set created_at = timestamptz '2026-01-02 03:04:05.123000+00' + make_interval(secs => (array_position($1::uuid[], id) * 0.000001))
      where id = any($1::uuid[])`,
    [ids],
  );
  const seen: string[] = [];
  let cursor: string | null = null;
  do {
    const r = await get(a.test, `/api/v1/${a.ownerId}/policy/extractions?limit=1${cursor ? `&cursor=${cursor}` : ''}`);
    t.is(r.status, 200, r.text);
    seen.push(...r.body.data.map((x: { extraction_id: string }) => x.extraction_id));
    cursor = r.body.next_cursor;
  } while (cursor);
  t.deepEqual(seen, [...ids].reverse());
});

/** Wait until at least `need` seconds remain in the current minute, so a burst stays in one window. */
async function freshMinute(need = 20) {
  const left = 60 - (Math.floor(Date.now() / 1000) % 60);
  if (left < need) await new Promise((r) => setTimeout(r, left * 1000 + 200));
}

test('the free plan allows 5 document submissions a minute, with the headers on every response, then 429 rate_limited with retry_after', async (t) => {
  t.timeout(90_000);
  const a = await agency();
  await freshMinute();
  const seen: Array<[number, string | null, string | null]> = [];
  for (let i = 0; i < 5; i++) {
    const r = await upload(svc, a.test, a.ownerId, pdf, `p${i}.pdf`);
    seen.push([r.status, r.headers.get('x-ratelimit-limit'), r.headers.get('x-ratelimit-remaining')]);
  }
  t.deepEqual(seen, [
    [200, '5', '4'],
    [200, '5', '3'],
    [200, '5', '2'],
    [200, '5', '1'],
    [200, '5', '0'],
  ]);
  const limited = await upload(svc, a.test, a.ownerId, pdf, 'p.pdf');
  isApiError(t, limited, 429, 'rate_limited', ['retry_after']);
  t.true(limited.body.retry_after >= 1 && limited.body.retry_after <= 60);
  const reset = Number(limited.headers.get('x-ratelimit-reset'));
  t.true(reset > Date.now() / 1000 && reset <= Date.now() / 1000 + 61);
  // The lease checker and any other submission share the agency's budget: a second key of it is limited too.
  const other = await svc.apiKey(a.ownerToken, a.agencyId, 'live');
  isApiError(t, await upload(svc, other, a.ownerId, pdf, 'q.pdf'), 429, 'rate_limited', ['retry_after']);
  const analyze = new FormData();
  analyze.append('lease', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'lease.pdf');
  analyze.append('insurance', new Blob([new Uint8Array(pdf)], { type: 'application/pdf' }), 'insurance.pdf');
  isApiError(t, await svc.request('POST', '/api/analyze', { form: analyze, headers: { 'x-api-key': a.test } }), 429, 'rate_limited', ['retry_after']);
  // Reads have their own budget: the records can still be polled.
  t.is((await get(a.test, `/api/v1/${a.ownerId}/policy/extractions`)).status, 200);
});

test('on the free plan a partner uploads one document and polls its status for as long as the read budget lasts (SPEC §8 counts submissions)', async (t) => {
  t.timeout(90_000);
  const a = await agency();
  await freshMinute(30);
  const up = await upload(svc, a.test, a.ownerId, pdf, 'poll.pdf');
  t.is(up.status, 200, up.text);
  t.is(up.headers.get('x-ratelimit-limit'), '5');
  t.is(up.headers.get('x-ratelimit-remaining'), '4');
  const statuses: number[] = [];
  let last: Reply | undefined;
  for (let i = 0; i < 40; i++) {
    last = await get(a.test, `/api/v1/${a.ownerId}/policy/extractions/${up.body.extraction_id}`);
    statuses.push(last.status);
  }
  t.deepEqual(statuses, Array(40).fill(200), 'forty polls within the minute, far past the plan’s five');
  t.is(last!.headers.get('x-ratelimit-limit'), '40', 'the read budget, in the same headers');
  t.is(last!.headers.get('x-ratelimit-remaining'), '0');
  t.truthy(last!.headers.get('x-ratelimit-reset'));
  const refused = await get(a.test, `/api/v1/${a.ownerId}/policy/extractions/${up.body.extraction_id}`);
  isApiError(t, refused, 429, 'rate_limited', ['retry_after']);
  t.regex(refused.body.message, /reads per window/);
  // The read budget spent leaves the submissions untouched.
  const second = await upload(svc, a.test, a.ownerId, pdf, 'poll2.pdf');
  t.is(second.status, 200, second.text);
  t.is(second.headers.get('x-ratelimit-remaining'), '3');
});

test('a daily limit refuses submissions once spent, naming the day window in the headers', async (t) => {
  const a = await agency({ plan: 'enterprise', per_minute: 1000, per_day: 3 });
  const statuses: number[] = [];
  for (let i = 0; i < 3; i++) statuses.push((await upload(svc, a.test, a.ownerId, pdf, `d${i}.pdf`)).status);
  t.deepEqual(statuses, [200, 200, 200]);
  const r = await upload(svc, a.test, a.ownerId, pdf, 'd.pdf');
  isApiError(t, r, 429, 'rate_limited', ['retry_after']);
  t.is(r.headers.get('x-ratelimit-limit'), '3');
  t.is(r.headers.get('x-ratelimit-remaining'), '0');
  t.true(r.body.retry_after > 0 && r.body.retry_after <= 86_400);
  t.is((await get(a.test, `/api/v1/${a.ownerId}/policy/extractions`)).status, 200, 'reads are not counted against the day');
});
