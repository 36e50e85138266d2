// The liveness probe of /healthz: the database answers.
import type { Queryable } from './types.ts';

/** Resolves when the database answers a trivial statement. */
export async function ping(db: Queryable): Promise<void> {
  await db.query('select 1');
}
