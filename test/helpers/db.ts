// Each test file gets its own database cloned from the migrated template (see test/run.ts).
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import { cp, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { ExecutionContext } from 'ava';
import pg from 'pg';
import { migrate, migrationsDir } from '../../db/migrate.ts';
import { createDatabase, type Database } from '../../db/pool.ts';

export function adminUrl(): string {
  const url = process.env.TEST_PG_ADMIN_URL;
  if (!url) throw new Error('TEST_PG_ADMIN_URL is unset: run the tests with `npm test`');
  return url;
}

export function databaseUrl(name: string): string {
  const u = new URL(adminUrl());
  u.pathname = `/${name}`;
  return u.toString();
}

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: adminUrl() });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

export interface TestDatabase {
  name: string;
  url: string;
  db: Database;
  drop(): Promise<void>;
}

/** A fresh, migrated database for one test file. */
export async function testDatabase(): Promise<TestDatabase> {
  const name = `t_${randomBytes(6).toString('hex')}`;
  const template = process.env.TEST_PG_TEMPLATE ?? 'svc_template';
  // Cloning needs the template free of other sessions; files clone concurrently, so retry briefly.
  for (let i = 0; ; i++) {
    try {
      await admin((c) => c.query(`create database "${name}" template "${template}"`));
      break;
    } catch (err) {
      if ((err as { code?: string }).code !== '55006' || i > 50) throw err;
      await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
    }
  }
  const url = databaseUrl(name);
  const db = createDatabase({ ownerUrl: url, max: 6 });
  return {
    name,
    url,
    db,
    drop: async () => {
      await db.close();
      await admin((c) => c.query(`drop database if exists "${name}" with (force)`));
    },
  };
}

/** One statement as `role` (the role analysts or operators log in with), in a transaction rolled back after it. */
export async function asRole(db: Database, role: 'svc_analyst' | 'svc_operator', sql: string, values: unknown[] = []): Promise<any[]> {
  const c = await db.owner.connect();
  try {
    await c.query('begin');
    await c.query(`set local role ${role}`);
    return (await c.query(sql, values)).rows;
  } finally {
    await c.query('rollback').catch(() => {});
    c.release();
  }
}

/** Each statement fails as `role` for want of privilege (42501), each assertion labelled with its SQL. */
export async function refusedAs(t: ExecutionContext, db: Database, role: 'svc_analyst' | 'svc_operator', statements: string[]): Promise<void> {
  for (const sql of statements) {
    const err = await t.throwsAsync(asRole(db, role, sql), undefined, sql);
    t.is((err as { code?: string }).code, '42501', sql);
  }
}

/**
 * A database of its own migrated up to (not including) migration `before`; `fn` seeds it with what older releases
 * left, then calls `rest()` to apply the migrations from `before` on. Dropped afterwards.
 */
export async function acrossMigration(
  before: string,
  fn: (q: (sql: string, values?: unknown[]) => Promise<any[]>, rest: () => Promise<void>) => Promise<void>,
): Promise<void> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-migrations-'));
  const name = `t_across_${before}_${Date.now().toString(36)}`;
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  await admin.query(`create database "${name}"`);
  const pool = new pg.Pool({ connectionString: databaseUrl(name), max: 2 });
  pool.on('error', () => {});
  pool.on('connect', (client) => client.on('error', () => {}));
  try {
    await cp(migrationsDir, dir, { recursive: true });
    const later = fs.readdirSync(dir).filter((f) => f >= before);
    for (const f of later) fs.renameSync(path.join(dir, f), path.join(dir, `${f}.later`));
    await migrate(pool, { dir });
    const q = (sql: string, values: unknown[] = []) => pool.query(sql, values).then((r) => r.rows);
    await fn(q, async () => {
      for (const f of later) fs.renameSync(path.join(dir, `${f}.later`), path.join(dir, f));
      await migrate(pool, { dir });
    });
  } finally {
    await pool.end();
    await admin.query(`drop database if exists "${name}" with (force)`).catch(() => {});
    await admin.end();
    await rm(dir, { recursive: true, force: true });
  }
}
