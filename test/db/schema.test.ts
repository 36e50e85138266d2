import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import pg from 'pg';
import { migrate, migrationsDir, MigrationError } from '../../db/migrate.ts';
import { testDatabase, type TestDatabase } from '../helpers/db.ts';

let tdb: TestDatabase;
test.before(async () => {
  tdb = await testDatabase();
});
test.after.always(async () => tdb?.drop());

test('row-level security is enabled and forced on every table of app_public', async (t) => {
  const { rows } = await tdb.db.owner.query<{ relname: string; relrowsecurity: boolean; relforcerowsecurity: boolean }>(
    `select c.relname, c.relrowsecurity, c.relforcerowsecurity from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname = 'app_public' and c.relkind = 'r' order by 1`,
  );
  t.true(rows.length >= 2);
  for (const r of rows) {
    t.true(r.relrowsecurity, `${r.relname} has RLS enabled`);
    t.true(r.relforcerowsecurity, `${r.relname} forces RLS`);
  }
});

test('the request role owns nothing, cannot read app_private tables and is not a superuser', async (t) => {
  const { rows } = await tdb.db.owner.query(`select count(*)::int n from pg_class c join pg_roles r on r.oid = c.relowner where r.rolname = 'svc_request'`);
  t.is(rows[0].n, 0);
  const role = await tdb.db.owner.query(`select rolsuper, rolbypassrls from pg_roles where rolname = 'svc_request'`);
  t.deepEqual(role.rows[0], { rolsuper: false, rolbypassrls: false });
  const c = await tdb.db.request.connect();
  try {
    await c.query('begin; set local role svc_request');
    const err = await t.throwsAsync(c.query('select * from app_private.agent_tokens'));
    t.is((err as { code?: string }).code, '42501');
  } finally {
    await c.query('rollback');
    c.release();
  }
});

test('every column a policy reads is indexed', async (t) => {
  const { rows } = await tdb.db.owner.query<{ tbl: string; col: string }>(
    `select c.relname tbl, a.attname col
       from pg_policy p join pg_class c on c.oid = p.polrelid join pg_namespace n on n.oid = c.relnamespace
       join pg_attribute a on a.attrelid = c.oid and a.attnum > 0
      where n.nspname = 'app_public' and pg_get_expr(p.polqual, p.polrelid) ~ ('\\m' || a.attname || '\\M')
        and a.attname in ('id', 'agency_id', 'oauth_client_id', 'mode', 'agent_id')`,
  );
  t.true(rows.length > 0);
  for (const { tbl, col } of rows) {
    const idx = await tdb.db.owner.query(
      `select 1 from pg_index i join pg_class c on c.oid = i.indrelid join pg_attribute a on a.attrelid = c.oid and a.attnum = any(i.indkey)
        where c.relname = $1 and a.attname = $2`,
      [tbl, col],
    );
    t.true((idx.rowCount ?? 0) > 0, `${tbl}.${col} is indexed`);
  }
});

test('migrations are idempotent and a changed applied migration refuses start-up', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-migrations-'));
  const scratch = await testDatabase();
  try {
    await cp(migrationsDir, dir, { recursive: true });
    const pool = new pg.Pool({ connectionString: scratch.url, max: 2 });
    pool.on('error', () => {});
    pool.on('connect', (c) => c.on('error', () => {}));
    try {
      t.deepEqual(await migrate(pool, { dir }), [], 'the template already applied every migration');
      const first = path.join(dir, '0001_foundation.sql');
      await writeFile(first, `${await readFile(first, 'utf8')}\n-- tampered\n`);
      const err = await t.throwsAsync(migrate(pool, { dir }), { instanceOf: MigrationError });
      t.regex(err!.message, /0001_foundation\.sql was changed after it was applied/);
    } finally {
      await pool.end();
    }
  } finally {
    await scratch.drop();
    await rm(dir, { recursive: true, force: true });
  }
});

test('status columns change only through state functions', async (t) => {
  const c = await tdb.db.owner.query(
    `insert into app_private.oauth_clients (client_id, name, secret_hash) values ('oc_x', 'x', decode(repeat('00', 32), 'hex')) returning id`,
  );
  const g = await tdb.db.owner.query(`insert into app_public.agencies (oauth_client_id, name) values ($1, 'A') returning id`, [c.rows[0].id]);
  const err = await t.throwsAsync(tdb.db.owner.query(`update app_public.agencies set status = 'deactivated' where id = $1`, [g.rows[0].id]));
  t.is((err as { code?: string }).code, 'STATE');
});

test('every table and function of app_public and app_private is documented with comment on', async (t) => {
  const { rows } = await tdb.db.owner.query<{ what: string }>(
    `select 'table ' || n.nspname || '.' || c.relname as what
       from pg_class c join pg_namespace n on n.oid = c.relnamespace
      where n.nspname in ('app_public', 'app_private') and c.relkind in ('r', 'p') and obj_description(c.oid, 'pg_class') is null
     union all
     select 'function ' || p.oid::regprocedure::text
       from pg_proc p join pg_namespace n on n.oid = p.pronamespace
      where n.nspname in ('app_public', 'app_private') and obj_description(p.oid, 'pg_proc') is null
        and not exists (select 1 from pg_depend d where d.classid = 'pg_proc'::regclass and d.objid = p.oid and d.deptype = 'e')
      order by 1`,
  );
  const { rows: all } = await tdb.db.owner.query<{ n: number }>(
    `select count(*)::int as n from pg_proc p join pg_namespace n on n.oid = p.pronamespace where n.nspname in ('app_public', 'app_private')`,
  );
  t.true(all[0].n > 10, 'the query sees the functions');
  t.deepEqual(
    rows.map((r) => r.what),
    [],
    'add a `comment on` for each of these in the migration that creates it',
  );
});
