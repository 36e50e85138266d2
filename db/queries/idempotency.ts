// Idempotency-Key records (SPEC §8), kept in app_private: claimed in the write's own transaction (an advisory
// lock of that transaction, so a request that dies releases its claim with it), completed with its response
// in the same transaction, or on its own connection for a refused request.
import type { Client, Queryable } from './types.ts';
import { namedRow } from './named.ts';

/** Who a key belongs to: keys are scoped by agency and mode. */
export type IdempotencyScope = [agencyId: number | null | undefined, mode: string | null | undefined, key: string];

export interface IdempotencyClaimRow {
  /** `new` (run it), `done` (replay the stored response), `running` (a twin is in flight), `mismatch`. */
  outcome: 'new' | 'done' | 'running' | 'mismatch';
  response_status: number | null;
  response_body: unknown;
}

/** Claim `key` for a request with this fingerprint, or learn what happened to its first use. */
export async function claimIdempotencyKey(db: Client, scope: IdempotencyScope, fingerprint: string): Promise<IdempotencyClaimRow> {
  // The function always returns its one row.
  return (await namedRow<IdempotencyClaimRow>(db, 'svc_claim_idempotency_key', 'select * from app_private.claim_idempotency_key($1, $2, $3, $4)', [
    ...scope,
    fingerprint,
  ]))!;
}

/** Store the response a retry of this key replays (`body` is JSON text); the first answer stored wins. */
export async function completeIdempotencyKey(db: Queryable, scope: IdempotencyScope, fingerprint: string, status: number, body: string): Promise<void> {
  await db.query('select app_private.complete_idempotency_key($1, $2, $3, $4, $5, $6, $7)', [...scope, fingerprint, status, body, '{}']);
}

/** Delete records older than 24 hours; returns how many. */
export async function purgeIdempotencyKeys(db: Queryable): Promise<number> {
  const { rows } = await db.query<{ n: number }>('select app_private.purge_idempotency_keys() as n');
  return rows[0].n;
}
