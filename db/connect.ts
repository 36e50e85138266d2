// Open the service's database: DATABASE_URL when set, otherwise the embedded cluster in DATA_DIR.
import pg from 'pg';
import type { Config } from '../lib/config.ts';
import type { Logger } from '../lib/log.ts';
import { startEmbedded, type EmbeddedCluster } from './embedded.ts';
import { migrate } from './migrate.ts';
import { createDatabase, type Database } from './pool.ts';

export interface Opened {
  db: Database;
  ownerUrl: string;
  cluster?: EmbeddedCluster;
  /** Close the pools, then stop the embedded cluster if this process started it. */
  close(): Promise<void>;
}

const EMBEDDED_DB = 'svc';

/** Connect (starting the embedded cluster when needed) and optionally apply pending migrations. */
export async function openDatabase(cfg: Config, log: Logger, opts: { migrate?: boolean; poolSize?: number } = {}): Promise<Opened> {
  let cluster: EmbeddedCluster | undefined;
  let ownerUrl = cfg.DATABASE_URL;
  if (!ownerUrl) {
    cluster = await startEmbedded({ dataDir: cfg.dataDir, port: cfg.EMBEDDED_PG_PORT });
    log.info(cluster.startedHere ? 'embedded postgres started' : 'embedded postgres already running', { dataDir: cfg.dataDir });
    await ensureDatabase(cluster.url(), EMBEDDED_DB);
    ownerUrl = cluster.url(EMBEDDED_DB);
  }
  const db = createDatabase({ ownerUrl, requestUrl: cfg.DATABASE_REQUEST_URL, max: opts.poolSize });
  const close = async () => {
    await db.close().catch(() => {});
    if (cluster?.startedHere) {
      await cluster.stop();
      log.info('embedded postgres stopped');
    }
  };
  try {
    if (opts.migrate !== false) {
      const applied = await migrate(db.owner);
      if (applied.length) log.info('migrations applied', { applied });
    }
  } catch (err) {
    await close();
    throw err;
  }
  return { db, ownerUrl, cluster, close };
}

/** Create `name` on the cluster if it does not exist yet. */
export async function ensureDatabase(adminUrl: string, name: string, template?: string): Promise<void> {
  const client = new pg.Client({ connectionString: adminUrl });
  await client.connect();
  try {
    const { rowCount } = await client.query('select 1 from pg_database where datname = $1', [name]);
    if (!rowCount) {
      const ident = (s: string) => `"${s.replace(/"/g, '""')}"`;
      await client.query(`create database ${ident(name)}${template ? ` template ${ident(template)}` : ''}`).catch((err: { code?: string }) => {
        if (err.code !== '42P04') throw err; // created concurrently
      });
    }
  } finally {
    await client.end();
  }
}
