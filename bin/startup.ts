// Start-up checks of `svc serve` and `svc worker`: what would otherwise make a process run while silently wrong
// (every delivery failing on a foreign key, links signed with localhost, every request a 403, every upload a 500)
// stops it at start instead, with a message that names the variable to fix.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import type { Config } from '../lib/config.ts';
import { decryptSecret, encryptSecret } from '../lib/crypto.ts';
import type { Database } from '../db/pool.ts';
import { anyStoredSecret, recordSecretKeyCheck, requestRoleProbe } from '../db/queries/startup.ts';

/** A configuration start-up refuses; the message names the variable (or grant) to fix. */
export class StartupError extends Error {}

/** The plaintext of the key check: what any process holding the database's key decrypts. */
const KEY_CHECK_PLAINTEXT = 'svc secret key check v1';

/**
 * The link base a process signs with must be where the API serves: with DATABASE_URL (the service may run on
 * several machines) localhost is wrong for every process but the one on that host, so it must be set.
 */
export function checkLinkBase(cfg: Config, role: 'serve' | 'worker'): void {
  if (!cfg.DATABASE_URL) return;
  if (role === 'serve' && !cfg.PUBLIC_URL) {
    throw new StartupError(
      'PUBLIC_URL is required with DATABASE_URL: it is the base of the links the API gives out (pagination, logo_url, sign-in links); set it to the URL clients reach the API at',
    );
  }
  if (role === 'worker' && !cfg.PUBLIC_URL && !cfg.FILES_URL) {
    throw new StartupError(
      `PUBLIC_URL is required with DATABASE_URL: workers sign document links with it (FILES_URL, when set, takes its place); without it they would sign ${cfg.filesUrl}, which other machines cannot reach`,
    );
  }
}

/**
 * The directories this process writes to exist and take a file: TMP_DIR (uploads in flight) for the API, and
 * DATA_DIR when something lives there (the embedded cluster, BLOB_STORE=fs, a generated secret key).
 */
export async function prepareDirectories(cfg: Config, role: 'serve' | 'worker'): Promise<void> {
  const dataDirUsed = !cfg.DATABASE_URL || cfg.BLOB_STORE === 'fs' || !cfg.WEBHOOK_SECRET_KEY;
  const dirs: [string, string][] = [];
  if (role === 'serve') dirs.push(['TMP_DIR', cfg.tmpDir]);
  if (dataDirUsed) dirs.push(['DATA_DIR', cfg.dataDir]);
  for (const [name, dir] of dirs) {
    try {
      await mkdir(dir, { recursive: true });
      const probe = await mkdtemp(path.join(dir, '.svc-write-check-'));
      await rm(probe, { recursive: true, force: true });
    } catch (err) {
      throw new StartupError(`${name} (${dir}) cannot be created or written to: ${(err as Error).message}`);
    }
  }
}

/**
 * The key this process encrypts and decrypts secrets with is the database's: the first process stores a value
 * encrypted with its key (after checking it against a secret already stored, for a database older than the
 * check); every later one must decrypt it. A process with another key would fail every delivery.
 */
export async function checkSecretKey(db: Database, key: Buffer, keyFromEnv: boolean): Promise<void> {
  const source = keyFromEnv ? 'WEBHOOK_SECRET_KEY' : 'the key generated into DATA_DIR/secret-key (WEBHOOK_SECRET_KEY is unset)';
  const refuse = (what: string) =>
    new StartupError(
      `WEBHOOK_SECRET_KEY does not match this database: ${source} cannot decrypt ${what}. Every process sharing a database needs the same WEBHOOK_SECRET_KEY (base64 of 32 bytes); set it to the value the other processes use`,
    );
  const opens = (ciphertext: string) => {
    try {
      decryptSecret(key, ciphertext);
      return true;
    } catch {
      return false;
    }
  };
  const older = await anyStoredSecret(db.owner);
  if (older !== undefined && !opens(older)) throw refuse('the webhook signing secrets stored in it');
  const stored = await recordSecretKeyCheck(db.owner, encryptSecret(key, KEY_CHECK_PLAINTEXT));
  if (!opens(stored)) throw refuse('the key check stored by the first process that started (app_private.secret_key_check)');
}

/** API requests can act as svc_request (a non-superuser owner must be a member of it). */
export async function checkRequestRole(db: Database): Promise<void> {
  const client = await db.request.connect();
  try {
    const { user, refused } = await requestRoleProbe(client, db.switchRole);
    if (!refused) return;
    throw new StartupError(
      db.switchRole
        ? `the role "${user}" of DATABASE_URL cannot act as svc_request (${refused}), so every API request would be refused: run \`svc migrate\` as a role that may grant it (a superuser, or CREATEROLE with admin of svc_request), or as a superuser: grant svc_request to "${user}"`
        : `the role "${user}" of DATABASE_REQUEST_URL cannot act as svc_request (${refused}): as a superuser, grant svc_request to "${user}"`,
    );
  } finally {
    client.release();
  }
}
