// Webhooks: sustained deliveries/s through the whole path (outbox event → the worker's outbox poller fans it out →
// its send loop claims the delivery → signed POST → attempt logged) to a local receiver, event-to-receipt
// latency, and as the peer the same signed POSTs sent by deliver() alone, with no queue or database, in the same
// run. The worker runs in a process of its own, as `svc worker` does (`--inline-worker`: in the bench's process,
// beside the writers and the receiver); the worker's and Postgres's CPU time per delivery are printed beside
// the rates, since other load on the machine moves rates much more than it moves costs. Alternating rounds (the
// durable path, then both peers, five times) give the medians to read against the targets.
import { fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import pg from 'pg';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileBlobStore } from '../lib/blobs.ts';
import { parseConfig, type Config } from '../lib/config.ts';
import { encryptSecret } from '../lib/crypto.ts';
import { createLogger, setLogLevel, type Logger } from '../lib/log.ts';
import { closeDeliveryConnections, deliver } from '../pipelines/webhooks/deliver.ts';
import { sampleTopicPayload } from '../pipelines/webhooks/payloads.ts';
import { newSigningSecret } from '../pipelines/webhooks/sign.ts';
import { startWorker } from '../tasks/index.ts';
import { fmt, jsonReceiver, percentile, seedAgency } from './lib.ts';
import type { BenchContext } from './lib.ts';

// What the database did: commits, WAL bytes, WAL flushes (Postgres 18 counts these in pg_stat_io).
async function dbStats(db: BenchContext['db']) {
  return (
    await db.owner.query<{ commits: string; wal_bytes: string; fpi: string; syncs: string }>(
      `select (select xact_commit from pg_stat_database where datname = current_database()) commits, (select wal_bytes from pg_stat_wal) wal_bytes,
              (select wal_fpi from pg_stat_wal) fpi,
              (select sum(fsyncs) from pg_stat_io where object = 'wal') syncs`,
    )
  ).rows[0];
}

/** What the database did per item between two dbStats() (counters are flushed every 500 ms: wait for them). */
async function perItem(db: BenchContext['db'], before: Awaited<ReturnType<typeof dbStats>>, n: number): Promise<string> {
  await new Promise((r) => setTimeout(r, 600));
  const after = await dbStats(db);
  const per = (k: keyof typeof after) => (Number(after[k]) - Number(before[k])) / n;
  return `commits ${fmt(per('commits'), 2)}, WAL ${fmt(per('wal_bytes'), 0)} B (${fmt(per('fpi'), 2)} page images), flushes ${fmt(per('syncs'), 2)} each`;
}

/** CPU time (ms) used so far by the Postgres cluster of the bench: the postmaster, its live children and the ones it reaped. */
function postgresCpuMs(ctx: BenchContext): number | null {
  try {
    const ticks = 1000 / 100; // USER_HZ is 100 on Linux
    const pid = Number(readFileSync(path.join(ctx.dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const fields = (p: string) =>
      readFileSync(`/proc/${p}/stat`, 'utf8')
        .replace(/^.*\) /, '')
        .split(' ');
    const own = fields(String(pid));
    let total = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]); // utime stime cutime cstime
    for (const p of readdirSync('/proc')) {
      if (!/^\d+$/.test(p) || p === String(pid)) continue;
      try {
        const f = fields(p);
        if (Number(f[1]) === pid) total += Number(f[11]) + Number(f[12]);
      } catch {
        // the process ended meanwhile
      }
    }
    return total * ticks;
  } catch {
    return null; // not an embedded cluster of this bench, or /proc unreadable
  }
}

/**
 * CPU time (ms) of each live process of the bench's Postgres cluster by pid, and what the postmaster reaped
 * (children that ended: autovacuum workers, closed connections) under the pid 0.
 */
function postgresCpuByPid(ctx: BenchContext): Map<number, { ms: number; title: string }> | null {
  try {
    const ticks = 1000 / 100;
    const pid = Number(readFileSync(path.join(ctx.dataDir, 'pg', 'postmaster.pid'), 'utf8').split('\n')[0]);
    const fields = (p: string) =>
      readFileSync(`/proc/${p}/stat`, 'utf8')
        .replace(/^.*\) /, '')
        .split(' ');
    const out = new Map<number, { ms: number; title: string }>();
    const own = fields(String(pid));
    out.set(0, { ms: (Number(own[13]) + Number(own[14])) * ticks, title: 'reaped' });
    out.set(pid, { ms: (Number(own[11]) + Number(own[12])) * ticks, title: 'postmaster' });
    for (const p of readdirSync('/proc')) {
      if (!/^\d+$/.test(p) || p === String(pid)) continue;
      try {
        const f = fields(p);
        if (Number(f[1]) !== pid) continue;
        const title = readFileSync(`/proc/${p}/cmdline`, 'utf8').replace(/\0/g, ' ').trim();
        out.set(Number(p), { ms: (Number(f[11]) + Number(f[12])) * ticks, title });
      } catch {
        // the process ended meanwhile
      }
    }
    return out;
  } catch {
    return null;
  }
}

/**
 * Postgres CPU per delivery by whom it served: the worker's connections, the writers', Postgres's own processes
 * (WAL writer, checkpointer, autovacuum launcher), and what ended meanwhile (autovacuum workers, closed connections).
 */
function postgresCpuSplit(
  before: ReturnType<typeof postgresCpuByPid>,
  after: ReturnType<typeof postgresCpuByPid>,
  apps: Map<number, string>,
  n: number,
): string {
  if (!before || !after) return 'n/a';
  const sums = new Map<string, number>();
  for (const [pid, a] of after) {
    const b = before.get(pid)?.ms ?? 0;
    const who =
      pid === 0
        ? 'ended'
        : (apps.get(pid) ?? (/autovacuum|walwriter|checkpointer|background writer|launcher|io worker|logger|archiver/.test(a.title) ? 'postgres' : 'other'));
    sums.set(who, (sums.get(who) ?? 0) + a.ms - b);
  }
  return [...sums]
    .sort((x, y) => y[1] - x[1])
    .map(([who, ms]) => `${who} ${fmt((ms * 1000) / n, 0)} µs`)
    .join(', ');
}

/** The worker process's and Postgres's CPU time per delivery (a cost that the machine's other load changes less than a rate). */
function cpuLine(workerMs: number | null, pgBefore: number | null, pgAfter: number | null, n: number): string {
  const us = (ms: number) => `${fmt((ms * 1000) / n, 0)} µs`;
  return `worker CPU ${workerMs === null ? 'n/a (inline)' : us(workerMs)}, Postgres CPU ${pgBefore === null || pgAfter === null ? 'n/a' : us(pgAfter - pgBefore)} each`;
}

interface BenchWorker {
  /** CPU time the worker process has used so far (ms; null when it runs inline). */
  cpu(): Promise<number | null>;
  /** Freeze the worker process (SIGSTOP) while a peer runs, so its idle polling takes no CPU from the peer; no-op inline. */
  pause(): void;
  /** Let a paused worker process run again (SIGCONT). */
  resume(): void;
  /** CPU time the worker process used (ms; null when it runs inline). */
  stop(): Promise<number | null>;
}

/**
 * The worker under test: in a process of its own (bench/webhooks_worker.ts), as `svc worker` runs in production,
 * unless `--inline-worker` puts it in the bench's process (beside the writers and the receiver, sharing their
 * event loop), as the bench ran before. `prepare` loads it; the returned `start` starts it (so timings exclude
 * loading modules).
 */
async function prepareBenchWorker(ctx: BenchContext, cfg: Config, secretKey: Buffer, log: Logger, only?: string[]): Promise<{ start(): Promise<BenchWorker> }> {
  if (process.argv.includes('--inline-worker')) {
    return {
      start: async () => {
        const runner = await startWorker(ctx.db.owner, {
          concurrency: 8,
          log,
          deps: { cfg, log, secretKey, blobs: fileBlobStore(path.join(ctx.dataDir, 'blobs')) },
          pollInterval: 1000,
          ...(only ? { only } : {}),
        });
        return { cpu: async () => null, pause: () => {}, resume: () => {}, stop: async () => (await runner.stop(), null) };
      },
    };
  }
  const profile = process.argv.includes('--profile-worker') ? ['--cpu-prof', `--cpu-prof-dir=${path.join(process.cwd(), 'bench-profiles')}`] : [];
  const child = fork(
    new URL('./webhooks_worker.ts', import.meta.url).pathname,
    [JSON.stringify({ url: ctx.url, dataDir: ctx.dataDir, secretKey: secretKey.toString('hex'), only })],
    { execArgv: [...process.execArgv, ...profile] },
  );
  const next = <T>(match: (m: unknown) => T | undefined) =>
    new Promise<T>((resolve, reject) => {
      const onMessage = (m: unknown) => {
        const v = match(m);
        if (v !== undefined) {
          child.off('message', onMessage);
          child.off('exit', onExit);
          resolve(v);
        }
      };
      const onExit = (code: number | null) => reject(new Error(`bench worker exited (${code})`));
      child.on('message', onMessage);
      child.once('exit', onExit);
    });
  await next((m) => (m === 'loaded' ? true : undefined));
  return {
    start: async () => {
      const ready = next((m) => (m === 'ready' ? true : undefined));
      child.send('start');
      await ready;
      return {
        cpu: async () => {
          const used = next((m) => ((m as { cpu?: boolean }).cpu ? (m as { cpuMicros: number }).cpuMicros / 1000 : undefined));
          child.send('cpu');
          return used;
        },
        pause: () => void child.kill('SIGSTOP'),
        resume: () => void child.kill('SIGCONT'),
        stop: async () => {
          const stopped = next((m) => ((m as { stopped?: boolean }).stopped ? (m as { cpuMicros: number }).cpuMicros / 1000 : undefined));
          child.send('stop');
          return stopped;
        },
      };
    },
  };
}

export async function run(ctx: BenchContext): Promise<void> {
  setLogLevel('silent');
  const { db } = ctx;
  const events = ctx.quick ? 300 : 3000;
  const arrivals = new Map<number, number>();
  let onArrival = () => {};
  let onId = (id: number) => {
    if (!arrivals.has(id)) arrivals.set(id, performance.now());
    onArrival();
  };
  const { server: receiver, url } = await jsonReceiver((body) => onId((body as { data: { submission_id: number } }).data.submission_id));

  const cfg = parseConfig({ DATABASE_URL: ctx.url, DATA_DIR: ctx.dataDir, WEBHOOK_ALLOW_HOSTS: '127.0.0.1', LOG_LEVEL: 'silent' });
  const secretKey = randomBytes(32);
  const { agencyId } = await seedAgency(db, 'bench-hooks');
  const secret = newSigningSecret();
  await db.owner.query(
    `insert into app_public.webhook_endpoints (agency_id, kind, topic, staging_url, secret_ciphertext) values ($1, 'topic', 'form-submission', $2, $3)`,
    [agencyId, url, encryptSecret(secretKey, secret)],
  );
  const log = createLogger();
  const runner = await (await prepareBenchWorker(ctx, cfg, secretKey, log)).start();
  const pgCpuBefore = postgresCpuMs(ctx);
  const pgByPidBefore = postgresCpuByPid(ctx);
  const sample = sampleTopicPayload('form-submission').data;

  // Sustained rate: events written to the outbox by 4 concurrent writers (as API requests would), counted
  // from the first write to the last receipt. Then latency at a paced 200 events/s. Every delivery is
  // counted at the receiver, by submission id, so a lost or doubled one shows.
  const emitted = new Map<number, number>();
  let received = 0;
  let doubled = 0;
  let waitFor = 0;
  let reached = () => {};
  onArrival = () => {
    received++;
    if (received >= waitFor) reached();
  };
  let counting = true;
  const countDoubles = (id: number) => {
    if (arrivals.has(id)) doubled++;
  };
  onId = (id) => {
    // The peers' POSTs are read the same way (the receiver's cost is the same for both) but not counted.
    if (!counting) return;
    countDoubles(id);
    if (!arrivals.has(id)) arrivals.set(id, performance.now());
    onArrival();
  };
  const until = (n: number) =>
    new Promise<void>((resolve) => {
      waitFor = n;
      reached = resolve;
      if (received >= n) resolve();
    });

  // Writers have a pool of their own, as an API process would.
  const writerPool = new pg.Pool({ connectionString: ctx.url, max: 16, application_name: 'bench_writers' });
  const emit = (i: number) => {
    emitted.set(i, performance.now());
    return writerPool.query({
      name: 'bench_emit',
      text: `select app_private.emit_event($1, 'test', 'form-submission', null, $2)`,
      values: [agencyId, JSON.stringify({ ...sample, submission_id: i })],
    });
  };
  let nextId = 1;
  /** `count` events by `writers` concurrent writers, from the first write to the last receipt. */
  const sustained = async (count: number, writers: number) => {
    const before = await dbStats(db);
    const started = performance.now();
    const last = nextId + count - 1;
    const allIn = until(received + count);
    await Promise.all(
      Array.from({ length: writers }, async () => {
        while (nextId <= last) await emit(nextId++);
      }),
    );
    const written = count / ((performance.now() - started) / 1000);
    await allIn;
    const rate = count / ((performance.now() - started) / 1000);
    return { rate, written, perDelivery: await perItem(db, before, count) };
  };
  await Promise.all(Array.from({ length: 16 }, () => writerPool.query('select 1'))); // open the writers' connections
  const four = await sustained(events, 4);
  const rate = four.rate;

  // Paced: 200 events/s for a few seconds, latency event → receipt.
  const pacedSeconds = ctx.quick ? 2 : 5;
  const pacedCount = 200 * pacedSeconds;
  const first = nextId;
  const pacedIn = until(received + pacedCount);
  const t0 = performance.now();
  const pending: Promise<unknown>[] = [];
  for (let k = 0; k < pacedCount; k++) {
    const due = t0 + (k * 1000) / 200;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    pending.push(emit(nextId++));
  }
  await Promise.all(pending);
  await pacedIn;
  const pacedLast = nextId;
  // More requests in flight: 16 writers, each committing one event. Its CPU is also taken alone: by then the
  // worker has sent 4,000 deliveries, so its code is compiled and optimised as in a long-running worker (the
  // three runs together include the worker's warm-up).
  const warmWorkerBefore = await runner.cpu();
  const warmPgBefore = postgresCpuMs(ctx);
  const benchCpuBefore = process.cpuUsage();
  const sixteen = await sustained(events, 16);
  const benchCpu = process.cpuUsage(benchCpuBefore);
  const warmWorker = await runner.cpu();
  const warmPg = postgresCpuMs(ctx);
  await new Promise((r) => setTimeout(r, 500)); // late doubles would arrive now
  // Whose connections the Postgres processes serve, read while every pool is still open.
  const apps = new Map(
    (await db.owner.query<{ pid: number; app: string }>(`select pid, application_name as app from pg_stat_activity where application_name <> ''`)).rows.map(
      (r) => [r.pid, r.app],
    ),
  );
  const pgByPid = postgresCpuByPid(ctx);
  const workerCpu = await runner.cpu();
  const pgCpu = postgresCpuMs(ctx);
  const latencies = [...arrivals]
    .filter(([id]) => id >= first && id < pacedLast)
    .map(([id, at]) => at - emitted.get(id)!)
    .sort((a, b) => a - b);
  // Where the paced latency goes: event written → delivery created (fan-out) → attempt started (send job).
  const lags = await db.owner.query<{ fan_out_ms: number; send_ms: number }>(
    `select extract(epoch from d.created_at - e.created_at) * 1000 as fan_out_ms, extract(epoch from a.started_at - d.created_at) * 1000 as send_ms
       from app_public.events e join app_public.webhook_deliveries d on d.event_id = e.id join app_public.webhook_delivery_attempts a on a.delivery_id = d.id
      where e.agency_id = $1 and (e.data ->> 'submission_id')::int >= $2 and (e.data ->> 'submission_id')::int < $3`,
    [agencyId, first, pacedLast],
  );
  const lag = (k: 'fan_out_ms' | 'send_ms', p: number) =>
    percentile(
      lags.rows.map((r) => Number(r[k])).sort((a, b) => a - b),
      p,
    );
  const total = 2 * events + pacedCount;
  const logged = await db.owner.query(`select count(*)::int as n from app_public.webhook_delivery_attempts where agency_id = $1`, [agencyId]);
  process.stdout.write(
    `${`outbox → worker → signed POST (${events} events, 4 writers)`.padEnd(58)} ${fmt(rate, 0).padStart(8)} deliveries/s\n` +
      `${'  of which writing the events (4 writers, worker running)'.padEnd(58)} ${fmt(four.written, 0).padStart(8)} events/s\n` +
      `${'  per delivery'.padEnd(58)} ${four.perDelivery}\n` +
      `${`the same with 16 writers (${events} events)`.padEnd(58)} ${fmt(sixteen.rate, 0).padStart(8)} deliveries/s\n` +
      `${'  of which writing the events (16 writers, worker running)'.padEnd(58)} ${fmt(sixteen.written, 0).padStart(8)} events/s\n` +
      `${'  per delivery'.padEnd(58)} ${sixteen.perDelivery}\n` +
      `${'paced 200 events/s, event → receipt'.padEnd(58)} p50 ${fmt(percentile(latencies, 50), 1)} ms   p99 ${fmt(percentile(latencies, 99), 1)} ms\n` +
      `${'  written → delivery created (fan-out)'.padEnd(58)} p50 ${fmt(lag('fan_out_ms', 50), 1)} ms   p99 ${fmt(lag('fan_out_ms', 99), 1)} ms\n` +
      `${'  delivery created → attempt started (send job)'.padEnd(58)} p50 ${fmt(lag('send_ms', 50), 1)} ms   p99 ${fmt(lag('send_ms', 99), 1)} ms\n` +
      `received ${arrivals.size} of ${total} distinct deliveries, ${doubled} doubled, ${total - arrivals.size} lost; attempts logged ${logged.rows[0].n}\n` +
      `${'CPU per delivery over the three runs above'.padEnd(58)} ${cpuLine(workerCpu, pgCpuBefore, pgCpu, total)}\n` +
      `${'  the 16-writer run alone (worker warmed up)'.padEnd(58)} ${cpuLine(warmWorker === null || warmWorkerBefore === null ? null : warmWorker - warmWorkerBefore, warmPgBefore, warmPg, events)}; ` +
      `this process (writers and receiver${warmWorker === null ? ', and the worker inline' : ''}) ${fmt((benchCpu.user + benchCpu.system) / events, 0)} µs\n` +
      `${'  Postgres CPU by whom it served'.padEnd(58)} ${postgresCpuSplit(pgByPidBefore, pgByPid, apps, total)}\n`,
  );

  // Peers: the same signed POSTs with no queue and no database, with a new connection per POST (deliver()'s
  // default) and with kept-alive connections (what the worker uses). The worker process is frozen meanwhile (its
  // idle polls would take a little CPU from the peer) and the receiver does not count the peers' POSTs.
  const body = JSON.stringify({ topic: 'form-submission', data: sample });
  // With the CPU time of this process per delivery (the POSTs and the receiver answering them): the client's cost,
  // which load on the machine moves less than the rate.
  const peer = async (keepAlive: boolean, count: number) => {
    const peerStarted = performance.now();
    const cpuStarted = process.cpuUsage();
    let next = 0;
    await Promise.all(
      Array.from({ length: 8 }, async () => {
        while (next < count) {
          next++;
          await deliver({ url, body, secret, webhookId: `msg_${next}` }, { allowHosts: ['127.0.0.1'], keepAlive });
        }
      }),
    );
    const cpu = process.cpuUsage(cpuStarted);
    return { rate: count / ((performance.now() - peerStarted) / 1000), cpuMicros: (cpu.user + cpu.system) / count };
  };
  const peers = async (count: number) => {
    runner.pause();
    counting = false;
    try {
      const fresh = await peer(false, count);
      const kept = await peer(true, count);
      closeDeliveryConnections();
      return { fresh, kept };
    } finally {
      counting = true;
      runner.resume();
    }
  };
  const { fresh, kept } = await peers(events);
  const peerRate = fresh.rate;
  const peerKeepAlive = kept.rate;
  const peerCpu = (p: typeof fresh) => `; CPU ${fmt(p.cpuMicros, 0)} µs each (client and receiver)`;
  process.stdout.write(
    `${'peer: deliver() alone, new connection each (concurrency 8)'.padEnd(58)} ${fmt(peerRate, 0).padStart(8)} deliveries/s${peerCpu(fresh)}\n`,
  );
  process.stdout.write(`${'peer: deliver() alone, kept-alive (concurrency 8)'.padEnd(58)} ${fmt(peerKeepAlive, 0).padStart(8)} deliveries/s${peerCpu(kept)}\n`);
  process.stdout.write(
    `the durable path runs at ${fmt((rate / peerRate) * 100)}% of bare deliver() (${fmt((rate / peerKeepAlive) * 100)}% of kept-alive deliver())\n`,
  );

  // The figures above are one run each, minutes apart; on a shared machine the same code moves by a quarter from
  // one invocation to the next, the peers as much as the durable path. Alternating short rounds (the durable path
  // with 16 writers, then both peers) puts each durable figure beside peers measured seconds later; the medians
  // of the rounds and of their ratios are the figures to read against the targets.
  const rounds = ctx.quick ? 3 : 5;
  const perRound = ctx.quick ? 300 : 1500;
  const roundsFirst = nextId;
  const doubledBefore = doubled;
  const durableRates: number[] = [];
  const freshShare: number[] = [];
  const keptShare: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const d = await sustained(perRound, 16);
    const p = await peers(perRound);
    durableRates.push(d.rate);
    freshShare.push((d.rate / p.fresh.rate) * 100);
    keptShare.push((d.rate / p.kept.rate) * 100);
  }
  await new Promise((r) => setTimeout(r, 500)); // late doubles would arrive now
  const roundsReceived = [...arrivals.keys()].filter((id) => id >= roundsFirst && id < nextId).length;
  const median = (xs: number[]) =>
    percentile(
      [...xs].sort((a, b) => a - b),
      50,
    );
  const list = (xs: number[], digits: number) => xs.map((x) => fmt(x, digits)).join(', ');
  process.stdout.write(
    `${`alternating rounds (${rounds} × ${perRound} events, 16 writers)`.padEnd(58)} ${fmt(median(durableRates), 0).padStart(8)} deliveries/s median (${list(durableRates, 0)})\n` +
      `${'  share of bare deliver(), new connection each'.padEnd(58)} ${fmt(median(freshShare)).padStart(8)}% median (${list(freshShare, 1)})\n` +
      `${'  share of kept-alive deliver()'.padEnd(58)} ${fmt(median(keptShare)).padStart(8)}% median (${list(keptShare, 1)})\n` +
      `  received ${roundsReceived} of ${nextId - roundsFirst} distinct deliveries, ${doubled - doubledBefore} doubled, ${nextId - roundsFirst - roundsReceived} lost\n`,
  );
  await runner.stop();
  await writerPool.end();
  receiver.close();

  await stages(ctx, cfg, secretKey, log, sample, events);
}

/**
 * Each stage of the durable path alone, on a fresh agency and receiver, so the narrowest shows:
 * (a) writing events (emit_event by 4 writers, no worker running) beside plain inserts into events;
 * (b) fan-out only: a worker running only events__fan_out over the written events, until every delivery exists;
 * (c) send only: a worker running only deliveries__send over the queued deliveries, until every attempt is logged.
 */
async function stages(ctx: BenchContext, cfg: Config, secretKey: Buffer, log: Logger, sample: Record<string, unknown>, n: number): Promise<void> {
  const { db } = ctx;
  let received = 0;
  let waitFor = Infinity;
  let reached = () => {};
  const receiver = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(204).end();
      if (++received >= waitFor) reached();
    });
  });
  await new Promise<void>((r) => receiver.listen(0, '127.0.0.1', () => r()));
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
  const { agencyId } = await seedAgency(db, 'bench-hooks-stages');
  const { agencyId: peerAgencyId } = await seedAgency(db, 'bench-hooks-stages-peer');
  await db.owner.query(
    `insert into app_public.webhook_endpoints (agency_id, kind, topic, staging_url, secret_ciphertext) values ($1, 'topic', 'form-submission', $2, $3)`,
    [agencyId, url, encryptSecret(secretKey, newSigningSecret())],
  );
  const line = (name: string, value: string) => process.stdout.write(`${name.padEnd(58)} ${value}\n`);
  const writers = async (count: number, concurrency: number, write: (i: number) => Promise<unknown>) => {
    const t0 = performance.now();
    let next = 0;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (next < count) await write(next++);
      }),
    );
    return count / ((performance.now() - t0) / 1000);
  };
  const data = (i: number) => JSON.stringify({ ...sample, submission_id: i });

  // (a) Emit only, and its peer: the same rows inserted with no outbox bookkeeping.
  // The peer: the event row alone (emit_event adds its small waiting row).
  const plainInsert = (i: number) =>
    db.owner.query({
      name: 'bench_plain_insert',
      text: `insert into app_public.events (agency_id, mode, topic, data) values ($1, 'test', 'form-submission', $2)`,
      values: [peerAgencyId, data(i)],
    });
  await writers(200, 4, plainInsert); // warm the pool's connections and plans
  let before = await dbStats(db);
  const emitPg = postgresCpuMs(ctx);
  const emitRate = await writers(n, 4, (i) =>
    db.owner.query({ name: 'bench_emit', text: `select app_private.emit_event($1, 'test', 'form-submission', null, $2)`, values: [agencyId, data(i)] }),
  );
  const emitPgAfter = postgresCpuMs(ctx);
  const emitCost = `${await perItem(db, before, n)}; ${cpuLine(null, emitPg, emitPgAfter, n).replace('worker CPU n/a (inline), ', '')}`;
  before = await dbStats(db);
  const insertPg = postgresCpuMs(ctx);
  const insertRate = await writers(n, 4, plainInsert);
  const insertPgAfter = postgresCpuMs(ctx);
  const insertCost = `${await perItem(db, before, n)}; ${cpuLine(null, insertPg, insertPgAfter, n).replace('worker CPU n/a (inline), ', '')}`;
  line('(a) emit only: emit_event, 4 writers, no worker', `${fmt(emitRate, 0).padStart(8)} events/s; ${emitCost}`);
  line(
    '    peer: plain insert into events, 4 writers',
    `${fmt(insertRate, 0).padStart(8)} events/s (emit at ${fmt((emitRate / insertRate) * 100)}%); ${insertCost}`,
  );

  // (b) Fan-out only.
  const count = async (sql: string) => (await db.owner.query<{ n: number }>(sql, [agencyId])).rows[0].n;
  const until = async (check: () => Promise<boolean>) => {
    while (!(await check())) await new Promise((r) => setTimeout(r, 5));
  };
  let prepared = await prepareBenchWorker(ctx, cfg, secretKey, log, ['events__fan_out']);
  before = await dbStats(db);
  let pgBefore = postgresCpuMs(ctx);
  let t0 = performance.now();
  let runner = await prepared.start();
  await until(async () => (await count(`select count(*)::int as n from app_public.webhook_deliveries where agency_id = $1`)) >= n);
  const fanOutRate = n / ((performance.now() - t0) / 1000);
  let cpu = await runner.stop();
  line(
    `(b) fan-out only: ${n} waiting events → deliveries`,
    `${fmt(fanOutRate, 0).padStart(8)} deliveries/s; ${await perItem(db, before, n)}; ${cpuLine(cpu, pgBefore, postgresCpuMs(ctx), n)}`,
  );
  prepared = await prepareBenchWorker(ctx, cfg, secretKey, log, ['deliveries__send']);
  before = await dbStats(db);
  pgBefore = postgresCpuMs(ctx);

  // (c) Send only.
  const allIn = new Promise<void>((r) => {
    waitFor = n;
    reached = r;
  });
  t0 = performance.now();
  runner = await prepared.start();
  await allIn;
  await until(async () => (await count(`select count(*)::int as n from app_public.webhook_delivery_attempts where agency_id = $1`)) >= n);
  const sendRate = n / ((performance.now() - t0) / 1000);
  cpu = await runner.stop();
  closeDeliveryConnections();
  line(
    `(c) send only: ${n} queued deliveries → attempts logged`,
    `${fmt(sendRate, 0).padStart(8)} deliveries/s (received ${received}); ${await perItem(db, before, n)}; ${cpuLine(cpu, pgBefore, postgresCpuMs(ctx), n)}`,
  );
  receiver.close();
}
