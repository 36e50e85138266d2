// Agency B can neither read nor change agency A's rows, whatever SQL a route might run.
import test from 'ava';
import { hashToken } from '../../lib/secrets.ts';
import { withIdentity, type Identity } from '../../db/pool.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { twoAgencies } from '../helpers/seed.ts';

let tdb: TestDatabase;
const ids: Record<string, number> = {};

test.before(async () => {
  const seeded = await twoAgencies('rls');
  tdb = seeded.tdb;
  const { a, b } = seeded;
  Object.assign(ids, { c1: a.oauthClientId, c2: b.oauthClientId, a: a.agencyId, b: b.agencyId, a_owner: a.ownerId, b_owner: b.ownerId });
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
    const updated = await withIdentity(
      tdb.db,
      asOwnerOf('b'),
      async (c) =>
        (
          await c.query(
            `update app_public.${table} set name = 'x' where ${agencyCol} = $1`.replace("name = 'x'", table === 'agencies' ? "name = 'x'" : "first_name = 'x'"),
            [ids.a],
          )
        ).rowCount,
    );
    t.is(updated, 0);
    const err = await t.throwsAsync(withIdentity(tdb.db, asOwnerOf('b'), (c) => c.query(`delete from app_public.${table} where ${agencyCol} = $1`, [ids.a])));
    t.is((err as { code?: string }).code, '42501', 'no delete privilege at all');
    const insert = await t.throwsAsync(
      withIdentity(tdb.db, asOwnerOf('b'), (c) =>
        c.query(
          table === 'agencies'
            ? `insert into app_public.agencies (oauth_client_id, name) values ($1, 'x')`
            : `insert into app_public.agents (agency_id, first_name) values ($1, 'x')`,
          [table === 'agencies' ? ids.c1 : ids.a],
        ),
      ),
    );
    t.is((insert as { code?: string }).code, '42501');
  });

  test(`${table}: OAuth client 2 reads none of client 1's rows and without an identity nothing is visible`, async (t) => {
    const rows = await withIdentity(
      tdb.db,
      { role: 'oauth_client', oauthClientId: ids.c2 },
      async (c) => (await c.query(`select * from app_public.${table}`)).rows,
    );
    const agencyCol = table === 'agencies' ? 'id' : 'agency_id';
    t.true(rows.length > 0, 'client 2 sees its own rows');
    t.true(rows.every((r) => r[agencyCol] === ids.b));
    const none = await withIdentity(tdb.db, { role: 'agent' }, async (c) => (await c.query(`select * from app_public.${table}`)).rowCount);
    t.is(none, 0);
  });
}

test('state functions refuse agencies outside the caller scope with NTFND', async (t) => {
  const err = await t.throwsAsync(
    withIdentity(tdb.db, { role: 'oauth_client', oauthClientId: ids.c2 }, (c) => c.query('select app_public.deactivate_agency($1)', [ids.a])),
  );
  t.is((err as { code?: string }).code, 'NTFND');
  const agentErr = await t.throwsAsync(withIdentity(tdb.db, asOwnerOf('b'), (c) => c.query('select app_public.deactivate_agent($1)', [ids.a_owner])));
  t.is((agentErr as { code?: string }).code, 'NTFND');
});

test('forms, form snapshots and API keys: agency B (and agency A in the other mode) neither reads nor changes A’s rows', async (t) => {
  const o = tdb.db.owner;
  const form = await o.query(`insert into app_public.forms (agency_id, mode, name, insurance_line) values ($1, 'test', 'A form', 'renters') returning id`, [
    ids.a,
  ]);
  await o.query(
    `insert into app_public.form_snapshots (form_id, agency_id, mode, name, insurance_line, structure) values ($1, $2, 'test', 'A form', 'renters', '{"steps":[]}')`,
    [form.rows[0].id, ids.a],
  );
  await o.query(
    `insert into app_public.api_keys (agency_id, name, mode, permissions, key_hash, prefix, last_four) values ($1, 'k', 'test', 'admin', $2, 'svc_test_abcd', 'wxyz')`,
    [ids.a, hashToken('svc_test_x')],
  );
  const asB: Identity = { role: 'admin', agencyId: ids.b, mode: 'test' };
  const asALive: Identity = { role: 'admin', agencyId: ids.a, mode: 'live' };
  const asATest: Identity = { role: 'admin', agencyId: ids.a, mode: 'test' };
  for (const table of ['forms', 'form_snapshots']) {
    for (const who of [asB, asALive]) {
      const n = await withIdentity(tdb.db, who, async (c) => (await c.query(`select 1 from app_public.${table}`)).rowCount);
      t.is(n, 0, `${table} hidden from ${JSON.stringify(who)}`);
    }
    t.is(await withIdentity(tdb.db, asATest, async (c) => (await c.query(`select 1 from app_public.${table}`)).rowCount), 1);
  }
  t.is(
    await withIdentity(tdb.db, asB, async (c) => (await c.query(`update app_public.forms set name = 'stolen' where id = $1`, [form.rows[0].id])).rowCount),
    0,
  );
  const wrongMode = await t.throwsAsync(
    withIdentity(tdb.db, asALive, (c) =>
      c.query(`insert into app_public.forms (agency_id, mode, name, insurance_line) values ($1, 'test', 'x', 'renters')`, [ids.a]),
    ),
  );
  t.is((wrongMode as { code?: string }).code, '42501', 'a live identity cannot write test rows');
  const keysB = await withIdentity(tdb.db, { role: 'owner', agencyId: ids.b }, async (c) => (await c.query('select id from app_public.api_keys')).rowCount);
  t.is(keysB, 0);
  const hash = await t.throwsAsync(withIdentity(tdb.db, { role: 'owner', agencyId: ids.a }, (c) => c.query('select key_hash from app_public.api_keys')));
  t.is((hash as { code?: string }).code, '42501', 'key hashes are never readable by requests');
});
