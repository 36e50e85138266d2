// The worker of the webhooks bench in a process of its own, as `svc worker` runs beside the API in production:
// the bench's writers and receiver then do not share an event loop (or a core) with the worker's fan-out and
// sends. Started by bench/webhooks.ts with fork(); argv[2] is JSON {url, dataDir, secretKey (hex), only?};
// answers 'loaded', starts the worker on 'start' (answering 'ready'), tells its CPU time so far on 'cpu', stops on 'stop' (answering with its CPU time).
import path from 'node:path';
import pg from 'pg';
import { fileBlobStore } from '../lib/blobs.ts';
import { parseConfig } from '../lib/config.ts';
import { createLogger, setLogLevel } from '../lib/log.ts';
import { startWorker } from '../tasks/index.ts';

const args = JSON.parse(process.argv[2]) as { url: string; dataDir: string; secretKey: string; only?: string[] };
setLogLevel('silent');
const cfg = parseConfig({ DATABASE_URL: args.url, DATA_DIR: args.dataDir, WEBHOOK_ALLOW_HOSTS: '127.0.0.1', LOG_LEVEL: 'silent' });
const log = createLogger();
// The owner pool of `svc worker` with the bench's pool size (bench/run.ts opens 16, of which the owner pool is 8).
const pool = new pg.Pool({ connectionString: args.url, max: 8, application_name: 'bench_worker' });
pool.on('error', () => {}); // an idle connection closed by the server is replaced by the next connect
pool.on('connect', (client) => client.on('error', () => {})); // as db/pool.ts does: graphile-worker warns without it
let runner: Awaited<ReturnType<typeof startWorker>> | undefined;
let started: NodeJS.CpuUsage | undefined;
process.on('message', (m) => {
  if (m === 'start') {
    void (async () => {
      runner = await startWorker(pool, {
        concurrency: 8,
        log,
        deps: { cfg, log, secretKey: Buffer.from(args.secretKey, 'hex'), blobs: fileBlobStore(path.join(args.dataDir, 'blobs')) },
        pollInterval: 1000,
        ...(args.only ? { only: args.only } : {}),
      });
      started = process.cpuUsage();
      process.send?.('ready');
    })();
  }
  if (m === 'cpu') {
    // CPU time so far (microseconds), to take one run's share of it.
    const cpu = process.cpuUsage(started);
    process.send?.({ cpu: true, cpuMicros: cpu.user + cpu.system });
  }
  if (m === 'stop') {
    void (async () => {
      await runner?.stop();
      await pool.end();
      // CPU time of this process since the worker started (microseconds): the worker's cost per delivery, which
      // other load on the machine does not change as much as it changes the rate.
      const cpu = process.cpuUsage(started);
      process.send?.({ stopped: true, cpuMicros: cpu.user + cpu.system }, () => process.exit(0));
    })();
  }
});
// Modules loaded: the bench starts its clock and then the worker.
process.send?.('loaded');
