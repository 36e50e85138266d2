// Catalogue of task names: every job the database can queue has a task to run it, and every task is queued by
// something (a SQL function of the migrated schema or the cron list), so neither side can be forgotten.
import test from 'ava';
import { createTaskList, cronItems } from '../../tasks/index.ts';
import { parseConfig } from '../../lib/config.ts';
import { createLogger } from '../../lib/log.ts';
import { testDatabase, type TestDatabase } from '../helpers/db.ts';

let tdb: TestDatabase;
test.before(async () => {
  tdb = await testDatabase();
});
test.after.always(async () => tdb?.drop());

const taskName = /'([a-z]+(?:_[a-z]+)*__[a-z]+(?:_[a-z]+)*)'/g;

/** Task names written as literals in the bodies of the service's own SQL functions. */
async function queuedInSql(): Promise<Map<string, string[]>> {
  const { rows } = await tdb.db.owner.query<{ fn: string; src: string }>(
    `select n.nspname || '.' || p.proname fn, p.prosrc src
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname in ('app_public', 'app_private')`,
  );
  const names = new Map<string, string[]>();
  for (const { fn, src } of rows) {
    for (const m of src.matchAll(taskName)) names.set(m[1]!, [...(names.get(m[1]!) ?? []), fn]);
  }
  return names;
}

function taskList() {
  const cfg = parseConfig({});
  return createTaskList({ cfg, log: createLogger({ test: 'task_catalogue' }), secretKey: Buffer.alloc(32) });
}

test('every task name a SQL function queues is in the task list', async (t) => {
  const queued = await queuedInSql();
  const tasks = taskList();
  t.true(queued.size >= 5, 'the scan finds the functions that queue jobs');
  for (const [name, fns] of queued) t.truthy(tasks[name], `${name} (queued by ${fns.join(', ')}) has a task`);
});

/** Tasks that no current SQL function queues, each with the reason it is still in the list (none today). */
const notQueuedBySql: Record<string, string> = {};

test('every task is queued by a SQL function or the cron list, or says why not', async (t) => {
  const queued = await queuedInSql();
  const cron = new Set(cronItems.map((c) => c.task));
  for (const name of Object.keys(taskList())) {
    t.true(queued.has(name) || cron.has(name) || name in notQueuedBySql, `${name} is queued by a SQL function or cron`);
  }
  for (const name of Object.keys(notQueuedBySql)) t.false(queued.has(name), `${name} is queued again: take it off the list of exceptions`);
});

test('every cron item names a task of the list', (t) => {
  const tasks = taskList();
  for (const c of cronItems) t.truthy(tasks[c.task], `cron ${c.identifier} runs ${c.task}`);
});
