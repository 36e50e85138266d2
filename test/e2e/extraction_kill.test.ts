// A worker process killed with SIGKILL while it OCRs a multi-page scan leaves jobs that another worker
// finishes: the record completes and exactly one client-submission event is delivered.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import test from 'ava';
import { PDFDocument } from 'pdf-lib';
import { finished, policyFixture, upload } from '../helpers/extraction.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startService, agencyWithTestKey } from '../helpers/server.ts';
import { eventually, startTestWorker } from '../helpers/worker.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** A scan without a text layer: the photo of a declarations page, once per page. */
async function scannedPdf(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  const jpg = await doc.embedJpg(policyFixture('auto_acme_mutual_photo.jpg'));
  for (let i = 0; i < pages; i++) {
    const page = doc.addPage([612, 792]);
    page.drawImage(jpg, { x: 0, y: 0, width: 612, height: 792 });
  }
  return Buffer.from(await doc.save());
}

test('SIGKILL of the worker during OCR: after a restart the record completes and the event is delivered once', async (t) => {
  t.timeout(400_000);
  const env = { WEBHOOK_ALLOW_HOSTS: '127.0.0.1', WORKER_STALE_AFTER_SECONDS: '2', OCR_ENGINE: 'tesseract-cli' };
  const svc = await startService(env);
  const receiver = await startReceiver();
  let survivor: Awaited<ReturnType<typeof startTestWorker>> | undefined;
  const child = spawn(process.execPath, [path.join(root, 'bin/svc.ts'), 'worker'], {
    cwd: root,
    env: { ...process.env, ...env, DATABASE_URL: svc.tdb.url, DATA_DIR: svc.dataDir, LOG_LEVEL: 'warn', FILES_URL: svc.url },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  try {
    const { key, ...a } = await agencyWithTestKey(svc);
    await svc.request('PUT', '/v2/webhook-endpoints/client-submission', { token: key, json: { staging_url: `${receiver.url}/hook` } });
    const r = await upload(svc, key, a.ownerId, await scannedPdf(4), 'scan.pdf');
    t.is(r.status, 200, r.text);
    // Kill the worker while it holds an OCR page job.
    await eventually(
      async () => {
        const q = await svc.tdb.db.owner.query(
          `select count(*)::int n from graphile_worker.jobs where task_identifier = 'documents__ocr' and locked_by is not null`,
        );
        return q.rows[0].n > 0;
      },
      180_000,
      'an OCR job to be running',
    );
    child.kill('SIGKILL');
    await new Promise((res) => child.once('exit', res));
    const pending = await svc.tdb.db.owner.query(`select count(*)::int n from app_private.document_pages where document_id = $1 and state = 'ocr_pending'`, [
      r.body.document_id,
    ]);
    t.true(pending.rows[0].n > 0, 'the kill happened with pages still to OCR');

    survivor = await startTestWorker(svc);
    const rec = await finished(svc, key, a.ownerId, r.body.extraction_id, 300_000);
    t.true(['completed', 'partial'].includes(rec.parsing_status), JSON.stringify(rec));
    t.is(rec.parsing_method, 'ocr');
    await receiver.waitFor(1, 60_000);
    await new Promise((res) => setTimeout(res, 2000));
    t.is(receiver.received.length, 1, 'one delivery');
    const events = await svc.tdb.db.owner.query(`select count(*)::int n from app_public.events where agency_id = $1 and topic = 'client-submission'`, [
      a.agencyId,
    ]);
    t.is(events.rows[0].n, 1, 'one event');
    const pages = await svc.tdb.db.owner.query(`select state, count(*)::int n from app_private.document_pages where document_id = $1 group by state`, [
      r.body.document_id,
    ]);
    t.deepEqual(pages.rows, [{ state: 'ocr_done', n: 4 }]);
  } finally {
    if (child.exitCode === null) child.kill('SIGKILL');
    await survivor?.stop();
    await receiver.close();
    await svc.close();
  }
});
