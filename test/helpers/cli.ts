// The `svc` command run as operators run it: a child process on the test service's database and data directory.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestService } from './server.ts';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** `svc <args>` against `svc`'s database (or `databaseUrl`): its exit code, stdout and stderr. */
export async function runSvc(
  svc: Pick<TestService, 'tdb' | 'dataDir'>,
  args: string[],
  databaseUrl = svc.tdb.url,
): Promise<{ code: number; stdout: string; stderr: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !['DATABASE_URL', 'DATA_DIR', 'PORT'].includes(k)));
  const child = spawn(process.execPath, [path.join(root, 'bin/svc.ts'), ...args], {
    cwd: root,
    env: { ...clean, DATABASE_URL: databaseUrl, DATA_DIR: svc.dataDir, LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => (stdout += d));
  child.stderr.on('data', (d) => (stderr += d));
  const code = await new Promise<number>((r) => child.on('close', (c) => r(c ?? 1)));
  return { code, stdout, stderr };
}
