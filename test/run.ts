// `npm test`: one Postgres for the whole run (embedded in a temp dir, or TEST_DATABASE_URL), a migrated
// template database each test file clones, ava over test/, and the plain summary line CI reads.
import { spawn } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import pg from 'pg';
import { ensureDatabase } from '../db/connect.ts';
import { startEmbedded, type EmbeddedCluster } from '../db/embedded.ts';
import { migrate } from '../db/migrate.ts';
import { freePort } from './helpers/ports.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

function withDatabase(url: string, name: string): string {
  const u = new URL(url);
  u.pathname = `/${name}`;
  return u.toString();
}

async function main(): Promise<number> {
  let cluster: EmbeddedCluster | undefined;
  let dataDir: string | undefined;
  let adminUrl = process.env.TEST_DATABASE_URL;
  const template = `svc_template_${process.pid}`;
  try {
    if (!adminUrl) {
      dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-test-'));
      cluster = await startEmbedded({ dataDir, port: await freePort() });
      adminUrl = cluster.url();
    }
    await ensureDatabase(adminUrl, template);
    const pool = new pg.Pool({ connectionString: withDatabase(adminUrl, template), max: 2 });
    pool.on('error', () => {});
    pool.on('connect', (c) => c.on('error', () => {}));
    await migrate(pool);
    await pool.end();

    const avaCli = path.join(root, 'node_modules/ava/entrypoints/cli.mjs');
    const child = spawn(process.execPath, [avaCli, ...process.argv.slice(2)], {
      cwd: root,
      env: { ...process.env, TEST_PG_ADMIN_URL: adminUrl, TEST_PG_TEMPLATE: template, FORCE_COLOR: process.stdout.isTTY ? '1' : '0' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d: Buffer) => {
      output += d.toString();
      process.stdout.write(d);
    });
    child.stderr.on('data', (d: Buffer) => {
      output += d.toString();
      process.stderr.write(d);
    });
    const code: number = await new Promise((resolve) => child.on('close', (c) => resolve(c ?? 1)));
    const count = (re: RegExp) => Number(re.exec(output)?.[1] ?? 0);
    // ava prints one line per test: ✔ passed, ✘ [fail], - [skip] / - [todo].
    const lines = (re: RegExp) => (output.match(re) ?? []).length;
    const passed = lines(/^\s*✔ /gm);
    let failed = Math.max(lines(/^\s*✘ \[fail\]/gm), count(/(\d+) tests? failed/)) + count(/(\d+) uncaught exceptions?/) + count(/(\d+) unhandled rejections?/);
    const skipped = Math.max(lines(/^\s*- \[(skip|todo)\]/gm), count(/(\d+) tests? skipped/) + count(/(\d+) tests? todo/));
    if (code !== 0 && failed === 0) failed = 1; // a crash or timeout that ava did not count as a test
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    return code;
  } finally {
    if (adminUrl && !cluster) {
      const c = new pg.Client({ connectionString: adminUrl });
      await c.connect();
      await c.query(`drop database if exists "${template}"`).catch(() => {});
      await c.end();
    }
    await cluster?.stop();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    process.stderr.write(`test run failed: ${err instanceof Error ? err.stack : String(err)}\n0 passed, 1 failed\n`);
    process.exit(1);
  },
);
