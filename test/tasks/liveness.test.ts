// A busy worker process keeps no job another could start: with the runner's pool settings (tasks/liveness.ts),
// a long job fetched into the local queue but not started goes back to the queue within LOCAL_QUEUE_TTL_MS, where
// a second process takes it; and the heartbeat period keeps five beats per stale period.
import test from 'ava';
import { Logger, run, type Runner } from 'graphile-worker';
import { heartbeatIntervalMs, LOCAL_QUEUE_TTL_MS, workerPreset } from '../../tasks/liveness.ts';
import { testDatabase, type TestDatabase } from '../helpers/db.ts';
import { eventually } from '../helpers/worker.ts';

let tdb: TestDatabase;
test.before(async () => {
  tdb = await testDatabase();
});
test.after.always(async () => tdb?.drop());

test('a long job a busy process fetched but cannot start goes back to the queue and an idle process runs it', async (t) => {
  const started: Record<string, number[]> = { busy: [], idle: [] };
  const release: Array<() => void> = [];
  const slow = (who: 'busy' | 'idle') => async (payload: unknown) => {
    started[who].push((payload as { n: number }).n);
    await new Promise<void>((r) => release.push(r));
  };
  const runners: Runner[] = [];
  const start = async (who: 'busy' | 'idle') => {
    const r = await run({
      pgPool: tdb.db.owner,
      taskList: { long_job: slow(who) },
      concurrency: 1,
      noHandleSignals: true,
      pollInterval: 100,
      preset: { worker: workerPreset(1) },
      logger: new Logger(() => () => {}),
    });
    runners.push(r);
    return r;
  };
  try {
    await start('busy');
    // Two long jobs at once: the busy process fetches both (its local queue holds two), and can start one.
    await tdb.db.owner.query(`select graphile_worker.add_job('long_job', json_build_object('n', n)) from generate_series(1, 2) n`);
    await eventually(async () => started.busy.length === 1, 10_000, 'the first job to start');
    const locked = async () =>
      (await tdb.db.owner.query<{ n: number }>(`select count(*)::int n from graphile_worker._private_jobs where locked_by is not null`)).rows[0].n;
    t.is(await locked(), 2, 'both fetched at first');
    // Within the TTL (and a poll), the one it could not start is back in the queue…
    await eventually(async () => (await locked()) === 1, LOCAL_QUEUE_TTL_MS + 5_000, 'the unstarted job to be returned');
    // …and an idle process starts it while the busy one still runs the first.
    await start('idle');
    await eventually(async () => started.idle.length === 1, 10_000, 'the idle process to start the returned job');
    t.is(started.busy.length, 1);
    t.deepEqual([...started.busy, ...started.idle].sort(), [1, 2]);
  } finally {
    for (const r of release) r();
    const stop = setInterval(() => release.splice(0).forEach((r) => r()), 50);
    await Promise.all(runners.map((r) => r.stop()));
    clearInterval(stop);
  }
});

test('five heartbeats per stale period, never faster than 400 ms', (t) => {
  t.is(heartbeatIntervalMs(10), 2000);
  t.is(heartbeatIntervalMs(2), 400);
  t.is(heartbeatIntervalMs(45), 9000);
});
