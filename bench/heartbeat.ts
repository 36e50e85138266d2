// The cost of a worker process's heartbeat (record its ids, find workers that stopped beating while holding
// locks or claims, forget old heartbeats), now run five times per WORKER_STALE_AFTER_SECONDS (every 2 s by
// default, was every 11.25 s). Measured on an empty queue (the peer) and with a backlog of queued jobs, whose
// table the search for stale locks reads, in alternating rounds so drift hits both alike.
import { randomUUID } from 'node:crypto';
import { forgetOldHeartbeats, recordWorkerHeartbeats, staleLockingWorkers } from '../db/queries/maintenance.ts';
import { heartbeatIntervalMs } from '../tasks/liveness.ts';
import { fmt, percentile } from './lib.ts';
import type { BenchContext } from './lib.ts';

export async function run(ctx: BenchContext): Promise<void> {
  const pool = ctx.db.owner;
  const backlog = ctx.quick ? 20_000 : 100_000;
  const own = Array.from({ length: 6 }, () => `bench_${randomUUID()}`);
  const beat = async () => {
    const t0 = performance.now();
    await recordWorkerHeartbeats(pool, own);
    await staleLockingWorkers(pool, own, 10);
    await forgetOldHeartbeats(pool);
    return performance.now() - t0;
  };
  const rounds = ctx.quick ? 20 : 60;
  const measure = async (n: number) => {
    const ms: number[] = [];
    for (let i = 0; i < n; i++) ms.push(await beat());
    return ms;
  };
  const empty: number[] = [];
  const full: number[] = [];
  try {
    for (let r = 0; r < 3; r++) {
      empty.push(...(await measure(rounds)));
      await pool.query(`select graphile_worker.add_job('bench_heartbeat_noop', '{}'::json, run_at := now() + interval '1 day') from generate_series(1, $1)`, [
        backlog,
      ]);
      await pool.query('analyze graphile_worker._private_jobs');
      full.push(...(await measure(rounds)));
      await pool.query(
        `delete from graphile_worker._private_jobs where task_id = (select id from graphile_worker._private_tasks where identifier = 'bench_heartbeat_noop')`,
      );
    }
  } finally {
    await pool.query(
      `delete from graphile_worker._private_jobs where task_id = (select id from graphile_worker._private_tasks where identifier = 'bench_heartbeat_noop')`,
    );
    await pool.query('delete from app_private.worker_heartbeats where worker_id = any($1::text[])', [own]);
  }
  const period = heartbeatIntervalMs(10);
  for (const [name, ms] of [
    ['empty queue (peer)', empty],
    [`${backlog.toLocaleString('en')} jobs queued`, full],
  ] as const) {
    const sorted = [...ms].sort((a, b) => a - b);
    const p50 = percentile(sorted, 50);
    process.stdout.write(
      `heartbeat, ${name}: p50 ${fmt(p50, 2)} ms, p95 ${fmt(percentile(sorted, 95), 2)} ms (${ms.length} beats); ` +
        `every ${period} ms (WORKER_STALE_AFTER_SECONDS=10) that is ${fmt((p50 / period) * 100, 2)}% of one connection, ` +
        `every 11,250 ms (45, before) ${fmt((p50 / 11_250) * 100, 2)}%\n`,
    );
  }
}
