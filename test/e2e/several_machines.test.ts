// The scale-out path as an operator runs it: a real second PostgreSQL cluster (the system's initdb/pg_ctl) owned
// by a non-superuser BYPASSRLS role, an S3-protocol server (s3rver), one API (`serve --no-worker`) and two
// workers, each process with its own data directory, all started through bin/svc. Twenty uploads; the busiest
// worker is killed with SIGKILL; every extraction completes within 20 s of the kill with exactly one webhook
// each, whose document_link serves the uploaded bytes from S3. Workers with a wrong key or without the link
// base refuse to start and name the variable.
import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import pg from 'pg';
import { policyFixture, upload } from '../helpers/extraction.ts';
import { startPgCluster, systemInitdb, type PgCluster } from '../helpers/pg_cluster.ts';
import { freePort } from '../helpers/ports.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { startS3, type TestS3 } from '../helpers/s3.ts';
import { createAgency, createApiKey, requester } from '../helpers/server.ts';
import { eventually } from '../helpers/worker.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DOCUMENTS = 20;
const FIXTURES = ['auto_acme_mutual.pdf', 'auto_harbor.pdf', 'auto_pinecrest.pdf', 'bop_riverbend.pdf', 'cgl_keystone.pdf'];

interface Proc {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  exited: Promise<number | null>;
  /** Resolves when stdout matches `re`; rejects when the process exits first or after `ms`. */
  waitFor(re: RegExp, ms?: number): Promise<void>;
}

/** Environment without anything of the test runner's that would configure the service. */
const cleanEnv = () =>
  Object.fromEntries(
    Object.entries(process.env).filter(([k]) => !/^(DATABASE_|DATA_DIR|TMP_DIR|PORT|PUBLIC_URL|FILES_URL|APP_URL|WEBHOOK_|WORKER_|BLOB_STORE|S3_)/.test(k)),
  );

function svc(args: string[], env: Record<string, string>): Proc {
  const child = spawn(path.join(root, 'bin/svc'), args, { cwd: root, env: { ...cleanEnv(), LOG_LEVEL: 'info', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  const exited = new Promise<number | null>((r) => child.on('close', (c) => r(c)));
  const listeners = new Set<() => void>();
  child.stdout!.on('data', (d) => {
    out += d;
    for (const l of listeners) l();
  });
  child.stderr!.on('data', (d) => (err += d));
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitFor: (re, ms = 120_000) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!re.test(out)) return;
          listeners.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => reject(new Error(`timed out waiting for ${re} from svc ${args.join(' ')}:\n${out}\n${err}`)), ms);
        listeners.add(check);
        check();
        void exited.then((code) => {
          listeners.delete(check);
          clearTimeout(timer);
          reject(new Error(`svc ${args.join(' ')} exited ${code} before ${re}:\n${out}\n${err}`));
        });
      }),
  };
}

/** Run a command to its end. */
async function svcRun(args: string[], env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const p = svc(args, env);
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 120_000);
  const code = await p.exited;
  clearTimeout(timer);
  return { code, stdout: p.stdout(), stderr: p.stderr() };
}

/** A unique PDF per upload (documents are stored by content): a fixture with a comment after its end. */
function uniquePdf(i: number): Buffer {
  return Buffer.concat([policyFixture(FIXTURES[i % FIXTURES.length]), Buffer.from(`\n%svc-e2e ${i} ${randomBytes(8).toString('hex')}\n`)]);
}

const sha = (b: Buffer | Uint8Array) => createHash('sha256').update(b).digest('hex');
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const initdb = systemInitdb();
const title = 'several machines: external Postgres as a non-superuser owner, S3, one API and two workers; a SIGKILLed worker’s jobs finish elsewhere';

if (!initdb) {
  test.skip(`${title} (skipped: no initdb; install Debian's postgresql package)`, () => {});
} else {
  test(title, async (t) => {
    t.timeout(420_000);
    const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-machines-'));
    const procs: Proc[] = [];
    let cluster: PgCluster | undefined;
    let s3: TestS3 | undefined;
    let receiver: Receiver | undefined;
    let admin: pg.Pool | undefined;
    try {
      cluster = await startPgCluster(initdb);
      admin = new pg.Pool({ connectionString: cluster.url('postgres'), max: 2 });
      admin.on('error', () => {});
      await admin.query(`create role svc_owner login password 'owner-secret' nosuperuser bypassrls createrole`);
      await admin.query(`create database svc owner svc_owner`);
      await admin.end();
      admin = new pg.Pool({ connectionString: cluster.url('svc'), max: 2 });
      admin.on('error', () => {});
      s3 = await startS3();
      receiver = await startReceiver();

      const apiPort = await freePort();
      const shared = {
        DATABASE_URL: `postgres://svc_owner:owner-secret@127.0.0.1:${cluster.port}/svc`,
        WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64'),
        PUBLIC_URL: `http://127.0.0.1:${apiPort}`,
        WEBHOOK_ALLOW_HOSTS: '127.0.0.1',
        ...s3.env,
      };
      // The API migrates (as the non-superuser owner), stores the key check, and makes TMP_DIR, which does not exist.
      const tmpDir = path.join(dir, 'api', 'tmp', 'uploads');
      const api = svc(['serve', '--no-worker'], { ...shared, PORT: String(apiPort), DATA_DIR: path.join(dir, 'api'), TMP_DIR: tmpDir });
      procs.push(api);
      await api.waitFor(/"msg":"listening"/);
      t.true(existsSync(tmpDir), 'TMP_DIR was created at start');

      const wrongKey = await svcRun(['worker'], { ...shared, DATA_DIR: path.join(dir, 'wrong'), WEBHOOK_SECRET_KEY: randomBytes(32).toString('base64') });
      t.is(wrongKey.code, 78, wrongKey.stderr);
      t.regex(wrongKey.stderr, /WEBHOOK_SECRET_KEY does not match this database/);
      const { PUBLIC_URL: _, ...noLinkBase } = shared;
      const noBase = await svcRun(['worker'], { ...noLinkBase, DATA_DIR: path.join(dir, 'nobase') });
      t.is(noBase.code, 78, noBase.stderr);
      t.regex(noBase.stderr, /PUBLIC_URL is required with DATABASE_URL/);

      // Two workers; the ids each one beats under tell whose jobs are whose.
      const heartbeats = async () =>
        new Set((await admin!.query<{ worker_id: string }>('select worker_id from app_private.worker_heartbeats')).rows.map((r) => r.worker_id));
      const workers: { proc: Proc; ids: Set<string> }[] = [];
      for (const name of ['w1', 'w2']) {
        const before = await heartbeats();
        const proc = svc(['worker'], { ...shared, DATA_DIR: path.join(dir, name), WORKER_CONCURRENCY: '2' });
        procs.push(proc);
        await proc.waitFor(/"msg":"worker running"/);
        workers.push({ proc, ids: new Set([...(await heartbeats())].filter((id) => !before.has(id))) });
      }
      t.true(
        workers.every((w) => w.ids.size > 0),
        'each worker beats',
      );

      // The smoke path, through the API process.
      const created = await svcRun(['oauth-clients', 'create', '--name', 'Machines', '--json'], { ...shared, DATA_DIR: path.join(dir, 'cli') });
      t.is(created.code, 0, created.stderr);
      const client = JSON.parse(created.stdout) as { client_id: string; client_secret: string };
      const request = requester(shared.PUBLIC_URL);
      const tok = await request('POST', '/oauth/token', {
        json: { grant_type: 'client_credentials', client_id: client.client_id, client_secret: client.client_secret },
      });
      t.is(tok.status, 200, tok.text);
      const agency = await createAgency(request, tok.body.access_token);
      const key = await createApiKey(request, agency.ownerToken, agency.agencyId);
      const plan = await request('PUT', `/v1/agencies/${agency.agencyId}/plan`, {
        token: tok.body.access_token,
        json: { plan: 'enterprise', per_minute: 10_000, per_day: 100_000 },
      });
      t.is(plan.status, 200, plan.text);
      const hook = await request('PUT', '/v2/webhook-endpoints/client-submission', { token: key, json: { staging_url: `${receiver.url}/hook` } });
      t.is(hook.status, 201, hook.text);

      const uploaded = new Map<string, string>(); // extraction id → sha256 of the bytes
      for (let i = 0; i < DOCUMENTS; i += 5) {
        await Promise.all(
          Array.from({ length: 5 }, async (_, j) => {
            const bytes = uniquePdf(i + j);
            const r = await upload({ request }, key, agency.ownerId, bytes, `policy-${i + j}.pdf`);
            t.is(r.status, 200, r.text);
            uploaded.set(r.body.extraction_id, sha(bytes));
          }),
        );
      }
      t.is(uploaded.size, DOCUMENTS);

      const finishedCount = async () =>
        (await admin!.query<{ n: number }>(`select count(*)::int n from app_public.extractions where status in ('completed', 'partial', 'failed')`)).rows[0].n;
      // Kill the worker holding the most jobs (running or fetched) while work is left.
      let victim: (typeof workers)[number] | undefined;
      let stranded: number[] = [];
      const deadline = Date.now() + 180_000;
      while (!victim) {
        if (Date.now() > deadline) throw new Error('no worker ever held a job to kill it with');
        const done = await finishedCount();
        if (done >= DOCUMENTS) throw new Error('every extraction finished before a worker could be killed holding one');
        const { rows } = await admin.query<{ id: number; locked_by: string }>(
          'select id, locked_by from graphile_worker._private_jobs where locked_by is not null',
        );
        const held = workers.map((w) => rows.filter((r) => w.ids.has(r.locked_by)));
        const busiest = held[0].length >= held[1].length ? 0 : 1;
        if (done >= 3 && held[busiest].length > 0) {
          victim = workers[busiest];
          stranded = held[busiest].map((r) => r.id);
          victim.proc.child.kill('SIGKILL');
        } else await sleep(50);
      }
      const killedAt = Date.now();
      await victim.proc.exited;
      t.log(`killed the worker holding ${stranded.length} job(s); ${await finishedCount()} of ${DOCUMENTS} extractions had finished`);

      // Its locks are released by the survivor's heartbeat, and everything completes within 20 s of the kill.
      await eventually(
        async () =>
          (await admin!.query<{ n: number }>('select count(*)::int n from graphile_worker._private_jobs where locked_by = any($1::text[])', [[...victim!.ids]]))
            .rows[0].n === 0,
        60_000,
        'the killed worker’s jobs to be released',
      );
      const releasedAfter = Date.now() - killedAt;
      await eventually(async () => (await finishedCount()) === DOCUMENTS, 120_000, 'every extraction to finish');
      const completedAfter = Date.now() - killedAt;
      t.log(`the killed worker's jobs were released ${releasedAfter} ms after the kill; the last extraction finished after ${completedAfter} ms`);
      t.true(releasedAfter <= 15_000, `the killed worker’s jobs were released after ${releasedAfter} ms`);
      t.true(completedAfter <= 20_000, `every extraction finished ${completedAfter} ms after the kill`);
      const statuses = await admin.query<{ status: string; n: number }>('select status, count(*)::int n from app_public.extractions group by status');
      t.deepEqual(statuses.rows, [{ status: 'completed', n: DOCUMENTS }]);

      // Exactly one webhook per extraction, each linking to its bytes (served from S3 through the API's base). Delivery is
      // at least once: a worker SIGKILLed between a POST and recording it leaves that delivery to be sent again, under the
      // same webhook-id (DESIGN.md, Webhooks), which receivers drop; a second message for one extraction would have its own id.
      await receiver.waitFor(DOCUMENTS, 60_000);
      await sleep(2000);
      const ids = receiver.received.map((r) => r.headers['webhook-id']);
      t.is(new Set(ids).size, DOCUMENTS, 'one webhook (one webhook-id) per extraction, no more');
      const events = await admin.query<{ n: number }>(`select count(*)::int n from app_public.events where topic = 'client-submission'`);
      t.is(events.rows[0]!.n, DOCUMENTS, 'one event per extraction');
      if (ids.length > DOCUMENTS) t.log(`${ids.length - DOCUMENTS} delivery repeated under its own webhook-id after the kill`);
      const served = new Set<string>();
      for (const r of receiver.received) {
        const link = r.json.data.document_link as string;
        t.true(link.startsWith(`${shared.PUBLIC_URL}/`), link);
        const res = await fetch(link);
        t.is(res.status, 200, link);
        served.add(sha(new Uint8Array(await res.arrayBuffer())));
      }
      t.deepEqual([...served].sort(), [...uploaded.values()].sort(), 'every document_link serves the bytes uploaded');

      // Files only in S3, no upload folder left, no delivery failing on a foreign key.
      for (const name of ['api', 'w1', 'w2']) t.false(existsSync(path.join(dir, name, 'blobs')), `${name} stored no file on its disk`);
      t.deepEqual(await readdir(tmpDir), [], 'no upload folder left in TMP_DIR');
      for (const p of procs) t.notRegex(p.stdout() + p.stderr(), /failed authentication/);
    } finally {
      for (const p of procs) if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGTERM');
      await Promise.all(procs.map((p) => Promise.race([p.exited, sleep(15_000).then(() => p.child.kill('SIGKILL'))])));
      await admin?.end().catch(() => {});
      await cluster?.stop();
      await s3?.close();
      await receiver?.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
}
