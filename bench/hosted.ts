// Hosted forms: submissions/s end to end (HTTP submit → server-side rule replay → submission row → finalize
// job with ACORD PDF + zip → outbox → delivery → signed POST received), with p50/p99 of submit-to-receipt,
// beside the HTTP submit alone as the peer; and the page's weight (HTML + JS + CSS, gzip) beside the rule
// engine's own minified size, all measured in the same run.
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { encryptSecret } from '../lib/crypto.ts';
import { createLogger, setLogLevel } from '../lib/log.ts';
import { hashToken } from '../lib/secrets.ts';
import { withIdentity } from '../db/pool.ts';
import { createApp } from '../http/app.ts';
import { pageAssets } from '../http/pages/assets.ts';
import { newSigningSecret } from '../pipelines/webhooks/sign.ts';
import { startWorker } from '../tasks/index.ts';
import { benchDeps, fmt, jsonReceiver, keepAliveAgent, load, localPort, percentile, report, request, seedAgency } from './lib.ts';
import type { BenchContext } from './lib.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

const STEPS = [
  {
    id: 'you',
    name: 'About you',
    questions: [
      { id: 'first_name', type: 'short_text', label: 'First name', required: true, acord_field: 'ACORD80.Applicant.FirstName' },
      { id: 'last_name', type: 'short_text', label: 'Last name', required: true, acord_field: 'ACORD80.Applicant.LastName' },
      { id: 'email', type: 'email', label: 'Email', required: true, acord_field: 'ACORD80.Applicant.Email' },
      { id: 'pets', type: 'single_choice', label: 'Pets?', required: true, options: ['Yes', 'No'] },
      {
        id: 'pet_count',
        type: 'number',
        label: 'How many?',
        required: true,
        initially_hidden: true,
        rules: [{ condition_mode: 'all', conditions: [{ source_question_id: 'pets', operator: 'equals', value: 'Yes' }], action: 'show' }],
      },
    ],
  },
  {
    id: 'home',
    name: 'Home',
    questions: [
      { id: 'address', type: 'address', label: 'Address', required: true, acord_field: 'ACORD80.Location.Address' },
      { id: 'year_built', type: 'number', label: 'Year built', required: true, acord_field: 'ACORD80.Construction.YearBuilt' },
      { id: 'residents', type: 'data_table', label: 'Residents', settings: { columns: [{ id: 'name', label: 'Name', type: 'short_text', required: true }] } },
    ],
  },
];

const ANSWERS = {
  first_name: 'Zoë',
  last_name: 'Alvarez',
  email: 'zoe@example.com',
  pets: 'Yes',
  pet_count: 2,
  address: { line1: '12 Elm St', city: 'Austin', state: 'TX', postal_code: '78701' },
  year_built: 1998,
  residents: [{ name: 'Zoë Alvarez' }, { name: 'Sam Alvarez' }],
};

export async function run(ctx: BenchContext): Promise<void> {
  setLogLevel('silent');
  const { db } = ctx;
  const arrivals = new Map<number, number>();
  let onArrival = () => {};
  const { server: receiver, url: hookUrl } = await jsonReceiver((body) => {
    const id = (body as { data: { submission_id: number } }).data.submission_id;
    if (!arrivals.has(id)) arrivals.set(id, performance.now());
    onArrival();
  });

  const { cfg, secretKey, blobs } = benchDeps(ctx, { WEBHOOK_ALLOW_HOSTS: '127.0.0.1', RATE_LIMIT_SUBMISSIONS_PER_WINDOW: '100000' });
  const log = createLogger();
  const { agencyId, agentId } = await seedAgency(db, 'bench-hosted');
  const apiKey = 'svc_test_hostedbenchkey00000000000000000';
  await withIdentity(db, { role: 'owner', agencyId, agentId }, (c) =>
    c.query(`select app_public.create_api_key($1, 'bench', 'test', 'admin', $2, 'svc_test_host', '0000')`, [agencyId, hashToken(apiKey)]),
  );
  await db.owner.query(
    `insert into app_public.webhook_endpoints (agency_id, kind, topic, staging_url, secret_ciphertext) values ($1, 'topic', 'form-submission', $2, $3)`,
    [agencyId, hookUrl, encryptSecret(secretKey, newSigningSecret())],
  );
  const app = createApp({ db, cfg, log, blobs, secretKey });
  const server = app.listen(0, '127.0.0.1');
  const port = await localPort(server);
  const agent = keepAliveAgent();
  const call = (method: string, p: string, body?: string, headers: Record<string, string> = {}) => request(agent, port, method, p, body, headers);
  const admin = (method: string, p: string, json?: unknown) =>
    call(method, p, json === undefined ? undefined : JSON.stringify(json), { authorization: `Bearer ${apiKey}`, 'idempotency-key': randomUUID() });
  const created = JSON.parse(
    (await admin('POST', '/v2/forms', { name: 'Bench home quote', owner: { type: 'agency', agency_id: agencyId }, insurance_line: 'homeowners' })).text,
  );
  await admin('PATCH', `/v2/forms/${created.id}`, { steps: STEPS });
  await admin('POST', `/v2/forms/${created.id}/publish`);
  const slug = (await db.owner.query<{ slug: string }>('select slug from app_public.agents where id = $1', [agentId])).rows[0].slug;
  const pagePath = `/${slug}/form/${created.public_id}/bench-home-quote`;
  const page = await call('GET', pagePath);
  const snapshotId = JSON.parse(/id="form-data">(.*?)<\/script>/s.exec(page.text)![1]).snapshot_id as number;
  const submitBody = JSON.stringify({ snapshot_id: snapshotId, answers: ANSWERS });
  const submitPath = `/${slug}/form/${created.public_id}/submissions`;

  // ---- page weight ----------------------------------------------------------------------------------
  const assets = await pageAssets();
  const html = Buffer.from(page.text);
  const engine = await build({
    entryPoints: [path.join(root, 'pipelines/forms/engine.ts')],
    bundle: true,
    minify: true,
    write: false,
    format: 'esm',
    target: 'es2020',
    logLevel: 'silent',
  });
  const engineBytes = Buffer.from(engine.outputFiles[0].contents);
  const kb = (n: number) => `${fmt(n / 1024, 1)} KB`;
  const gz = (b: Buffer) => gzipSync(b, { level: 9 }).length;
  const total = gz(html) + assets.scripts.form.gzip.length + assets.stylesheet.gzip.length;
  process.stdout.write(
    `hosted page (${STEPS.reduce((n, s) => n + s.questions.length, 0)} questions), gzip: HTML ${kb(gz(html))} + JS ${kb(assets.scripts.form.gzip.length)} + CSS ${kb(assets.stylesheet.gzip.length)} = ${kb(total)}   (raw JS ${kb(assets.scripts.form.body.length)})\n`,
  );
  process.stdout.write(`peer: the rule engine alone (pipelines/forms/engine.ts, minified) ${kb(engineBytes.length)}, gzip ${kb(gz(engineBytes))}\n`);

  // ---- end to end ---------------------------------------------------------------------------------------
  const runner = await startWorker(db.owner, { concurrency: 4, log, deps: { cfg, log, secretKey, blobs }, pollInterval: 1000 });
  let stopped = false;
  try {
    // One at a time: the latency of the chain itself (submit → finalize job → fan-out → delivery), no queueing.
    const single: number[] = [];
    for (let i = 0; i < (ctx.quick ? 10 : 30); i++) {
      const at = performance.now();
      const r = await call('POST', submitPath, submitBody);
      const id = JSON.parse(r.text).submission_id as number;
      while (!arrivals.has(id)) await new Promise<void>((res) => ((onArrival = () => res()), setTimeout(res, 50)));
      single.push(arrivals.get(id)! - at);
    }
    single.sort((a, b) => a - b);
    process.stdout.write(
      `${'end to end, one submission at a time'.padEnd(58)} ${fmt(1000 / (single.reduce((a, b) => a + b, 0) / single.length), 1).padStart(8)} sub/s    p50 ${fmt(percentile(single, 50), 1).padStart(7)} ms   p99 ${fmt(percentile(single, 99), 1).padStart(7)} ms\n`,
    );
    const n = ctx.quick ? 60 : 300;
    const started = new Map<number, number>();
    const done = new Promise<void>((resolve) => {
      onArrival = () => {
        if ([...started.keys()].every((id) => arrivals.has(id)) && started.size >= n) resolve();
      };
    });
    const t0 = performance.now();
    let sent = 0;
    let failed = 0;
    await Promise.all(
      Array.from({ length: 4 }, async () => {
        while (sent < n) {
          sent++;
          const at = performance.now();
          const r = await call('POST', submitPath, submitBody);
          if (r.status !== 201) {
            failed++;
            continue;
          }
          started.set(JSON.parse(r.text).submission_id, at);
        }
      }),
    );
    const timeout = new Promise<void>((r) => setTimeout(r, 120_000));
    onArrival();
    await Promise.race([done, timeout]);
    const elapsed = (performance.now() - t0) / 1000;
    const latencies = [...started]
      .filter(([id]) => arrivals.has(id))
      .map(([id, at]) => arrivals.get(id)! - at)
      .sort((a, b) => a - b);
    process.stdout.write(
      `${`end to end: submit → ACORD zip → webhook received (4 conns, ${started.size} submissions)`.padEnd(58)} ${fmt(latencies.length / elapsed, 0).padStart(8)} sub/s    p50 ${fmt(percentile(latencies, 50), 1).padStart(7)} ms   p99 ${fmt(percentile(latencies, 99), 1).padStart(7)} ms${failed ? `   failed ${failed}` : ''}${latencies.length < started.size ? `   lost ${started.size - latencies.length}` : ''}\n`,
    );
    // The peers run without the worker, so its ACORD jobs do not compete with them.
    await runner.stop();
    stopped = true;
    const seconds = ctx.quick ? 2 : 5;
    report(
      'peer: HTTP submit alone (rules replayed, row stored; 4 conns)',
      await load(async () => (await call('POST', submitPath, submitBody)).status === 201, { concurrency: 4, seconds }),
    );
    report('peer: GET the hosted page (8 conns)', await load(async () => (await call('GET', pagePath)).status === 200, { concurrency: 8, seconds }));
  } finally {
    if (!stopped) await runner.stop();
    server.close();
    receiver.close();
    agent.destroy();
  }
}
