// The review functions of 0026 tested as SQL: hold for review per agency and mode, complete_extraction parking a
// held extraction (status needs_review, nothing emitted), review_field as the request role (RLS: agency, mode,
// a plain agent's own extractions), the audit rows (who, when, old → new), delivery with the reviewed values at
// the last field in the same transaction, and a correction after delivery updating the client (client.updated).
import test from 'ava';
import { testDatabase, type TestDatabase } from '../helpers/db.ts';
import { HELD_CERTIFICATE } from '../helpers/extraction.ts';
import { as, seedAgency, seedAgent, sqlError } from '../helpers/seed.ts';

let tdb: TestDatabase;
test.before(async () => {
  tdb = await testDatabase();
});
test.after.always(async () => tdb?.drop());

// The held certificate with three uncertain fields: the insured's name read as "Hil".
const RESULT = {
  ...HELD_CERTIFICATE,
  policyholder: { ...HELD_CERTIFICATE.policyholder, organization: 'Beacon Hil Renovations Inc' },
  citations: {
    '/policy/policy_number': { page: 1, text: 'GL-88120O45', confidence: 0.55, source: 'ocr', span: 'GL-88120O45', box: { x: 10, y: 10, w: 50, h: 9 } },
    '/policy/expiration_date': { page: 1, text: '03/01/2026', confidence: 0.62, source: 'ocr' },
    '/policyholder/organization': { page: 1, text: 'Beacon Hil Renovations Inc', confidence: 0.6, source: 'ocr' },
    '/policyholder/address': { page: 1, text: '22 Charles St', confidence: 0.95, source: 'rules' },
  },
  needs_review: ['/policy/policy_number', '/policy/expiration_date', '/policyholder/organization'],
};

let n = 0;
/** An agency with a plain agent and an extraction of that agent ready to complete (processing, outcome set). */
async function world(mode: 'test' | 'live' = 'test') {
  const k = ++n;
  const a = await seedAgency(tdb, `rev-${k}`);
  const patId = await seedAgent(tdb, a, `rev-pat-${k}`);
  const { rows } = await tdb.db.owner.query<{ id: string }>(
    `with d as (insert into app_public.documents (agency_id, agent_id, mode, blob_key, filename, content_type, size_bytes, sha256, page_count)
                values ($1, $2, $3, 'blob-' || gen_random_uuid(), 'coi.pdf', 'application/pdf', 1000, repeat('0', 64), 1) returning id)
     insert into app_public.extractions (document_id, agency_id, agent_id, mode, entity_type, status, outcome, parsing_method, result)
     select d.id, $1, $2, $3, 'declaration_page', 'processing', 'completed', 'ocr', $4::jsonb from d returning id`,
    [a.agencyId, patId, mode, JSON.stringify(RESULT)],
  );
  const { citations: _c, ...policy } = RESULT;
  const data = { ...policy, document_link: 'https://files.example.com/x' };
  return {
    a,
    k,
    id: rows[0].id,
    data,
    owner: { ...a.owner, mode },
    pat: { role: 'agent' as const, agencyId: a.agencyId, agentId: patId, mode },
  };
}

const complete = (id: string, data: unknown) => tdb.db.owner.query('select status from app_private.complete_extraction($1, $2)', [id, JSON.stringify(data)]);
const review = (who: Parameters<typeof as>[1], id: string, pointer: string, action: string, value: unknown = null) =>
  as<{ status: string }>(tdb, who, 'select status from app_public.review_field($1, $2, $3, $4)', [id, pointer, action, JSON.stringify(value)]).then(
    (r) => r.rows[0],
  );
const row = (id: string) =>
  tdb.db.owner
    .query<{ status: string; result: any; held_policy_data: any; client_id: string | null }>(
      'select status, result, held_policy_data, client_id from app_public.extractions where id = $1',
      [id],
    )
    .then((r) => r.rows[0]);
const events = (agencyId: number) =>
  tdb.db.owner
    .query<{ topic: string | null; event_name: string | null; mode: string; data: any }>(
      'select topic, event_name, mode, data from app_public.events where agency_id = $1 order by id',
      [agencyId],
    )
    .then((r) => r.rows);

test('hold for review: an admin turns it on per mode; a held extraction waits as needs_review and emits nothing', async (t) => {
  const w = await world();
  t.like(await sqlError(as(tdb, w.pat, 'select app_public.set_hold_for_review(true)')), { code: 'FORBD' }, 'admins only');
  await as(tdb, w.owner, 'select app_public.set_hold_for_review(true)');
  const seen = await as<{ mode: string; hold_for_review: boolean }>(
    tdb,
    { ...w.owner, mode: 'live' },
    'select mode, hold_for_review from app_public.review_settings',
  );
  t.deepEqual(seen.rows, [], 'the live identity does not see the test setting');
  await complete(w.id, w.data);
  const x = await row(w.id);
  t.is(x.status, 'needs_review');
  t.is(x.client_id, null);
  t.is(x.held_policy_data.policy.policy_number, 'GL-88120O45');
  t.deepEqual(await events(w.a.agencyId), [], 'no webhook while held');

  // Live data is not held: the setting is per mode.
  const live = await world('live');
  await as(tdb, live.owner, 'select app_public.set_hold_for_review(true)');
  await as(tdb, { ...live.owner, mode: 'test' }, 'select app_public.set_hold_for_review(false)');
  const other = await tdb.db.owner.query<{ id: string }>(
    `insert into app_public.extractions (document_id, agency_id, agent_id, mode, entity_type, status, outcome, result)
     select document_id, agency_id, agent_id, 'test', entity_type, 'processing', 'completed', result from app_public.extractions where id = $1 returning id`,
    [live.id],
  );
  await complete(other.rows[0].id, live.data);
  t.is((await row(other.rows[0].id)).status, 'completed', 'test mode of that agency delivers at once');
  await complete(live.id, live.data);
  t.is((await row(live.id)).status, 'needs_review');
});

test('review_field: RLS, modes and a plain agent’s own extractions; bad pointers, actions and values refused', async (t) => {
  const w = await world();
  await as(tdb, w.owner, 'select app_public.set_hold_for_review(true)');
  await complete(w.id, w.data);
  const b = await seedAgency(tdb, `rev-b-${w.k}`);
  t.like(await sqlError(review({ ...b.owner, mode: 'test' }, w.id, '/policy/policy_number', 'confirmed')), { code: 'NTFND' }, 'another agency');
  t.like(await sqlError(review({ ...w.owner, mode: 'live' }, w.id, '/policy/policy_number', 'confirmed')), { code: 'NTFND' }, 'the other mode');
  const samId = await seedAgent(tdb, w.a, `rev-sam-${w.k}`);
  t.like(
    await sqlError(review({ role: 'agent', agencyId: w.a.agencyId, agentId: samId, mode: 'test' }, w.id, '/policy/policy_number', 'confirmed')),
    { code: 'NTFND' },
    'another agent',
  );
  t.like(await sqlError(review(w.a.adminKey('test'), w.id, '/policy/policy_number', 'confirmed')), { code: 'FORBD' }, 'an API key is nobody');
  t.like(await sqlError(review(w.pat, w.id, '/policy/premium', 'confirmed')), { code: 'REVIN', column: 'pointer' }, 'not under review');
  t.like(await sqlError(review(w.pat, w.id, '/policy/policy_number', 'guessed')), { code: 'REVIN', column: 'action' });
  t.like(await sqlError(review(w.pat, w.id, '/policy/policy_number', 'corrected', { a: 1 })), { code: 'REVIN', column: 'value' });
  t.deepEqual((await as(tdb, { ...b.owner, mode: 'test' }, 'select * from app_public.field_reviews')).rows, []);
  // Direct writes are not the request role's.
  t.like(
    await sqlError(
      as(
        tdb,
        w.pat,
        `insert into app_public.field_reviews (extraction_id, agency_id, mode, pointer, action, reviewer_name, after_delivery) values ($1, $2, 'test', '/policy/premium', 'confirmed', 'x', false)`,
        [w.id, w.a.agencyId],
      ),
    ),
    { code: '42501' },
  );
});

test('the last review delivers a held extraction once, with the reviewed values and the reviewer; every decision audited', async (t) => {
  const w = await world();
  await as(tdb, w.owner, 'select app_public.set_hold_for_review(true)');
  await complete(w.id, w.data);
  t.is((await review(w.pat, w.id, '/policy/policy_number', 'corrected', 'GL-88120045')).status, 'needs_review');
  t.is((await review(w.pat, w.id, '/policy/expiration_date', 'confirmed')).status, 'needs_review');
  t.deepEqual(await events(w.a.agencyId), []);
  t.is((await review(w.pat, w.id, '/policyholder/organization', 'corrected', 'Beacon Hill Renovations Inc')).status, 'completed');
  const ev = await events(w.a.agencyId);
  t.deepEqual(
    ev.map((e) => e.topic ?? e.event_name),
    ['client-submission', 'client-submission.complete', 'client-submission.declaration-page-upload'],
  );
  const data = ev[0].data;
  t.is(data.policy.policy_number, 'GL-88120045');
  t.is(data.policyholder.organization, 'Beacon Hill Renovations Inc');
  t.deepEqual(data.needs_review, []);
  t.like(data.review.reviewed_by, { name: `Ann rev-pat-${w.k}` });
  t.deepEqual(
    data.review.fields.map((f: any) => [f.pointer, f.action, f.previous_value, f.value]),
    [
      ['/policy/policy_number', 'corrected', 'GL-88120O45', 'GL-88120045'],
      ['/policy/expiration_date', 'confirmed', '2026-03-01', '2026-03-01'],
      ['/policyholder/organization', 'corrected', 'Beacon Hil Renovations Inc', 'Beacon Hill Renovations Inc'],
    ],
  );
  const x = await row(w.id);
  t.is(x.result.policy.policy_number, 'GL-88120045');
  t.is(x.result.citations['/policy/policy_number'].confidence, 1);
  t.is(x.held_policy_data, null);
  const client = await tdb.db.owner.query('select last_name from app_public.clients where id = $1', [x.client_id]);
  t.is(client.rows[0].last_name, 'Beacon Hill Renovations Inc', 'the client is made from the reviewed values');
  const audit = await as<{
    pointer: string;
    action: string;
    old_value: unknown;
    new_value: unknown;
    reviewer_agent_id: number;
    after_delivery: boolean;
    reviewed_at: Date;
  }>(
    tdb,
    w.owner,
    'select pointer, action, old_value, new_value, reviewer_agent_id, after_delivery, reviewed_at from app_public.field_reviews where extraction_id = $1 order by id',
    [w.id],
  );
  t.is(audit.rows.length, 3);
  t.true(audit.rows.every((r) => r.reviewer_agent_id === w.pat.agentId && !r.after_delivery && r.reviewed_at instanceof Date));
  t.like(
    await sqlError(tdb.db.owner.query(`update app_public.field_reviews set new_value = '"x"' where extraction_id = $1`, [w.id])),
    { code: 'STATE' },
    'the audit is immutable',
  );
});

test('a correction after delivery updates the record and the client and emits client.updated; "not on the document" clears a value', async (t) => {
  const w = await world();
  await complete(w.id, w.data); // hold is off: delivered at once with needs_review listed
  const first = await events(w.a.agencyId);
  t.deepEqual(first[0].data.needs_review, RESULT.needs_review);
  t.is((await review(w.owner, w.id, '/policyholder/organization', 'corrected', 'Beacon Hill Renovations Inc')).status, 'completed');
  const after = (await events(w.a.agencyId)).slice(first.length);
  t.deepEqual(
    after.map((e) => e.event_name),
    ['client.updated'],
  );
  t.deepEqual(after[0].data.changed_fields, ['last_name']);
  t.is(after[0].data.client.last_name, 'Beacon Hill Renovations Inc');
  await review(w.owner, w.id, '/policy/expiration_date', 'not_on_document');
  const x = await row(w.id);
  t.is(x.result.policy.expiration_date, null);
  t.false('/policy/expiration_date' in x.result.citations);
  t.deepEqual(x.result.needs_review, ['/policy/policy_number']);
  // A cited field not listed may be corrected after delivery too; the audit says so.
  await review(w.owner, w.id, '/policyholder/address', 'corrected', '22 Charles St, Boston, MA 02114');
  const audit = await as<{ pointer: string; after_delivery: boolean }>(
    tdb,
    w.owner,
    'select pointer, after_delivery from app_public.field_reviews where extraction_id = $1 order by id',
    [w.id],
  );
  t.true(audit.rows.every((r) => r.after_delivery));
  const evs = (await events(w.a.agencyId)).slice(first.length).map((e) => [e.event_name, e.data.changed_fields]);
  t.deepEqual(evs, [
    ['client.updated', ['last_name']],
    ['client.updated', ['address']],
  ]);
});
