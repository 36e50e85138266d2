// Extractions seen by operators: stages with durations and failures by §7.2 code; one request id from the
// upload through every job of the chain to the webhook attempt; OCR pages and plan counters.
import { PassThrough } from 'node:stream';
import test from 'ava';
import type { Runner } from 'graphile-worker';
import { setLogLevel, setLogStream } from '../../lib/log.ts';
import { asRole } from '../helpers/db.ts';
import { finished, policyFixture, upload } from '../helpers/extraction.ts';
import { startReceiver, type Receiver } from '../helpers/receiver.ts';
import { startService, type TestService, agencyWithTestKey } from '../helpers/server.ts';
import { eventually, startTestWorker } from '../helpers/worker.ts';

let svc: TestService;
let worker: Runner;
const receivers: Receiver[] = [];
const lines: Array<Record<string, unknown>> = [];

test.before(async () => {
  svc = await startService({ WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WEBHOOK_TIMEOUT_MS: '5000', OCR_ENGINE: 'tesseract-cli' });
  worker = await startTestWorker(svc);
  const stream = new PassThrough();
  stream.on('data', (chunk: Buffer) => {
    for (const l of chunk.toString('utf8').split('\n')) if (l.trim()) lines.push(JSON.parse(l));
  });
  setLogStream(stream);
  setLogLevel('info');
});
test.after.always(async () => {
  setLogLevel('silent');
  await worker?.stop();
  await Promise.all(receivers.map((r) => r.close()));
  await svc?.close();
});

const asOperator = (sql: string, values?: unknown[]) => asRole(svc.tdb.db, 'svc_operator', sql, values);

async function setup() {
  const { key, ...a } = await agencyWithTestKey(svc);
  const r = await startReceiver();
  receivers.push(r);
  const ep = await svc.request('PUT', '/v2/webhook-endpoints/client-submission', { token: key, json: { staging_url: `${r.url}/hook` } });
  if (ep.status !== 201) throw new Error(ep.text);
  return { ...a, key, receiver: r };
}

test('one request id follows an upload through read, extract, complete, fan-out and delivery to the attempt', async (t) => {
  t.timeout(420_000);
  const a = await setup();
  const requestId = 'req-upload-ops-1';
  const r = await upload(svc, a.key, a.ownerId, policyFixture('auto_acme_mutual.pdf'), 'auto_acme_mutual.pdf', {}, { 'X-Request-Id': requestId });
  t.is(r.status, 200, r.text);
  t.is(r.headers.get('x-request-id'), requestId);
  // The plan counters as the upload left them, read before the extraction runs: a slow run may cross into the
  // next minute, whose counter starts at 0.
  const [plan] = await asOperator(`select * from app_ops.agency_rate_limits where agency_id = $1`, [a.agencyId]);
  t.true(plan.minute_hits >= 1 && plan.day_hits >= 1, JSON.stringify(plan));
  const counters = await asOperator(`select kind from app_ops.rate_limit_counters where agency_id = $1 order by kind`, [a.agencyId]);
  t.true(counters.some((c) => c.kind === 'plan_minute') && counters.some((c) => c.kind === 'plan_day'));
  await finished(svc, a.key, a.ownerId, r.body.extraction_id, 360_000);
  const attempt = await eventually(
    async () => (await asOperator(`select * from app_ops.webhook_delivery_attempts where request_id = $1`, [requestId]))[0],
    30_000,
    'the delivery attempt',
  );
  t.true(attempt.succeeded);

  const [x] = await asOperator(`select * from app_ops.extractions where extraction_id = $1`, [r.body.extraction_id]);
  t.like(x, { status: 'completed', mode: 'test', content_type: 'application/pdf', error_code: null, ocr_pending: 0, in_stage_for: null });
  t.truthy(x.queue_wait);
  t.truthy(x.processing_time);
  t.true(x.page_count >= 1);
  t.false('filename' in x || 'result' in x, 'no file name or extracted data for operators');

  const tasks = await eventually(
    async () => {
      // Jobs write one 'job' line each; the first attempt is sent by the worker's send loop (0015), which writes a
      // 'delivery attempt' line per delivery with its request id.
      const seen = new Set(
        lines.filter((l) => l.requestId === requestId && (l.msg === 'job' || (l.msg === 'delivery attempt' && l.loop === true))).map((l) => l.task),
      );
      return seen.has('deliveries__send') && seen;
    },
    10_000,
    'the job lines',
  );
  for (const task of ['documents__read', 'extractions__extract', 'extractions__complete', 'deliveries__send']) t.true(tasks.has(task), task);
  // The fan-out job serves every request of the agency's slice; its line per event carries the event's request id.
  t.true(
    lines.some((l) => l.requestId === requestId && l.msg === 'event fanned out' && l.task === 'events__fan_out'),
    'the fan-out line',
  );
  t.true(
    lines.some((l) => l.requestId === requestId && l.msg === 'request' && l.route === '/api/v1/:agent_id/policy/extract'),
    'the HTTP line',
  );
  for (const l of lines) {
    t.false(JSON.stringify(l).includes(a.key), 'no API key in a log line');
    t.false(JSON.stringify(l).includes('John Smith'), 'no document content in a log line');
  }
});

test("a photo is OCR'd page by page: the pages are counted in the view and in /metrics", async (t) => {
  // OCR of one photo takes about a minute on a loaded 2-core machine; give it room.
  t.timeout(420_000);
  const a = await setup();
  const r = await upload(svc, a.key, a.ownerId, policyFixture('auto_acme_mutual_photo.jpg'), 'auto_acme_mutual_photo.jpg');
  t.is(r.status, 200, r.text);
  await finished(svc, a.key, a.ownerId, r.body.extraction_id, 360_000);
  const [x] = await asOperator(`select * from app_ops.extractions where extraction_id = $1`, [r.body.extraction_id]);
  t.is(x.ocr_done, 1);
  t.is(x.ocr_pending, 0);
  t.regex(x.parsing_method, /ocr/);
  const text = await svc.deps.metrics!.registry.getSingleMetricAsString('svc_ocr_pages_total');
  t.regex(text, /svc_ocr_pages_total\{engine="[^"]+"\} [1-9]/);
});

test('stages and failures by §7.2 code, over seeded extractions', async (t) => {
  const a = await setup();
  const o = svc.tdb.db.owner;
  const seed = async (status: 'queued' | 'processing' | 'failed', code?: string, details?: string) => {
    const doc = await o.query(
      `insert into app_public.documents (agency_id, agent_id, mode, blob_key, filename, content_type, size_bytes, sha256)
       values ($1, $2, 'test', gen_random_uuid()::text, 'x.pdf', 'application/pdf', 10, repeat('a', 64)) returning id`,
      [a.agencyId, a.ownerId],
    );
    const x = await o.query(
      `insert into app_public.extractions (document_id, agency_id, agent_id, mode, entity_type, queued_at)
       values ($1, $2, $3, 'test', 'flood', now() - interval '10 minutes') returning id`,
      [doc.rows[0].id, a.agencyId, a.ownerId],
    );
    const id = x.rows[0].id;
    if (status !== 'queued') await o.query('select app_private.begin_extraction($1)', [id]);
    if (status === 'failed') await o.query(`select app_private.fail_extraction($1, $2, $3, 'text')`, [id, code, details]);
    return id;
  };
  await seed('queued');
  await seed('processing');
  await seed('failed', 'extraction_failed', 'an image-only PDF without extractable text');
  await seed('failed', 'extraction_failed', 'no policy fields found');
  await seed('failed', 'internal_error', 'the stored document is no longer available');

  const stages = await asOperator(`select * from app_ops.extraction_stages where entity_type = 'flood' order by status`);
  t.deepEqual(
    stages.map((s) => [s.status, s.extractions]),
    [
      ['failed', 3],
      ['processing', 1],
      ['queued', 1],
    ],
  );
  const queued = stages.find((s) => s.status === 'queued');
  t.true(queued.longest_in_stage.minutes >= 9, JSON.stringify(queued.longest_in_stage));
  const failures = await asOperator(`select * from app_ops.extraction_failures where entity_type = 'flood' order by error_code`);
  t.deepEqual(
    failures.map((f) => [f.error_code, f.failures, f.failures_24h]),
    [
      ['extraction_failed', 2, 2],
      ['internal_error', 1, 1],
    ],
  );
  t.is(failures[0].last_details, 'no policy fields found');
});

test('lease analyses by stage and §7.2 code, over seeded analyses', async (t) => {
  const a = await setup();
  const o = svc.tdb.db.owner;
  const seed = async (status: 'queued' | 'processing' | 'failed', code?: string, details?: string) => {
    const docs = [];
    for (const purpose of ['lease', 'insurance']) {
      const d = await o.query(
        `insert into app_public.documents (agency_id, mode, purpose, blob_key, filename, content_type, size_bytes, sha256)
         values ($1, 'test', $2, gen_random_uuid()::text, 'x.pdf', 'application/pdf', 10, repeat('c', 64)) returning id`,
        [a.agencyId, purpose],
      );
      docs.push(d.rows[0].id);
    }
    const x = await o.query(
      `insert into app_public.analyses (agency_id, mode, lease_document_id, insurance_document_id, as_of, created_at)
       values ($1, 'test', $2, $3, current_date, now() - interval '5 minutes') returning id`,
      [a.agencyId, docs[0], docs[1]],
    );
    const id = x.rows[0].id;
    if (status !== 'queued') await o.query('select app_private.begin_analysis($1)', [id]);
    if (status === 'failed') await o.query('select app_private.fail_analysis($1, $2, $3)', [id, code, details]);
    await o.query(`insert into app_private.document_pages (document_id, page, state) values ($1, 1, 'ocr_pending'), ($2, 1, 'ocr_done')`, docs);
    return id;
  };
  const queued = await seed('queued');
  await seed('processing');
  await seed('failed', 'extraction_failed', 'the lease has no readable text');
  const [row] = await asOperator('select * from app_ops.analyses where analysis_id = $1', [queued]);
  t.like(row, { status: 'queued', ocr_pending: 1, ocr_done: 1, lease_facts_read: false, processing_time: null });
  t.true(row.in_stage_for.minutes >= 4);
  const stages = await asOperator('select status, error_code, analyses, last_error_details from app_ops.analysis_stages order by status');
  t.deepEqual(
    stages.map((s) => [s.status, s.error_code, s.analyses]),
    [
      ['failed', 'extraction_failed', 1],
      ['processing', null, 1],
      ['queued', null, 1],
    ],
  );
  t.is(stages[0].last_error_details, 'the lease has no readable text');
});
