// Webhooks: sustained deliveries/s through the whole path (outbox event → fan-out job → delivery job →
// signed POST → attempt logged) to a local receiver, event-to-receipt latency, and as the peer the same
// signed POSTs sent by deliver() alone, with no queue or database, in the same run.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileBlobStore } from '../lib/blobs.ts';
import { parseConfig } from '../lib/config.ts';
import { encryptSecret } from '../lib/crypto.ts';
import { createLogger, setLogLevel } from '../lib/log.ts';
import { deliver } from '../pipelines/webhooks/deliver.ts';
import { sampleTopicPayload } from '../pipelines/webhooks/payloads.ts';
import { newSigningSecret } from '../pipelines/webhooks/sign.ts';
import { startWorker } from '../tasks/index.ts';
import { fmt, percentile, seedAgency } from './lib.ts';
import type { BenchContext } from './run.ts';

export async function run(ctx: BenchContext): Promise<void> {
  setLogLevel('silent');
  const { db } = ctx;
  const events = ctx.quick ? 200 : 1000;
  const arrivals = new Map<number, number>();
  let onArrival = () => {};
  const receiver = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { data: { submission_id: number } }).data.submission_id;
      if (!arrivals.has(id)) arrivals.set(id, performance.now());
      res.writeHead(204).end();
      onArrival();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;

  const cfg = parseConfig({ DATABASE_URL: ctx.url, DATA_DIR: ctx.dataDir, WEBHOOK_ALLOW_HOSTS: '127.0.0.1', LOG_LEVEL: 'silent' });
  const secretKey = randomBytes(32);
  const { agencyId } = await seedAgency(db, 'bench-hooks');
  const secret = newSigningSecret();
  await db.owner.query(
    `insert into app_public.webhook_endpoints (agency_id, kind, topic, staging_url, secret_ciphertext) values ($1, 'topic', 'form-submission', $2, $3)`,
    [agencyId, url, encryptSecret(secretKey, secret)],
  );
  const log = createLogger();
  const runner = await startWorker(db.owner, { concurrency: 8, log, deps: { cfg, log, secretKey, blobs: fileBlobStore(path.join(ctx.dataDir, 'blobs')) }, pollInterval: 1000 });
  const sample = sampleTopicPayload('form-submission').data;

  const emitted = new Map<number, number>();
  const done = new Promise<void>((resolve) => {
    onArrival = () => {
      if (arrivals.size >= events) resolve();
    };
  });
  const started = performance.now();
  for (let i = 1; i <= events; i++) {
    emitted.set(i, performance.now());
    await db.owner.query(`select app_private.emit_event($1, 'test', 'form-submission', null, $2)`, [agencyId, JSON.stringify({ ...sample, submission_id: i })]);
  }
  await done;
  const seconds = (performance.now() - started) / 1000;
  await runner.stop();
  const latencies = [...arrivals].map(([id, at]) => at - emitted.get(id)!).sort((a, b) => a - b);
  const logged = await db.owner.query(`select count(*)::int as n from app_public.webhook_delivery_attempts where agency_id = $1`, [agencyId]);
  process.stdout.write(
    `${`outbox → worker → signed POST (${events} events, concurrency 8)`.padEnd(58)} ${fmt(events / seconds, 0).padStart(8)} deliveries/s   event→receipt p50 ${fmt(percentile(latencies, 50), 1)} ms   p99 ${fmt(percentile(latencies, 99), 1)} ms   attempts logged ${logged.rows[0].n}\n`,
  );

  // Peer: the same signed POSTs with no queue and no database.
  const body = JSON.stringify({ topic: 'form-submission', data: sample });
  const peerStarted = performance.now();
  let next = 0;
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < events) {
        next++;
        await deliver({ url, body, secret, webhookId: `msg_${next}` }, { allowHosts: ['127.0.0.1'] });
      }
    }),
  );
  const peerRate = events / ((performance.now() - peerStarted) / 1000);
  process.stdout.write(`${'peer: deliver() alone, no queue or database (concurrency 8)'.padEnd(58)} ${fmt(peerRate, 0).padStart(8)} deliveries/s\n`);
  process.stdout.write(`the durable path runs at ${fmt((events / seconds / peerRate) * 100)}% of the bare HTTP rate\n`);
  receiver.close();
}
