// Blob storage for uploaded and generated files: the filesystem under DATA_DIR/blobs by default, or any
// S3-compatible store (AWS, MinIO, …) so that every server and worker process, on any machine, reads the same
// files. `put` keys are content-addressed (a write is idempotent); `putAt` writes under a key chosen by the
// caller (documents: one key per document, so erasing one never breaks another). A read never sees a
// half-written file.
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
// The S3 SDK is loaded on first use only: it costs seconds of start-up that the filesystem default never needs.
type S3Sdk = typeof import('@aws-sdk/client-s3');

/** Bytes to store: in memory, or a file on local disk streamed to the store. */
export type BlobBody = Buffer | { path: string };

export interface BlobStore {
  /** Store bytes under `<prefix>/<sha256>.<ext>` and return the key. */
  put(prefix: string, bytes: Buffer, ext: string): Promise<string>;
  /** Store a body under an explicit key (replacing what was there). */
  putAt(key: string, body: BlobBody, contentType?: string): Promise<void>;
  /** Bytes of a key, or undefined when absent. */
  get(key: string): Promise<Buffer | undefined>;
  /** Remove a key; removing an absent key is not an error. */
  delete(key: string): Promise<void>;
}

// Lowercase path segments, a name and an extension: no dots elsewhere, so no traversal.
const keyShape = /^[a-z0-9-]+(\/[a-z0-9-]+)*\/[0-9a-z-]{8,64}\.[a-z0-9]{1,5}$/;

/** Throws on a key outside the shape both backends accept. */
export function checkBlobKey(key: string): string {
  if (!keyShape.test(key)) throw new Error(`invalid blob key ${key}`);
  return key;
}

const contentKey = (prefix: string, bytes: Buffer, ext: string) => `${prefix}/${createHash('sha256').update(bytes).digest('hex')}.${ext}`;

/** A blob store rooted at `root` on the local filesystem. */
export function fileBlobStore(root: string): BlobStore {
  const full = (key: string) => path.join(root, checkBlobKey(key));
  const store: BlobStore = {
    async put(prefix, bytes, ext) {
      const key = contentKey(prefix, bytes, ext);
      await store.putAt(key, bytes);
      return key;
    },
    async putAt(key, body) {
      const file = full(key);
      await fs.mkdir(path.dirname(file), { recursive: true });
      const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      try {
        if (Buffer.isBuffer(body)) await fs.writeFile(tmp, body);
        else await fs.copyFile(body.path, tmp);
        await fs.rename(tmp, file);
      } catch (err) {
        await fs.rm(tmp, { force: true });
        throw err;
      }
    },
    async get(key) {
      try {
        return await fs.readFile(full(key));
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw err;
      }
    },
    async delete(key) {
      await fs.rm(full(key), { force: true });
    },
  };
  return store;
}

export interface S3Options {
  bucket: string;
  region: string;
  /** Endpoint of a non-AWS store (MinIO, s3rver); unset = AWS. */
  endpoint?: string;
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Path-style addressing (bucket in the path), which most non-AWS stores need. */
  forcePathStyle?: boolean;
  /** Key prefix inside the bucket, e.g. `svc/`. */
  prefix?: string;
}

/** A blob store in an S3-compatible bucket (AWS S3, MinIO, …). */
export function s3BlobStore(o: S3Options): BlobStore {
  let ready: Promise<{ sdk: S3Sdk; client: InstanceType<S3Sdk['S3Client']> }> | undefined;
  const s3 = () =>
    (ready ??= import('@aws-sdk/client-s3').then((sdk) => ({
      sdk,
      client: new sdk.S3Client({
        region: o.region,
        endpoint: o.endpoint,
        forcePathStyle: o.forcePathStyle ?? !!o.endpoint,
        credentials: o.accessKeyId && o.secretAccessKey ? { accessKeyId: o.accessKeyId, secretAccessKey: o.secretAccessKey } : undefined,
        // Checksums only where the API requires them: S3-compatible stores differ in the newer checksum headers.
        requestChecksumCalculation: 'WHEN_REQUIRED',
        responseChecksumValidation: 'WHEN_REQUIRED',
      }),
    })));
  const objectKey = (key: string) => `${o.prefix ?? ''}${checkBlobKey(key)}`;
  const store: BlobStore = {
    async put(prefix, bytes, ext) {
      const key = contentKey(prefix, bytes, ext);
      await store.putAt(key, bytes);
      return key;
    },
    async putAt(key, body, contentType) {
      const { sdk, client } = await s3();
      // A file is streamed with its length; S3 makes the object visible only once the upload completes.
      const Body = Buffer.isBuffer(body) ? body : createReadStream(body.path);
      const ContentLength = Buffer.isBuffer(body) ? body.length : (await fs.stat(body.path)).size;
      await client.send(new sdk.PutObjectCommand({ Bucket: o.bucket, Key: objectKey(key), Body, ContentLength, ContentType: contentType }));
    },
    async get(key) {
      const { sdk, client } = await s3();
      try {
        const r = await client.send(new sdk.GetObjectCommand({ Bucket: o.bucket, Key: objectKey(key) }));
        return Buffer.from(await r.Body!.transformToByteArray());
      } catch (err) {
        const e = err as { name?: string; $metadata?: { httpStatusCode?: number } };
        if (e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404) return undefined;
        throw err;
      }
    },
    async delete(key) {
      const { sdk, client } = await s3();
      await client.send(new sdk.DeleteObjectCommand({ Bucket: o.bucket, Key: objectKey(key) }));
    },
  };
  return store;
}

/** The store the configuration names: S3 when BLOB_STORE=s3, else the filesystem under DATA_DIR/blobs. */
export function blobStoreFromConfig(c: {
  BLOB_STORE: 'fs' | 's3';
  dataDir: string;
  S3_BUCKET?: string;
  S3_REGION: string;
  S3_ENDPOINT?: string;
  S3_ACCESS_KEY_ID?: string;
  S3_SECRET_ACCESS_KEY?: string;
  S3_FORCE_PATH_STYLE?: boolean;
  S3_PREFIX?: string;
}): BlobStore {
  if (c.BLOB_STORE === 's3') {
    if (!c.S3_BUCKET) throw new Error('BLOB_STORE=s3 needs S3_BUCKET');
    return s3BlobStore({
      bucket: c.S3_BUCKET,
      region: c.S3_REGION,
      endpoint: c.S3_ENDPOINT,
      accessKeyId: c.S3_ACCESS_KEY_ID,
      secretAccessKey: c.S3_SECRET_ACCESS_KEY,
      forcePathStyle: c.S3_FORCE_PATH_STYLE,
      prefix: c.S3_PREFIX,
    });
  }
  return fileBlobStore(path.join(c.dataDir, 'blobs'));
}
