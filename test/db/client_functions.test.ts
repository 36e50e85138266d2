// The client state functions of 0009 tested as SQL: called as the request role with an identity set, asserting
// rows, errcodes with the field they name, the outbox events each writes and the jobs it queues.
import test from 'ava';
import { testDatabase, type TestDatabase } from '../helpers/db.ts';
import { as, queuedJobs, seedAgency, seedAgent, sqlError, type SeededAgency } from '../helpers/seed.ts';

let tdb: TestDatabase;
test.before(async () => {
  tdb = await testDatabase();
});
test.after.always(async () => tdb?.drop());

let seeded = 0;
async function fresh() {
  const n = ++seeded;
  const a = await seedAgency(tdb, `clients-${n}`);
  const patId = await seedAgent(tdb, a, `pat-${n}`);
  const samId = await seedAgent(tdb, a, `sam-${n}`);
  return {
    a,
    patId,
    pat: { role: 'agent' as const, agencyId: a.agencyId, agentId: patId },
    samId,
    sam: { role: 'agent' as const, agencyId: a.agencyId, agentId: samId },
  };
}

type Who = SeededAgency['owner'];
const create = (who: Who, agentId: number, email: string | null = null, status = 'new') =>
  as<{ id: string; agent_id: number; mode: string; sales_funnel_status: string }>(
    tdb,
    who,
    'select * from app_public.create_client($1, $2, $3, $4, $5, $6, $7)',
    [agentId, 'Jordan', 'Alvarez', email, null, null, status],
  ).then((r) => r.rows[0]);
const events = async (clientId: string) =>
  (
    await tdb.db.owner.query<{ event_name: string; mode: string; data: any }>(
      `select event_name, mode, data from app_public.events where data #>> '{client,uuid}' = $1 order by id`,
      [clientId],
    )
  ).rows;

test('create_client: a live client of the caller, or of another agent for an admin; no event', async (t) => {
  const { a, pat, patId, samId } = await fresh();
  const c = await create(pat, patId, 'jordan@example.com');
  t.like(c, { agent_id: patId, mode: 'live', sales_funnel_status: 'new' });
  t.deepEqual(await events(c.id), []);
  t.is((await create(a.owner, samId)).agent_id, samId);
  t.like(await sqlError(create(pat, samId)), { code: 'FORBD' });
  t.like(await sqlError(create(pat, patId, 'JORDAN@example.com')), { code: 'CLDUP', column: 'email' });
  t.like(await sqlError(create(pat, patId, null, 'won')), { code: 'FUNNL', column: 'sales_funnel_status' });
  const other = await seedAgency(tdb, `clients-other-${++seeded}`);
  t.like(await sqlError(create(a.owner, other.ownerId)), { code: 'XAGCY', column: 'agent_id' });
  t.like(await sqlError(create(a.adminKey('live'), patId)), { code: 'FORBD' }, 'API keys do not create clients here');
});

test('update_client writes client.updated with only the changed fields, and the funnel move as its own event', async (t) => {
  const { pat, patId } = await fresh();
  const c = await create(pat, patId, 'a@example.com');
  await as(tdb, pat, 'select app_public.update_client($1, $2, $3)', [
    patId,
    c.id,
    JSON.stringify({ email: 'a@example.com', phone: '+1 555', sales_funnel_status: 'quoted' }),
  ]);
  const ev = await events(c.id);
  t.deepEqual(
    ev.map((e) => e.event_name),
    ['client.updated', 'client.sales-funnel-status-change'],
  );
  t.deepEqual(ev[0].data.changed_fields, ['phone']);
  t.is(ev[0].mode, 'live');
  t.like(ev[1].data, { previous_status: 'new', status: 'quoted' });
  const waiting = await tdb.db.owner.query<{ agency_id: number; waiting: boolean }>(
    `select agency_id, exists (select 1 from app_private.events_waiting w where w.event_id = e.id) waiting from app_public.events e where data #>> '{client,uuid}' = $1`,
    [c.id],
  );
  for (const e of waiting.rows) {
    t.true(e.waiting, 'the event waits in the outbox for the worker’s poller');
  }
  await as(tdb, pat, 'select app_public.update_client($1, $2, $3)', [patId, c.id, JSON.stringify({ phone: '+1 555', sales_funnel_status: 'quoted' })]);
  t.is((await events(c.id)).length, 2, 'no change, no event');
  const refused = await sqlError(
    as(tdb, pat, 'select app_public.update_client($1, $2, $3)', [patId, c.id, JSON.stringify({ last_name: 'New', sales_funnel_status: 'new' })]),
  );
  t.like(refused, { code: 'FUNNL', column: 'sales_funnel_status' });
  t.is((await events(c.id)).length, 2, 'a refused move rolls back the whole change, its client.updated too');
  const row = await tdb.db.owner.query('select last_name from app_public.clients where id = $1', [c.id]);
  t.is(row.rows[0].last_name, 'Alvarez');
});

test('reassign_client: same agency only, active target, event with both agents; a plain agent moves only its own', async (t) => {
  const { a, pat, patId, sam, samId } = await fresh();
  const c = await create(pat, patId);
  t.like(await sqlError(as(tdb, sam, 'select app_public.reassign_client($1, $2, $3)', [patId, c.id, samId])), { code: 'FORBD' });
  t.like(await sqlError(as(tdb, sam, 'select app_public.reassign_client($1, $2, $3)', [samId, c.id, samId])), { code: 'NTFND' });
  const other = await seedAgency(tdb, `clients-x-${++seeded}`);
  t.like(await sqlError(as(tdb, pat, 'select app_public.reassign_client($1, $2, $3)', [patId, c.id, other.ownerId])), { code: 'XAGCY', column: 'agent_id' });
  t.like(await sqlError(as(tdb, other.owner, 'select app_public.reassign_client($1, $2, $3)', [patId, c.id, other.ownerId])), { code: 'NTFND' });
  await as(tdb, a.client, 'select app_public.deactivate_agent($1)', [samId]);
  t.like(await sqlError(as(tdb, pat, 'select app_public.reassign_client($1, $2, $3)', [patId, c.id, samId])), { code: 'DEACT', column: 'agent_id' });
  const moved = (await as<{ agent_id: number }>(tdb, pat, 'select agent_id from app_public.reassign_client($1, $2, $3)', [patId, c.id, a.ownerId])).rows[0];
  t.is(moved.agent_id, a.ownerId);
  const [ev] = await events(c.id);
  t.is(ev.event_name, 'client.reassigned');
  t.is(ev.data.previous_agent.id, patId);
  t.is(ev.data.agent.id, a.ownerId);
});

test('destroy_client: rows, events and audit in one transaction, the sweep queued; a plain agent erases only its own', async (t) => {
  const { a, pat, patId, sam } = await fresh();
  const c = await create(pat, patId);
  await as(tdb, pat, 'select app_public.update_client($1, $2, $3)', [patId, c.id, JSON.stringify({ phone: '1' })]);
  t.like(await sqlError(as(tdb, sam, 'select app_public.destroy_client($1, $2)', [patId, c.id])), { code: 'FORBD' });
  await as(tdb, a.owner, 'select app_public.destroy_client($1, $2)', [patId, c.id]);
  t.is((await tdb.db.owner.query('select 1 from app_public.clients where id = $1', [c.id])).rowCount, 0);
  t.deepEqual(await events(c.id), []);
  const audit = await as(tdb, a.owner, 'select client_uuid, erased_by_agent_id, erased_by_role from app_public.client_erasures');
  t.deepEqual(audit.rows, [{ client_uuid: c.id, erased_by_agent_id: a.ownerId, erased_by_role: 'owner' }]);
  t.is((await as(tdb, pat, 'select 1 from app_public.client_erasures')).rowCount, 0, 'the audit is for admins');
  t.deepEqual(await queuedJobs(tdb, 'blobs__sweep'), [], 'no stored file, no sweep');
});

test('set_additional_questions: the agent itself or an admin, the list kept when not given', async (t) => {
  const { a, pat, patId, sam } = await fresh();
  const q = JSON.stringify([{ id: 'q1', label: 'Q?', type: 'short_text', required: false }]);
  const s1 = (await as(tdb, pat, 'select * from app_public.set_additional_questions($1, $2, $3)', [patId, true, q])).rows[0];
  t.like(s1, { agent_id: patId, agency_id: a.agencyId, additional_questions_enabled: true });
  const s2 = (await as(tdb, a.owner, 'select * from app_public.set_additional_questions($1, $2, $3)', [patId, false, null])).rows[0];
  t.like(s2, { additional_questions_enabled: false });
  t.is(s2.additional_questions.length, 1);
  t.like(await sqlError(as(tdb, sam, 'select * from app_public.set_additional_questions($1, $2, $3)', [patId, true, null])), { code: 'FORBD' });
});
