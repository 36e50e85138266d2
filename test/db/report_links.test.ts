// SQL of report links (0024), called as the request role: a link is made only for a completed analysis of the
// key's agency and mode, revoked only by that agency and mode, and what an unauthenticated request learns from a
// link id is whether it still works (ok, expired, revoked). Other agencies neither see nor change the rows.
import { randomUUID } from 'node:crypto';
import test from 'ava';
import { withIdentity, type Identity } from '../../db/pool.ts';
import type { TestDatabase } from '../helpers/db.ts';
import { sqlError, twoAgencies, type SeededAgency } from '../helpers/seed.ts';

let tdb: TestDatabase, a: SeededAgency, other: SeededAgency;
test.before(async () => {
  ({ tdb, a, b: other } = await twoAgencies('report'));
});
test.after.always(async () => tdb?.drop());

const doc = () => ({
  id: randomUUID(),
  blob_key: `documents/${randomUUID()}.pdf`,
  filename: 'x.pdf',
  content_type: 'application/pdf',
  size_bytes: 10,
  sha256: '0'.repeat(64),
});

async function analysis(who: Identity, completed: boolean): Promise<string> {
  const id = await withIdentity(tdb.db, who, (c) =>
    c.query<{ id: string }>('select app_private.start_analysis($1, $2, $3) as id', [doc(), doc(), '2026-03-10']).then((r) => r.rows[0].id),
  );
  if (completed) {
    await tdb.db.owner.query('select app_private.begin_analysis($1)', [id]);
    // The facts of both documents, as the chain's facts stage leaves them (complete_analysis needs them).
    await tdb.db.owner.query(`update app_public.analyses set lease_facts = '{}', insurance_facts = '{}' where id = $1`, [id]);
    await tdb.db.owner.query('select app_private.complete_analysis($1, $2)', [id, JSON.stringify({ summary: { status: 'compliant' } })]);
  }
  return id;
}

const create = (who: Identity, id: string, ttl = 600) =>
  withIdentity(tdb.db, who, (c) => c.query('select * from app_private.create_report_link($1, $2)', [id, ttl]).then((r) => r.rows[0]));
const revoke = (who: Identity, analysisId: string, linkId: string) =>
  withIdentity(tdb.db, who, (c) => c.query('select * from app_private.revoke_report_link($1, $2)', [analysisId, linkId]).then((r) => r.rows[0]));
const target = (linkId: string) =>
  withIdentity(tdb.db, { role: 'system' }, (c) =>
    c.query('select * from app_private.report_link_target($1) where analysis_id is not null', [linkId]).then((r) => r.rows[0]),
  );
const visible = (who: Identity) => withIdentity(tdb.db, who, (c) => c.query('select id from app_public.report_links').then((r) => r.rows.map((x) => x.id)));

test('a completed analysis gets a link of its agency and mode that works until it is revoked', async (t) => {
  const key = a.adminKey('test');
  const id = await analysis(key, true);
  const l = await create(key, id, 600);
  t.like(l, { analysis_id: id, agency_id: a.agencyId, mode: 'test', revoked_at: null });
  t.is(Math.round((l.expires_at.getTime() - Date.now()) / 1000 / 10), 60, 'expires after the given seconds');
  t.like(await target(l.id), { analysis_id: id, mode: 'test', state: 'ok' });
  t.true((await visible(key)).includes(l.id));
  t.false((await visible(other.adminKey('test'))).includes(l.id), 'another agency does not see it');
  t.false((await visible(a.adminKey('live'))).includes(l.id), 'the other mode does not see it');

  t.is((await sqlError(revoke(other.adminKey('test'), id, l.id))).code, 'NTFND', 'another agency cannot revoke it');
  t.is((await sqlError(revoke(a.adminKey('live'), id, l.id))).code, 'NTFND', 'nor a key of the other mode');
  t.like(await target(l.id), { state: 'ok' });
  const r = await revoke(key, id, l.id);
  t.truthy(r.revoked_at);
  const again = await revoke(key, id, l.id);
  t.deepEqual(again.revoked_at, r.revoked_at, 'revoking twice keeps the first instant');
  t.like(await target(l.id), { state: 'revoked' });
});

test('a link is refused for an unfinished analysis, another agency’s or mode’s, and without an API key', async (t) => {
  const key = a.adminKey('test');
  t.is((await sqlError(create(key, await analysis(key, false)))).code, 'RPTNC');
  const done = await analysis(key, true);
  t.is((await sqlError(create(other.adminKey('test'), done))).code, 'NTFND');
  t.is((await sqlError(create(a.adminKey('live'), done))).code, 'NTFND');
  t.is((await sqlError(create({ role: 'owner', agencyId: a.agencyId, agentId: a.ownerId }, done))).code, 'FORBD');
  t.is((await sqlError(create(key, randomUUID()))).code, 'NTFND');
});

test('an expired link reads as expired; an unknown one as nothing; the request role cannot write the table', async (t) => {
  const key = a.adminKey('test');
  const l = await create(key, await analysis(key, true));
  await tdb.db.owner.query(`update app_public.report_links set expires_at = created_at + interval '1 microsecond' where id = $1`, [l.id]);
  t.like(await target(l.id), { state: 'expired' });
  t.is(await target(randomUUID()), undefined);
  const e = await sqlError(withIdentity(tdb.db, key, (c) => c.query('update app_public.report_links set revoked_at = null where id = $1', [l.id])));
  t.is(e.code, '42501');
});
