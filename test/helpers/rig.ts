// The set-up most webhook and worker tests share: a service on its own test database (with `env` settings), a
// worker running its tasks (unless `worker: false`), and receivers started on demand; all closed after the file.
import test from 'ava';
import type { Runner } from 'graphile-worker';
import { startReceiver, type Receiver } from './receiver.ts';
import { startService, type TestService } from './server.ts';
import { startTestWorker } from './worker.ts';

export interface Rig {
  /** The service (set before the first test runs). */
  readonly svc: TestService;
  /** The worker, when the rig runs one. */
  readonly worker: Runner | undefined;
  /** A webhook receiver on a local port, closed after the file. */
  receiver(): Promise<Receiver>;
}

export function serviceRig(env: Record<string, string>, opts: { worker?: boolean } = {}): Rig {
  let svc: TestService | undefined;
  let worker: Runner | undefined;
  const receivers: Receiver[] = [];
  test.before(async () => {
    svc = await startService(env);
    if (opts.worker !== false) worker = await startTestWorker(svc);
  });
  test.after.always(async () => {
    await worker?.stop();
    await Promise.all(receivers.map((r) => r.close()));
    await svc?.close();
  });
  return {
    get svc() {
      if (!svc) throw new Error('the service is not started yet (use it inside a test or hook)');
      return svc;
    },
    get worker() {
      return worker;
    },
    async receiver() {
      const r = await startReceiver();
      receivers.push(r);
      return r;
    },
  };
}
