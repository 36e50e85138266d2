// What the worker runs around a job's own SQL: the job's request id as a session setting of the connection
// the job borrows (set before, cleared after), so the events and jobs it causes keep the id.
import type pg from 'pg';

/** Set (or with '' clear) svc.request_id for the session of `client`. */
export async function setSessionRequestId(client: Pick<pg.ClientBase, 'query'>, requestId: string): Promise<void> {
  await client.query(`select set_config('svc.request_id', $1, false)`, [requestId]);
}
