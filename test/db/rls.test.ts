// Agency B can neither read nor change agency A's rows, whatever SQL a route might run.
import test from 'ava';
import { hashToken } from '../../lib/secrets.ts';
import { withIdentity, type Identity } from '../../db/pool.ts';
import { testDatabase, type TestDatabase } from '../helpers/db.ts';

let tdb: TestDatabase;
const ids: Record<string, number> = {};

test.before(async () => {
  tdb = await testDatabase();
  const o = tdb.db.owner;
  for (const k of ['c1', 'c2']) {
    ids[k] = (await o.query(`insert into app_private.oauth_clients (client_id, name, secret_hash) values ($1, $1, $2) returning id`, [k, hashToken(k)])).rows[0].id;
  }
  for (const [agency, client] of [['a', 'c1'], ['b', 'c2']] as const) {
    const r = await withIdentity(tdb.db, { role: 'oauth_client', oauthClientId: ids[client] }, (c) =>
      c.query(`select (r.agency).id as agency_id, (r.agent).id as agent_id from app_public.create_agency($1, null, 'F', 'L', $2, $3, $4) r`, [
        `Agency ${agency}`, `${agency}@example.com`, `owner-${agency}`, hashToken(agency),
      ]),
    );
    ids[agency] = r.rows[0].agency_id;
    ids[`${agency}_owner`] = r.rows[0].agent_id;
  }
});
test.after.always(async () => tdb?.drop());

const asOwnerOf = (agency: 'a' | 'b'): Identity => ({ role: 'owner', agencyId: ids[agency], agentId: ids[`${agency}_owner`] });

for (const table of ['agencies', 'agents'] as const) {
  test(`${table}: agency B reads none of agency A's rows`, async (t) => {
    const rows = await withIdentity(tdb.db, asOwnerOf('b'), async (c) => (await c.query(`select * from app_public.${table}`)).rows);
    t.true(rows.length > 0);
    const agencyCol = table === 'agencies' ? 'id' : 'agency_id';
    t.true(rows.every((r) => r[agencyCol] === ids.b));
  });

  test(`${table}: agency B changes and deletes none of agency A's rows`, async (t) => {
    const agencyCol = table === 'agencies' ? 'id' : 'agency_id';
    const updated = await withIdentity(tdb.db, asOwnerOf('b'), async (c) => (await c.query(`update app_public.${table} set name = 'x' where ${agencyCol} = $1`.replace("name = 'x'", table === 'agencies' ? "name = 'x'" : "first_name = 'x'"), [ids.a])).rowCount);
    t.is(updated, 0);
    const err = await t.throwsAsync(withIdentity(tdb.db, asOwnerOf('b'), (c) => c.query(`delete from app_public.${table} where ${agencyCol} = $1`, [ids.a])));
    t.is((err as { code?: string }).code, '42501', 'no delete privilege at all');
    const insert = await t.throwsAsync(withIdentity(tdb.db, asOwnerOf('b'), (c) => c.query(table === 'agencies' ? `insert into app_public.agencies (oauth_client_id, name) values ($1, 'x')` : `insert into app_public.agents (agency_id, first_name) values ($1, 'x')`, [table === 'agencies' ? ids.c1 : ids.a])));
    t.is((insert as { code?: string }).code, '42501');
  });

  test(`${table}: OAuth client 2 reads none of client 1's rows and without an identity nothing is visible`, async (t) => {
    const rows = await withIdentity(tdb.db, { role: 'oauth_client', oauthClientId: ids.c2 }, async (c) => (await c.query(`select * from app_public.${table}`)).rows);
    const agencyCol = table === 'agencies' ? 'id' : 'agency_id';
    t.true(rows.every((r) => r[agencyCol] === ids.b));
    const none = await withIdentity(tdb.db, { role: 'agent' }, async (c) => (await c.query(`select * from app_public.${table}`)).rowCount);
    t.is(none, 0);
  });
}

test('state functions refuse agencies outside the caller scope with NTFND', async (t) => {
  const err = await t.throwsAsync(withIdentity(tdb.db, { role: 'oauth_client', oauthClientId: ids.c2 }, (c) => c.query('select app_public.deactivate_agency($1)', [ids.a])));
  t.is((err as { code?: string }).code, 'NTFND');
  const agentErr = await t.throwsAsync(withIdentity(tdb.db, asOwnerOf('b'), (c) => c.query('select app_public.deactivate_agent($1)', [ids.a_owner])));
  t.is((agentErr as { code?: string }).code, 'NTFND');
});
