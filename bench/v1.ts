// Provisioning API: GET /v1/agencies/{id} with an agent token over HTTP, and the cost of RLS measured
// against the same lookup with an explicit filter and no RLS, in the same run.
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { parseConfig } from '../lib/config.ts';
import { fileBlobStore } from '../lib/blobs.ts';
import { createLogger, setLogLevel } from '../lib/log.ts';
import { hashToken } from '../lib/secrets.ts';
import { setIdentity, withIdentity } from '../db/pool.ts';
import { createApp } from '../http/app.ts';
import { fmt, keepAliveAgent, load, localPort, report, requestStatus, seedAgency } from './lib.ts';
import type { BenchContext } from './lib.ts';

export async function run(ctx: BenchContext): Promise<void> {
  setLogLevel('silent');
  const { db } = ctx;
  const cfg = parseConfig({ DATABASE_URL: ctx.url, DATA_DIR: ctx.dataDir, RATE_LIMIT_V1_PER_WINDOW: '100000', LOG_LEVEL: 'silent' });
  const { oauthClientId, agencyId, agentId, agentToken: token } = await seedAgency(db, 'bench-v1');
  // Other tenants, so RLS has rows to exclude.
  for (let i = 0; i < 200; i++) {
    await withIdentity(db, { role: 'oauth_client', oauthClientId }, (c) =>
      c.query(`select app_public.create_agency($1, null, 'A', 'B', $2, $3, $4)`, [`Other ${i}`, `o${i}@example.com`, `other-${i}`, hashToken(`t${i}`)]),
    );
  }

  const app = createApp({ db, cfg, log: createLogger(), blobs: fileBlobStore(path.join(ctx.dataDir, 'blobs')), secretKey: randomBytes(32) });
  const server = app.listen(0, '127.0.0.1');
  const port = await localPort(server);
  const agent = keepAliveAgent();
  const get = async () => (await requestStatus(agent, port, 'GET', `/v1/agencies/${agencyId}`, undefined, { authorization: `Bearer ${token}` })) === 200;

  const seconds = ctx.quick ? 2 : 8;
  await load(get, { concurrency: 8, seconds: 1 }); // warm-up
  report('GET /v1/agencies/{id} (agent token, HTTP, 8 conns)', await load(get, { concurrency: 8, seconds }));
  server.close();
  agent.destroy();

  // The same transaction shape both ways: begin → identity → lookup → commit.
  const identity = { role: 'owner' as const, agencyId, agentId };
  const rlsLookup = async () => {
    const c = await db.request.connect();
    try {
      await c.query('begin');
      await setIdentity(db, c, identity);
      const r = await c.query({ name: 'bench_rls', text: 'select id, name, color_code, logo_key from app_public.agencies where id = $1', values: [agencyId] });
      await c.query('commit');
      return r.rowCount === 1;
    } finally {
      c.release();
    }
  };
  const explicitLookup = async () => {
    const c = await db.request.connect();
    try {
      await c.query('begin');
      // The same statement, prepared the same way, as setIdentity; only the role switch and so the policy are missing.
      await c.query({
        name: 'bench_plain_identity',
        text: `select set_config('svc.role', $1, true), set_config('svc.oauth_client_id', $2, true), set_config('svc.agency_id', $3, true),
          set_config('svc.agent_id', $4, true), set_config('svc.mode', $5, true), set_config('svc.api_key_id', $6, true),
          set_config('svc.request_id', $7, true)`,
        values: ['owner', '', String(agencyId), String(agentId), '', '', ''],
      });
      const r = await c.query({
        name: 'bench_plain',
        text: 'select id, name, color_code, logo_key from app_public.agencies where id = $1 and id = $2',
        values: [agencyId, agencyId],
      });
      await c.query('commit');
      return r.rowCount === 1;
    } finally {
      c.release();
    }
  };
  // The figure: at least five rounds (seven), each interleaving the two lookups on the same connections (every
  // loop runs one of each in turn, which one first alternating), so both see the same load from the other
  // tenants of the machine; a round's overhead is the ratio of the mean transaction times, the result their
  // median. Throughput of each alone, in alternating blocks as before, is printed beside it.
  const rounds = ctx.quick ? 5 : 7;
  const perRound = ctx.quick ? 400 : 1500;
  const overheads: number[] = [];
  for (let i = 0; i < rounds; i++) {
    const spent = { rls: 0, plain: 0 };
    let done = 0;
    await Promise.all(
      Array.from({ length: 4 }, async (_, k) => {
        for (let j = 0; done < perRound; j++, done++) {
          const order = (i + j + k) % 2 === 0 ? (['rls', 'plain'] as const) : (['plain', 'rls'] as const);
          for (const which of order) {
            const t0 = performance.now();
            const ok = await (which === 'rls' ? rlsLookup() : explicitLookup());
            spent[which] += performance.now() - t0;
            if (!ok) throw new Error(`${which} lookup found no row`);
          }
        }
      }),
    );
    overheads.push((spent.rls / spent.plain - 1) * 100);
  }
  const blocks = ctx.quick ? 1 : 2;
  for (let i = 0; i < blocks; i++) {
    const x = await load(i % 2 === 0 ? rlsLookup : explicitLookup, { concurrency: 4, seconds: seconds / 4 });
    const y = await load(i % 2 === 0 ? explicitLookup : rlsLookup, { concurrency: 4, seconds: seconds / 4 });
    if (i === blocks - 1) {
      const [a, b] = i % 2 === 0 ? [x, y] : [y, x];
      report('agency lookup, RLS as svc_request (SQL, 4 conns)', a);
      report('agency lookup, explicit filter, no RLS (owner, SQL, 4 conns)', b);
    }
  }
  const sorted = [...overheads].sort((p, q) => p - q);
  const median = sorted.length % 2 ? sorted[(sorted.length - 1) / 2] : (sorted[sorted.length / 2 - 1] + sorted[sorted.length / 2]) / 2;
  process.stdout.write(`RLS cost per round (interleaved, mean transaction time): ${overheads.map((o) => `${fmt(o)}%`).join(', ')}\n`);
  process.stdout.write(`RLS cost: median ${fmt(median)}% slower than the explicit filter over ${rounds} interleaved rounds (target ≤ 5%)\n`);
}
