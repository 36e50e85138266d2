// Each test file gets its own database cloned from the migrated template (see test/run.ts).
import { randomBytes } from 'node:crypto';
import pg from 'pg';
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
