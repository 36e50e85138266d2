// One failing subscriber does not slow anyone else down: the latency (event written → receipt) of a healthy
// endpoint's deliveries, paced at 50 events/s, while another agency's endpoint has 1,000 deliveries failing
// (its receiver answers 503 after 100 ms, and every failure is retried a second later), beside the peer: the same
// paced deliveries with nothing else in the queue, measured in the same run. Alternating rounds (peer, then with
// the failing neighbour, twice) give the figures; the worker runs in this process with its send loop.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import path from 'node:path';
import { fileBlobStore } from '../lib/blobs.ts';
import { parseConfig } from '../lib/config.ts';
import { encryptSecret } from '../lib/crypto.ts';
import { createLogger, setLogLevel } from '../lib/log.ts';
import { closeDeliveryConnections } from '../pipelines/webhooks/deliver.ts';
import { sampleTopicPayload } from '../pipelines/webhooks/payloads.ts';
import { newSigningSecret } from '../pipelines/webhooks/sign.ts';
import { startWorker } from '../tasks/index.ts';
import { fmt, jsonReceiver, localPort, percentile, seedAgency } from './lib.ts';
import type { BenchContext } from './lib.ts';

const FAILING = 1000;
const PACE_PER_SECOND = 50;

export async function run(ctx: BenchContext): Promise<void> {
  setLogLevel('silent');
  const { db } = ctx;
  const healthyCount = ctx.quick ? 100 : 250;
  const arrivals = new Map<number, number>();
  let failed = 0;
  const { server: healthy, url: healthyUrl } = await jsonReceiver((body) => {
    const id = (body as { data: { submission_id: number } }).data.submission_id;
    if (!arrivals.has(id)) arrivals.set(id, performance.now());
  });
  const failing = http.createServer((req, res) => {
    req.resume();
    req.on('end', () =>
      setTimeout(() => {
        failed++;
        res.writeHead(503).end('busy');
      }, 100),
    );
  });
  const failingUrl = `http://127.0.0.1:${await localPort(failing.listen(0, '127.0.0.1'))}/hook`;

  const cfg = parseConfig({
    DATABASE_URL: ctx.url,
    DATA_DIR: ctx.dataDir,
    WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
    WEBHOOK_RETRY_SCHEDULE: '1',
    WEBHOOK_MAX_ATTEMPTS: '20',
    LOG_LEVEL: 'silent',
  });
  const secretKey = randomBytes(32);
  const endpoint = async (label: string, url: string) => {
    const { agencyId } = await seedAgency(db, label);
    await db.owner.query(
      `insert into app_public.webhook_endpoints (agency_id, kind, topic, staging_url, secret_ciphertext) values ($1, 'topic', 'form-submission', $2, $3)`,
      [agencyId, url, encryptSecret(secretKey, newSigningSecret())],
    );
    return agencyId;
  };
  const healthyAgency = await endpoint('bench-neighbour-healthy', healthyUrl);
  const failingAgency = await endpoint('bench-neighbour-failing', failingUrl);
  const log = createLogger();
  const runner = await startWorker(db.owner, {
    concurrency: 8,
    log,
    deps: { cfg, log, secretKey, blobs: fileBlobStore(path.join(ctx.dataDir, 'blobs')) },
    pollInterval: 200,
  });
  const sample = sampleTopicPayload('form-submission').data;
  const emit = (agencyId: number, ids: number[]) =>
    db.owner.query(`select app_private.emit_event($1, 'test', 'form-submission', null, x) from unnest($2::jsonb[]) x`, [
      agencyId,
      ids.map((i) => JSON.stringify({ ...sample, submission_id: i })),
    ]);
  let nextId = 1;

  /** `healthyCount` healthy events paced at PACE_PER_SECOND, each timed from its write to its receipt. */
  const paced = async (): Promise<number[]> => {
    const emitted = new Map<number, number>();
    for (let n = 0; n < healthyCount; n++) {
      const id = nextId++;
      emitted.set(id, performance.now());
      await emit(healthyAgency, [id]);
      const due = (n + 1) * (1000 / PACE_PER_SECOND) - (performance.now() - [...emitted.values()][0]);
      if (due > 0) await new Promise((r) => setTimeout(r, due));
    }
    const deadline = performance.now() + 30_000;
    while ([...emitted.keys()].some((id) => !arrivals.has(id)) && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const missing = [...emitted.keys()].filter((id) => !arrivals.has(id)).length;
    if (missing) throw new Error(`${missing} healthy deliveries did not arrive`);
    return [...emitted].map(([id, at]) => arrivals.get(id)! - at).sort((x, y) => x - y);
  };
  const line = (label: string, ms: number[], extra = '') =>
    process.stdout.write(`${label.padEnd(62)} p50 ${fmt(percentile(ms, 50), 1).padStart(7)} ms   p99 ${fmt(percentile(ms, 99), 1).padStart(7)} ms${extra}\n`);

  try {
    const p99s: Array<{ peer: number; neighbour: number }> = [];
    for (let round = 1; round <= 2; round++) {
      const peer = await paced();
      line(`round ${round} peer: healthy endpoint alone, ${PACE_PER_SECOND}/s`, peer);
      const failedBefore = failed;
      await emit(
        failingAgency,
        Array.from({ length: FAILING }, () => nextId++),
      );
      const withNeighbour = await paced();
      line(`round ${round}: the same beside ${FAILING} failing deliveries`, withNeighbour, `   (${failed - failedBefore} failed attempts meanwhile)`);
      const { rows } = await db.owner.query<{ fan_out: number; send: number }>(
        `select extract(epoch from d.created_at - e.created_at) * 1000 fan_out, extract(epoch from a.started_at - d.created_at) * 1000 send
           from app_public.webhook_deliveries d join app_public.events e on e.id = d.event_id
           join app_public.webhook_delivery_attempts a on a.delivery_id = d.id and a.attempt_number = 1
          where d.agency_id = $1 and d.created_at > now() - make_interval(secs => $2)`,
        [healthyAgency, healthyCount / PACE_PER_SECOND + 2],
      );
      const sorted = (k: 'fan_out' | 'send') => rows.map((r) => Number(r[k])).sort((x, y) => x - y);
      line('  event written → delivery created (fan-out)', sorted('fan_out'));
      line('  delivery created → attempt started (send loop)', sorted('send'));
      p99s.push({ peer: percentile(peer, 99), neighbour: percentile(withNeighbour, 99) });
      // The next peer round runs alone again: the neighbour's deliveries go (their retry jobs then end quietly).
      await db.owner.query('delete from app_public.webhook_deliveries where agency_id = $1', [failingAgency]);
      await new Promise((r) => setTimeout(r, 1500));
    }
    const worst = Math.max(...p99s.map((p) => p.neighbour - p.peer));
    process.stdout.write(`p99 added by the failing neighbour (worst round): ${fmt(worst, 1)} ms (target ≤ 100 ms)\n`);
  } finally {
    await runner.stop();
    closeDeliveryConnections();
    healthy.closeAllConnections();
    failing.closeAllConnections();
    healthy.close();
    failing.close();
  }
}
