// The hosted form on the server side: page resolution and its 404/403s, the CSP, signed links, embed
// origins, uploads checked before storage, and submissions re-checked against the page's snapshot.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { formLinkKey, signFormContext } from '../../lib/links.ts';
import { HOSTED_STEPS, OWNER_ANSWERS, TINY_PDF, agencyWithForm, publishedForm, type AgencyWithForm } from '../helpers/hosted.ts';
import { agencyWithKeys } from '../helpers/rig.ts';
import { startService, type TestService } from '../helpers/server.ts';

let svc: TestService;
// Set before the first test.
let { agencyId, ownerId, slug, key, oauth, form } = {} as AgencyWithForm;

test.before(async () => {
  svc = await startService({ RATE_LIMIT_UPLOADS_PER_WINDOW: '1000', RATE_LIMIT_SUBMISSIONS_PER_WINDOW: '1000' });
  ({ agencyId, ownerId, slug, key, oauth, form } = await agencyWithForm(svc));
});
test.after.always(async () => svc?.close());

const pagePath = (s = slug, f = form) => `/${s}/form/${f.public_id}/home-insurance-quote`;
const submit = (answers: unknown, extra: Record<string, unknown> = {}, s = slug, f = form) =>
  svc.request('POST', `/${s}/form/${f.public_id}/submissions`, { json: { snapshot_id: extra.snapshot_id ?? snapshotOf(f), answers, ...extra } });
const snapshots = new Map<number, number>();
const snapshotOf = (f: { id: number }) => snapshots.get(f.id)!;

async function loadSnapshot(f: { id: number; public_id: string }, s = slug): Promise<number> {
  const page = await svc.request('GET', `/${s}/form/${f.public_id}/x`, {});
  const follow = await svc.request('GET', page.headers.get('location') ?? '', {});
  const m = /<script type="application\/json" id="form-data">(.*?)<\/script>/s.exec(follow.text);
  const data = JSON.parse(m![1]);
  snapshots.set(f.id, data.snapshot_id);
  return data.snapshot_id;
}

function upload(bytes: Buffer, filename: string, questionId = 'declarations', ctx?: string, s = slug, f = form) {
  const fd = new FormData();
  fd.append('question_id', questionId);
  if (ctx) fd.append('ctx', ctx);
  fd.append('file', new Blob([new Uint8Array(bytes)]), filename);
  return svc.request('POST', `/${s}/form/${f.public_id}/uploads`, { form: fd });
}

test.serial('the page renders every question with a visible label, its CSP and the rule engine script', async (t) => {
  await loadSnapshot(form);
  const r = await svc.request('GET', pagePath());
  t.is(r.status, 200);
  t.regex(r.headers.get('content-type')!, /text\/html/);
  const csp = r.headers.get('content-security-policy')!;
  t.regex(csp, /frame-ancestors 'self'(;|$)/);
  t.regex(csp, /script-src 'self'/);
  t.notRegex(csp, /unsafe-inline/);
  for (const step of HOSTED_STEPS) for (const q of step.questions) t.true(r.text.includes(q.label.replace(/'/g, '&#39;')), q.label);
  t.regex(r.text, /<label class="field__label" for="q-first_name">First name<\/label>/, 'the label is exactly the question');
  t.regex(r.text, /<legend class="field__legend"><span class="field__label">Home address<\/span>/);
  t.regex(r.text, /<label class="sublabel" for="q-home_address-postal_code">ZIP code/);
  t.regex(r.text, />Next<\/button>/);
  t.regex(r.text, />Back<\/button>/);
  t.regex(r.text, />Submit<\/button>/);
  t.regex(r.text, /class="site-header"/, 'the full page has the agency header');
  const script = /<script src="(\/assets\/form\.[0-9a-f]+\.js)"/.exec(r.text)![1];
  const js = await fetch(svc.url + script);
  t.is(js.status, 200);
  t.regex(js.headers.get('cache-control')!, /immutable/);
  t.regex(await js.text(), /skip_to_step/, 'the bundle carries the rule engine');
  const embed = await svc.request('GET', `${pagePath()}?embed=1`);
  t.notRegex(embed.text, /class="site-header"/, 'embed=1 renders only the form');
  t.regex(embed.text, /<html lang="en" class="is-embed">/);
});

test.serial('a wrong or missing form slug redirects to the right one, keeping the query', async (t) => {
  const r = await svc.request('GET', `/${slug}/form/${form.public_id}/old-name?embed=1`);
  t.is(r.status, 302);
  t.is(r.headers.get('location'), `${pagePath()}?embed=1`);
  const bare = await svc.request('GET', `/${slug}/form/${form.public_id}`);
  t.is(bare.status, 302);
  t.is(bare.headers.get('location'), pagePath());
});

test('unknown agent, inactive agent, unpublished form and another agency’s form are a clear 404 page', async (t) => {
  const unknown = await svc.request('GET', `/nobody-here/form/${form.public_id}/home-insurance-quote`);
  t.is(unknown.status, 404);
  t.regex(unknown.text, /This form isn’t available/);
  t.regex(unknown.headers.get('content-type')!, /text\/html/);
  const draft = await svc.request('POST', '/v2/forms', {
    token: key,
    json: { name: 'Draft', owner: { type: 'agency', agency_id: agencyId }, insurance_line: 'renters' },
    headers: { 'Idempotency-Key': crypto.randomUUID() },
  });
  t.is((await svc.request('GET', `/${slug}/form/${draft.body.public_id}/draft`)).status, 404);
  const other = await svc.agency(oauth);
  t.is((await svc.request('GET', `/${other.slug}/form/${form.public_id}/home-insurance-quote`)).status, 404, 'an agent of another agency');
  const agent = await svc.request('POST', `/v1/agencies/${agencyId}/agents`, {
    token: oauth,
    json: { first_name: 'Ina', last_name: 'Active', email: `ina${Date.now()}@example.com` },
  });
  const ok = await svc.request('GET', `/${agent.body.data.slug}/form/${form.public_id}/home-insurance-quote`);
  t.is(ok.status, 200, 'any active agent of the agency has the form');
  await svc.request('DELETE', `/v1/agents/${agent.body.data.id}`, { token: oauth });
  t.is((await svc.request('GET', `/${agent.body.data.slug}/form/${form.public_id}/home-insurance-quote`)).status, 404);
});

test('embed origins: PUT stores scheme://host[:port] only, GET reads them, the CSP lists exactly them', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const k = await svc.apiKey(a.ownerToken, a.agencyId, 'test');
  const f = await publishedForm(svc, k, a.agencyId);
  const bad = await svc.request('PUT', '/v2/embed-origins', {
    token: k,
    json: { origins: ['https://www.agency.example/path', 'ftp://x.example', 'not a url'] },
  });
  t.is(bad.status, 422);
  t.deepEqual(
    bad.body.errors.map((e: { pointer: string }) => e.pointer),
    ['/origins/0', '/origins/1', '/origins/2'],
  );
  const put = await svc.request('PUT', '/v2/embed-origins', {
    token: k,
    json: { origins: ['https://www.Agency.example', 'http://localhost:8080', 'https://www.agency.example'] },
  });
  t.is(put.status, 200, put.text);
  t.deepEqual(put.body.origins, ['http://localhost:8080', 'https://www.agency.example']);
  t.deepEqual((await svc.request('GET', '/v2/embed-origins', { token: k })).body.origins, put.body.origins);
  t.deepEqual((await svc.request('GET', '/v2/embed-origins', { token: key })).body.origins, [], 'another agency sees its own list');
  const page = await svc.request('GET', `/${a.slug}/form/${f.public_id}/home-insurance-quote?embed=1`);
  t.regex(page.headers.get('content-security-policy')!, /frame-ancestors 'self' http:\/\/localhost:8080 https:\/\/www\.agency\.example$/);
  const ro = await svc.apiKey(a.ownerToken, a.agencyId, 'test', 'read_only');
  t.is((await svc.request('PUT', '/v2/embed-origins', { token: ro, json: { origins: [] } })).status, 403);
});

test.serial('signed links: the page accepts its own link and refuses tampered metadata, another agent’s slug and an expired link', async (t) => {
  const link = await svc.request('POST', `/v2/forms/${form.id}/links`, {
    token: key,
    json: { agent_id: ownerId, metadata: { crm_id: 'abc-123' } },
    headers: { 'Idempotency-Key': crypto.randomUUID() },
  });
  t.is(link.status, 201, link.text);
  const url = new URL(link.body.url);
  t.is(url.pathname, pagePath());
  t.true(Date.parse(link.body.expires_at) > Date.now() + 29 * 86400_000);
  t.is((await svc.request('GET', url.pathname + url.search)).status, 200);
  const ctx = url.searchParams.get('ctx')!;
  const [body, sig] = ctx.split('.');
  const forged = Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(body, 'base64url').toString()), m: { crm_id: 'evil' } })).toString('base64url');
  const tampered = await svc.request('GET', `${url.pathname}?ctx=${forged}.${sig}`);
  t.is(tampered.status, 403);
  t.regex(tampered.text, /This link is not valid/);
  const agent = await svc.request('POST', `/v1/agencies/${agencyId}/agents`, {
    token: oauth,
    json: { first_name: 'Sly', last_name: 'Swap', email: `sly${Date.now()}@example.com` },
  });
  const swapped = await svc.request('GET', `/${agent.body.data.slug}/form/${form.public_id}/home-insurance-quote?ctx=${ctx}`);
  t.is(swapped.status, 403, 'the link names another agent');
  const expired = signFormContext(formLinkKey(svc.deps.secretKey), {
    form_id: form.id,
    agent_id: ownerId,
    metadata: {},
    expires: Math.floor(Date.now() / 1000) - 5,
  });
  const old = await svc.request('GET', `${url.pathname}?ctx=${expired}`);
  t.is(old.status, 403);
  t.regex(old.text, /This link has expired/);
  t.is((await submit(OWNER_ANSWERS, { ctx: expired })).status, 403, 'a submission with an expired link is refused');
  t.is((await submit(OWNER_ANSWERS, { ctx: `${forged}.${sig}` })).status, 403, 'a submission with tampered metadata is refused');
  t.is((await upload(TINY_PDF, 'dec.pdf', 'declarations', `${forged}.${sig}`)).status, 403, 'an upload with tampered metadata is refused');
  const draft = await svc.request('POST', '/v2/forms', {
    token: key,
    json: { name: 'Draft', owner: { type: 'agency', agency_id: agencyId }, insurance_line: 'renters' },
    headers: { 'Idempotency-Key': crypto.randomUUID() },
  });
  t.is(
    (
      await svc.request('POST', `/v2/forms/${draft.body.id}/links`, {
        token: key,
        json: { agent_id: ownerId },
        headers: { 'Idempotency-Key': crypto.randomUUID() },
      })
    ).status,
    422,
  );
});

test.serial('uploads: type by magic bytes and size are checked before anything is stored', async (t) => {
  const blobs = path.join(svc.dataDir, 'blobs', 'uploads');
  const stored = async () => (await readdir(blobs).catch(() => [])).length;
  const before = await stored();
  const text = await upload(Buffer.from('just some text, not a document'), 'fake.pdf');
  t.is(text.status, 415, text.text);
  t.is(text.body.errors[0].pointer, '/file');
  const exe = await upload(Buffer.concat([Buffer.from('MZ'), Buffer.alloc(200)]), 'doc.png');
  t.is(exe.status, 415);
  const big = await upload(Buffer.concat([TINY_PDF, Buffer.alloc(10 * 1024 * 1024)]), 'big.pdf');
  t.is(big.status, 413);
  t.is(await stored(), before, 'nothing refused reached the blob store');
  const wrongQuestion = await upload(TINY_PDF, 'x.pdf', 'notes');
  t.is(wrongQuestion.status, 422);
  const ok = await upload(TINY_PDF, 'declarations page.PDF');
  t.is(ok.status, 201, ok.text);
  t.like(ok.body, { filename: 'declarations page.pdf', content_type: 'application/pdf', size: TINY_PDF.length });
  t.regex(ok.body.upload_id, /^[0-9a-f-]{36}$/);
  t.is(await stored(), before + 1);
});

test('uploads and submissions are rate-limited per link', async (t) => {
  const limited = await startService({ RATE_LIMIT_UPLOADS_PER_WINDOW: '2', RATE_LIMIT_SUBMISSIONS_PER_WINDOW: '1', RATE_LIMIT_WINDOW_SECONDS: '3600' });
  try {
    const c = await limited.oauthClient();
    const a = await limited.agency(c.token);
    const k = await limited.apiKey(a.ownerToken, a.agencyId, 'test');
    const f = await publishedForm(limited, k, a.agencyId);
    const send = () => {
      const fd = new FormData();
      fd.append('question_id', 'declarations');
      fd.append('file', new Blob([new Uint8Array(TINY_PDF)]), 'd.pdf');
      return limited.request('POST', `/${a.slug}/form/${f.public_id}/uploads`, { form: fd });
    };
    t.deepEqual([(await send()).status, (await send()).status], [201, 201]);
    const third = await send();
    t.is(third.status, 429);
    t.truthy(third.headers.get('retry-after'));
    const sub = (json: unknown) => limited.request('POST', `/${a.slug}/form/${f.public_id}/submissions`, { json });
    t.is((await sub({ snapshot_id: 1, answers: {} })).status, 422);
    t.is((await sub({ snapshot_id: 1, answers: {} })).status, 429);
  } finally {
    await limited.close();
  }
});

test.serial('the server re-runs the rules: forged hidden answers are dropped, skipped required questions are not demanded', async (t) => {
  const renter = {
    first_name: 'Ren',
    last_name: 'Ter',
    email: 'ren@example.com',
    has_pets: 'No',
    pet_count: 7,
    renting: 'Yes',
    year_built: 'not even a number',
  };
  const r = await submit(renter);
  t.is(r.status, 201, r.text);
  const stored = await svc.tdb.db.owner.query(
    'select answers, contact, acord_form_ids, snapshot_id, agent_id, mode, metadata from app_public.submissions where id = $1',
    [r.body.submission_id],
  );
  const ids = stored.rows[0].answers.map((a: { question_id: string }) => a.question_id);
  t.deepEqual(ids, ['first_name', 'last_name', 'email', 'has_pets', 'renting'], 'pet_count (hidden) and year_built (skipped step) are dropped');
  t.deepEqual(stored.rows[0].contact, { name: 'Ren Ter', email: 'ren@example.com' });
  t.like(stored.rows[0], { agent_id: ownerId, mode: 'test', metadata: {}, snapshot_id: snapshotOf(form) });
  t.deepEqual(stored.rows[0].acord_form_ids, ['80']);
});

test.serial('field errors come back with JSON pointers, never a generic failure', async (t) => {
  const r = await submit({ ...OWNER_ANSWERS, email: 'not-an-email', pet_count: '', year_built: 1700, home_address: { line1: '12 Elm St' } });
  t.is(r.status, 422);
  t.is(r.headers.get('content-type'), 'application/problem+json');
  const pointers = r.body.errors.map((e: { pointer: string }) => e.pointer).sort();
  t.deepEqual(pointers, ['/answers/email', '/answers/home_address/city', '/answers/pet_count', '/answers/year_built']);
  t.true(r.body.errors.every((e: { detail: string }) => e.detail.length > 5));
  const unknownUpload = await submit({ ...OWNER_ANSWERS, declarations: [{ upload_id: '00000000-0000-4000-8000-000000000000' }] });
  t.is(unknownUpload.status, 422);
  t.is(unknownUpload.body.errors[0].pointer, '/answers/declarations/0');
});

test.serial('a submission against a form re-published since the page loaded is checked against the snapshot it was rendered from', async (t) => {
  const c = await svc.oauthClient();
  const a = await svc.agency(c.token);
  const k = await svc.apiKey(a.ownerToken, a.agencyId, 'test');
  const f = await publishedForm(svc, k, a.agencyId, 'Quick quote', [
    { id: 's1', name: 'Only step', questions: [{ id: 'nick', type: 'short_text', label: 'Nickname' }] },
  ]);
  const oldSnapshot = await loadSnapshot(f, a.slug);
  // Re-published: the nickname is now required and a new required question appears.
  const w = (method: string, p: string, json?: unknown) => svc.request(method, p, { token: k, json, headers: { 'Idempotency-Key': crypto.randomUUID() } });
  await w('PATCH', `/v2/forms/${f.id}`, {
    steps: [
      {
        id: 's1',
        name: 'Only step',
        questions: [
          { id: 'nick', type: 'short_text', label: 'Nickname', required: true },
          { id: 'age', type: 'number', label: 'Age', required: true },
        ],
      },
    ],
  });
  await w('POST', `/v2/forms/${f.id}/publish`);
  const newSnapshot = await loadSnapshot(f, a.slug);
  t.not(newSnapshot, oldSnapshot);
  const old = await submit({ nick: 'Zed', age: 'ignored' }, { snapshot_id: oldSnapshot }, a.slug, f);
  t.is(old.status, 201, old.text);
  const row = await svc.tdb.db.owner.query('select snapshot_id, answers from app_public.submissions where id = $1', [old.body.submission_id]);
  t.is(row.rows[0].snapshot_id, oldSnapshot);
  t.deepEqual(
    row.rows[0].answers.map((x: { question_id: string }) => x.question_id),
    ['nick'],
    'age is not a question of the old snapshot',
  );
  const fresh = await submit({ nick: 'Zed' }, { snapshot_id: newSnapshot }, a.slug, f);
  t.is(fresh.status, 422);
  t.is(fresh.body.errors[0].pointer, '/answers/age');
  const foreign = await submit({ nick: 'Zed' }, { snapshot_id: snapshotOf(form) }, a.slug, f);
  t.is(foreign.status, 422, 'a snapshot of another form is refused');
  t.is(foreign.body.errors[0].pointer, '/snapshot_id');
});

test.serial('an upload is claimed by one submission only', async (t) => {
  const up = await upload(TINY_PDF, 'once.pdf');
  t.is(up.status, 201);
  const first = await submit({ ...OWNER_ANSWERS, declarations: [{ upload_id: up.body.upload_id }] });
  t.is(first.status, 201, first.text);
  const second = await submit({ ...OWNER_ANSWERS, declarations: [{ upload_id: up.body.upload_id }] });
  t.is(second.status, 422);
  t.is(second.body.errors[0].pointer, '/answers/declarations/0');
});

test('GET /v2/submissions/{id} is scoped to the key’s agency and mode', async (t) => {
  const r = await submit({ first_name: 'A', last_name: 'B', email: 'a@example.com', has_pets: 'No', renting: 'Yes' });
  t.is(r.status, 201, r.text);
  const mine = await svc.request('GET', `/v2/submissions/${r.body.submission_id}`, { token: key });
  t.is(mine.status, 200, mine.text);
  t.is(mine.body.submission_id, r.body.submission_id);
  const live = await svc.apiKey(
    (await svc.request('POST', `/v1/agents/${ownerId}/reset-access-token`, { token: oauth })).body.data.agent.access_token,
    agencyId,
    'live',
  );
  t.is((await svc.request('GET', `/v2/submissions/${r.body.submission_id}`, { token: live })).status, 404, 'a live key does not see test submissions');
  const c = await svc.oauthClient();
  const other = await svc.agency(c.token);
  const otherKey = await svc.apiKey(other.ownerToken, other.agencyId, 'test');
  t.is((await svc.request('GET', `/v2/submissions/${r.body.submission_id}`, { token: otherKey })).status, 404);
});

test('embed origins belong to a mode: a sandbox key sets those of test forms only, live form pages keep the live list', async (t) => {
  const { test: testKey, live: liveKey, ...a } = await agencyWithKeys(svc);
  const testForm = await publishedForm(svc, testKey, a.agencyId);
  const liveForm = await publishedForm(svc, liveKey, a.agencyId);
  const put = (token: string, origins: string[]) => svc.request('PUT', '/v2/embed-origins', { token, json: { origins } });
  t.is((await put(liveKey, ['https://www.agency.example'])).status, 200);
  const sandbox = await put(testKey, ['https://attacker.example']);
  t.is(sandbox.status, 200, sandbox.text);
  t.deepEqual(sandbox.body.origins, ['https://attacker.example']);
  t.deepEqual((await svc.request('GET', '/v2/embed-origins', { token: liveKey })).body.origins, ['https://www.agency.example'], 'the live list is unchanged');
  t.deepEqual((await svc.request('GET', '/v2/embed-origins', { token: testKey })).body.origins, ['https://attacker.example']);
  const cspOf = async (f: { public_id: string }) =>
    (await svc.request('GET', `/${a.slug}/form/${f.public_id}/home-insurance-quote?embed=1`)).headers.get('content-security-policy')!;
  t.regex(await cspOf(liveForm), /frame-ancestors 'self' https:\/\/www\.agency\.example$/, 'a live page is framed by the live list only');
  t.regex(await cspOf(testForm), /frame-ancestors 'self' https:\/\/attacker\.example$/, 'a test page by the test list');
  // Clearing the sandbox list leaves the live one.
  t.deepEqual((await put(testKey, [])).body.origins, []);
  t.regex(await cspOf(liveForm), /https:\/\/www\.agency\.example$/);
});
