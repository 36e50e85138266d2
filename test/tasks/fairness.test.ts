// Kinds of work and agencies do not starve each other: document stages and OCR pages run in runners of their own,
// and one agency's burst of uploads runs one job at a time per kind (its graphile-worker queues, 0025) while
// another agency's upload takes the free slot.
import test from 'ava';
import { createTaskList, startWorker, tasksByKind } from '../../tasks/index.ts';
import { policyFixture, upload } from '../helpers/extraction.ts';
import { serviceRig } from '../helpers/rig.ts';
import { eventually } from '../helpers/worker.ts';

const rig = serviceRig({}, { worker: false });

const big = { plan: 'enterprise', per_minute: 10_000, per_day: 100_000 };

async function agency() {
  const c = await rig.svc.oauthClient();
  const a = await rig.svc.agency(c.token);
  const r = await rig.svc.request('PUT', `/v1/agencies/${a.agencyId}/plan`, { token: c.token, json: big });
  if (r.status !== 200) throw new Error(r.text);
  return { ...a, key: await rig.svc.apiKey(a.ownerToken, a.agencyId, 'test') };
}

const statuses = async (agencyId: number) =>
  (await rig.svc.tdb.db.owner.query<{ status: string }>('select status from app_public.extractions where agency_id = $1', [agencyId])).rows.map(
    (r) => r.status,
  );

test('one agency’s queued scans do not hold another agency’s text upload: it finishes while theirs still wait', async (t) => {
  const a = await agency();
  const b = await agency();
  const scan = policyFixture('cgl_keystone_scan.pdf');
  // A's burst is queued first: with one queue for every job, all of its reads would run before B's.
  for (let i = 0; i < 20; i++) t.is((await upload(rig.svc, a.key, a.ownerId, scan, `scan-${i}.pdf`)).status, 200);
  const r = await upload(rig.svc, b.key, b.ownerId, policyFixture('auto_acme_mutual.pdf'), 'text.pdf');
  t.is(r.status, 200, r.text);
  // Each agency's document jobs wait in its own queues: two of them (DOCUMENT_JOBS_PER_AGENCY, default 2), by job key.
  const jobs = await rig.svc.tdb.db.owner.query<{ queue_name: string | null; n: number }>(
    'select queue_name, count(*)::int n from graphile_worker.jobs group by 1 order by 1',
  );
  const queues = Object.fromEntries(jobs.rows.map((r) => [r.queue_name, r.n]));
  t.deepEqual(
    Object.keys(queues)
      .filter((q) => q.startsWith(`documents:${a.agencyId}:`))
      .sort(),
    [`documents:${a.agencyId}:0`, `documents:${a.agencyId}:1`],
  );
  t.is(queues[`documents:${a.agencyId}:0`] + queues[`documents:${a.agencyId}:1`], 20);
  t.is(Object.keys(queues).filter((q) => q.startsWith(`documents:${b.agencyId}:`)).length, 1);
  t.is(
    jobs.rows.reduce((n, r) => n + r.n, 0),
    21,
    'no job outside them',
  );

  // The default settings: three document slots, two of them at most for one agency.
  await rig.startWorker((svc) =>
    startWorker(svc.tdb.db.owner, {
      concurrency: 2,
      log: svc.deps.log,
      deps: { cfg: svc.deps.cfg, log: svc.deps.log, secretKey: svc.deps.secretKey, blobs: svc.deps.blobs },
      pollInterval: 100,
    }),
  );
  await eventually(async () => (await statuses(b.agencyId)).every((s) => s === 'completed' || s === 'partial'), 90_000, 'B’s extraction');
  const aStatuses = await statuses(a.agencyId);
  // With one queue for every job, all twenty reads of A would have started before B's.
  t.true(aStatuses.includes('queued'), `A's scans were still waiting to be read when B's upload finished: ${aStatuses.join(', ')}`);
  t.false(aStatuses.includes('completed'), 'no scan of A had finished');
});

test('every task of a document’s work runs in a document runner, OCR pages in the scans runner', (t) => {
  const kinds = tasksByKind(createTaskList({ cfg: rig.svc.deps.cfg, log: rig.svc.deps.log, secretKey: rig.svc.deps.secretKey }));
  const documentWork = /^(documents|extractions|analyses|readings)__/;
  for (const name of Object.keys(kinds.general)) t.false(documentWork.test(name) && name !== 'documents__expire', `${name} runs beside webhooks`);
  for (const name of Object.keys(kinds.scans)) t.regex(name, /__ocr$/);
  t.true(Object.keys(kinds.documents).includes('documents__read'));
  t.true(Object.keys(kinds.scans).includes('documents__ocr'));
});
