// Blob storage for uploaded and generated files. Filesystem under DATA_DIR/blobs by default; keys are
// content-addressed so a write is idempotent and a read never sees a half-written file.
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';

export interface BlobStore {
  /** Store bytes under `<prefix>/<sha256>.<ext>` and return the key. */
  put(prefix: string, bytes: Buffer, ext: string): Promise<string>;
  /** Bytes of a key, or undefined when absent. */
  get(key: string): Promise<Buffer | undefined>;
  /** Remove a key; removing an absent key is not an error (a sweep may run twice). */
  delete(key: string): Promise<void>;
}

const keyShape = /^[a-z0-9-]+\/[0-9a-f]{64}\.[a-z0-9]{1,5}$/;

/** A blob store rooted at `root` on the local filesystem. */
export function fileBlobStore(root: string): BlobStore {
  const full = (key: string) => {
    if (!keyShape.test(key)) throw new Error(`invalid blob key ${key}`);
    return path.join(root, key);
  };
  return {
    async put(prefix, bytes, ext) {
      const key = `${prefix}/${createHash('sha256').update(bytes).digest('hex')}.${ext}`;
      const file = full(key);
      await fs.mkdir(path.dirname(file), { recursive: true });
      const tmp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
      try {
        await fs.writeFile(tmp, bytes);
        await fs.rename(tmp, file);
      } catch (err) {
        await fs.rm(tmp, { force: true });
        throw err;
      }
      return key;
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
}
