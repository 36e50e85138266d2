// The document worker pool replaces a worker whose memory after a task is over its limit, so what one large document
// left behind is not carried into the next ones.
import test from 'ava';
import { WorkerPool } from '../../../pipelines/documents/pool.ts';

const worker = new URL('./hoarding_worker.mjs', import.meta.url);

test('a worker over its memory limit after a task is replaced; one under it is kept', async (t) => {
  const pool = new WorkerPool(worker, { size: 1, recycleAboveMb: 100, execArgv: [] });
  try {
    const first = await pool.run<number>({ keepMb: 10 });
    t.is(await pool.run<number>({ keepMb: 10 }), first, 'under the limit: the same worker');
    t.is(pool.recycled, 0);
    t.is(await pool.run<number>({ keepMb: 200 }), first, 'the task that crossed the limit still ran on it');
    t.is(pool.recycled, 1, 'and then it was replaced');
    t.not(await pool.run<number>({ keepMb: 1 }), first, 'the next task runs on a fresh worker');
  } finally {
    await pool.close();
  }
});
