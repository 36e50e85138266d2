// Documents, extractions and the client model (0006): agency B neither reads nor changes agency A's rows, and
// an API key sees only its own mode's rows (agent tokens, which have no mode, see both).
import test from 'ava';
import { withIdentity, type Identity } from '../../db/pool.ts';
import { hashToken } from '../../lib/secrets.ts';
import { testDatabase, type TestDatabase } from '../helpers/db.ts';

let tdb: TestDatabase;
const ids: Record<string, number> = {};
const tables = ['documents', 'extractions', 'clients', 'client_submissions', 'declaration_pages'] as const;

test.before(async () => {
  tdb = await testDatabase();
  const o = tdb.db.owner;
  const client = (await o.query(`insert into app_private.oauth_clients (client_id, name, secret_hash) values ('c', 'c', $1) returning id`, [hashToken('c')]))
    .rows[0].id;
  for (const agency of ['a', 'b']) {
    ids[agency] = (await o.query(`insert into app_public.agencies (oauth_client_id, name) values ($1, $2) returning id`, [client, agency])).rows[0].id;
    ids[`${agency}_agent`] = (
      await o.query(`insert into app_public.agents (agency_id, first_name, last_name, email, slug) values ($1, 'F', 'L', $2, $3) returning id`, [
        ids[agency],
        `${agency}@example.com`,
        `agent-${agency}`,
      ])
    ).rows[0].id;
    for (const mode of ['test', 'live']) {
      const doc = (
        await o.query(
          `insert into app_public.documents (agency_id, agent_id, mode, blob_key, filename, content_type, size_bytes, sha256)
         values ($1, $2, $3, 'documents/' || gen_random_uuid() || '.pdf', 'd.pdf', 'application/pdf', 10, repeat('a', 64)) returning id`,
          [ids[agency], ids[`${agency}_agent`], mode],
        )
      ).rows[0].id;
      const cl = (
        await o.query(`insert into app_public.clients (agency_id, agent_id, mode, last_name) values ($1, $2, $3, 'Smith') returning id`, [
          ids[agency],
          ids[`${agency}_agent`],
          mode,
        ])
      ).rows[0].id;
      const x = (
        await o.query(
          `insert into app_public.extractions (document_id, agency_id, agent_id, mode, entity_type) values ($1, $2, $3, $4, 'declaration_page') returning id`,
          [doc, ids[agency], ids[`${agency}_agent`], mode],
        )
      ).rows[0].id;
      const s = (
        await o.query(
          `insert into app_public.client_submissions (client_id, agency_id, agent_id, mode, extraction_id) values ($1, $2, $3, $4, $5) returning id`,
          [cl, ids[agency], ids[`${agency}_agent`], mode, x],
        )
      ).rows[0].id;
      await o.query(
        `insert into app_public.declaration_pages (submission_id, client_id, agency_id, mode, document_id, extraction_id, filename) values ($1, $2, $3, $4, $5, $6, 'd.pdf')`,
        [s, cl, ids[agency], mode, doc, x],
      );
    }
  }
});
test.after.always(async () => tdb?.drop());

const agentOf = (agency: 'a' | 'b'): Identity => ({ role: 'owner', agencyId: ids[agency], agentId: ids[`${agency}_agent`] });
const keyOf = (agency: 'a' | 'b', mode: 'test' | 'live'): Identity => ({ role: 'admin', agencyId: ids[agency], mode, apiKeyId: 1 });

for (const table of tables) {
  test(`${table}: agency B reads none of agency A's rows; a key sees only its mode`, async (t) => {
    const asAgent = await withIdentity(tdb.db, agentOf('b'), async (c) => (await c.query(`select agency_id, mode from app_public.${table}`)).rows);
    t.is(asAgent.length, 2, 'an agent token sees both modes of its agency');
    t.true(asAgent.every((r) => r.agency_id === ids.b));
    for (const mode of ['test', 'live'] as const) {
      const rows = await withIdentity(tdb.db, keyOf('b', mode), async (c) => (await c.query(`select agency_id, mode from app_public.${table}`)).rows);
      t.deepEqual(rows, [{ agency_id: ids.b, mode }]);
    }
    const none = await withIdentity(tdb.db, { role: 'agent' }, async (c) => (await c.query(`select 1 from app_public.${table}`)).rowCount);
    t.is(none, 0, 'without an agency nothing is visible');
  });

  test(`${table}: requests change no row directly (state functions only)`, async (t) => {
    for (const sql of [`update app_public.${table} set mode = 'live' where agency_id = $1`, `delete from app_public.${table} where agency_id = $1`]) {
      const err = await t.throwsAsync(withIdentity(tdb.db, agentOf('b'), (c) => c.query(sql, [ids.a])));
      t.is((err as { code?: string }).code, '42501', sql);
    }
  });
}

test('extraction status changes only through its state functions', async (t) => {
  const err = await t.throwsAsync(tdb.db.owner.query(`update app_public.extractions set status = 'completed' where agency_id = $1`, [ids.a]));
  t.is((err as { code?: string }).code, 'STATE');
});

test('start_extraction refuses another agency’s agent with NTFND and agent tokens (no mode) with FORBD', async (t) => {
  const start = (who: Identity, agent: number) =>
    withIdentity(tdb.db, who, (c) =>
      c.query(
        `select app_private.start_extraction($1, gen_random_uuid(), 'documents/' || gen_random_uuid() || '.pdf', 'p.pdf', 'application/pdf', 10, repeat('b', 64), 'declaration_page', null)`,
        [agent],
      ),
    );
  t.is(((await t.throwsAsync(start(keyOf('b', 'test'), ids.a_agent))) as { code?: string }).code, 'NTFND');
  t.is(((await t.throwsAsync(start(agentOf('a'), ids.a_agent))) as { code?: string }).code, 'FORBD');
  await t.notThrowsAsync(start(keyOf('a', 'test'), ids.a_agent));
});
