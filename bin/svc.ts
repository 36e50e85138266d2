// The `svc` command line: serve, worker, migrate, oauth-clients. Every command works with or without a
// running server: with the embedded database it finds the cluster running in DATA_DIR or starts it.
import type { Server } from 'node:http';
import { parseArgs } from 'node:util';
import { config } from '../lib/config.ts';
import { createLogger, setLogLevel, setLogStream } from '../lib/log.ts';
import { blobStoreFromConfig } from '../lib/blobs.ts';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { openDatabase, type Opened } from '../db/connect.ts';
import { handOverSignals } from '../db/embedded.ts';
import { MigrationError } from '../db/migrate.ts';
import { createOAuthClient } from '../db/queries/oauth.ts';
import { createApp } from '../http/app.ts';
import { instrumentDatabase, metricsServer } from '../http/metrics.ts';
import { createMetrics, type Metrics } from '../lib/metrics.ts';
import { createOperatorToken, revokeOperatorTokens } from '../db/queries/operators.ts';
import { hashToken, newToken } from '../lib/secrets.ts';
import type { Database } from '../db/pool.ts';
import { sweepUploadDirs } from '../http/body.ts';
import { startWorker } from '../tasks/index.ts';
import { loadOrCreateKey, parseKey } from '../lib/crypto.ts';
import { closeDocumentPools } from '../pipelines/documents/index.ts';
import { printableDatabase, type HistoryDatabase } from './commands/eval_history.ts';
import { checkLinkBase, checkRequestRole, checkSecretKey, prepareDirectories, StartupError } from './startup.ts';

const usage = `usage: svc <command> [options]

commands:
  serve [--no-worker]                    run the API (PORT) and, unless --no-worker, the job worker
  worker                                 run only the job worker (more can share one database)
  migrate                                apply pending database migrations and exit
  oauth-clients create --name NAME [--json]
                                         create an OAuth client; prints client_id and client_secret once
  operators create --role operator|analyst --name NAME [--json]
                                         create a token for /graphql and /metrics; prints it once
  operators revoke --name NAME           revoke every token of that operator or analyst
  analysts import-eval REPORT|- [--label L]
                                         store a \`svc eval --json\` report and its fixtures for analysts
  analysts export-labels --since DATE --out DIR [--mode live|test]
                                         one label file per reviewed document (corpus labels' schema) and the
                                         documents agencies share, for \`svc eval --labels DIR/labels --docs DIR/docs\`
  extract FILE [--type T] [--json] [--raw]
                                         extract policy data from a document locally (no server, no database)
  analyze --lease FILE --insurance FILE [--as-of YYYY-MM-DD] [--raw]
                                         check a lease against an insurance document locally; prints the
                                         SPEC §2.8 result as JSON
  eval [DIR] [--json]                    precision and recall of extraction over documents with *.expected.json
                                         (default fixtures/)
  eval --labels DIR [--docs DIR] [--html FILE] [--json] [--no-history]
                                         accuracy against hand labels (corpus label format) per field, per
                                         document kind, text vs scan; --html writes the analysts' report; the
                                         run is kept in app_analyst.eval_history when a database is configured
`;

const cfg = config();
setLogLevel(cfg.LOG_LEVEL);
const log = createLogger({ component: 'svc' });

/** Close everything once on SIGINT/SIGTERM, then exit. */
function onShutdown(close: () => Promise<void>): void {
  let closing = false;
  const handler = (signal: string) => {
    if (closing) return;
    closing = true;
    log.info('shutting down', { signal });
    close()
      .then(() => process.exit(0))
      .catch((err) => {
        log.error('shutdown failed', { err });
        process.exit(1);
      });
  };
  handOverSignals(); // the embedded cluster, if this process started it, is stopped by `close`, last
  process.on('SIGINT', () => handler('SIGINT'));
  process.on('SIGTERM', () => handler('SIGTERM'));
}

async function open(poolSize?: number): Promise<Opened> {
  try {
    return await openDatabase(cfg, log, { poolSize });
  } catch (err) {
    if (err instanceof MigrationError) {
      process.stderr.write(`error: ${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}

/** The key that encrypts webhook secrets at rest: WEBHOOK_SECRET_KEY, or one generated once into DATA_DIR. */
function secretKey(): Buffer {
  if (!cfg.WEBHOOK_SECRET_KEY) return loadOrCreateKey(path.join(cfg.dataDir, 'secret-key'));
  try {
    return parseKey(cfg.WEBHOOK_SECRET_KEY);
  } catch (err) {
    throw new StartupError(`WEBHOOK_SECRET_KEY: ${(err as Error).message}`);
  }
}

/**
 * Open the database for `serve` or `worker` after the checks that would otherwise let the process run while
 * silently wrong (bin/startup.ts); a refused check prints its message and exits 78, like a bad variable.
 */
async function openChecked(role: 'serve' | 'worker', poolSize?: number): Promise<{ opened: Opened; key: Buffer }> {
  let opened: Opened | undefined;
  try {
    checkLinkBase(cfg, role);
    await prepareDirectories(cfg, role);
    const key = secretKey();
    opened = await open(poolSize);
    await checkSecretKey(opened.db, key, Boolean(cfg.WEBHOOK_SECRET_KEY));
    if (role === 'serve') await checkRequestRole(opened.db);
    return { opened, key };
  } catch (err) {
    await opened?.close();
    if (!(err instanceof StartupError)) throw err;
    log.error('refusing to start', { reason: err.message });
    process.stderr.write(`error: ${err.message}\n`);
    process.exit(78);
  }
}

/** With METRICS_PORT, serve GET /metrics without credentials there; returns a closer. */
async function serveMetrics(metrics: Metrics, db: Database): Promise<() => Promise<void>> {
  if (!cfg.METRICS_PORT) return async () => {};
  instrumentDatabase(metrics, db);
  const server = metricsServer(metrics).listen(cfg.METRICS_PORT, cfg.HOST);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  log.info('metrics listening', { port: cfg.METRICS_PORT });
  return () => new Promise<void>((resolve) => server.close(() => resolve()));
}

async function serve(withWorker: boolean): Promise<void> {
  const { opened, key } = await openChecked('serve', 20);
  const swept = await sweepUploadDirs(cfg.tmpDir);
  if (swept.length) log.info('removed upload folders left by stopped processes', { count: swept.length });
  const metrics = createMetrics();
  const blobs = blobStoreFromConfig(cfg);
  const runner = withWorker
    ? await startWorker(opened.db.owner, { concurrency: cfg.WORKER_CONCURRENCY, log, deps: { cfg, log, secretKey: key, blobs, metrics } })
    : undefined;
  const app = createApp({ db: opened.db, cfg, log, blobs, secretKey: key, metrics });
  const server: Server = app.listen(cfg.PORT, cfg.HOST);
  await new Promise<void>((resolve, reject) => server.once('listening', resolve).once('error', reject));
  const closeMetrics = await serveMetrics(metrics, opened.db);
  log.info('listening', { port: (server.address() as { port: number }).port, url: cfg.publicUrl, worker: withWorker });
  onShutdown(async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    server.closeAllConnections();
    await closeMetrics();
    await runner?.stop();
    await closeDocumentPools();
    await opened.close();
  });
}

async function worker(): Promise<void> {
  const { opened, key } = await openChecked('worker');
  const metrics = createMetrics();
  const runner = await startWorker(opened.db.owner, {
    concurrency: cfg.WORKER_CONCURRENCY,
    log,
    deps: { cfg, log, secretKey: key, blobs: blobStoreFromConfig(cfg), metrics },
  });
  const closeMetrics = await serveMetrics(metrics, opened.db);
  log.info('worker running', { concurrency: cfg.WORKER_CONCURRENCY });
  onShutdown(async () => {
    await closeMetrics();
    await runner.stop();
    await closeDocumentPools();
    await opened.close();
  });
}

/**
 * The database `svc eval --labels` keeps its history in, when one is configured: DATABASE_URL, or the embedded
 * cluster once `serve` or `migrate` made it in DATA_DIR (eval never creates one).
 */
function evalHistoryDatabase(): HistoryDatabase | undefined {
  const where = cfg.DATABASE_URL
    ? printableDatabase(cfg.DATABASE_URL)
    : existsSync(path.join(cfg.dataDir, 'pg', 'PG_VERSION'))
      ? `the embedded database in ${cfg.dataDir}`
      : undefined;
  if (!where) return undefined;
  return {
    where,
    open: async () => {
      const opened = await openDatabase(cfg, log);
      return { db: opened.db.owner, close: opened.close };
    },
  };
}

/** extract and eval need no database (eval records its history in one when configured); they run and release their worker pools. */
async function runLocal(command: 'extract' | 'eval' | 'analyze', args: string[]): Promise<number> {
  try {
    if (command === 'eval') return await (await import('./commands/eval.ts')).run(args, evalHistoryDatabase());
    const mod = command === 'extract' ? await import('./commands/extract.ts') : await import('./commands/analyze.ts');
    return await mod.run(args);
  } finally {
    await closeDocumentPools();
  }
}

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command !== 'serve' && command !== 'worker') setLogStream(process.stderr);
  if (command === 'extract' || command === 'eval' || command === 'analyze') return runLocal(command, rest);
  switch (command) {
    case 'serve': {
      const { values } = parseArgs({ args: rest, options: { 'no-worker': { type: 'boolean', default: false } } });
      await serve(!values['no-worker']);
      return -1; // keeps running
    }
    case 'worker':
      parseArgs({ args: rest, options: {} });
      await worker();
      return -1;
    case 'migrate': {
      parseArgs({ args: rest, options: {} });
      const opened = await open();
      await opened.close();
      process.stdout.write('migrations are up to date\n');
      return 0;
    }
    case 'oauth-clients': {
      const [sub, ...args] = rest;
      const { values } = parseArgs({ args, options: { name: { type: 'string' }, json: { type: 'boolean', default: false } } });
      if (sub !== 'create' || !values.name?.trim()) {
        process.stderr.write('usage: svc oauth-clients create --name NAME [--json]\n');
        return 2;
      }
      const opened = await open();
      try {
        const client = await createOAuthClient(opened.db.owner, values.name.trim());
        process.stdout.write(
          values.json
            ? `${JSON.stringify(client)}\n`
            : `OAuth client "${client.name}" created. The secret is shown only now; store it safely.\nclient_id:     ${client.client_id}\nclient_secret: ${client.client_secret}\n`,
        );
      } finally {
        await opened.close();
      }
      return 0;
    }
    case 'analysts': {
      const mod = await import('./commands/analysts.ts');
      return mod.run(
        rest,
        async () => {
          const opened = await open();
          return { db: opened.db.owner, close: opened.close };
        },
        () => blobStoreFromConfig(cfg),
      );
    }
    case 'operators': {
      const [sub, ...args] = rest;
      const { values } = parseArgs({ args, options: { name: { type: 'string' }, role: { type: 'string' }, json: { type: 'boolean', default: false } } });
      const name = values.name?.trim();
      const role = values.role;
      if (!name || (sub === 'create' && role !== 'operator' && role !== 'analyst') || (sub !== 'create' && sub !== 'revoke')) {
        process.stderr.write('usage: svc operators create --role operator|analyst --name NAME [--json]\n       svc operators revoke --name NAME\n');
        return 2;
      }
      const opened = await open();
      try {
        if (sub === 'revoke') {
          const n = await revokeOperatorTokens(opened.db.owner, name);
          process.stdout.write(`${n} token(s) of "${name}" revoked\n`);
          return 0;
        }
        const token = newToken('ops_', 32);
        await createOperatorToken(opened.db.owner, name, role as 'operator' | 'analyst', hashToken(token));
        process.stdout.write(
          values.json
            ? `${JSON.stringify({ token })}\n`
            : `${role} token for "${name}" created. It is shown only now; store it safely.\nSend it as Authorization: Bearer <token> to /graphql${role === 'operator' ? ' and /metrics' : ''}.\ntoken: ${token}\n`,
        );
      } finally {
        await opened.close();
      }
      return 0;
    }
    case undefined:
    case 'help':
    case '--help':
      process.stdout.write(usage);
      return command ? 0 : 2;
    default:
      process.stderr.write(`unknown command: ${command}\n${usage}`);
      return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    if (code >= 0) process.exit(code);
  },
  (err) => {
    process.stderr.write(`error: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
