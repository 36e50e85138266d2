// A worker process killed with SIGKILL while it OCRs a scanned lease loses nothing: the page job is released
// and the analysis completes with the expected result once another worker runs.
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { scoreAnalysis, type LeaseExpected } from '../../pipelines/lease/evaluate.ts';
import { closeDocumentPools } from '../../pipelines/documents/index.ts';
import { startService } from '../helpers/server.ts';
import { eventually, startTestWorker } from '../helpers/worker.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const fixture = (f: string) => path.join(root, 'fixtures/lease', f);

test('a worker killed during OCR of a scanned lease: the analysis completes once a worker runs again', async (t) => {
  t.timeout(900_000);
  const env = { WORKER_STALE_AFTER_SECONDS: '2' };
  const svc = await startService(env);
  let survivor: Awaited<ReturnType<typeof startTestWorker>> | undefined;
  const child = spawn(process.execPath, [path.join(root, 'bin/svc.ts'), 'worker'], {
    cwd: root,
    env: { ...process.env, ...env, DATABASE_URL: svc.tdb.url, DATA_DIR: svc.dataDir, TMP_DIR: svc.dataDir, PUBLIC_URL: svc.url, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const c = await svc.oauthClient();
    const a = await svc.agency(c.token);
    const key = await svc.apiKey(a.ownerToken, a.agencyId);
    const form = new FormData();
    form.append('lease', new Blob([fs.readFileSync(fixture('res_scanned_lease.lease.pdf'))], { type: 'application/pdf' }), 'lease.pdf');
    form.append('insurance', new Blob([fs.readFileSync(fixture('res_scanned_lease.insurance.pdf'))], { type: 'application/pdf' }), 'insurance.pdf');
    form.append('as_of', '2026-02-15');
    const r = await svc.request('POST', '/api/analyze?async=true', { form, headers: { 'x-api-key': key } });
    t.is(r.status, 202, r.text);
    // Wait until the child worker holds an OCR page job of the lease, then kill it.
    await eventually(
      async () => {
        const q = await svc.tdb.db.owner.query(
          `select count(*)::int as n from graphile_worker._private_jobs j join graphile_worker._private_tasks k on k.id = j.task_id
          where k.identifier = 'documents__ocr' and j.locked_by is not null`,
        );
        return q.rows[0].n > 0;
      },
      300_000,
      'an OCR job in progress',
    );
    child.kill('SIGKILL');
    await new Promise((res) => child.once('exit', res));
    const mid = await svc.request('GET', `/api/analyses/${r.body.id}`, { headers: { 'x-api-key': key } });
    t.is(mid.body.status, 'processing');

    survivor = await startTestWorker(svc);
    const done = await eventually(
      async () => {
        const g = await svc.request('GET', `/api/analyses/${r.body.id}`, { headers: { 'x-api-key': key } });
        return g.body?.status === 'completed' && g.body;
      },
      540_000,
      'the analysis to complete',
    );
    const expected = JSON.parse(fs.readFileSync(fixture('res_scanned_lease.expected.json'), 'utf8')) as LeaseExpected;
    t.deepEqual(scoreAnalysis(expected, done).misses, []);
    const pages = await svc.tdb.db.owner.query(
      `select dp.state from app_private.document_pages dp join app_public.analyses a on a.lease_document_id = dp.document_id where a.id = $1`,
      [r.body.id],
    );
    t.true(pages.rows.length > 0 && pages.rows.every((p) => p.state === 'ocr_done'), "every lease page OCR'd once the job ran again");
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await survivor?.stop();
    await svc.close();
    await closeDocumentPools(); // the survivor's pdf.js and OCR pools
  }
});
