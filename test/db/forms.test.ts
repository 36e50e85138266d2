// The form state functions tested as SQL: called as the request role with an API key's identity.
import test from 'ava';
import { withIdentity } from '../../db/pool.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { as, seedAgent, sqlError, twoAgencies, type SeededAgency } from '../helpers/seed.ts';

let tdb: TestDatabase, a: SeededAgency, b: SeededAgency;
test.before(async () => {
  ({ tdb, a, b } = await twoAgencies('forms'));
});
test.after.always(async () => tdb?.drop());

const structure = JSON.stringify({ steps: [{ id: 's1', title: 'Step', questions: [] }] });
const createForm = (who = a.adminKey('test'), ownerAgencyId = a.agencyId, ownerAgentId: number | null = null, name = 'Renters') =>
  as(tdb, who, 'select * from app_public.create_form($1, $2, $3, $4, $5, $6)', [ownerAgencyId, ownerAgentId, name, 'renters', null, structure]);

test('create_form makes a draft in the key’s agency and mode, owned by the agency', async (t) => {
  const { rows } = await createForm();
  t.like(rows[0], {
    agency_id: a.agencyId,
    mode: 'test',
    owner_agent_id: null,
    name: 'Renters',
    status: 'draft',
    insurance_line: 'renters',
    published_at: null,
  });
  t.regex(rows[0].public_id, /^f_/);
  t.deepEqual(rows[0].structure, JSON.parse(structure));
  const live = await createForm(a.adminKey('live'));
  t.is(live.rows[0].mode, 'live');
});

test('create_form accepts an active agent of the agency as owner and names the field of a bad one (BADRF)', async (t) => {
  const agent = await seedAgent(tdb, a, 'forms-agent');
  t.is((await createForm(a.adminKey('test'), a.agencyId, agent)).rows[0].owner_agent_id, agent);

  const foreignAgency = await sqlError(createForm(a.adminKey('test'), b.agencyId));
  t.like(foreignAgency, { code: 'BADRF', column: 'owner.agency_id', detail: 'is not your agency' });

  const otherAgencysAgent = await sqlError(createForm(a.adminKey('test'), a.agencyId, b.ownerId));
  t.like(otherAgencysAgent, { code: 'BADRF', column: 'owner.agent_id' });

  await withIdentity(tdb.db, a.client, (c) => c.query('select app_public.deactivate_agent($1)', [agent]));
  const deactivated = await sqlError(createForm(a.adminKey('test'), a.agencyId, agent));
  t.like(deactivated, { code: 'BADRF', column: 'owner.agent_id', detail: 'unknown or deactivated agent' });
});

test('create_form refuses a read-only key through RLS and writes nothing', async (t) => {
  const err = await sqlError(createForm(a.readOnlyKey, a.agencyId, null, 'Read-only attempt'));
  t.is(err.code, '42501');
  const after = await tdb.db.owner.query(`select count(*)::int as n from app_public.forms where name = 'Read-only attempt'`);
  t.is(after.rows[0].n, 0);
});

test('duplicate_form copies owner, structure and insurance line into a new draft named “(copy)”', async (t) => {
  const agent = await seedAgent(tdb, a, 'dup-agent');
  const f = (await createForm(a.adminKey('test'), a.agencyId, agent, 'x'.repeat(200))).rows[0];
  await as(tdb, a.adminKey('test'), 'select app_public.publish_form($1)', [f.id]);
  const { rows } = await as(tdb, a.adminKey('test'), 'select * from app_public.duplicate_form($1)', [f.id]);
  const d = rows[0];
  t.not(d.id, f.id);
  t.not(d.public_id, f.public_id);
  t.like(d, { owner_agent_id: agent, insurance_line: 'renters', status: 'draft', mode: 'test', published_at: null, live_snapshot_id: null });
  t.deepEqual(d.structure, f.structure);
  t.is(d.name.length, 200, 'the name is cut to the column’s limit');
  t.true(d.name.startsWith('xxx'));
});

test('duplicate_form sees only the caller’s agency and mode (NTFND)', async (t) => {
  const f = (await createForm()).rows[0];
  t.is((await sqlError(as(tdb, a.adminKey('live'), 'select app_public.duplicate_form($1)', [f.id]))).code, 'NTFND');
  t.is((await sqlError(as(tdb, b.adminKey('test'), 'select app_public.duplicate_form($1)', [f.id]))).code, 'NTFND');
  t.is((await sqlError(as(tdb, a.adminKey('test'), 'select app_public.duplicate_form($1)', [0]))).code, 'NTFND');
});

test('publish_form snapshots the structure and makes the form active; other modes and agencies get NTFND', async (t) => {
  const f = (await createForm()).rows[0];
  t.is((await sqlError(as(tdb, b.adminKey('test'), 'select app_public.publish_form($1)', [f.id]))).code, 'NTFND');
  t.is((await sqlError(as(tdb, a.adminKey('live'), 'select app_public.publish_form($1)', [f.id]))).code, 'NTFND');
  const { rows } = await as(tdb, a.adminKey('test'), 'select * from app_public.publish_form($1)', [f.id]);
  t.is(rows[0].status, 'active');
  t.truthy(rows[0].published_at);
  const snap = await tdb.db.owner.query('select form_id, structure from app_public.form_snapshots where id = $1', [rows[0].live_snapshot_id]);
  t.deepEqual(snap.rows[0], { form_id: f.id, structure: f.structure });
});
