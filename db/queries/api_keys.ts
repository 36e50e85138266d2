// API keys of an agency (SPEC §5): created, rolled and revoked by its admins; never read back in the clear.
import type { Queryable } from './types.ts';

export interface ApiKeyRow {
  /** The admin agent who created it (null once that agent's row is gone); the key belongs to the agency. */
  created_by_agent_id: number | null;
  id: number;
  name: string;
  mode: 'test' | 'live';
  permissions: 'admin' | 'read_only';
  prefix: string;
  last_four: string;
  created_at: Date;
  last_used_at: Date | null;
  expires_at: Date | null;
  revoked_at: Date | null;
  replaced_by_id: number | null;
}

const keyColumns = 'id, name, mode, permissions, prefix, last_four, created_by_agent_id, created_at, last_used_at, expires_at, revoked_at, replaced_by_id';

/** The parts of a new key stored beside its hash (lib/secrets.ts newApiKey). */
export interface MintedKey {
  hash: Buffer;
  prefix: string;
  lastFour: string;
}

/** Create a key for the agency (admin only). */
export async function createApiKey(
  db: Queryable,
  agencyId: number,
  k: { name: string; mode: ApiKeyRow['mode']; permissions: ApiKeyRow['permissions'] },
  minted: MintedKey,
): Promise<ApiKeyRow> {
  const { rows } = await db.query<ApiKeyRow>(`select ${keyColumns} from app_public.create_api_key($1, $2, $3, $4, $5, $6, $7)`, [
    agencyId,
    k.name,
    k.mode,
    k.permissions,
    minted.hash,
    minted.prefix,
    minted.lastFour,
  ]);
  return rows[0];
}

/** The agency's keys, newest first. */
export async function listApiKeys(db: Queryable, agencyId: number): Promise<ApiKeyRow[]> {
  const { rows } = await db.query<ApiKeyRow>(`select ${keyColumns} from app_public.api_keys where agency_id = $1 order by id desc`, [agencyId]);
  return rows;
}

/** A page of the agency's keys of one mode, newest first, before key id `before` (the dashboard's list). */
export async function listApiKeysPage(
  db: Queryable,
  agencyId: number,
  o: { mode: 'test' | 'live'; before: number | null; limit: number },
): Promise<ApiKeyRow[]> {
  const { rows } = await db.query<ApiKeyRow>(
    `select ${keyColumns} from app_public.api_keys where agency_id = $1 and mode = $2 and ($3::bigint is null or id < $3) order by id desc limit $4`,
    [agencyId, o.mode, o.before, o.limit],
  );
  return rows;
}

/** The mode of a key of the agency, or undefined when it is not visible. */
export async function apiKeyMode(db: Queryable, agencyId: number, keyId: number): Promise<ApiKeyRow['mode'] | undefined> {
  const { rows } = await db.query<{ mode: ApiKeyRow['mode'] }>('select mode from app_public.api_keys where id = $1 and agency_id = $2', [keyId, agencyId]);
  return rows[0]?.mode;
}

/** Replace a key; the old one keeps working for `graceSeconds`. */
export async function rollApiKey(db: Queryable, agencyId: number, keyId: number, graceSeconds: number, minted: MintedKey): Promise<ApiKeyRow> {
  const { rows } = await db.query<ApiKeyRow>(`select ${keyColumns} from app_public.roll_api_key($1, $2, $3, $4, $5, $6)`, [
    agencyId,
    keyId,
    graceSeconds,
    minted.hash,
    minted.prefix,
    minted.lastFour,
  ]);
  return rows[0];
}

/** Revoke a key at once. */
export async function revokeApiKey(db: Queryable, agencyId: number, keyId: number): Promise<void> {
  await db.query('select app_public.revoke_api_key($1, $2)', [agencyId, keyId]);
}
