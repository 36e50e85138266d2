import test, { type ExecutionContext } from 'ava';
import { startService, type TestService } from '../helpers/server.ts';

let svc: TestService;
let agencyId: number;
let ownerToken: string;
let testKey: string;
let liveKey: string;
let readOnlyKey: string;
let otherKey: string;
let oauthToken: string;

test.before(async () => {
  svc = await startService();
  const c = await svc.oauthClient();
  oauthToken = c.token;
  const a = await svc.agency(c.token);
  agencyId = a.agencyId;
  ownerToken = a.ownerToken;
  testKey = await svc.apiKey(ownerToken, agencyId, 'test');
  liveKey = await svc.apiKey(ownerToken, agencyId, 'live');
  readOnlyKey = await svc.apiKey(ownerToken, agencyId, 'test', 'read_only');
  const b = await svc.agency(c.token);
  otherKey = await svc.apiKey(b.ownerToken, b.agencyId, 'test');
});
test.after.always(async () => svc?.close());

const write = (method: string, path: string, json: unknown, token = testKey, key: string = crypto.randomUUID()) =>
  svc.request(method, path, { token, json, headers: { 'Idempotency-Key': key } });

const newForm = (extra: Record<string, unknown> = {}, token = testKey) =>
  write('POST', '/v2/forms', { name: 'Renters intake', owner: { type: 'agency', agency_id: agencyId }, insurance_line: 'renters', ...extra }, token);

const steps = [
  {
    name: 'About you',
    questions: [
      { id: 'has_pets', type: 'single_choice', label: 'Any pets?', required: true, options: ['Yes', 'No'] },
      {
        id: 'pet_count',
        type: 'number',
        label: 'How many?',
        required: false,
        initially_hidden: true,
        rules: [{ condition_mode: 'all', conditions: [{ source_question_id: 'has_pets', operator: 'equals', value: 'Yes' }], action: 'show' }],
      },
    ],
  },
];

test('POST creates a draft (201) with a public_id and an empty structure; problems are RFC 9457', async (t) => {
  const r = await newForm();
  t.is(r.status, 201, r.text);
  t.regex(r.body.public_id, /^f_[A-Za-z0-9]{8,}$/);
  t.like(r.body, {
    name: 'Renters intake',
    status: 'draft',
    insurance_line: 'renters',
    owner: { type: 'agency', agency_id: agencyId },
    steps: [],
    template_id: null,
    published_at: null,
  });
  const bad = await write('POST', '/v2/forms', { name: '', owner: { type: 'agency', agency_id: agencyId }, insurance_line: 'spaceships' });
  t.is(bad.status, 422);
  t.is(bad.headers.get('content-type'), 'application/problem+json');
  t.like(bad.body, { type: 'about:blank', title: 'Unprocessable Content', status: 422 });
  t.deepEqual(bad.body.errors.map((e: { pointer: string }) => e.pointer).sort(), ['/insurance_line', '/name']);
  const foreign = await write('POST', '/v2/forms', { name: 'X', owner: { type: 'agency', agency_id: agencyId + 1 }, insurance_line: 'renters' });
  t.is(foreign.status, 403, 'creating a form for another agency is a write outside the key’s permissions (SPEC §7.3)');
  t.is(foreign.headers.get('content-type'), 'application/problem+json');
});

test('an agent-owned form names its agent; an unknown agent is refused', async (t) => {
  const agents = await svc.request('GET', '/v1/agents', { token: oauthToken });
  const owner = agents.body.data.find((a: { agency: { id: number } }) => a.agency.id === agencyId);
  const r = await newForm({ owner: { type: 'agent', agency_id: agencyId, agent_id: owner.id } });
  t.is(r.status, 201);
  t.deepEqual(r.body.owner, { type: 'agent', agency_id: agencyId, agent_id: owner.id });
  const unknown = await newForm({ owner: { type: 'agent', agency_id: agencyId, agent_id: 999999 } });
  t.is(unknown.status, 422);
  t.is(unknown.body.errors[0].pointer, '/owner/agent_id');
});

test('every template starts a publishable form with steps', async (t) => {
  for (const template_id of ['auto', 'home', 'intake', 'habitational']) {
    const r = await newForm({ template_id, name: `T ${template_id}` });
    t.is(r.status, 201, template_id);
    t.is(r.body.template_id, template_id);
    t.true(r.body.steps.length > 1);
    const pub = await write('POST', `/v2/forms/${r.body.id}/publish`, undefined);
    t.is(pub.status, 200, `${template_id}: ${pub.text}`);
    t.is(pub.body.status, 'active');
  }
});

test('PATCH replaces the whole structure; GET returns exactly what PATCH accepts', async (t) => {
  const f = (await newForm()).body;
  const r = await write('PATCH', `/v2/forms/${f.id}`, { steps, name: 'Renamed' });
  t.is(r.status, 200, r.text);
  t.is(r.body.name, 'Renamed');
  t.is(r.body.steps[0].id, 'about_you', 'missing step ids are generated');
  const got = await svc.request('GET', `/v2/forms/${f.id}`, { token: testKey });
  t.deepEqual(got.body.steps, r.body.steps);
  const again = await write('PATCH', `/v2/forms/${f.id}`, { steps: got.body.steps });
  t.is(again.status, 200);
  t.deepEqual(again.body.steps, got.body.steps, 'round-trips unchanged');
  const smaller = await write('PATCH', `/v2/forms/${f.id}`, { steps: [{ name: 'Only', questions: [{ id: 'q', type: 'short_text', label: 'Q' }] }] });
  t.is(smaller.body.steps.length, 1);
  t.is(smaller.body.steps[0].questions.length, 1, 'replaced, not merged');
});

test('PATCH validation lists each bad path as a JSON pointer', async (t) => {
  const f = (await newForm()).body;
  const r = await write('PATCH', `/v2/forms/${f.id}`, {
    steps: [
      {
        name: 'S',
        questions: [
          { id: 'a', type: 'short_text', label: 'A' },
          {
            id: 'b',
            type: 'date',
            label: 'B',
            rules: [{ condition_mode: 'all', conditions: [{ source_question_id: 'a', operator: 'before', value: '2020-01-01' }], action: 'require' }],
          },
        ],
      },
    ],
  });
  t.is(r.status, 422);
  t.is(r.headers.get('content-type'), 'application/problem+json');
  t.deepEqual(
    r.body.errors.map((e: { pointer: string }) => e.pointer),
    ['/steps/0/questions/1/rules/0/conditions/0/operator'],
  );
  const dup = await write('PATCH', `/v2/forms/${f.id}`, {
    steps: [
      {
        name: 'S',
        questions: [
          { id: 'a', type: 'short_text', label: 'A' },
          { id: 'a', type: 'dropdown', label: 'B' },
        ],
      },
    ],
  });
  t.is(dup.status, 422);
  const pointers = dup.body.errors.map((e: { pointer: string }) => e.pointer);
  t.true(pointers.some((p: string) => p.startsWith('/steps/0/questions/1')));
  const extra = await write('PATCH', `/v2/forms/${f.id}`, { steps: [], colour: 'red' });
  t.is(extra.status, 422);
  const unchanged = await svc.request('GET', `/v2/forms/${f.id}`, { token: testKey });
  t.deepEqual(unchanged.body.steps, []);
});

test('publishing refuses forms that would break consumers, then replaces the live structure in place', async (t) => {
  const f = (await newForm()).body;
  const empty = await write('POST', `/v2/forms/${f.id}/publish`, undefined);
  t.is(empty.status, 422);
  t.true(empty.body.errors.length > 0);
  await write('PATCH', `/v2/forms/${f.id}`, {
    steps: [{ name: 'S', questions: [{ id: 'hidden', type: 'short_text', label: 'Never shown', initially_hidden: true }] }],
  });
  const hidden = await write('POST', `/v2/forms/${f.id}/publish`, undefined);
  t.is(hidden.status, 422);
  t.true(hidden.body.errors.some((e: { pointer: string }) => e.pointer.startsWith('/steps/0/questions/0')));
  await write('PATCH', `/v2/forms/${f.id}`, { steps });
  const pub = await write('POST', `/v2/forms/${f.id}/publish`, undefined);
  t.is(pub.status, 200);
  t.like(pub.body, { status: 'active', public_id: f.public_id });
  t.truthy(pub.body.published_at);
  const edited = await write('PATCH', `/v2/forms/${f.id}`, {
    steps: [...steps, { name: 'More', questions: [{ id: 'more', type: 'long_text', label: 'Anything else?' }] }],
  });
  t.is(edited.body.status, 'active', 'editing keeps the live form live');
  const again = await write('POST', `/v2/forms/${f.id}/publish`, undefined);
  t.is(again.status, 200);
  t.is(again.body.public_id, f.public_id);
  const snaps = await svc.tdb.db.owner.query(
    `select s.id, jsonb_array_length(s.structure -> 'steps') as steps, f.live_snapshot_id
    from app_public.form_snapshots s join app_public.forms f on f.id = s.form_id where s.form_id = $1 order by s.id`,
    [f.id],
  );
  t.is(snaps.rows.length, 2);
  t.deepEqual(
    snaps.rows.map((r) => r.steps),
    [1, 2],
  );
  t.is(snaps.rows[0].live_snapshot_id, snaps.rows[1].id);
  const err = await t.throwsAsync(svc.tdb.db.owner.query(`update app_public.form_snapshots set name = 'x' where id = $1`, [snaps.rows[0].id]));
  t.is((err as { code?: string }).code, 'STATE', 'snapshots are immutable');
});

test('duplicate makes a new draft with a new id and public_id, the same owner and structure', async (t) => {
  const f = (await newForm({ template_id: 'home' })).body;
  await write('POST', `/v2/forms/${f.id}/publish`, undefined);
  const d = await write('POST', `/v2/forms/${f.id}/duplicate`, undefined);
  t.is(d.status, 201);
  t.not(d.body.id, f.id);
  t.not(d.body.public_id, f.public_id);
  t.is(d.body.status, 'draft');
  t.deepEqual(d.body.owner, f.owner);
  t.deepEqual(d.body.steps, f.steps);
  t.is(d.body.name, `${f.name} (copy)`);
});

test('GET /v2/forms pages with limit and an opaque cursor and filters by status and insurance_line', async (t) => {
  // An agency of its own: the other tests of this file run concurrently.
  const own = await svc.agency(oauthToken);
  const key = await svc.apiKey(own.ownerToken, own.agencyId, 'live');
  const ids: number[] = [];
  for (let i = 0; i < 5; i++) {
    const r = await write(
      'POST',
      '/v2/forms',
      { name: `L${i}`, owner: { type: 'agency', agency_id: own.agencyId }, insurance_line: i % 2 ? 'homeowners' : 'renters' },
      key,
    );
    ids.push(r.body.id);
  }
  await write('POST', `/v2/forms/${ids[4]}/publish`, undefined, key).then((r) => t.is(r.status, 422));
  await write('PATCH', `/v2/forms/${ids[3]}`, { steps }, key);
  t.is((await write('POST', `/v2/forms/${ids[3]}/publish`, undefined, key)).status, 200);
  const seen: number[] = [];
  let cursor: string | null = null;
  let pages = 0;
  do {
    const r: { status: number; body: { data: Array<{ id: number }>; next_cursor: string | null } } = await svc.request(
      'GET',
      `/v2/forms?limit=2${cursor ? `&cursor=${cursor}` : ''}`,
      { token: key },
    );
    t.is(r.status, 200);
    seen.push(...r.body.data.map((f) => f.id));
    cursor = r.body.next_cursor;
    pages++;
  } while (cursor && pages < 20);
  const liveIds = (
    await svc.tdb.db.owner.query(`select id from app_public.forms where agency_id = $1 and mode = 'live' order by id desc`, [own.agencyId])
  ).rows.map((r) => r.id);
  t.deepEqual(seen, liveIds);
  const homes = await svc.request('GET', '/v2/forms?insurance_line=homeowners', { token: key });
  t.true(homes.body.data.length >= 2 && homes.body.data.every((f: { insurance_line: string }) => f.insurance_line === 'homeowners'));
  const active = await svc.request('GET', '/v2/forms?status=active', { token: key });
  t.deepEqual(
    active.body.data.map((f: { id: number; status: string }) => [f.id, f.status]),
    [[ids[3], 'active']],
  );
  const drafts = await svc.request('GET', '/v2/forms?status=draft', { token: key });
  t.is(drafts.body.data.length, 4);
  t.deepEqual(Object.keys(homes.body.data[0]).sort(), ['created_at', 'id', 'insurance_line', 'name', 'owner', 'public_id', 'status', 'updated_at']);
  t.is((await svc.request('GET', '/v2/forms?cursor=garbage', { token: key })).status, 400);
  t.is((await svc.request('GET', '/v2/forms?limit=1000', { token: key })).status, 400);
});

/** Form `f` is 404 to `token` on each of its routes: read, change, publish, duplicate. */
async function notFoundTo(t: ExecutionContext, f: { id: number }, token: string) {
  t.is((await svc.request('GET', `/v2/forms/${f.id}`, { token })).status, 404);
  t.is((await write('PATCH', `/v2/forms/${f.id}`, { steps }, token)).status, 404);
  t.is((await write('POST', `/v2/forms/${f.id}/publish`, undefined, token)).status, 404);
  t.is((await write('POST', `/v2/forms/${f.id}/duplicate`, undefined, token)).status, 404);
}

test('a test key sees and changes only test data; a live key only live data (RLS)', async (t) => {
  const f = (await newForm()).body;
  await notFoundTo(t, f, liveKey);
  const liveList = await svc.request('GET', '/v2/forms?limit=100', { token: liveKey });
  t.false(liveList.body.data.some((x: { id: number }) => x.id === f.id));
  const live = (await newForm({}, liveKey)).body;
  const testList = await svc.request('GET', '/v2/forms?limit=100', { token: testKey });
  t.false(testList.body.data.some((x: { id: number }) => x.id === live.id));
  const modes = await svc.tdb.db.owner.query('select id, mode from app_public.forms where id = any($1)', [[f.id, live.id]]);
  t.deepEqual(Object.fromEntries(modes.rows.map((r) => [r.id, r.mode])), { [f.id]: 'test', [live.id]: 'live' });
});

test('a read-only key reads but gets 403 on every write', async (t) => {
  const f = (await newForm()).body;
  t.is((await svc.request('GET', `/v2/forms/${f.id}`, { token: readOnlyKey })).status, 200);
  t.is((await svc.request('GET', '/v2/forms', { token: readOnlyKey })).status, 200);
  for (const [method, path, body] of [
    ['POST', '/v2/forms', { name: 'X', owner: { type: 'agency', agency_id: agencyId }, insurance_line: 'renters' }],
    ['PATCH', `/v2/forms/${f.id}`, { steps }],
    ['POST', `/v2/forms/${f.id}/publish`, undefined],
    ['POST', `/v2/forms/${f.id}/duplicate`, undefined],
  ] as const) {
    const r = await write(method, path, body, readOnlyKey);
    t.is(r.status, 403, `${method} ${path}`);
    t.is(r.body.status, 403);
  }
});

test('GET → PATCH round trip: the whole form goes back; read-only keys are accepted when unchanged, 422 naming the key when not', async (t) => {
  const f = (await newForm()).body;
  await write('PATCH', `/v2/forms/${f.id}`, { steps });
  const got = (await svc.request('GET', `/v2/forms/${f.id}`, { token: testKey })).body;
  got.steps[0].questions[0].label = 'Any pets at home?';
  const back = await write('PATCH', `/v2/forms/${f.id}`, got);
  t.is(back.status, 200, back.text);
  t.is(back.body.steps[0].questions[0].label, 'Any pets at home?');
  t.is(back.body.status, 'draft');
  t.is(back.body.public_id, f.public_id);
  const later = (await svc.request('GET', `/v2/forms/${f.id}`, { token: testKey })).body;
  for (const [key, value] of [
    ['status', 'active'],
    ['public_id', 'f_someoneelse'],
    ['owner', { type: 'agency', agency_id: agencyId + 1 }],
    ['id', f.id + 1],
    ['created_at', '2020-01-01T00:00:00.000Z'],
    ['template_id', 'home'],
  ] as const) {
    const r = await write('PATCH', `/v2/forms/${f.id}`, { ...later, [key]: value });
    t.is(r.status, 422, `${key}: ${r.text}`);
    t.deepEqual(
      r.body.errors.map((e: { pointer: string }) => e.pointer),
      [`/${key}`],
      key,
    );
  }
  const unknown = await write('PATCH', `/v2/forms/${f.id}`, { ...later, colour: 'red' });
  t.is(unknown.status, 422, 'keys the form does not have are still refused');
});

test('authorisation before validation: another agency’s form is 404 and another agency’s owner 403, whatever the body', async (t) => {
  const f = (await newForm()).body;
  for (const body of [{ steps: 'not an array' }, { nonsense: true }, {}]) {
    const r = await write('PATCH', `/v2/forms/${f.id}`, body, otherKey);
    t.is(r.status, 404, JSON.stringify(body));
  }
  t.is((await write('PATCH', '/v2/forms/999999999', { steps: 'not an array' })).status, 404, 'an unknown form is the same 404');
  const foreignInvalid = await write('POST', '/v2/forms', { name: '', owner: { type: 'agency', agency_id: agencyId }, insurance_line: 'spaceships' }, otherKey);
  t.is(foreignInvalid.status, 403, foreignInvalid.text);
  const unknownInvalid = await write(
    'POST',
    '/v2/forms',
    { name: '', owner: { type: 'agency', agency_id: 999999999 }, insurance_line: 'spaceships' },
    otherKey,
  );
  t.is(unknownInvalid.status, 403, 'an agency that does not exist answers the same: no existence oracle');
});

test('another agency gets 404 on every form route; tokens that are not API keys get 401/403', async (t) => {
  const f = (await newForm()).body;
  await notFoundTo(t, f, otherKey);
  t.false((await svc.request('GET', '/v2/forms?limit=100', { token: otherKey })).body.data.some((x: { id: number }) => x.id === f.id));
  t.is((await svc.request('GET', `/v2/forms/${f.id}`, { token: ownerToken })).status, 401);
  t.is((await svc.request('GET', `/v2/forms/${f.id}`)).status, 401);
  t.is((await svc.request('GET', `/v2/forms/${f.id}`, { token: 'svc_test_forged' })).status, 401);
  t.is((await svc.request('GET', '/v1/agents', { token: testKey })).status, 403);
});

test('Idempotency-Key: required UUIDv4; a retry replays; a different request is 422', async (t) => {
  const body = { name: 'Idem', owner: { type: 'agency', agency_id: agencyId }, insurance_line: 'condo' };
  const missing = await svc.request('POST', '/v2/forms', { token: testKey, json: body });
  t.is(missing.status, 400);
  t.is(missing.body.errors[0].pointer, '/Idempotency-Key');
  t.is((await svc.request('POST', '/v2/forms', { token: testKey, json: body, headers: { 'Idempotency-Key': 'abc' } })).status, 400);
  t.is(
    (await svc.request('POST', '/v2/forms', { token: testKey, json: body, headers: { 'Idempotency-Key': '6ba7b810-9dad-11d1-80b4-00c04fd430c8' } })).status,
    400,
    'a v1 UUID is refused',
  );
  const key = crypto.randomUUID();
  const first = await write('POST', '/v2/forms', body, testKey, key);
  t.is(first.status, 201);
  t.is(first.headers.get('idempotent-replayed'), null);
  const retry = await write('POST', '/v2/forms', { insurance_line: 'condo', owner: { agency_id: agencyId, type: 'agency' }, name: 'Idem' }, testKey, key);
  t.is(retry.status, 201);
  t.is(retry.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(retry.body, first.body);
  const count = await svc.tdb.db.owner.query(`select count(*)::int n from app_public.forms where name = 'Idem'`);
  t.is(count.rows[0].n, 1);
  const other = await write('POST', '/v2/forms', { ...body, name: 'Different' }, testKey, key);
  t.is(other.status, 422);
  t.is(other.body.errors[0].pointer, '/Idempotency-Key');
  const otherPath = await write('PATCH', `/v2/forms/${first.body.id}`, body, testKey, key);
  t.is(otherPath.status, 422);
  // A live key has its own key space.
  t.is((await write('POST', '/v2/forms', body, liveKey, key)).status, 201);
});

test('a running twin gets 409 and a refused request replays its refusal', async (t) => {
  const f = (await newForm()).body;
  const key = crypto.randomUUID();
  const { createHash } = await import('node:crypto');
  const fingerprint = createHash('sha256').update(`POST /v2/forms/${f.id}/publish\nnull`).digest('hex');
  // The first request is still running: its transaction holds the claim.
  const first = await svc.tdb.db.owner.connect();
  try {
    await first.query('begin');
    t.is((await first.query(`select outcome from app_private.claim_idempotency_key($1, 'test', $2, $3)`, [agencyId, key, fingerprint])).rows[0].outcome, 'new');
    const twin = await svc.request('POST', `/v2/forms/${f.id}/publish`, { token: testKey, headers: { 'Idempotency-Key': key } });
    t.is(twin.status, 409, twin.text);
  } finally {
    await first.query('rollback');
    first.release();
  }
  const refusedKey = crypto.randomUUID();
  const refused = await write('POST', `/v2/forms/${f.id}/publish`, undefined, testKey, refusedKey);
  t.is(refused.status, 422);
  const replay = await write('POST', `/v2/forms/${f.id}/publish`, undefined, testKey, refusedKey);
  t.is(replay.status, 422);
  t.is(replay.headers.get('idempotent-replayed'), 'true');
  t.deepEqual(replay.body, refused.body);
});

test('50 concurrent identical POSTs with one key create exactly one form', async (t) => {
  const key = crypto.randomUUID();
  const body = { name: 'Stampede', owner: { type: 'agency', agency_id: agencyId }, insurance_line: 'umbrella' };
  const results = await Promise.all(Array.from({ length: 50 }, () => write('POST', '/v2/forms', body, testKey, key)));
  const statuses = results.map((r) => r.status);
  t.true(
    statuses.every((s) => s === 201 || s === 409),
    statuses.join(','),
  );
  const created = results.filter((r) => r.status === 201);
  t.true(created.length >= 1);
  t.true(created.every((r) => r.body.id === created[0].body.id));
  const count = await svc.tdb.db.owner.query(`select count(*)::int n from app_public.forms where name = 'Stampede'`);
  t.is(count.rows[0].n, 1);
});

test('expired idempotency records are purged and the key can be used afresh', async (t) => {
  const key = crypto.randomUUID();
  const body = { name: 'Expiring', owner: { type: 'agency', agency_id: agencyId }, insurance_line: 'flood' };
  t.is((await write('POST', '/v2/forms', body, testKey, key)).status, 201);
  await svc.tdb.db.owner.query(`update app_private.idempotency_keys set expires_at = now() - interval '1 second' where key = $1`, [key]);
  const purged = await svc.tdb.db.owner.query('select app_private.purge_idempotency_keys() as n');
  t.true(purged.rows[0].n >= 1);
  const fresh = await write('POST', '/v2/forms', body, testKey, key);
  t.is(fresh.status, 201);
  t.is(fresh.headers.get('idempotent-replayed'), null);
});
