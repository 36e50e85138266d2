// Agency dashboard: server time (p50/p99) of each page with a few hundred rows behind it (API keys, forms,
// webhook deliveries, submissions, extractions, v1 subscription deliveries), beside the API's GET /v2/forms
// and /healthz as peers, in the same run. The extraction page's image (a PDF page rendered by pdf.js and
// sharp on each request) is measured beside the page itself, and the review page of the same record beside it.
import { randomBytes, randomUUID } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { closeDocumentPools, renderPagePreview } from '../pipelines/documents/index.ts';
import { extractDocument } from '../pipelines/extraction/index.ts';
import { seedExtractionRows } from '../test/helpers/dashboard_seed.ts';
import { createLogger, setLogLevel } from '../lib/log.ts';
import { hashToken } from '../lib/secrets.ts';
import { withIdentity } from '../db/pool.ts';
import { createApp } from '../http/app.ts';
import { benchDeps, keepAliveAgent, load, localPort, report, request, seedAgency } from './lib.ts';
import type { BenchContext } from './lib.ts';

const STEPS = [{ id: 'you', name: 'About you', questions: [{ id: 'name', type: 'short_text', label: 'Your name', required: true }] }];

export async function run(ctx: BenchContext): Promise<void> {
  setLogLevel('silent');
  const { db } = ctx;
  const rows = ctx.quick ? 100 : 300;
  const { cfg, secretKey, blobs } = benchDeps(ctx, { RATE_LIMIT_SUBMISSIONS_PER_WINDOW: '100000', WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
  const app = createApp({ db, cfg, log: createLogger(), blobs, secretKey });
  const server = app.listen(0, '127.0.0.1');
  const port = await localPort(server);
  const agent = keepAliveAgent();
  const call = (method: string, p: string, body?: string, headers: Record<string, string> = {}) => request(agent, port, method, p, body, headers);

  // ---- seed: keys, forms, deliveries, submissions, all through the state functions -------------------
  const label = `bench-dash-${process.pid}`;
  const { oauthClientId, agencyId, agentId } = await seedAgency(db, label);
  const owner = { role: 'owner' as const, agencyId, agentId, mode: 'test' as const };
  const apiKey = `svc_test_dashbench${randomBytes(12).toString('hex')}`;
  await withIdentity(db, owner, async (c) => {
    await c.query(`select app_public.create_api_key($1, 'bench', 'test', 'admin', $2, 'svc_test_dash', '0000')`, [agencyId, hashToken(apiKey)]);
    for (let i = 0; i < rows; i++)
      await c.query(`select app_public.create_api_key($1, $2, 'test', 'read_only', $3, 'svc_test_x', 'abcd')`, [agencyId, `key ${i}`, randomBytes(32)]);
  });
  const admin = (method: string, p: string, json?: unknown) =>
    call(method, p, json === undefined ? undefined : JSON.stringify(json), { authorization: `Bearer ${apiKey}`, 'idempotency-key': randomUUID() });
  let formId = 0;
  let publicId = '';
  for (let i = 0; i < rows; i++) {
    const f = JSON.parse(
      (await admin('POST', '/v2/forms', { name: `Bench form ${i}`, owner: { type: 'agency', agency_id: agencyId }, insurance_line: 'homeowners' })).text,
    );
    if (i === 0) {
      formId = f.id;
      publicId = f.public_id;
    }
  }
  await admin('PATCH', `/v2/forms/${formId}`, { steps: STEPS });
  await admin('POST', `/v2/forms/${formId}/publish`);
  await admin('PUT', '/v2/webhook-endpoints/form-submission', { staging_url: 'http://127.0.0.1:9/hook' });
  const endpoint = (await db.owner.query<{ id: string }>(`select id from app_public.webhook_endpoints where agency_id = $1`, [agencyId])).rows[0].id;
  await withIdentity(db, owner, async (c) => {
    for (let i = 0; i < rows; i++) await c.query(`select app_public.send_test_delivery($1, '{"topic":"form-submission","data":{}}')`, [endpoint]);
  });
  const slug = (await db.owner.query<{ slug: string }>('select slug from app_public.agents where id = $1', [agentId])).rows[0].slug;
  const page = await call('GET', `/${slug}/form/${publicId}/bench-form-0`);
  const snapshotId = JSON.parse(/id="form-data">(.*?)<\/script>/s.exec(page.text)![1]).snapshot_id as number;
  let submissionId = 0;
  for (let i = 0; i < rows; i++) {
    const r = await call('POST', `/${slug}/form/${publicId}/submissions`, JSON.stringify({ snapshot_id: snapshotId, answers: { name: `Person ${i}` } }));
    submissionId = JSON.parse(r.text).submission_id;
  }
  // Extractions: one real document read by the pipeline (its fields, citations and stored file behind the
  // detail page and its image), and `rows` records behind the list.
  const pdf = await readFile(new URL('../fixtures/policies/auto_acme_mutual.pdf', import.meta.url));
  const extracted = await extractDocument(pdf, { entityType: 'auto_policy' });
  const blobKey = `documents/${randomUUID()}.pdf`;
  await blobs.putAt(blobKey, pdf, 'application/pdf');
  const [extractionId] = await seedExtractionRows(db.owner, {
    agencyId,
    agentId,
    mode: 'test',
    n: rows,
    result: extracted.extracted_data,
    blobKey,
    pageCount: 1,
  });
  // A v1 subscription with `rows` test deliveries.
  await db.owner.query(
    `insert into app_public.webhook_endpoints (agency_id, kind, url, events, secret_ciphertext) values ($1, 'subscription', 'http://127.0.0.1:9/v1', '{*}', 'x')`,
    [agencyId],
  );
  const subscription = (
    await db.owner.query<{ id: string }>(`select id from app_public.webhook_endpoints where agency_id = $1 and kind = 'subscription'`, [agencyId])
  ).rows[0].id;
  await withIdentity(db, owner, async (c) => {
    for (let i = 0; i < rows; i++)
      await c.query(`select app_public.send_test_delivery($1, '{"event":"client-submission.complete","data":{}}')`, [subscription]);
  });
  // A few hundred requests counted against the plan today.
  await db.owner.query(
    `insert into app_private.rate_limit_counters (bucket, window_start, hits) values ('api:day:' || $1, to_timestamp(floor(extract(epoch from now()) / 86400) * 86400), $2), ('api:rejected:' || $1, to_timestamp(floor(extract(epoch from now()) / 86400) * 86400), 7)`,
    [agencyId, rows],
  );
  // Nothing should send these deliveries or finish submissions during the measurement.
  await db.owner.query(`delete from graphile_worker._private_jobs`);

  // ---- a session -----------------------------------------------------------------------------------
  const token = `dsl_${randomBytes(24).toString('base64url')}`;
  await withIdentity(db, { role: 'oauth_client', oauthClientId }, (c) =>
    c.query('select app_public.create_dashboard_link($1, $2, 300)', [agentId, hashToken(token)]),
  );
  const signIn = await call('GET', `/dashboard/sign-in/${token}`);
  const cookie = String(signIn.headers['set-cookie']?.[0] ?? '').split(';')[0];
  const delivery = (await db.owner.query<{ id: number }>('select max(id)::int id from app_public.webhook_deliveries where endpoint_id = $1', [endpoint]))
    .rows[0].id;

  process.stdout.write(`${rows} keys, forms, deliveries, submissions, extractions and subscription deliveries behind the pages; 4 concurrent clients\n`);
  const seconds = ctx.quick ? 1 : 4;
  const measure = async (name: string, p: string, headers: Record<string, string>) => {
    const first = await call('GET', p, undefined, headers);
    if (first.status !== 200) throw new Error(`${p}: ${first.status} ${first.text.slice(0, 200)}`);
    report(name, await load(async () => (await call('GET', p, undefined, headers)).status === 200, { concurrency: 4, seconds }));
  };
  const session = { cookie };
  await measure('peer: GET /healthz', '/healthz', {});
  await measure('peer: GET /v2/forms (API key, 20 rows)', '/v2/forms', { authorization: `Bearer ${apiKey}` });
  await measure(`dashboard: API keys (50 of ${rows + 1})`, '/dashboard/test/keys', session);
  await measure('dashboard: webhooks', '/dashboard/test/webhooks', session);
  await measure('dashboard: delivery log (50 of them)', '/dashboard/test/webhooks/form-submission/deliveries', session);
  await measure('dashboard: one delivery', `/dashboard/test/webhooks/form-submission/deliveries/${delivery}`, session);
  await measure(`dashboard: forms (50 of ${rows})`, '/dashboard/test/forms', session);
  await measure('dashboard: one form with embed code', `/dashboard/test/forms/${formId}`, session);
  await measure('dashboard: submissions (50 of them)', '/dashboard/test/submissions', session);
  await measure('dashboard: one submission', `/dashboard/test/submissions/${submissionId}`, session);
  await measure('dashboard: usage (with counts)', '/dashboard/test/usage', session);
  await measure(`dashboard: extractions (50 of ${rows})`, '/dashboard/test/extractions', session);
  await measure(`dashboard: extractions, filtered by status and day`, `/dashboard/test/extractions?status=completed&from=2000-01-01&to=2100-01-01`, session);
  const older = /href="([^"]*before=[^"]*)"/.exec((await call('GET', '/dashboard/test/extractions', undefined, session)).text)![1].replace(/&amp;/g, '&');
  await measure('dashboard: extractions, second page', older, session);
  await measure('dashboard: one extraction (fields and citations)', `/dashboard/test/extractions/${extractionId}`, session);
  // The review page of the same record with three of its cited fields to check (crops of its page), and the queue.
  const toCheck = Object.keys(extracted.extracted_data.citations).slice(0, 3);
  await db.owner.query(`update app_public.extractions set result = jsonb_set(result, '{needs_review}', $2::jsonb) where id = $1`, [
    extractionId,
    JSON.stringify(toCheck),
  ]);
  await measure(`dashboard: review page (${toCheck.length} fields with crops)`, `/dashboard/test/review/${extractionId}`, session);
  await measure('dashboard: review queue', '/dashboard/test/review', session);
  await measure('dashboard: its page image (rendered once, then kept)', `/dashboard/test/extractions/${extractionId}/pages/1`, session);
  report(
    'its page rendered cold (renderPagePreview: pdf.js + sharp PNG)',
    await load(async () => (await renderPagePreview(pdf, 'application/pdf', 1, { width: 1000 })).png.length > 0, { concurrency: 1, seconds }),
  );
  await measure('dashboard: v1 subscriptions', '/dashboard/test/subscriptions', session);
  await measure('dashboard: v1 subscription delivery log (50 of them)', `/dashboard/test/subscriptions/${subscription}/deliveries`, session);
  const olderKeys = /href="([^"]*\/keys\?before=\d+)"/.exec((await call('GET', '/dashboard/test/keys', undefined, session)).text)![1];
  await measure('dashboard: API keys, second page', olderKeys, session);
  await closeDocumentPools();

  agent.destroy();
  await new Promise<void>((r) => server.close(() => r()));
}
