// What tasks need beyond graphile-worker's helpers: configuration and the key of secrets at rest.
import type { BlobStore } from '../lib/blobs.ts';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/log.ts';

export interface TaskDeps {
  cfg: Config;
  log: Logger;
  secretKey: Buffer;
  /** Where stored files live; the file sweep deletes from it. */
  blobs: BlobStore;
}
