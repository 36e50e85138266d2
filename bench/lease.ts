// Lease checker: POST /api/analyze latency p50/p99 over HTTP (server + worker chain, in one process here) for a
// text pair and a scanned pair, beside the peer measured in the same run: the extraction engine of
// `svc extract` reading the same two files in process (and the checker's own in-process path, `svc analyze`).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseConfig } from '../lib/config.ts';
import { fileBlobStore } from '../lib/blobs.ts';
import { createLogger, setLogLevel } from '../lib/log.ts';
import { createApp } from '../http/app.ts';
import { startWorker } from '../tasks/index.ts';
import { extractDocument } from '../pipelines/extraction/index.ts';
import { analyzePair } from '../pipelines/lease/index.ts';
import { closeDocumentPools } from '../pipelines/documents/index.ts';
import { fmt, percentile, seedAgency } from './lib.ts';
import type { BenchContext } from './lib.ts';

const dir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../fixtures/lease');
const file = (f: string) => new Uint8Array(fs.readFileSync(path.join(dir, f)));

async function timed(n: number, op: () => Promise<unknown>): Promise<{ p50: number; p99: number; n: number }> {
  const ms: number[] = [];
  for (let i = 0; i < n; i++) {
    const t0 = performance.now();
    await op();
    ms.push(performance.now() - t0);
  }
  ms.sort((a, b) => a - b);
  return { p50: percentile(ms, 50), p99: percentile(ms, 99), n };
}

const line = (name: string, r: { p50: number; p99: number; n: number }) =>
  process.stdout.write(`${name.padEnd(62)} p50 ${fmt(r.p50, 0).padStart(6)} ms   p99 ${fmt(r.p99, 0).padStart(6)} ms   (n=${r.n})\n`);

export async function run(ctx: BenchContext): Promise<void> {
  setLogLevel('silent');
  const cfg = parseConfig({ DATABASE_URL: ctx.url, DATA_DIR: ctx.dataDir, LOG_LEVEL: 'silent', WORKER_CONCURRENCY: '2' });
  const log = createLogger();
  const blobs = fileBlobStore(path.join(ctx.dataDir, 'blobs'));
  const secretKey = randomBytes(32);
  const app = createApp({ db: ctx.db, cfg, log, blobs, secretKey });
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const runner = await startWorker(ctx.db.owner, { concurrency: 2, log, deps: { cfg, log, secretKey, blobs } });
  try {
    const seed = await seedAgency(ctx.db, 'bench-lease');
    const tok = await fetch(`${base}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ grant_type: 'client_credentials', client_id: 'oc_bench-lease', client_secret: 'secret-bench-lease' }),
    });
    const oauth = ((await tok.json()) as { access_token: string }).access_token;
    await fetch(`${base}/v1/agencies/${seed.agencyId}/plan`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${oauth}`, 'content-type': 'application/json' },
      body: JSON.stringify({ plan: 'enterprise', per_minute: 100000, per_day: 1000000 }),
    });
    const k = await fetch(`${base}/v1/agencies/${seed.agencyId}/api-keys`, {
      method: 'POST',
      headers: { authorization: `Bearer ${seed.agentToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'bench', mode: 'test', permissions: 'admin' }),
    });
    const key = ((await k.json()) as { data: { key: string } }).data.key;

    const pairs = [
      {
        label: 'text pair (3-page lease PDF + certificate PDF)',
        lease: 'com_compliant.lease.pdf',
        insurance: 'com_compliant.insurance.pdf',
        asOf: '2026-03-10',
        n: ctx.quick ? 10 : 40,
      },
      {
        label: 'scanned pair (scanned lease PDF + declarations PDF)',
        lease: 'res_scanned_lease.lease.pdf',
        insurance: 'res_scanned_lease.insurance.pdf',
        asOf: '2026-02-15',
        n: ctx.quick ? 2 : 6,
      },
    ];
    for (const p of pairs) {
      const lease = file(p.lease);
      const insurance = file(p.insurance);
      const post = async () => {
        const form = new FormData();
        form.append('lease', new Blob([lease], { type: 'application/pdf' }), p.lease);
        form.append('insurance', new Blob([insurance], { type: 'application/pdf' }), p.insurance);
        form.append('as_of', p.asOf);
        const r = await fetch(`${base}/api/analyze`, { method: 'POST', headers: { 'x-api-key': key }, body: form });
        const body = (await r.json()) as { id: string; status: string };
        if (r.status === 202) {
          // Past the deadline (a loaded machine): the time until GET shows the result counts.
          for (;;) {
            await new Promise((res) => setTimeout(res, 50));
            const g = (await (await fetch(`${base}/api/analyses/${body.id}`, { headers: { 'x-api-key': key } })).json()) as { status: string };
            if (g.status === 'completed') return;
            if (g.status === 'failed') throw new Error('analysis failed');
          }
        }
        if (r.status !== 200) throw new Error(`POST /api/analyze: ${r.status}`);
      };
      await post(); // warm-up: pools, prepared statements, OCR workers
      process.stdout.write(`\n${p.label}\n`);
      line('  POST /api/analyze over HTTP (server + task chain)', await timed(p.n, post));
      line('  peer: svc extract engine, both files in process', await timed(p.n, () => Promise.all([extractDocument(lease), extractDocument(insurance)])));
      line('  svc analyze path, in process (no HTTP, no queue)', await timed(p.n, () => analyzePair(lease, insurance, { asOf: p.asOf })));
    }
  } finally {
    await runner.stop();
    server.close();
    server.closeAllConnections();
    await closeDocumentPools();
  }
}
