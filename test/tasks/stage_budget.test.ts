// The stage budget through the worker: a document whose reading runs past DOCUMENT_STAGE_BUDGET_MS ends failed with
// extraction_failed and the reason in its details, and the task is not retried.
import test from 'ava';
import { policyFixture, upload } from '../helpers/extraction.ts';
import { serviceRig } from '../helpers/rig.ts';
import { agencyWithTestKey } from '../helpers/server.ts';
import { eventually } from '../helpers/worker.ts';

// 1 ms: no PDF is read that fast.
const rig = serviceRig({ DOCUMENT_STAGE_BUDGET_MS: '1' });

test('a document whose text stage runs past its budget ends failed: extraction_failed, the reason in details', async (t) => {
  const { key, ...a } = await agencyWithTestKey(rig.svc);
  const r = await upload(rig.svc, key, a.ownerId, policyFixture('auto_acme_mutual.pdf'), 'p.pdf');
  t.is(r.status, 200, r.text);
  const id = r.body.extraction_id as string;
  const done = await eventually(
    async () => {
      const g = await rig.svc.request('GET', `/api/v1/${a.ownerId}/policy/extractions/${id}`, { headers: { 'x-api-key': key } });
      return g.body?.parsing_status === 'failed' && g.body;
    },
    60_000,
    'the extraction to fail',
  );
  t.is(done.error, 'extraction_failed', JSON.stringify(done));
  t.regex(String(done.details), /took longer than its budget of 1 ms/);
  const jobs = await rig.svc.tdb.db.owner.query('select count(*)::int n from graphile_worker.jobs where last_error is not null');
  t.is(jobs.rows[0].n, 0, 'no job failed and waits for a retry');
});
