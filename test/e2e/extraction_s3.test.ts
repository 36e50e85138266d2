// The whole extraction chain with files in an S3-compatible store (a real s3rver): the upload is streamed
// there, the worker reads it from there (never from the uploading process's disk), and the signed
// document_link of the delivered client-submission serves the same bytes.
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { s3BlobStore } from '../../lib/blobs.ts';
import { finished, policyFixture, upload } from '../helpers/extraction.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startS3 } from '../helpers/s3.ts';
import { startService, agencyWithTestKey } from '../helpers/server.ts';
import { startTestWorker } from '../helpers/worker.ts';

test('an upload completes with its file in S3 and its document_link serves the same bytes', async (t) => {
  t.timeout(240_000);
  const s3 = await startS3();
  const svc = await startService({ ...s3.env, WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
  const receiver = await startReceiver();
  const worker = await startTestWorker(svc);
  try {
    const { key, ...a } = await agencyWithTestKey(svc);
    await svc.request('PUT', '/v2/webhook-endpoints/client-submission', { token: key, json: { staging_url: `${receiver.url}/hook` } });
    const bytes = policyFixture('auto_acme_mutual.pdf');
    const r = await upload(svc, key, a.ownerId, bytes, 'policy.pdf');
    t.is(r.status, 200, r.text);
    const rec = await finished(svc, key, a.ownerId, r.body.extraction_id);
    t.is(rec.parsing_status, 'completed', JSON.stringify(rec));
    const [got] = await receiver.waitFor(1, 60_000);
    const link = await fetch(got.json.data.document_link);
    t.is(link.status, 200);
    t.deepEqual(Buffer.from(await link.arrayBuffer()), bytes);
    const { rows } = await svc.tdb.db.owner.query('select blob_key from app_public.documents where id = $1', [r.body.document_id]);
    const inS3 = await s3BlobStore({ bucket: s3.bucket, region: 'us-east-1', endpoint: s3.endpoint, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }).get(
      rows[0].blob_key,
    );
    t.deepEqual(inS3, bytes, 'the object is in the bucket');
    t.deepEqual(await readdir(path.join(svc.dataDir, 'blobs')).catch(() => []), [], 'nothing on the local disk');
  } finally {
    await worker.stop();
    await receiver.close();
    await svc.close();
    await s3.close();
  }
});
