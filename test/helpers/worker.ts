// The real graphile-worker runner over a test service's database, polling fast.
import type { Runner } from 'graphile-worker';
import { startWorker } from '../../tasks/index.ts';
import type { TestService } from './server.ts';

export async function startTestWorker(svc: TestService, opts: { concurrency?: number; pollInterval?: number } = {}): Promise<Runner> {
  return startWorker(svc.tdb.db.owner, {
    concurrency: opts.concurrency ?? 4,
    log: svc.deps.log,
    deps: { cfg: svc.deps.cfg, log: svc.deps.log, secretKey: svc.deps.secretKey, blobs: svc.deps.blobs, metrics: svc.deps.metrics },
    pollInterval: opts.pollInterval ?? 100,
  });
}

/** Poll `check` until it returns a value, or fail after `ms`. */
export async function eventually<T>(check: () => Promise<T | undefined | null | false>, ms = 30_000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
