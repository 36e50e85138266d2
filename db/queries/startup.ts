// What a process checks against the database before it starts serving or working (bin/startup.ts).
import type { Client, Queryable } from './types.ts';

/** Store `ciphertext` as the key check unless one is stored; returns the stored one. */
export async function recordSecretKeyCheck(db: Queryable, ciphertext: string): Promise<string> {
  const { rows } = await db.query<{ c: string }>('select app_private.record_secret_key_check($1) as c', [ciphertext]);
  return rows[0].c;
}

/** One secret already encrypted at rest (an endpoint's signing secret), if any: what a database without a key check was written with. */
export async function anyStoredSecret(db: Queryable): Promise<string | undefined> {
  const { rows } = await db.query<{ secret_ciphertext: string }>('select secret_ciphertext from app_public.webhook_endpoints limit 1');
  return rows[0]?.secret_ciphertext;
}

/**
 * Whether the connection's login role can act as the request role the way requests do: `set local role
 * svc_request` (`viaSetRole`), or, for a DATABASE_REQUEST_URL login, inheriting svc_request's privileges. Returns
 * the role name and, when it cannot, Postgres's reason.
 */
export async function requestRoleProbe(client: Client, viaSetRole: boolean): Promise<{ user: string; refused?: string }> {
  const { rows } = await client.query<{ user: string; inherits: boolean }>(
    `select current_user as user, pg_has_role(current_user, 'svc_request', 'usage') as inherits`,
  );
  const { user, inherits } = rows[0];
  if (!viaSetRole) return inherits ? { user } : { user, refused: `role "${user}" does not inherit the privileges of svc_request` };
  await client.query('begin');
  try {
    await client.query('set local role svc_request');
    return { user };
  } catch (err) {
    return { user, refused: (err as Error).message };
  } finally {
    await client.query('rollback').catch(() => {});
  }
}
