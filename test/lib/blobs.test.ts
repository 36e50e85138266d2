// Both blob stores behave alike: put (content-addressed), putAt (explicit key, from bytes or a file), get,
// delete; the S3 one against a real S3-protocol server.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test from 'ava';
import { blobStoreFromConfig, fileBlobStore, s3BlobStore, type BlobStore } from '../../lib/blobs.ts';
import { parseConfig } from '../../lib/config.ts';
import { startS3, type TestS3 } from '../helpers/s3.ts';

let s3: TestS3;
let dir: string;
test.before(async () => {
  s3 = await startS3();
  dir = await mkdtemp(path.join(os.tmpdir(), 'svc-blobs-'));
});
test.after.always(async () => {
  await s3?.close();
  await rm(dir, { recursive: true, force: true });
});

const stores: Array<[string, () => BlobStore]> = [
  ['filesystem', () => fileBlobStore(path.join(dir, 'fs'))],
  ['s3', () => s3BlobStore({ bucket: s3.bucket, region: 'us-east-1', endpoint: s3.endpoint, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' })],
];

for (const [name, make] of stores) {
  test(`${name}: put, putAt from bytes and from a file, get, delete`, async (t) => {
    const store = make();
    const bytes = Buffer.from(`%PDF-1.4 ${name} ${Math.random()}`);
    const key = await store.put('documents', bytes, 'pdf');
    t.regex(key, /^documents\/[0-9a-f]{64}\.pdf$/);
    t.deepEqual(await store.get(key), bytes);
    const file = path.join(dir, `${name}.bin`);
    const big = Buffer.alloc(3 * 1024 * 1024 + 7, 0x61);
    await writeFile(file, big);
    const k2 = `documents/${crypto.randomUUID()}.pdf`;
    await store.putAt(k2, { path: file }, 'application/pdf');
    t.deepEqual(await store.get(k2), big, 'a file is streamed whole');
    const k3 = `documents/${crypto.randomUUID()}.png`;
    await store.putAt(k3, Buffer.from('png'));
    await store.delete(k3);
    t.is(await store.get(k3), undefined);
    await t.notThrowsAsync(store.delete(k3), 'deleting twice is fine');
    t.deepEqual(await store.get(k2), big, 'deleting one key leaves the others');
    await t.throwsAsync(store.putAt('../etc/passwd.pdf', bytes), { message: /invalid blob key/ });
  });
}

test('the configuration picks the store, and S3 needs a bucket', async (t) => {
  const cfg = parseConfig({ DATA_DIR: dir, ...s3.env });
  const store = blobStoreFromConfig(cfg);
  const key = await store.put('logos', Buffer.from('x'), 'png');
  t.deepEqual(
    await s3BlobStore({ bucket: s3.bucket, region: 'us-east-1', endpoint: s3.endpoint, accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' }).get(key),
    Buffer.from('x'),
  );
  t.throws(() => parseConfig({ BLOB_STORE: 's3' }), { message: /S3_BUCKET/ });
});
