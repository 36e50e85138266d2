// Start-up checks of `svc serve` and `svc worker` (bin/startup.ts): a process that would run silently wrong on
// a shared database (another secret key, links signed with localhost, a role that cannot act as svc_request, a
// missing upload directory) refuses to start with a message naming the variable, or fixes what it can.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import pg from 'pg';
import { checkLinkBase, checkRequestRole, checkSecretKey, prepareDirectories, StartupError } from '../../bin/startup.ts';
import { createDatabase } from '../../db/pool.ts';
import { parseConfig } from '../../lib/config.ts';
import { adminUrl, testDatabase } from '../helpers/db.ts';
import { freePort } from '../helpers/ports.ts';
import { startService } from '../helpers/server.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const newKey = () => randomBytes(32).toString('base64');

/** Run `svc ARGS` until it prints `until` on stdout (then SIGTERM) or exits; resolves with its exit code and output. */
async function svc(args: string[], env: Record<string, string>, until?: RegExp): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const clean = Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(DATABASE_|DATA_DIR|PORT|PUBLIC_URL|FILES_URL|WEBHOOK_SECRET_KEY|TMP_DIR)/.test(k)),
  );
  const child = spawn(path.join(root, 'bin/svc'), args, { cwd: root, env: { ...clean, LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    stdout += d;
    if (until?.test(stdout) && child.exitCode === null) child.kill('SIGTERM');
  });
  child.stderr.on('data', (d) => (stderr += d));
  const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
  const code = await new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  clearTimeout(timer);
  return { code, stdout, stderr };
}

test('a worker whose WEBHOOK_SECRET_KEY differs from the first process refuses to start and names the variable', async (t) => {
  const tdb = await testDatabase();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-startup-'));
  try {
    const env = { DATABASE_URL: tdb.url, DATA_DIR: dataDir, PUBLIC_URL: 'https://api.example.com', BLOB_STORE: 'fs' };
    const keyA = newKey();
    const first = await svc(['worker'], { ...env, WEBHOOK_SECRET_KEY: keyA }, /"msg":"worker running"/);
    t.regex(first.stdout, /"msg":"worker running"/, first.stderr);
    const { rows } = await tdb.db.owner.query('select count(*)::int n from app_private.secret_key_check');
    t.is(rows[0].n, 1, 'the first process stored the key check');

    const wrong = await svc(['worker'], { ...env, WEBHOOK_SECRET_KEY: newKey() }, /"msg":"worker running"/);
    t.is(wrong.code, 78);
    t.regex(wrong.stderr, /WEBHOOK_SECRET_KEY does not match this database/);
    t.notRegex(wrong.stdout, /worker running/);

    // Unset on a second machine: a key generated into its DATA_DIR is just as wrong, and said so.
    const generated = await svc(['worker'], env, /"msg":"worker running"/);
    t.is(generated.code, 78);
    t.regex(generated.stderr, /WEBHOOK_SECRET_KEY .*generated into DATA_DIR/);

    const again = await svc(['worker'], { ...env, WEBHOOK_SECRET_KEY: keyA }, /"msg":"worker running"/);
    t.regex(again.stdout, /"msg":"worker running"/, again.stderr);

    const malformed = await svc(['worker'], { ...env, WEBHOOK_SECRET_KEY: 'x'.repeat(44) }, /"msg":"worker running"/);
    t.is(malformed.code, 78);
    t.regex(malformed.stderr, /WEBHOOK_SECRET_KEY: encryption key must be/);
  } finally {
    await tdb.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('a database written before the key check refuses a key that cannot open its stored signing secrets', async (t) => {
  const s = await startService();
  try {
    const c = await s.oauthClient();
    const a = await s.agency(c.token);
    const key = await s.apiKey(a.ownerToken, a.agencyId);
    const r = await s.request('PUT', '/v2/webhook-endpoints/form-submission', { token: key, json: { staging_url: 'https://hooks.example.com/x' } });
    t.is(r.status, 201, r.text);
    const err = await t.throwsAsync(checkSecretKey(s.tdb.db, randomBytes(32), true), { instanceOf: StartupError });
    t.regex(err!.message, /WEBHOOK_SECRET_KEY .*cannot decrypt the webhook signing secrets/);
    const { rows } = await s.tdb.db.owner.query('select count(*)::int n from app_private.secret_key_check');
    t.is(rows[0].n, 0, 'a wrong key stores no check');
    await checkSecretKey(s.tdb.db, s.deps.secretKey, true);
    await checkSecretKey(s.tdb.db, s.deps.secretKey, true);
    t.is((await s.tdb.db.owner.query('select count(*)::int n from app_private.secret_key_check')).rows[0].n, 1);
  } finally {
    await s.close();
  }
});

test('with DATABASE_URL, serve and worker refuse to start without the link base and name PUBLIC_URL', async (t) => {
  const tdb = await testDatabase();
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-startup-'));
  try {
    const env = { DATABASE_URL: tdb.url, DATA_DIR: dataDir, WEBHOOK_SECRET_KEY: newKey(), PORT: String(await freePort()) };
    for (const command of ['worker', 'serve']) {
      const r = await svc([command], env, /"msg":"(worker running|listening)"/);
      t.is(r.code, 78, `${command}: ${r.stderr}`);
      t.regex(r.stderr, /PUBLIC_URL is required with DATABASE_URL/, command);
    }
    // A worker signs document links with FILES_URL when it is set; the embedded database needs neither.
    t.notThrows(() => checkLinkBase(parseConfig({ DATABASE_URL: tdb.url, FILES_URL: 'https://files.example.com' }), 'worker'));
    t.throws(() => checkLinkBase(parseConfig({ DATABASE_URL: tdb.url, FILES_URL: 'https://files.example.com' }), 'serve'), { message: /PUBLIC_URL/ });
    t.notThrows(() => checkLinkBase(parseConfig({}), 'worker'));
  } finally {
    await tdb.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
});

test('TMP_DIR is created at start when missing; one that cannot be created stops start-up and is named', async (t) => {
  const base = await mkdtemp(path.join(os.tmpdir(), 'svc-startup-'));
  try {
    const tmp = path.join(base, 'not', 'yet');
    await prepareDirectories(parseConfig({ TMP_DIR: tmp, DATA_DIR: path.join(base, 'data') }), 'serve');
    t.true(existsSync(tmp));
    t.true(existsSync(path.join(base, 'data')));
    await writeFile(path.join(base, 'file'), 'x');
    const err = await t.throwsAsync(prepareDirectories(parseConfig({ TMP_DIR: path.join(base, 'file', 'tmp'), DATA_DIR: base }), 'serve'), {
      instanceOf: StartupError,
    });
    t.regex(err!.message, /^TMP_DIR \(.*\) cannot be created or written to/);
    const data = await t.throwsAsync(prepareDirectories(parseConfig({ DATA_DIR: path.join(base, 'file', 'data') }), 'worker'), { instanceOf: StartupError });
    t.regex(data!.message, /^DATA_DIR/);
    // The worker does not write uploads: its TMP_DIR is not its concern.
    await prepareDirectories(parseConfig({ TMP_DIR: path.join(base, 'file', 'tmp'), DATA_DIR: base }), 'worker');
  } finally {
    await rm(base, { recursive: true, force: true });
  }
});

test('an owner role with BYPASSRLS but not a member of svc_request: serve refuses and names the grant; after it, the smoke path works', async (t) => {
  const role = `svc_owner_${randomBytes(4).toString('hex')}`;
  const password = randomBytes(12).toString('hex');
  const admin = new pg.Client({ connectionString: adminUrl() });
  await admin.connect();
  const dbName = `t_${role}`;
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-startup-'));
  const ownerUrl = new URL(adminUrl());
  ownerUrl.username = role;
  ownerUrl.password = password;
  ownerUrl.pathname = `/${dbName}`;
  try {
    // svc_request exists already (made by the superuser that migrated the suite's template): this role may not grant it.
    await admin.query(`create role ${role} login password '${password}' nosuperuser bypassrls createrole`);
    await admin.query(`create database ${dbName} owner ${role}`);
    const port = await freePort();
    const env = {
      DATABASE_URL: ownerUrl.toString(),
      DATA_DIR: dataDir,
      WEBHOOK_SECRET_KEY: newKey(),
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
    };
    const migrated = await svc(['migrate'], env);
    t.is(migrated.code, 0, migrated.stderr);

    const refused = await svc(['serve', '--no-worker'], env, /"msg":"listening"/);
    t.is(refused.code, 78, refused.stderr);
    t.regex(refused.stderr, new RegExp(`the role "${role}" of DATABASE_URL cannot act as svc_request \\(permission denied to set role "svc_request"\\)`));
    t.regex(refused.stderr, new RegExp(`grant svc_request to "${role}"`));

    const db = createDatabase({ ownerUrl: ownerUrl.toString() });
    try {
      await t.throwsAsync(checkRequestRole(db), { instanceOf: StartupError });
      await admin.query(`grant svc_request to ${role}`);
      await checkRequestRole(db);
    } finally {
      await db.close();
    }
    // The smoke path, as that role: an OAuth client, a token, an agency through the API.
    const created = await svc(['oauth-clients', 'create', '--name', 'Smoke', '--json'], env);
    t.is(created.code, 0, created.stderr);
    const client = JSON.parse(created.stdout) as { client_id: string; client_secret: string };
    const server = spawn(path.join(root, 'bin/svc'), ['serve', '--no-worker'], {
      cwd: root,
      env: { ...process.env, ...env, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      await new Promise<void>((resolve, reject) => {
        server.stdout.on('data', (d) => {
          out += d;
          if (out.includes('"msg":"listening"')) resolve();
        });
        server.on('close', () => reject(new Error(`serve exited: ${out}`)));
      });
      const token = await fetch(`${env.PUBLIC_URL}/oauth/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret }),
      });
      t.is(token.status, 200);
      const { access_token } = (await token.json()) as { access_token: string };
      const agency = await fetch(`${env.PUBLIC_URL}/v1/agencies`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${access_token}` },
        body: JSON.stringify({ agency_name: 'Smoke Agency', email: 'smoke@example.com', first_name: 'Sam', last_name: 'Smoke' }),
      });
      t.is(agency.status, 200, await agency.clone().text());
      const { data } = (await agency.json()) as { data: { agency: { id: number }; agent: { id: number; access_token: string } } };
      const list = await fetch(`${env.PUBLIC_URL}/v1/agents`, { headers: { authorization: `Bearer ${access_token}` } });
      t.is(list.status, 200);
      t.is(((await list.json()) as { data: unknown[] }).data.length, 1);
      // An agent's own read runs under row-level security as svc_request.
      const own = await fetch(`${env.PUBLIC_URL}/v1/agencies/${data.agency.id}/agents/${data.agent.id}`, {
        headers: { authorization: `Bearer ${data.agent.access_token}` },
      });
      t.is(own.status, 200, await own.text());
    } finally {
      server.kill('SIGTERM');
      await new Promise((r) => server.once('close', r));
    }
  } finally {
    await admin.query(`drop database if exists ${dbName} with (force)`).catch(() => {});
    await admin.query(`drop role if exists ${role}`).catch(() => {});
    await admin.end();
    await rm(dataDir, { recursive: true, force: true });
  }
});
