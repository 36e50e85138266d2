// Forward-only migrations: each file in db/migrations applied once, in order, inside a transaction, and
// recorded with its checksum. A file changed after it was applied stops start-up.
import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runMigrations as runWorkerMigrations } from 'graphile-worker';
import type pg from 'pg';

export const migrationsDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'migrations');

export class MigrationError extends Error {}

interface MigrationFile {
  name: string;
  sql: string;
  checksum: string;
}

async function readMigrations(dir: string): Promise<MigrationFile[]> {
  const names = (await fs.readdir(dir)).filter((n) => /^\d{4}_[a-z0-9_]+\.sql$/.test(n)).sort();
  return Promise.all(
    names.map(async (name) => {
      const sql = await fs.readFile(path.join(dir, name), 'utf8');
      return { name, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    }),
  );
}

/** Apply pending migrations (graphile-worker's schema first, then ours); returns the names applied. */
export async function migrate(pool: pg.Pool, opts: { dir?: string } = {}): Promise<string[]> {
  await runWorkerMigrations({ pgPool: pool, logger: quietWorkerLogger });
  const files = await readMigrations(opts.dir ?? migrationsDir);
  const client = await pool.connect();
  const applied: string[] = [];
  try {
    await client.query('begin');
    // One migrator at a time, across processes and machines.
    await client.query(`select pg_advisory_xact_lock(7263513)`);
    await client.query(`create schema if not exists app_private`);
    await client.query(`create table if not exists app_private.migrations (
      name text primary key, checksum text not null, applied_at timestamptz not null default now())`);
    const { rows } = await client.query<{ name: string; checksum: string }>(`select name, checksum from app_private.migrations order by name`);
    await client.query('commit');
    const known = new Map(rows.map((r) => [r.name, r.checksum]));
    for (const [name, checksum] of known) {
      const file = files.find((f) => f.name === name);
      if (!file) throw new MigrationError(`migration ${name} is recorded as applied but its file is missing from ${opts.dir ?? migrationsDir}`);
      if (file.checksum !== checksum) {
        throw new MigrationError(
          `migration ${name} was changed after it was applied (recorded checksum ${checksum.slice(0, 12)}…, file ${file.checksum.slice(0, 12)}…); migrations are forward-only: restore the file and add a new one`,
        );
      }
    }
    for (const file of files) {
      if (known.has(file.name)) continue;
      await client.query('begin');
      try {
        await client.query(`select pg_advisory_xact_lock(7263513)`);
        const again = await client.query(`select 1 from app_private.migrations where name = $1`, [file.name]);
        if (again.rowCount) {
          await client.query('rollback');
          continue;
        }
        await client.query(file.sql);
        await client.query(`insert into app_private.migrations (name, checksum) values ($1, $2)`, [file.name, file.checksum]);
        await client.query('commit');
        applied.push(file.name);
      } catch (err) {
        await client.query('rollback').catch(() => {});
        throw new MigrationError(`migration ${file.name} failed: ${(err as Error).message}`);
      }
    }
  } finally {
    client.release();
  }
  return applied;
}

const noop = () => {};
// graphile-worker's migration logger is chatty; our own log says what was applied.
const quietWorkerLogger = new (await import('graphile-worker')).Logger(() => noop);
