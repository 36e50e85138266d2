// What tasks need beyond graphile-worker's helpers: configuration and the key of secrets at rest.
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/log.ts';
import type { Metrics } from '../lib/metrics.ts';

export interface TaskDeps {
  cfg: Config;
  log: Logger;
  secretKey: Buffer;
  /** Prometheus metrics of this process (shared with the API when both run in it). */
  metrics?: Metrics;
}
