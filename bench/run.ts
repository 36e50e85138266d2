// `npm run bench [-- suite ...] [--quick]`: each suite prints figures measured against a peer in the same run.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { config, parseConfig } from '../lib/config.ts';
import { createLogger, setLogLevel } from '../lib/log.ts';
import { openDatabase } from '../db/connect.ts';
import type { BenchContext } from './lib.ts';

type Suite = (ctx: BenchContext) => Promise<void>;

const suites: Record<string, () => Promise<Suite>> = {
  v1: async () => (await import('./v1.ts')).run,
  clients: async () => (await import('./clients.ts')).run,
  forms: async () => (await import('./forms.ts')).run,
  webhooks: async () => (await import('./webhooks.ts')).run,
  'webhooks-send': async () => (await import('./webhooks_send.ts')).run,
  'webhooks-neighbour': async () => (await import('./webhooks_neighbour.ts')).run,
  documents: async () => (await import('./documents.ts')).run,
  extraction: async () => (await import('./extraction.ts')).run,
  packets: async () => (await import('./packets.ts')).run,
  lease: async () => (await import('./lease.ts')).run,
  hosted: async () => (await import('./hosted.ts')).run,
  ops: async () => (await import('./ops.ts')).run,
  dashboard: async () => (await import('./dashboard.ts')).run,
  heartbeat: async () => (await import('./heartbeat.ts')).run,
};

async function main(): Promise<void> {
  setLogLevel('warn');
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const names = args.filter((a) => !a.startsWith('--'));
  const chosen = names.length ? names : Object.keys(suites);
  for (const n of chosen) if (!suites[n]) throw new Error(`unknown suite ${n}; known: ${Object.keys(suites).join(', ')}`);
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'svc-bench-'));
  const { DATABASE_URL } = config();
  const cfg = parseConfig({ ...(DATABASE_URL ? { DATABASE_URL } : {}), DATA_DIR: dataDir, EMBEDDED_PG_PORT: String(55000 + (process.pid % 1000)) });
  const opened = await openDatabase(cfg, createLogger(), { poolSize: 16 });
  try {
    process.stdout.write(`node ${process.version}, ${os.cpus().length} cores, ${(os.totalmem() / 2 ** 30).toFixed(0)} GiB\n`);
    for (const n of chosen) {
      process.stdout.write(`\n== ${n}\n`);
      await (
        await suites[n]()
      )({ db: opened.db, url: opened.ownerUrl, dataDir, quick });
    }
  } finally {
    await opened.close();
    await rm(dataDir, { recursive: true, force: true });
  }
}

main().catch((err) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.stack : String(err)}\n`);
  process.exit(1);
});
