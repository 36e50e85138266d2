// What tasks need beyond graphile-worker's helpers: configuration and the key of secrets at rest.
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/log.ts';
import type { BlobStore } from '../lib/blobs.ts';

export interface TaskDeps {
  cfg: Config;
  log: Logger;
  secretKey: Buffer;
  /** Where generated files (ACORD archives) are stored. */
  blobs: BlobStore;
}
