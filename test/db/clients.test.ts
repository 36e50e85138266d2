// The clients model in SQL: the funnel list the API documents is the one SQL enforces, a plain agent's reads are
// narrowed to its own clients by RLS itself (not only by the routes), and the state columns refuse direct updates.
import test from 'ava';
import { withIdentity } from '../../db/pool.ts';
import { SALES_FUNNEL_MOVES, SALES_FUNNEL_STATUSES } from '../../http/schemas/clients.ts';
import { agencyWithAgents, extractFor } from '../helpers/clients.ts';
import { fileService } from '../helpers/server.ts';

const svc = fileService();

test('the sales-funnel statuses and moves of the API are exactly those SQL enforces', async (t) => {
  const s = await svc.tdb.db.owner.query<{ status: string }>('select status from app_private.sales_funnel_statuses order by position');
  t.deepEqual(
    s.rows.map((r) => r.status),
    [...SALES_FUNNEL_STATUSES],
  );
  const m = await svc.tdb.db.owner.query<{ from_status: string; to_status: string }>('select from_status, to_status from app_private.sales_funnel_moves');
  const sql = m.rows.map((r) => `${r.from_status}>${r.to_status}`).sort();
  const ts = Object.entries(SALES_FUNNEL_MOVES)
    .flatMap(([from, tos]) => tos.map((to) => `${from}>${to}`))
    .sort();
  t.deepEqual(sql, ts);
});

test('RLS: a plain agent reads only its own clients, submissions and pages; an admin and an API key read the agency’s', async (t) => {
  const a = await agencyWithAgents(svc, 2);
  const [pat, sam] = a.agents;
  const mine = await extractFor(svc, a.agencyId, pat.id);
  const theirs = await extractFor(svc, a.agencyId, sam.id);
  const count = (who: Parameters<typeof withIdentity>[1]) =>
    withIdentity(svc.tdb.db, who, async (c) => {
      const n = async (table: string) =>
        (
          await c.query(`select count(*)::int n from app_public.${table} where ${table === 'clients' ? 'id' : 'client_id'} = any($1)`, [
            [mine.clientId, theirs.clientId],
          ])
        ).rows[0].n as number;
      return { clients: await n('clients'), submissions: await n('client_submissions'), pages: await n('declaration_pages') };
    });
  t.deepEqual(await count({ role: 'agent', agencyId: a.agencyId, agentId: pat.id }), { clients: 1, submissions: 1, pages: 1 });
  t.deepEqual(await count({ role: 'admin', agencyId: a.agencyId, agentId: a.ownerId }), { clients: 2, submissions: 2, pages: 2 });
  t.deepEqual(await count({ role: 'admin', agencyId: a.agencyId, mode: 'live', apiKeyId: 1 }), { clients: 2, submissions: 2, pages: 2 });
  t.deepEqual(
    await count({ role: 'admin', agencyId: a.agencyId, mode: 'test', apiKeyId: 1 }),
    { clients: 0, submissions: 0, pages: 0 },
    'a test key sees no live client',
  );
  const b = await agencyWithAgents(svc, 0);
  t.deepEqual(await count({ role: 'owner', agencyId: b.agencyId, agentId: b.ownerId }), { clients: 0, submissions: 0, pages: 0 });
});

test('the funnel status and the agent of a client change only through their state functions', async (t) => {
  const a = await agencyWithAgents(svc, 2);
  const x = await extractFor(svc, a.agencyId, a.agents[0].id);
  for (const sql of [
    `update app_public.clients set sales_funnel_status = 'lost' where id = $1`,
    `update app_public.clients set agent_id = ${a.agents[1].id} where id = $1`,
  ]) {
    const err = await t.throwsAsync(svc.tdb.db.owner.query(sql, [x.clientId]));
    t.is((err as { code?: string }).code, 'STATE');
  }
  const row = await svc.tdb.db.owner.query('select sales_funnel_status from app_public.clients where id = $1', [x.clientId]);
  t.is(row.rows[0].sales_funnel_status, 'new', 'clients made by extractions start as new');
  const direct = await t.throwsAsync(
    withIdentity(svc.tdb.db, { role: 'agent', agencyId: a.agencyId, agentId: a.agents[0].id }, (c) =>
      c.query(`update app_public.clients set first_name = 'X' where id = $1`, [x.clientId]),
    ),
  );
  t.is((direct as { code?: string }).code, '42501', 'requests change clients only through the functions');
});
