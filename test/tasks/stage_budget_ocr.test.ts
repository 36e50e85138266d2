// The stage budget on an OCR page: a scanned PDF's page whose OCR runs past DOCUMENT_STAGE_BUDGET_MS ends the
// document failed (extraction_failed, the reason in details), as a text stage past it does; it is not recorded as
// one unreadable page of a partial result, and the job is not retried.
import test from 'ava';
import { policyFixture, upload } from '../helpers/extraction.ts';
import { serviceRig } from '../helpers/rig.ts';
import { agencyWithTestKey } from '../helpers/server.ts';
import { eventually } from '../helpers/worker.ts';

// 1 ms: no page is OCR'd that fast. The worker starts only once the text stage is recorded by hand below.
const rig = serviceRig({ DOCUMENT_STAGE_BUDGET_MS: '1' }, { worker: false });

test('a scanned page whose OCR runs past its budget ends the document failed, not partial', async (t) => {
  const { key, ...a } = await agencyWithTestKey(rig.svc);
  const r = await upload(rig.svc, key, a.ownerId, policyFixture('coi_alpha_scan.pdf'), 'scan.pdf');
  t.is(r.status, 200, r.text);
  const id = r.body.extraction_id as string;
  const owner = rig.svc.tdb.db.owner;
  const { rows } = await owner.query<{ document_id: string }>('select document_id from app_public.extractions where id = $1', [id]);
  const doc = rows[0].document_id;
  // The text stage as documents__read records it for a page without a text layer (its own run would hit the budget first).
  await owner.query(`select graphile_worker.remove_job('document:read:' || $1)`, [doc]);
  await owner.query('select * from app_private.begin_reading($1)', [doc]);
  await owner.query(`select app_private.record_reading_text($1, 1, '[]'::jsonb, array[1])`, [doc]);
  await rig.startWorker();
  const done = await eventually(
    async () => {
      const g = await rig.svc.request('GET', `/api/v1/${a.ownerId}/policy/extractions/${id}`, { headers: { 'x-api-key': key } });
      return ['failed', 'partial', 'completed'].includes(g.body?.parsing_status) && g.body;
    },
    120_000,
    'the extraction to finish',
  );
  t.is(done.parsing_status, 'failed', JSON.stringify(done));
  t.is(done.error, 'extraction_failed');
  t.regex(String(done.details), /took longer than its budget of 1 ms/);
  const jobs = await owner.query('select count(*)::int n from graphile_worker.jobs where last_error is not null');
  t.is(jobs.rows[0].n, 0, 'no job failed and waits for a retry');
});
