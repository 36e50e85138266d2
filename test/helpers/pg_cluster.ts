// A second, real PostgreSQL cluster from the system's binaries (Debian's `postgresql` package: initdb, pg_ctl),
// as an operator's external database: a fresh cluster in a temp directory on 127.0.0.1, stopped and removed by
// `stop()`. Run as the `postgres` user when the tests run as root (Postgres refuses to run as root).
import { execFileSync, spawn } from 'node:child_process';
import { chmod, chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import { existsSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { freePort } from './ports.ts';

/** The newest system initdb (/usr/lib/postgresql/N/bin, or on PATH), or undefined when Postgres is not installed. */
export function systemInitdb(): string | undefined {
  const base = '/usr/lib/postgresql';
  const versions = existsSync(base)
    ? execFileSync('ls', [base], { encoding: 'utf8' })
        .split('\n')
        .filter((v) => /^\d+$/.test(v) && existsSync(path.join(base, v, 'bin/initdb')))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  if (versions.length) return path.join(base, versions[0], 'bin/initdb');
  try {
    return execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

export interface PgCluster {
  /** Superuser URL of database `db` (default postgres). */
  url(db?: string): string;
  port: number;
  stop(): Promise<void>;
}

function run(cmd: string, args: string[], user: { uid: number; gid: number } | undefined): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { ...(user ?? {}), stdio: ['ignore', 'pipe', 'pipe'], env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' } });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    child.stderr.on('data', (d) => (out += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(out) : reject(new Error(`${path.basename(cmd)} ${args.join(' ')} exited ${code}:\n${out}`))));
  });
}

function postgresUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    throw new Error('running as root and there is no postgres user to run the cluster as');
  }
}

/** initdb a fresh cluster (trust authentication on 127.0.0.1 only) and start it with pg_ctl. */
export async function startPgCluster(initdb: string): Promise<PgCluster> {
  const bin = path.dirname(initdb);
  const user = postgresUser();
  const dir = await mkdtemp(path.join(os.tmpdir(), 'svc-pg-'));
  await chmod(dir, 0o755);
  if (user) await chown(dir, user.uid, user.gid);
  const data = path.join(dir, 'data');
  const port = await freePort();
  const stop = async () => {
    if (existsSync(path.join(data, 'postmaster.pid'))) await run(path.join(bin, 'pg_ctl'), ['-D', data, '-m', 'immediate', '-w', 'stop'], user).catch(() => {});
    await rm(dir, { recursive: true, force: true });
  };
  try {
    await run(initdb, ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'], user);
    await run(
      path.join(bin, 'pg_ctl'),
      ['-D', data, '-l', path.join(dir, 'log'), '-w', '-t', '60', '-o', `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`, 'start'],
      user,
    );
  } catch (err) {
    const log = existsSync(path.join(dir, 'log')) ? await readFile(path.join(dir, 'log'), 'utf8') : '';
    await stop();
    throw new Error(`${(err as Error).message}\n${log.slice(-2000)}`);
  }
  return { url: (db = 'postgres') => `postgres://postgres@127.0.0.1:${port}/${db}`, port, stop };
}
