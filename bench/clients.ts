// Clients API: GET /v1/agents/{id}/clients over HTTP for a plain agent (own clients, narrowed by the restrictive RLS
// policy) and for the owner (admin), with and without a search filter, among many clients of other agents and
// agencies; the peer in the same run is GET /v1/agencies/{id} (one-row read, same auth and transaction path).
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseConfig } from '../lib/config.ts';
import { fileBlobStore } from '../lib/blobs.ts';
import { createLogger, setLogLevel } from '../lib/log.ts';
import { hashToken } from '../lib/secrets.ts';
import { withIdentity } from '../db/pool.ts';
import { createApp } from '../http/app.ts';
import { keepAliveAgent, load, localPort, report, requestStatus, seedAgency } from './lib.ts';
import type { BenchContext } from './lib.ts';

export async function run(ctx: BenchContext): Promise<void> {
  setLogLevel('silent');
  const { db } = ctx;
  const cfg = parseConfig({ DATABASE_URL: ctx.url, DATA_DIR: ctx.dataDir, RATE_LIMIT_V1_PER_WINDOW: '100000', LOG_LEVEL: 'silent' });
  const { oauthClientId, agencyId, agentId: ownerId, agentToken: ownerToken } = await seedAgency(db, 'bench-clients');
  const plainToken = 'agt_bench-clients-plain';
  const plain = await withIdentity(db, { role: 'oauth_client', oauthClientId }, (c) =>
    c.query<{ id: number }>(`select id from app_public.create_agent($1, 'Pat', 'Plain', 'pat@bench.example', 'bench-clients-plain', null, false, null, $2)`, [
      agencyId,
      hashToken(plainToken),
    ]),
  );
  const plainId = plain.rows[0].id;
  const perAgent = ctx.quick ? 2_000 : 10_000;
  // Bulk seed (a benchmark fixture, not product data): the plain agent's clients, as many for the owner, and
  // twice as many in another agency, so both RLS policies have rows to exclude.
  const other = await seedAgency(db, 'bench-clients-other');
  const seed = (agency: number, agent: number, n: number) =>
    db.owner.query(
      `insert into app_public.clients (agency_id, agent_id, mode, first_name, last_name, email, sales_funnel_status, updated_at)
       select $1, $2::bigint, 'live', 'First' || i, 'Last' || (i % 997), 'c' || $2::bigint || '-' || i || '@bench.example',
              (array['new','contacted','quoted','bound','lost'])[1 + i % 5], now() - make_interval(secs => i)
         from generate_series(1, $3) i`,
      [agency, agent, n],
    );
  await seed(agencyId, plainId, perAgent);
  await seed(agencyId, ownerId, perAgent);
  await seed(other.agencyId, other.agentId, perAgent * 2);
  await db.owner.query('analyze app_public.clients');

  const app = createApp({ db, cfg, log: createLogger(), blobs: fileBlobStore(path.join(ctx.dataDir, 'blobs')), secretKey: randomBytes(32) });
  const server = app.listen(0, '127.0.0.1');
  const port = await localPort(server);
  const agent = keepAliveAgent();
  const get = (p: string, token: string) => async () => (await requestStatus(agent, port, 'GET', p, undefined, { authorization: `Bearer ${token}` })) === 200;

  const seconds = ctx.quick ? 2 : 6;
  const cases: Array<[string, () => Promise<boolean>]> = [
    ['peer: GET /v1/agencies/{id} (plain agent)', get(`/v1/agencies/${agencyId}`, plainToken)],
    [`GET …/clients page 1 of ${perAgent} (plain agent, own)`, get(`/v1/agents/${plainId}/clients`, plainToken)],
    [`GET …/clients page 1 of ${perAgent} (owner, another agent's)`, get(`/v1/agents/${plainId}/clients`, ownerToken)],
    ['GET …/clients?search=last42 (plain agent)', get(`/v1/agents/${plainId}/clients?search=last42`, plainToken)],
    ['GET …/clients?sales_funnel_status=quoted&page=50', get(`/v1/agents/${plainId}/clients?sales_funnel_status=quoted&page=50`, plainToken)],
  ];
  await load(cases[0][1], { concurrency: 4, seconds: 1 }); // warm-up
  for (const [name, op] of cases) report(name, await load(op, { concurrency: 4, seconds }));
  server.close();
  agent.destroy();
}
