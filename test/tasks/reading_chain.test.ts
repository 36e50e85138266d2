// One document-reading chain (migration 0023): an extraction's document and both documents of a lease analysis
// are read by documents__read / documents__ocr keyed by the document; the OCR engine of a page is a column, not
// page content; the synchronous analyze request waits for its result outside any transaction; and jobs of the
// old per-product chains still queued when 0023 runs move to the one chain.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { acrossMigration } from '../helpers/db.ts';
import { finished, policyFixture, upload } from '../helpers/extraction.ts';
import { serviceRig } from '../helpers/rig.ts';
import { agencyWithTestKey } from '../helpers/server.ts';

const leaseFixture = (f: string) => fs.readFileSync(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/lease', f));

// The synchronous analyze below waits as long as a scanned certificate takes to read.
const rig = serviceRig({ ANALYZE_DEADLINE_MS: '300000' });

interface PageRow {
  page: number;
  state: string;
  engine: string | null;
  has_engine_in_content: boolean;
}

async function pagesOf(documentId: string): Promise<PageRow[]> {
  const { rows } = await rig.svc.tdb.db.owner.query<PageRow>(
    `select page, state, engine, coalesce(content ? 'ocr_engine', false) as has_engine_in_content
       from app_private.document_pages where document_id = $1 order by page`,
    [documentId],
  );
  return rows;
}

test.serial('a scanned policy and a lease analysis are read by the one chain: OCR pages carry their engine as a column', async (t) => {
  t.timeout(600_000);
  const { key, ...a } = await agencyWithTestKey(rig.svc);

  const r = await upload(rig.svc, key, a.ownerId, policyFixture('coi_alpha_scan.pdf'), 'coi_alpha_scan.pdf', { entity_type: 'declaration_page' });
  t.is(r.status, 200, r.text);
  const rec = await finished(rig.svc, key, a.ownerId, r.body.extraction_id, 300_000);
  t.not(rec.parsing_status, 'failed', JSON.stringify(rec).slice(0, 400));
  t.is(rec.parsing_method.split('+')[0], 'ocr');
  const { rows: ext } = await rig.svc.tdb.db.owner.query('select document_id from app_public.extractions where id = $1', [r.body.extraction_id]);
  const pages = await pagesOf(ext[0].document_id);
  t.true(pages.length > 0);
  for (const p of pages) {
    t.is(p.state, 'ocr_done', `page ${p.page}`);
    t.truthy(p.engine, `page ${p.page} names its OCR engine`);
    t.false(p.has_engine_in_content, `page ${p.page}: the engine is not smuggled into the page's text`);
  }

  const form = new FormData();
  form.append('lease', new Blob([leaseFixture('com_scanned_coi.lease.pdf')], { type: 'application/pdf' }), 'lease.pdf');
  form.append('insurance', new Blob([leaseFixture('com_scanned_coi.insurance.pdf')], { type: 'application/pdf' }), 'insurance.pdf');
  form.append('as_of', '2026-02-15');
  const started = await rig.svc.request('POST', '/api/analyze?async=true', { form, headers: { 'x-api-key': key } });
  t.is(started.status, 202, started.text);
  // The jobs queued by start_analysis read each document by its id; no per-product reading task exists.
  const docs = (
    await rig.svc.tdb.db.owner.query<{ lease_document_id: string; insurance_document_id: string }>(
      'select lease_document_id, insurance_document_id from app_public.analyses where id = $1',
      [started.body.id],
    )
  ).rows[0];
  const done = await (async () => {
    for (const until = Date.now() + 480_000; Date.now() < until; await new Promise((res) => setTimeout(res, 200))) {
      const g = await rig.svc.request('GET', `/api/analyses/${started.body.id}`, { headers: { 'x-api-key': key } });
      if (g.body?.status === 'completed' || g.body?.status === 'failed') return g.body;
    }
    throw new Error('the analysis did not finish');
  })();
  t.is(done.status, 'completed', JSON.stringify(done).slice(0, 400));
  const lease = await pagesOf(docs.lease_document_id);
  const insurance = await pagesOf(docs.insurance_document_id);
  t.true(
    lease.length > 0 && lease.every((p) => p.state === 'read' && p.engine === null && !p.has_engine_in_content),
    'the text lease was read from its text layer',
  );
  t.true(
    insurance.some((p) => p.state === 'ocr_done') && insurance.every((p) => (p.state === 'ocr_done') === (p.engine !== null) && !p.has_engine_in_content),
    "the scanned certificate's pages were OCR'd, each naming its engine in the engine column",
  );
});

test.serial('a synchronous analyze holds no open transaction while it waits for the workers', async (t) => {
  t.timeout(600_000);
  const { key } = await agencyWithTestKey(rig.svc);
  const form = new FormData();
  form.append('lease', new Blob([leaseFixture('com_scanned_coi.lease.pdf')], { type: 'application/pdf' }), 'lease.pdf');
  form.append('insurance', new Blob([leaseFixture('com_scanned_coi.insurance.pdf')], { type: 'application/pdf' }), 'insurance.pdf');
  form.append('as_of', '2026-02-15');
  let answered = false;
  const pending = rig.svc.request('POST', '/api/analyze', { form, headers: { 'x-api-key': key } }).finally(() => (answered = true));
  let sawWaiting = 0;
  let idleInTransaction = 0;
  while (!answered) {
    const { rows } = await rig.svc.tdb.db.owner.query<{ n: number; waiting: number }>(
      `select count(*) filter (where application_name = 'svc-request' and state like 'idle in transaction%')::int as n,
              (select count(*)::int from app_public.analyses where status in ('queued', 'processing')) as waiting
         from pg_stat_activity where datname = current_database()`,
    );
    if (rows[0].waiting > 0) sawWaiting++;
    if (rows[0].waiting > 0 && rows[0].n > 0) idleInTransaction++;
    await new Promise((res) => setTimeout(res, 50));
  }
  const r = await pending;
  t.is(r.status, 200, r.text);
  t.true(sawWaiting > 3, 'the request was seen waiting for the workers');
  t.is(idleInTransaction, 0, 'no request connection sat in an open transaction during the wait');
});

test('jobs of the old per-product chains queued before 0023 move to the one chain', async (t) => {
  await acrossMigration('0023', async (q, rest) => {
    const [oc] = await q(
      `insert into app_private.oauth_clients (client_id, name, secret_hash) values ('oc_m', 'm', decode(repeat('00', 32), 'hex')) returning id`,
    );
    const [g] = await q(`insert into app_public.agencies (oauth_client_id, name) values ($1, 'A') returning id`, [oc.id]);
    const [ag] = await q(
      `insert into app_public.agents (agency_id, first_name, last_name, email, slug) values ($1, 'A', 'B', 'a@b.example', 'ab') returning id`,
      [g.id],
    );
    const doc = (purpose: string) =>
      q(
        `insert into app_public.documents (agency_id, agent_id, mode, purpose, blob_key, filename, content_type, size_bytes, sha256)
         values ($1, $2, 'test', $3, 'documents/' || gen_random_uuid() || '.pdf', 'x.pdf', 'application/pdf', 10, repeat('a', 64)) returning id`,
        [g.id, purpose === 'policy' ? ag.id : null, purpose],
      ).then((r) => r[0].id as string);
    const policyDoc = await doc('policy');
    const leaseDoc = await doc('lease');
    const insuranceDoc = await doc('insurance');
    const [x] = await q(
      `insert into app_public.extractions (document_id, agency_id, agent_id, mode, entity_type) values ($1, $2, $3, 'test', 'declaration_page') returning id`,
      [policyDoc, g.id, ag.id],
    );
    const [an] = await q(
      `insert into app_public.analyses (agency_id, mode, lease_document_id, insurance_document_id, as_of) values ($1, 'test', $2, $3, '2026-01-01') returning id`,
      [g.id, leaseDoc, insuranceDoc],
    );
    await q(`select app_private.queue_extraction_job('documents__read', json_build_object('extraction_id', $1::uuid), 'extraction:read:' || $1)`, [x.id]);
    await q(
      `select app_private.queue_extraction_job('documents__ocr', json_build_object('extraction_id', $1::uuid, 'page', 3), 'extraction:ocr:' || $1 || ':3', 10)`,
      [x.id],
    );
    await q(
      `select app_private.queue_analysis_job('analyses__read', json_build_object('analysis_id', $1::uuid, 'document', 'insurance'), 'analysis:read:' || $1 || ':insurance')`,
      [an.id],
    );
    await q(
      `select app_private.queue_analysis_job('analyses__ocr', json_build_object('analysis_id', $1::uuid, 'document', 'lease', 'page', 2), 'analysis:ocr:' || $1 || ':lease:2', 10)`,
      [an.id],
    );

    await rest();
    const jobs = await q(
      `select t.identifier as task, j.key, j.payload::jsonb as payload, j.priority
         from graphile_worker._private_jobs j join graphile_worker._private_tasks t on t.id = j.task_id order by t.identifier, j.key`,
    );
    const strip = (p: Record<string, unknown>) => Object.fromEntries(Object.entries(p).filter(([k]) => k !== 'request_id'));
    t.deepEqual(
      jobs.map((j) => ({ task: j.task, key: j.key, payload: strip(j.payload), priority: j.priority })).sort((p, r) => p.key.localeCompare(r.key)),
      [
        { task: 'documents__ocr', key: `document:ocr:${leaseDoc}:2`, payload: { document_id: leaseDoc, page: 2 }, priority: 10 },
        { task: 'documents__ocr', key: `document:ocr:${policyDoc}:3`, payload: { document_id: policyDoc, page: 3 }, priority: 10 },
        { task: 'documents__read', key: `document:read:${insuranceDoc}`, payload: { document_id: insuranceDoc }, priority: 0 },
        { task: 'documents__read', key: `document:read:${policyDoc}`, payload: { document_id: policyDoc }, priority: 0 },
      ].sort((p, r) => p.key.localeCompare(r.key)),
    );
  });
});
