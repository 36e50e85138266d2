// Submissions, uploads and embed origins: agency B (and agency A in the other mode) can neither read nor
// change agency A's rows; requests write them only through the state functions.
import test from 'ava';
import { withIdentity, type Identity } from '../../db/pool.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { twoAgencies } from '../helpers/seed.ts';

let tdb: TestDatabase;
const ids: Record<string, number> = {};

test.before(async () => {
  const seeded = await twoAgencies('rls-sub');
  tdb = seeded.tdb;
  Object.assign(ids, { a: seeded.a.agencyId, b: seeded.b.agencyId, a_agent: seeded.a.ownerId, b_agent: seeded.b.ownerId });
  const o = tdb.db.owner;
  const form = await o.query(`insert into app_public.forms (agency_id, mode, name, insurance_line) values ($1, 'test', 'A form', 'renters') returning id`, [
    ids.a,
  ]);
  ids.form = form.rows[0].id;
  await withIdentity(tdb.db, { role: 'admin', agencyId: ids.a, mode: 'test' }, (c) => c.query('select app_public.publish_form($1)', [ids.form]));
  ids.snapshot = (await o.query('select live_snapshot_id from app_public.forms where id = $1', [ids.form])).rows[0].live_snapshot_id;
  await withIdentity(tdb.db, { role: 'system' }, async (c) => {
    const up = await c.query(`select app_private.record_upload($1, $2, 'q', 'uploads/${'a'.repeat(64)}.pdf', 'a.pdf', 'application/pdf', 10) as id`, [
      ids.form,
      ids.a_agent,
    ]);
    await c.query(`select app_private.create_submission($1, $2, $3, '[]', null, '{}', '{}', $4::uuid[])`, [
      ids.form,
      ids.snapshot,
      ids.a_agent,
      [up.rows[0].id],
    ]);
  });
  await withIdentity(tdb.db, { role: 'admin', agencyId: ids.a, mode: 'test' }, (c) =>
    c.query(`select app_public.set_embed_origins(array['https://a.example'])`),
  );
});
test.after.always(async () => tdb?.drop());

const asATest: Identity = { role: 'admin', agencyId: 0, mode: 'test' };

for (const table of ['submissions', 'submission_uploads', 'embed_origins']) {
  test(`${table}: agency B and agency A's live mode read none of A's test rows; A's test key reads them`, async (t) => {
    const count = (who: Identity) => withIdentity(tdb.db, who, async (c) => (await c.query(`select 1 from app_public.${table}`)).rowCount);
    t.is(await count({ role: 'admin', agencyId: ids.b, mode: 'test' }), 0);
    if (table !== 'embed_origins') t.is(await count({ role: 'admin', agencyId: ids.a, mode: 'live' }), 0, 'mode isolation');
    t.is(await count({ ...asATest, agencyId: ids.a }), 1);
    t.is(await count({ role: 'system' }), 0, 'an anonymous consumer reads nothing directly');
  });

  test(`${table}: no request, not even agency A's admin, inserts, updates or deletes rows directly`, async (t) => {
    for (const sql of [`delete from app_public.${table}`, `update app_public.${table} set agency_id = $1`]) {
      const err = await t.throwsAsync(withIdentity(tdb.db, { ...asATest, agencyId: ids.a }, (c) => c.query(sql, sql.includes('$1') ? [ids.b] : [])));
      t.is((err as { code?: string }).code, '42501', sql);
    }
  });
}

test('state functions refuse what the consumer may not do', async (t) => {
  const code = async (sql: string, values: unknown[]) =>
    ((await t.throwsAsync(withIdentity(tdb.db, { role: 'system' }, (c) => c.query(sql, values)))) as { code?: string }).code;
  t.is(
    await code(`select app_private.create_submission($1, $2, $3, '[]', null, '{}', '{}', '{}')`, [ids.form, ids.snapshot, ids.b_agent]),
    'NTFND',
    'an agent of another agency',
  );
  const other = await tdb.db.owner.query(
    `insert into app_public.forms (agency_id, mode, name, insurance_line) values ($1, 'test', 'Other', 'renters') returning id`,
    [ids.a],
  );
  await withIdentity(tdb.db, { role: 'admin', agencyId: ids.a, mode: 'test' }, (c) => c.query('select app_public.publish_form($1)', [other.rows[0].id]));
  t.is(
    await code(`select app_private.create_submission($1, $2, $3, '[]', null, '{}', '{}', '{}')`, [other.rows[0].id, ids.snapshot, ids.a_agent]),
    'SNAPS',
    'a snapshot of another form',
  );
  const used = (await tdb.db.owner.query('select public_id from app_public.submission_uploads limit 1')).rows[0].public_id;
  t.is(
    await code(`select app_private.create_submission($1, $2, $3, '[]', null, '{}', '{}', $4::uuid[])`, [ids.form, ids.snapshot, ids.a_agent, [used]]),
    'UPLDU',
    'an upload already used',
  );
  t.is(await code(`select app_public.set_embed_origins(array['https://b.example'])`, []), 'FORBD', 'embed origins need an admin of an agency');
  const direct = await t.throwsAsync(withIdentity(tdb.db, { role: 'system' }, (c) => c.query(`select app_private.complete_submission(1, null, '[]', '{}')`)));
  t.is((direct as { code?: string }).code, '42501', 'only the worker completes a submission');
});
