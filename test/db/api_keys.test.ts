// The API key state functions tested as SQL: created, rolled and revoked by the agency's admin agents.
import test from 'ava';
import { hashToken } from '../../lib/secrets.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { as, sqlError, twoAgencies, type SeededAgency } from '../helpers/seed.ts';

let tdb: TestDatabase, a: SeededAgency, b: SeededAgency;
test.before(async () => {
  ({ tdb, a, b } = await twoAgencies('keys'));
});
test.after.always(async () => tdb?.drop());

const create = (name: string, who = a.owner, agencyId = a.agencyId) =>
  as(
    tdb,
    who,
    `select id, name, mode, permissions, prefix, last_four, expires_at, revoked_at from app_public.create_api_key($1, $2, 'test', 'admin', $3, 'svc_test_abcd', 'wxyz')`,
    [agencyId, name, hashToken(name)],
  );

test('create_api_key stores the hash for the caller’s agency; other agencies get NTFND, plain agents FORBD', async (t) => {
  const { rows } = await create('first');
  t.like(rows[0], { name: 'first', mode: 'test', permissions: 'admin', prefix: 'svc_test_abcd', last_four: 'wxyz', expires_at: null, revoked_at: null });
  const stored = await tdb.db.owner.query('select key_hash, created_by_agent_id from app_public.api_keys where id = $1', [rows[0].id]);
  t.deepEqual(stored.rows[0], { key_hash: hashToken('first'), created_by_agent_id: a.ownerId });
  t.is((await sqlError(create('elsewhere', b.owner, a.agencyId))).code, 'NTFND');
  t.is((await sqlError(create('plain', { role: 'agent', agencyId: a.agencyId, agentId: a.ownerId }))).code, 'FORBD');
});

test('roll_api_key replaces a key and limits the old one to the grace period; a revoked key is KEYRV', async (t) => {
  const old = (await create('rolled')).rows[0];
  const fresh = await as(tdb, a.owner, `select id, name from app_public.roll_api_key($1, $2, 60, $3, 'svc_test_efgh', 'stuv')`, [
    a.agencyId,
    old.id,
    hashToken('rolled-2'),
  ]);
  t.is(fresh.rows[0].name, 'rolled');
  const after = await tdb.db.owner.query(
    `select replaced_by_id, expires_at > now() + interval '50 seconds' and expires_at <= now() + interval '60 seconds' as in_grace from app_public.api_keys where id = $1`,
    [old.id],
  );
  t.deepEqual(after.rows[0], { replaced_by_id: fresh.rows[0].id, in_grace: true });

  const revoked = (await create('revoked')).rows[0];
  await as(tdb, a.owner, 'select app_public.revoke_api_key($1, $2)', [a.agencyId, revoked.id]);
  await as(tdb, a.owner, 'select app_public.revoke_api_key($1, $2)', [a.agencyId, revoked.id]); // idempotent
  const err = await sqlError(as(tdb, a.owner, `select app_public.roll_api_key($1, $2, 0, $3, 'p', 'l4l4')`, [a.agencyId, revoked.id, hashToken('x')]));
  t.is(err.code, 'KEYRV');
});

test('authenticate_api_key resolves only live keys of active agencies', async (t) => {
  const k = (await create('auth')).rows[0];
  const who = await tdb.db.owner.query('select api_key_id, agency_id, mode, permissions from app_private.authenticate_api_key($1)', [hashToken('auth')]);
  t.deepEqual(who.rows, [{ api_key_id: k.id, agency_id: a.agencyId, mode: 'test', permissions: 'admin' }]);
  await as(tdb, a.owner, 'select app_public.revoke_api_key($1, $2)', [a.agencyId, k.id]);
  t.is((await tdb.db.owner.query('select * from app_private.authenticate_api_key($1)', [hashToken('auth')])).rowCount, 0);
});
