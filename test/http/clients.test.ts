// v1 clients through HTTP against a real database: every route, every error, who may see and move what, and
// that another agency's ids are a 404 on every route.
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { agencyWithAgents, extractFor, type Agency } from '../helpers/clients.ts';
import { fileService, startService } from '../helpers/server.ts';

const svc = fileService();

const create = (token: string, json: unknown) => svc.request('POST', '/v1/client', { token, json });
const base = (agentId: number, clientId?: string) => `/v1/agents/${agentId}/clients${clientId ? `/${clientId}` : ''}`;
const get = (token: string, path: string) => svc.request('GET', path, { token });

async function newClient(token: string, extra: Record<string, unknown> = {}) {
  const r = await create(token, { first_name: 'Casey', last_name: `Client ${randomUUID().slice(0, 6)}`, ...extra });
  if (r.status !== 200) throw new Error(`client creation failed: ${r.text}`);
  return r.body.data as { uuid: string; agent_id: number; sales_funnel_status: string; updated_at: string };
}

test('POST /v1/client creates a client for the caller; an admin may create one for another agent', async (t) => {
  const a = await agencyWithAgents(svc);
  const [pat] = a.agents;
  const r = await create(pat.token, {
    first_name: ' Jordan ',
    last_name: 'Alvarez',
    email: 'Jordan@Example.com',
    phone: '+1 512 555 0142',
    address: { line1: '1208 Barton Hills Dr', city: 'Austin', state: 'TX', postal_code: '78704', country: 'US' },
  });
  t.is(r.status, 200, r.text);
  t.regex(r.body.data.uuid, /^[0-9a-f-]{36}$/);
  t.like(r.body.data, {
    agent_id: pat.id,
    first_name: 'Jordan',
    last_name: 'Alvarez',
    email: 'jordan@example.com',
    phone: '+1 512 555 0142',
    sales_funnel_status: 'new',
    mode: 'live',
    submissions_count: 0,
  });
  t.is(r.body.data.address.city, 'Austin');
  t.truthy(r.headers.get('x-ratelimit-limit'), 'v1 rate-limit headers');
  const forOther = await create(a.ownerToken, { first_name: 'Riley', last_name: 'R', agent_id: pat.id, sales_funnel_status: 'contacted' });
  t.is(forOther.status, 200, forOther.text);
  t.is(forOther.body.data.agent_id, pat.id);
  t.is(forOther.body.data.sales_funnel_status, 'contacted');
});

test('POST /v1/client refuses: duplicate email in the agency, another agent (plain), other agency, inactive agent, bad fields, no token', async (t) => {
  const a = await agencyWithAgents(svc);
  const [pat, sam] = a.agents;
  await newClient(pat.token, { email: 'dup@example.com' });
  const dupOwn = await create(pat.token, { first_name: 'A', last_name: 'B', email: 'DUP@example.com' });
  t.is(dupOwn.status, 422);
  t.is(dupOwn.body.error.details[0].field, 'email');
  t.regex(dupOwn.body.error.message, /already exists in the agency \(client [0-9a-f-]{36}, agent \d+\)/);
  const dupOther = await create(sam.token, { first_name: 'A', last_name: 'B', email: 'dup@example.com' });
  t.is(dupOther.status, 422, 'duplicate detection spans the agency');
  t.notRegex(dupOther.body.error.message, /[0-9a-f]{8}-/, 'another agent’s client is not named to a plain agent');
  const other = await agencyWithAgents(svc, 0);
  t.is((await create(other.ownerToken, { first_name: 'A', last_name: 'B', email: 'dup@example.com' })).status, 200, 'another agency may have the same email');

  const plainForOther = await create(pat.token, { first_name: 'A', last_name: 'B', agent_id: sam.id });
  t.is(plainForOther.status, 403);
  const crossAgency = await create(a.ownerToken, { first_name: 'A', last_name: 'B', agent_id: other.ownerId });
  t.is(crossAgency.status, 422);
  t.deepEqual(
    crossAgency.body.error.details.map((d: { field: string }) => d.field),
    ['agent_id'],
  );
  await svc.request('DELETE', `/v1/agents/${sam.id}`, { token: a.oauth });
  const inactive = await create(a.ownerToken, { first_name: 'A', last_name: 'B', agent_id: sam.id });
  t.is(inactive.status, 422);
  t.regex(inactive.body.error.message, /deactivated/);

  const bad = await create(pat.token, { first_name: '', last_name: 'B', email: 'nope', sales_funnel_status: 'won', extra: 1 });
  t.is(bad.status, 422);
  const fields = bad.body.error.details.map((d: { field?: string }) => d.field ?? '').sort();
  for (const f of ['email', 'first_name', 'sales_funnel_status']) t.true(fields.includes(f), f);
  t.is((await svc.request('POST', '/v1/client', { json: { first_name: 'A', last_name: 'B' } })).status, 401);
  t.is((await create(a.oauth, { first_name: 'A', last_name: 'B' })).status, 403, 'an OAuth client token is not an agent token');
});

test('GET …/clients: Laravel pagination, filters, newest change first; a plain agent sees only its own', async (t) => {
  const a = await agencyWithAgents(svc);
  const [pat, sam] = a.agents;
  const made = [];
  for (let i = 0; i < 5; i++)
    made.push(await newClient(pat.token, { first_name: `Person${i}`, last_name: i % 2 ? 'Odd' : 'Even', email: `p${i}-${randomUUID().slice(0, 4)}@ex.com` }));
  await newClient(sam.token, { first_name: 'Sam’s', last_name: 'Client' });
  await extractFor(svc, a.agencyId, pat.id, { clientId: made[1].uuid });
  await svc.request('PATCH', `${base(pat.id, made[3].uuid)}`, { token: pat.token, json: { sales_funnel_status: 'quoted' } });

  const p1 = await get(pat.token, `${base(pat.id)}?perPage=2`);
  t.is(p1.status, 200, p1.text);
  t.is(p1.body.meta.total, 5);
  t.is(p1.body.meta.last_page, 3);
  t.is(p1.body.meta.per_page, 2);
  t.is(p1.body.meta.from, 1);
  t.is(p1.body.meta.to, 2);
  t.is(p1.body.links.prev, null);
  t.regex(p1.body.links.next, /page=2/);
  t.regex(p1.body.links.next, /perPage=2/);
  t.is(p1.body.data[0].uuid, made[3].uuid, 'the latest change comes first');
  t.is(p1.body.data[1].uuid, made[1].uuid);
  const all = await get(pat.token, `${base(pat.id)}?perPage=100`);
  const stamps = all.body.data.map((c: { updated_at: string }) => c.updated_at);
  t.deepEqual(stamps, [...stamps].sort().reverse(), 'sorted by updated_at desc');
  t.false(all.body.data.some((c: { agent_id: number }) => c.agent_id !== pat.id));
  const p3 = await get(pat.token, `${base(pat.id)}?perPage=2&page=3`);
  t.is(p3.body.data.length, 1);
  t.is(p3.body.links.next, null);
  const past = await get(pat.token, `${base(pat.id)}?perPage=2&page=9`);
  t.deepEqual([past.body.data.length, past.body.meta.total, past.body.meta.from], [0, 5, null]);

  const odd = await get(pat.token, `${base(pat.id)}?search=odd`);
  t.is(odd.body.meta.total, 2);
  const byEmail = await get(pat.token, `${base(pat.id)}?search=${encodeURIComponent('p4-')}`);
  t.is(byEmail.body.meta.total, 1);
  const full = await get(pat.token, `${base(pat.id)}?search=${encodeURIComponent('person2 even')}`);
  t.is(full.body.meta.total, 1, 'full-name fragment');
  const quoted = await get(pat.token, `${base(pat.id)}?sales_funnel_status=quoted,contacted`);
  t.deepEqual(
    quoted.body.data.map((c: { uuid: string }) => c.uuid),
    [made[3].uuid],
  );
  const withSubs = await get(pat.token, `${base(pat.id)}?has_submissions=true`);
  t.deepEqual(
    withSubs.body.data.map((c: { uuid: string }) => c.uuid),
    [made[1].uuid],
  );
  t.is(withSubs.body.data[0].submissions_count, 1);
  t.is((await get(pat.token, `${base(pat.id)}?has_submissions=false`)).body.meta.total, 4);
  const tomorrow = new Date(Date.now() + 86_400_000).toISOString().slice(0, 10);
  t.is((await get(pat.token, `${base(pat.id)}?created_from=${tomorrow}`)).body.meta.total, 0);
  t.is((await get(pat.token, `${base(pat.id)}?created_to=${tomorrow}&created_from=2020-01-01T00:00:00Z`)).body.meta.total, 5);
  const byName = await get(pat.token, `${base(pat.id)}?sort=last_name`);
  t.is(byName.body.data[0].last_name, 'Even');

  const badQuery = await get(pat.token, `${base(pat.id)}?sales_funnel_status=won&created_from=yesterday&perPage=0`);
  t.is(badQuery.status, 400);
  t.deepEqual(badQuery.body.error.details.map((d: { field: string }) => d.field.split('.')[0]).sort(), ['created_from', 'perPage', 'sales_funnel_status']);

  t.is((await get(pat.token, base(sam.id))).status, 403, 'a plain agent cannot list another agent’s clients');
  const adminView = await get(a.ownerToken, base(sam.id));
  t.is(adminView.status, 200);
  t.is(adminView.body.meta.total, 1, 'an admin lists any agent’s clients');
  t.is((await get(a.ownerToken, base(999_999))).status, 404);
});

test('GET …/clients/{uuid}: the client with submissions and declaration pages; malformed UUIDs are a 400 naming the parameter', async (t) => {
  const a = await agencyWithAgents(svc);
  const [pat, sam] = a.agents;
  const x = await extractFor(svc, a.agencyId, pat.id, { carrier: 'Acme Mutual', policyNumber: 'HO-123', address: '1208 Barton Hills Dr, Austin, TX 78704' });
  const r = await get(pat.token, base(pat.id, x.clientId));
  t.is(r.status, 200, r.text);
  t.is(r.body.data.uuid, x.clientId);
  t.is(r.body.data.submissions.length, 1);
  t.deepEqual(r.body.data.address, { formatted: '1208 Barton Hills Dr, Austin, TX 78704' }, 'an address read as one line keeps the object shape');
  t.is(r.body.data.submissions[0].uuid, x.submissionId);
  t.like(r.body.data.submissions[0].declaration_pages[0], {
    uuid: x.pageId,
    filename: 'declarations.pdf',
    content_type: 'application/pdf',
    size_bytes: x.bytes.length,
    extraction_status: 'completed',
    policy_type: 'Personal Auto',
    carrier: 'Acme Mutual',
    policy_number: 'HO-123',
  });
  const bad = await get(pat.token, base(pat.id, 'not-a-uuid'));
  t.is(bad.status, 400);
  t.deepEqual(
    bad.body.error.details.map((d: { field: string }) => d.field),
    ['client_uuid'],
  );
  t.is((await get(pat.token, base(pat.id, randomUUID()))).status, 404);
  t.is((await get(sam.token, base(pat.id, x.clientId))).status, 403, 'a plain agent cannot read another agent’s client');
  t.is((await get(sam.token, base(sam.id, x.clientId))).status, 404, 'nor reach it under its own path');
  t.is((await get(a.ownerToken, base(pat.id, x.clientId))).status, 200, 'an admin reads it');
  t.is((await get(a.ownerToken, base(sam.id, x.clientId))).status, 404, 'under its own agent only');
});

test('GET …/declaration-page/{uuid}: a signed, expiring link that downloads the stored bytes', async (t) => {
  const a = await agencyWithAgents(svc, 1);
  const [pat] = a.agents;
  const x = await extractFor(svc, a.agencyId, pat.id);
  const path = `${base(pat.id, x.clientId)}/submission/${x.submissionId}/declaration-page/${x.pageId}`;
  const r = await get(pat.token, path);
  t.is(r.status, 200, r.text);
  t.is(r.body.data.filename, 'declarations.pdf');
  t.is(r.body.data.expires_in, svc.cfg.FILE_LINK_TTL_SECONDS);
  const expires = Date.parse(r.body.data.expires_at);
  t.true(Math.abs(expires - (Date.now() + svc.cfg.FILE_LINK_TTL_SECONDS * 1000)) < 5000);
  t.true(r.body.data.url.startsWith(`${svc.cfg.filesUrl}/files/`));
  const file = await fetch(r.body.data.url);
  t.is(file.status, 200);
  t.deepEqual(Buffer.from(await file.arrayBuffer()), x.bytes);
  const tampered = await fetch(r.body.data.url.replace(/signature=[^&]+/, `signature=${'A'.repeat(43)}`));
  t.is(tampered.status, 403);

  const malformed = await get(pat.token, `${base(pat.id, x.clientId)}/submission/nope/declaration-page/${x.pageId}`);
  t.is(malformed.status, 400);
  t.deepEqual(
    malformed.body.error.details.map((d: { field: string }) => d.field),
    ['client_submission_uuid'],
  );
  const malformedPage = await get(pat.token, `${base(pat.id, x.clientId)}/submission/${x.submissionId}/declaration-page/123`);
  t.deepEqual(
    malformedPage.body.error.details.map((d: { field: string }) => d.field),
    ['client_submission_declaration_page_uuid'],
  );
  const other = await extractFor(svc, a.agencyId, pat.id);
  const mixed = await get(pat.token, `${base(pat.id, x.clientId)}/submission/${other.submissionId}/declaration-page/${x.pageId}`);
  t.is(mixed.status, 404, 'the page must belong to the submission and the client of the path');
});

test('PATCH a client: contact changes and allowed funnel moves; refused moves and fields are 422', async (t) => {
  const a = await agencyWithAgents(svc);
  const [pat, sam] = a.agents;
  const c = await newClient(pat.token, { email: 'before@example.com' });
  const patch = (token: string, json: unknown, agentId = pat.id) => svc.request('PATCH', base(agentId, c.uuid), { token, json });
  const r = await patch(pat.token, { email: 'after@example.com', phone: null, address: { city: 'Austin' }, sales_funnel_status: 'contacted' });
  t.is(r.status, 200, r.text);
  t.like(r.body.data, { email: 'after@example.com', phone: null, sales_funnel_status: 'contacted' });
  t.deepEqual(r.body.data.address, { city: 'Austin' });
  t.deepEqual(r.body.data.submissions, []);
  t.true(r.body.data.updated_at > c.updated_at);
  const refused = await patch(pat.token, { sales_funnel_status: 'new' });
  t.is(refused.status, 422);
  t.is(refused.body.error.details[0].field, 'sales_funnel_status');
  t.regex(refused.body.error.message, /cannot move from contacted to new; allowed from contacted: quoted, bound, lost/);
  t.is((await patch(pat.token, { sales_funnel_status: 'contacted' })).status, 200, 'the current status again is a no-op');
  for (const s of ['quoted', 'bound', 'lost', 'contacted']) t.is((await patch(pat.token, { sales_funnel_status: s })).body.data.sales_funnel_status, s);
  t.is((await patch(pat.token, {})).status, 422, 'an empty change');
  t.is((await patch(pat.token, { first_name: '' })).status, 422);
  t.is((await patch(pat.token, { agent_id: sam.id })).status, 422, 'the agent moves only by reassign');
  await newClient(sam.token, { email: 'taken@example.com' });
  const dup = await patch(pat.token, { email: 'taken@example.com' });
  t.is(dup.status, 422);
  t.is(dup.body.error.details[0].field, 'email');
  t.is((await patch(sam.token, { last_name: 'X' })).status, 403);
  t.is((await patch(a.ownerToken, { last_name: 'Admin-set' })).body.data.last_name, 'Admin-set');
  t.is((await svc.request('PATCH', base(pat.id, 'x'), { token: pat.token, json: { last_name: 'Y' } })).status, 400);
});

test('POST …/reassign moves a client within the agency; another agency’s or an inactive agent is refused', async (t) => {
  const a = await agencyWithAgents(svc, 3);
  const [pat, sam, lee] = a.agents;
  const x = await extractFor(svc, a.agencyId, pat.id);
  const move = (token: string, from: number, agent_id: unknown) => svc.request('POST', `${base(from, x.clientId)}/reassign`, { token, json: { agent_id } });
  const r = await move(pat.token, pat.id, sam.id);
  t.is(r.status, 200, r.text);
  t.is(r.body.data.agent_id, sam.id);
  t.is((await get(pat.token, base(pat.id, x.clientId))).status, 404, 'gone from the previous agent');
  const now = await get(sam.token, base(sam.id, x.clientId));
  t.is(now.status, 200);
  t.is(now.body.data.submissions[0].declaration_pages[0].uuid, x.pageId, 'submissions and pages move along');
  t.is((await move(pat.token, sam.id, pat.id)).status, 403, 'a plain agent cannot move another agent’s client');
  const other = await agencyWithAgents(svc, 0);
  const cross = await move(sam.token, sam.id, other.ownerId);
  t.is(cross.status, 422);
  t.deepEqual(cross.body.error, {
    message: `agent ${other.ownerId} is not an agent of your agency`,
    details: [{ field: 'agent_id', message: `agent ${other.ownerId} is not an agent of your agency` }],
  });
  await svc.request('DELETE', `/v1/agents/${lee.id}`, { token: a.oauth });
  const inactive = await move(sam.token, sam.id, lee.id);
  t.is(inactive.status, 422);
  t.is(inactive.body.error.details[0].field, 'agent_id');
  t.is((await move(sam.token, sam.id, 'x')).status, 422);
  t.is((await move(a.ownerToken, sam.id, a.ownerId)).body.data.agent_id, a.ownerId, 'an admin moves any client');
  t.is((await move(a.ownerToken, a.ownerId, a.ownerId)).status, 200, 'to the same agent changes nothing');
});

test('POST …/destroy erases the client and everything about it in one transaction and leaves an audit row', async (t) => {
  const a = await agencyWithAgents(svc);
  const [pat, sam] = a.agents;
  const x = await extractFor(svc, a.agencyId, pat.id);
  const second = await extractFor(svc, a.agencyId, pat.id, { clientId: x.clientId });
  const keep = await extractFor(svc, a.agencyId, pat.id);
  t.is((await svc.request('POST', `${base(pat.id, x.clientId)}/destroy`, { token: sam.token })).status, 403);
  const r = await svc.request('POST', `${base(pat.id, x.clientId)}/destroy`, { token: pat.token });
  t.is(r.status, 204, r.text);
  t.is(r.text, '');
  const q = (sql: string, v: unknown[]) => svc.tdb.db.owner.query(sql, v).then((res) => res.rows[0].n as number);
  const ids = [x.clientId];
  t.is(await q('select count(*)::int n from app_public.clients where id = any($1)', [ids]), 0);
  t.is(await q('select count(*)::int n from app_public.client_submissions where client_id = any($1)', [ids]), 0);
  t.is(await q('select count(*)::int n from app_public.declaration_pages where client_id = any($1)', [ids]), 0);
  t.is(await q('select count(*)::int n from app_public.extractions where id = any($1)', [[x.extractionId, second.extractionId]]), 0);
  t.is(await q('select count(*)::int n from app_public.documents where id = any($1)', [[x.documentId, second.documentId]]), 0);
  t.is(await q(`select count(*)::int n from app_public.events where data::text like '%' || $1 || '%'`, [x.clientId]), 0, 'no event about it');
  t.is(await q(`select count(*)::int n from app_public.events where data::text like '%' || $1 || '%'`, [x.blobKey]), 0, 'no link to its files');
  t.is(
    await q('select count(*)::int n from app_private.expired_blobs where blob_key = any($1)', [[x.blobKey, second.blobKey]]),
    2,
    'its files wait for the sweep',
  );
  t.is(await q('select count(*)::int n from app_public.clients where id = $1', [keep.clientId]), 1, 'other clients stay');
  t.is(await q('select count(*)::int n from app_public.events where data::text like $1', [`%${keep.clientId}%`]), 2);
  const audit = await svc.tdb.db.owner.query('select * from app_public.client_erasures where client_uuid = $1', [x.clientId]);
  t.is(audit.rows.length, 1);
  t.deepEqual(Object.keys(audit.rows[0]).sort(), ['agency_id', 'client_uuid', 'erased_at', 'erased_by_agent_id', 'erased_by_role', 'id']);
  t.like(audit.rows[0], { agency_id: a.agencyId, erased_by_agent_id: pat.id, erased_by_role: 'agent' });
  const job = await svc.tdb.db.owner.query(`select count(*)::int n from graphile_worker.jobs where task_identifier = 'blobs__sweep'`);
  t.is(job.rows[0].n, 1, 'the sweep is queued in the same transaction');
  t.is((await get(pat.token, base(pat.id, x.clientId))).status, 404);
  t.is((await svc.request('POST', `${base(pat.id, x.clientId)}/destroy`, { token: pat.token })).status, 404, 'a second erasure finds nothing');
  t.is((await svc.request('POST', `${base(pat.id, 'zzz')}/destroy`, { token: pat.token })).status, 400);
});

test('PATCH …/additional-questions turns them on and off for an agent’s clients, with the questions', async (t) => {
  const a = await agencyWithAgents(svc);
  const [pat, sam] = a.agents;
  const path = `/v1/agents/${pat.id}/additional-questions`;
  const initial = await get(pat.token, path);
  t.deepEqual(initial.body.data, { agent_id: pat.id, enabled: false, questions: [], updated_at: null });
  const questions = [
    { id: 'prior_claims', label: 'Any claims in the last 5 years?', type: 'single_choice', options: ['Yes', 'No'], required: true },
    { id: 'notes', label: 'Anything else?', type: 'long_text' },
  ];
  const on = await svc.request('PATCH', path, { token: pat.token, json: { enabled: true, questions } });
  t.is(on.status, 200, on.text);
  t.true(on.body.data.enabled);
  t.deepEqual(on.body.data.questions[1], { id: 'notes', label: 'Anything else?', type: 'long_text', required: false });
  const off = await svc.request('PATCH', path, { token: a.ownerToken, json: { enabled: false } });
  t.false(off.body.data.enabled);
  t.is(off.body.data.questions.length, 2, 'omitting questions keeps them');
  t.is((await get(pat.token, path)).body.data.enabled, false);
  const bad = await svc.request('PATCH', path, {
    token: pat.token,
    json: {
      enabled: 'yes',
      questions: [
        { id: 'x', label: 'X', type: 'dropdown' },
        { id: 'x', label: 'Y', type: 'short_text' },
      ],
    },
  });
  t.is(bad.status, 422);
  t.deepEqual(bad.body.error.details.map((d: { field: string }) => d.field).sort(), ['enabled', 'questions.0.options', 'questions.1.id']);
  t.is((await svc.request('PATCH', `/v1/agents/${sam.id}/additional-questions`, { token: pat.token, json: { enabled: true } })).status, 403);
  t.is((await svc.request('PATCH', `/v1/agents/abc/additional-questions`, { token: pat.token, json: { enabled: true } })).status, 400);
});

test('another agency’s ids are a 404 on every route, with its own valid token', async (t) => {
  const a: Agency = await agencyWithAgents(svc, 1);
  const b: Agency = await agencyWithAgents(svc, 0);
  const [pat] = a.agents;
  const x = await extractFor(svc, a.agencyId, pat.id);
  const page = `${base(pat.id, x.clientId)}/submission/${x.submissionId}/declaration-page/${x.pageId}`;
  const calls: Array<[string, string, unknown?]> = [
    ['GET', base(pat.id)],
    ['GET', base(pat.id, x.clientId)],
    ['PATCH', base(pat.id, x.clientId), { last_name: 'Stolen' }],
    ['GET', page],
    ['POST', `${base(pat.id, x.clientId)}/reassign`, { agent_id: b.ownerId }],
    ['POST', `${base(pat.id, x.clientId)}/destroy`],
    ['GET', `/v1/agents/${pat.id}/additional-questions`],
    ['PATCH', `/v1/agents/${pat.id}/additional-questions`, { enabled: true }],
    // B's own agent path with A's client ids
    ['GET', base(b.ownerId, x.clientId)],
    ['PATCH', base(b.ownerId, x.clientId), { last_name: 'Stolen' }],
    ['GET', `${base(b.ownerId, x.clientId)}/submission/${x.submissionId}/declaration-page/${x.pageId}`],
    ['POST', `${base(b.ownerId, x.clientId)}/reassign`, { agent_id: b.ownerId }],
    ['POST', `${base(b.ownerId, x.clientId)}/destroy`],
  ];
  for (const [method, path, json] of calls) {
    const r = await svc.request(method, path, { token: b.ownerToken, json });
    t.is(r.status, 404, `${method} ${path}: ${r.text}`);
    t.truthy(r.body.error.message);
  }
  const still = await get(pat.token, base(pat.id, x.clientId));
  t.is(still.status, 200);
  t.not(still.body.data.last_name, 'Stolen');
  t.is((await get(b.ownerToken, base(b.ownerId))).body.meta.total, 0);
});

test('the clients routes share the per-token v1 limit and answer 429 with Retry-After past it', async (t) => {
  const limited = await startService({ RATE_LIMIT_V1_PER_WINDOW: '3' });
  try {
    const c = await limited.oauthClient();
    const a = await limited.agency(c.token);
    const path = `/v1/agents/${a.ownerId}/clients`;
    const first = await limited.request('GET', path, { token: a.ownerToken });
    t.is(first.status, 200);
    t.is(first.headers.get('x-ratelimit-limit'), '3');
    t.truthy(first.headers.get('x-ratelimit-remaining'));
    // Every clients route spends from the same budget; a window may roll over mid-test, so go until refused.
    const calls = [
      () => limited.request('POST', '/v1/client', { token: a.ownerToken, json: { first_name: 'A', last_name: `B${Math.random()}` } }),
      () => limited.request('GET', `/v1/agents/${a.ownerId}/additional-questions`, { token: a.ownerToken }),
      () => limited.request('GET', path, { token: a.ownerToken }),
    ];
    let previous = first;
    let over;
    for (let i = 0; i < 12 && !over; i++) {
      const r = await calls[i % 3]();
      if (r.status === 429) over = r;
      else previous = r;
    }
    t.truthy(over, 'refused past the limit');
    t.is(previous.headers.get('x-ratelimit-remaining'), '0');
    t.true(Number(over!.headers.get('retry-after')) >= 1);
    t.truthy(over!.body.error.message);
  } finally {
    await limited.close();
  }
});
