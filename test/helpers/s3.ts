// A real S3-protocol server (s3rver) on 127.0.0.1 with one bucket, for the S3 blob store.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';
import { freePort } from './ports.ts';

export interface TestS3 {
  endpoint: string;
  bucket: string;
  directory: string;
  /** Settings that point the service at this server. */
  env: Record<string, string>;
  close(): Promise<void>;
}

export async function startS3(bucket = 'svc-test'): Promise<TestS3> {
  const directory = await mkdtemp(path.join(os.tmpdir(), 'svc-s3-'));
  const port = await freePort();
  const server = new S3rver({ address: '127.0.0.1', port, silent: true, directory, configureBuckets: [{ name: bucket }] });
  await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  return {
    endpoint,
    bucket,
    directory,
    env: { BLOB_STORE: 's3', S3_ENDPOINT: endpoint, S3_BUCKET: bucket, S3_ACCESS_KEY_ID: 'S3RVER', S3_SECRET_ACCESS_KEY: 'S3RVER', S3_REGION: 'us-east-1' },
    async close() {
      await server.close();
      await rm(directory, { recursive: true, force: true });
    },
  };
}
