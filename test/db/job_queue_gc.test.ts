// Per-agency named job queues leave a graphile-worker queue row behind once their jobs are done; the hourly purge
// removes the rows no job uses and keeps the ones a queued job still names.
import test from 'ava';
import { purgeIdleJobQueues } from '../../db/queries/maintenance.ts';
import { testDatabase, type TestDatabase } from '../helpers/db.ts';

let tdb: TestDatabase;
test.before(async () => {
  tdb = await testDatabase();
});
test.after.always(async () => tdb?.drop());

test('idle job queue rows are purged; a queue with a job waiting keeps its row', async (t) => {
  const o = tdb.db.owner;
  const queues = async () =>
    (await o.query<{ queue_name: string }>(`select queue_name from graphile_worker._private_job_queues where queue_name like 'gc_test_%' order by 1`)).rows.map(
      (r) => r.queue_name,
    );
  const done = (await o.query<{ id: string }>(`select (graphile_worker.add_job('gc_test__task', '{}', queue_name => 'gc_test_done')).id`)).rows[0].id;
  await o.query(`select graphile_worker.add_job('gc_test__task', '{}', queue_name => 'gc_test_waiting')`);
  t.deepEqual(await queues(), ['gc_test_done', 'gc_test_waiting']);
  await o.query('select graphile_worker.complete_jobs(array[$1]::bigint[])', [done]);
  t.true((await purgeIdleJobQueues(o)) >= 1);
  t.deepEqual(await queues(), ['gc_test_waiting'], 'the done queue goes; the one with a job waiting stays');
  t.is(await purgeIdleJobQueues(o).then(async () => (await queues()).length), 1, 'running it again removes nothing more');
});
