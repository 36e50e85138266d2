// The cost of operators' instrumentation on GET /v2/forms/{id}: the same app built with request ids, the
// request log line and Prometheus HTTP metrics, and without them (the peer), in the same run over the same
// database, measured in alternating rounds so drift hits both alike.
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { Writable } from 'node:stream';
import { parseConfig } from '../lib/config.ts';
import { fileBlobStore } from '../lib/blobs.ts';
import { createLogger, setLogLevel, setLogStream } from '../lib/log.ts';
import { hashToken } from '../lib/secrets.ts';
import { withIdentity } from '../db/pool.ts';
import { createApp } from '../http/app.ts';
import { fmt, keepAliveAgent, load, type LoadResult, localPort, report, requestStatus, seedAgency } from './lib.ts';
import type { BenchContext } from './lib.ts';

export async function run(ctx: BenchContext): Promise<void> {
  setLogLevel('silent');
  const { db } = ctx;
  const cfg = parseConfig({ DATABASE_URL: ctx.url, DATA_DIR: ctx.dataDir, LOG_LEVEL: 'silent' });
  const { agencyId, agentId } = await seedAgency(db, 'bench-ops');
  const apiKey = 'svc_test_opsbenchkey0000000000000000000';
  await withIdentity(db, { role: 'owner', agencyId, agentId }, (c) =>
    c.query(`select app_public.create_api_key($1, 'bench', 'test', 'admin', $2, 'svc_test_opsb', '0000')`, [agencyId, hashToken(apiKey)]),
  );
  const deps = () => ({ db, cfg, log: createLogger(), blobs: fileBlobStore(path.join(ctx.dataDir, 'blobs')), secretKey: randomBytes(32) });
  const listen = async (instrument: boolean) => {
    const server = createApp(deps(), { instrument }).listen(0, '127.0.0.1');
    return { server, port: await localPort(server) };
  };
  const bare = await listen(false);
  const instrumented = await listen(true);
  const agent = keepAliveAgent();
  const call = (port: number, method: string, p: string, body?: string, headers: Record<string, string> = {}) =>
    requestStatus(agent, port, method, p, body, { authorization: `Bearer ${apiKey}`, ...headers });
  const created = await call(
    bare.port,
    'POST',
    '/v2/forms',
    JSON.stringify({ name: 'Bench form', owner: { type: 'agency', agency_id: agencyId }, insurance_line: 'personal_auto', template_id: 'auto' }),
    { 'idempotency-key': randomUUID() },
  );
  if (created !== 201) throw new Error(`form creation failed: ${created}`);
  const { rows } = await db.owner.query('select id from app_public.forms where agency_id = $1 order by id limit 1', [agencyId]);
  const get = (port: number) => async () => (await call(port, 'GET', `/v2/forms/${rows[0].id}`)) === 200;

  // The log line goes to a stream that drops it: the cost of building and writing it, not of a terminal.
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  const variants: Array<{ name: string; port: number; logs: boolean }> = [
    { name: 'peer: no request id, no log line, no metrics', port: bare.port, logs: false },
    { name: 'request id + metrics (log level warn)', port: instrumented.port, logs: false },
    { name: 'request id + metrics + info log line per request', port: instrumented.port, logs: true },
  ];
  const rounds = ctx.quick ? 2 : 4;
  const seconds = ctx.quick ? 1.5 : 3;
  const results = new Map<string, LoadResult[]>();
  for (const v of variants) await load(get(v.port), { concurrency: 8, seconds: 0.5 }); // warm-up
  for (let i = 0; i < rounds; i++) {
    for (const v of i % 2 ? [...variants].reverse() : variants) {
      setLogStream(sink);
      setLogLevel(v.logs ? 'info' : 'silent');
      const r = await load(get(v.port), { concurrency: 8, seconds });
      setLogLevel('silent');
      results.set(v.name, [...(results.get(v.name) ?? []), r]);
    }
  }
  const merged = (rs: LoadResult[]): LoadResult => {
    const requests = rs.reduce((n, r) => n + r.requests, 0);
    const secs = rs.reduce((n, r) => n + r.seconds, 0);
    return {
      requests,
      seconds: secs,
      perSecond: requests / secs,
      p50: median(rs.map((r) => r.p50)),
      p99: median(rs.map((r) => r.p99)),
      errors: rs.reduce((n, r) => n + r.errors, 0),
    };
  };
  const peer = merged(results.get(variants[0].name)!);
  for (const v of variants) {
    const r = merged(results.get(v.name)!);
    report(`GET /v2/forms/{id}, ${v.name} (8 conns, ${rounds}×${seconds}s)`, r);
    if (v !== variants[0])
      process.stdout.write(`  throughput cost vs peer: ${fmt((1 - r.perSecond / peer.perSecond) * 100)}%   p50 +${fmt(r.p50 - peer.p50, 3)} ms\n`);
  }
  bare.server.close();
  instrumented.server.close();
  agent.destroy();
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
