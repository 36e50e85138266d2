// The agency and agent state functions tested as SQL: called as the request role with an OAuth client's or an
// agent's identity, asserting rows, tokens and errcodes.
import test from 'ava';
import { hashToken } from '../../lib/secrets.ts';
import { testDatabase, type TestDatabase } from '../helpers/db.ts';
import { as, seedAgency, seedAgent, sqlError } from '../helpers/seed.ts';

let tdb: TestDatabase;
test.before(async () => {
  tdb = await testDatabase();
});
test.after.always(async () => tdb?.drop());
let seeded = 0;
const fresh = async () => {
  const label = `agencies-${++seeded}`;
  return { ...(await seedAgency(tdb, label)), ownerToken: `agt_${label}`, label };
};

const bearer = async (token: string) =>
  (await tdb.db.owner.query('select kind, agency_id, agent_id, role from app_private.authenticate_bearer($1)', [hashToken(token)])).rows;

test('create_agency makes the agency with an owner who is an admin and holds a working token; only OAuth clients may', async (t) => {
  const a = await fresh();
  const agency = await tdb.db.owner.query('select oauth_client_id, status, plan from app_public.agencies where id = $1', [a.agencyId]);
  t.deepEqual(agency.rows[0], { oauth_client_id: a.oauthClientId, status: 'active', plan: 'free' });
  t.deepEqual(await bearer(a.ownerToken), [{ kind: 'agent', agency_id: a.agencyId, agent_id: a.ownerId, role: 'owner' }]);
  const err = await sqlError(as(tdb, a.owner, `select app_public.create_agency('X', null, 'A', 'B', 'x@example.com', 'x', $1)`, [hashToken('x')]));
  t.is(err.code, 'FORBD');
});

test('create_agent: a unique slug, EMAIL for a taken address, NTFND for an unlinked agency, DEACT for a deactivated one', async (t) => {
  const [a, b] = [await fresh(), await fresh()];
  const first = await seedAgent(tdb, a, 'same-slug');
  const slugs = await as(tdb, a.client, `select slug from app_public.create_agent($1, 'Ann', 'Two', 'two@example.com', 'same-slug', null, false, null, $2)`, [
    a.agencyId,
    hashToken('t2'),
  ]);
  t.not(first, 0);
  t.is(slugs.rows[0].slug, 'same-slug-2');
  const taken = await sqlError(
    as(tdb, a.client, `select app_public.create_agent($1, 'A', 'B', 'TWO@example.com', 'x', null, false, null, $2)`, [a.agencyId, hashToken('t3')]),
  );
  t.is(taken.code, 'EMAIL');
  t.is(
    (
      await sqlError(
        as(tdb, b.client, `select app_public.create_agent($1, 'A', 'B', 'c@example.com', 'c', null, false, null, $2)`, [a.agencyId, hashToken('t4')]),
      )
    ).code,
    'NTFND',
  );
  await as(tdb, a.client, 'select app_public.deactivate_agency($1)', [a.agencyId]);
  t.is(
    (
      await sqlError(
        as(tdb, a.client, `select app_public.create_agent($1, 'A', 'B', 'd@example.com', 'd', null, false, null, $2)`, [a.agencyId, hashToken('t5')]),
      )
    ).code,
    'DEACT',
  );
});

test('deactivate_agency deactivates every agent, whose tokens stop working; it is idempotent', async (t) => {
  const a = await fresh();
  await seedAgent(tdb, a, `deact-${a.label}`);
  await as(tdb, a.client, 'select app_public.deactivate_agency($1)', [a.agencyId]);
  await as(tdb, a.client, 'select app_public.deactivate_agency($1)', [a.agencyId]);
  const agents = await tdb.db.owner.query(`select count(*)::int as n from app_public.agents where agency_id = $1 and status = 'active'`, [a.agencyId]);
  t.is(agents.rows[0].n, 0);
  t.deepEqual(await bearer(a.ownerToken), []);
});

test('deactivate_agent refuses the owner (OWNER) until transfer_agency_ownership moves it, which only the owner may do', async (t) => {
  const a = await fresh();
  const admin = await seedAgent(tdb, a, `admin-${a.label}`, true);
  t.is((await sqlError(as(tdb, a.client, 'select app_public.deactivate_agent($1)', [a.ownerId]))).code, 'OWNER');
  const asAdmin = { role: 'admin' as const, agencyId: a.agencyId, agentId: admin };
  t.is((await sqlError(as(tdb, asAdmin, 'select app_public.transfer_agency_ownership($1)', [admin]))).code, 'FORBD');
  const moved = await as(tdb, a.owner, 'select is_owner, is_admin from app_public.transfer_agency_ownership($1)', [admin]);
  t.deepEqual(moved.rows[0], { is_owner: true, is_admin: true });
  const previous = await tdb.db.owner.query('select is_owner, is_admin from app_public.agents where id = $1', [a.ownerId]);
  t.deepEqual(previous.rows[0], { is_owner: false, is_admin: true }, 'the previous owner stays an admin');
  const gone = await as(tdb, a.client, 'select status from app_public.deactivate_agent($1)', [a.ownerId]);
  t.is(gone.rows[0].status, 'deactivated');
  t.is((await sqlError(as(tdb, a.client, 'select app_public.reset_agent_token($1, $2)', [a.ownerId, hashToken('new')]))).code, 'DEACT');
});

test('reset_agent_token revokes every token of the agent and keeps only the new one', async (t) => {
  const a = await fresh();
  const label = `reset-${a.label}`;
  const agent = await seedAgent(tdb, a, label);
  await as(tdb, a.client, 'select app_public.reset_agent_token($1, $2)', [agent, hashToken('agt_fresh')]);
  t.deepEqual(await bearer(`agt_${label}`), []);
  t.like((await bearer('agt_fresh'))[0], { agent_id: agent, role: 'agent' });
});

test('set_agency_plan keeps limits only for enterprise; the plan changes through it only (STATE)', async (t) => {
  const a = await fresh();
  const pro = await as(tdb, a.client, 'select plan, plan_per_minute, plan_per_day from app_public.set_agency_plan($1, $2, $3, $4)', [
    a.agencyId,
    'pro',
    10,
    10,
  ]);
  t.deepEqual(pro.rows[0], { plan: 'pro', plan_per_minute: null, plan_per_day: null });
  const ent = await as(tdb, a.client, 'select plan, plan_per_minute, plan_per_day from app_public.set_agency_plan($1, $2, $3, $4)', [
    a.agencyId,
    'enterprise',
    100,
    5000,
  ]);
  t.deepEqual(ent.rows[0], { plan: 'enterprise', plan_per_minute: 100, plan_per_day: 5000 });
  t.is((await sqlError(as(tdb, a.client, 'select app_public.set_agency_plan($1, $2, null, null)', [a.agencyId, 'enterprise']))).code, '23514');
  t.is((await sqlError(tdb.db.owner.query(`update app_public.agencies set plan = 'free' where id = $1`, [a.agencyId]))).code, 'STATE');
});
