// What the worker runs around jobs: the job's request id as a session setting of the connection the job borrows
// (set before, cleared after), so the events and jobs it causes keep the id; and the fair share of document jobs.
import type pg from 'pg';

/** Set (or with '' clear) svc.request_id for the session of `client`. */
export async function setSessionRequestId(client: Pick<pg.ClientBase, 'query'>, requestId: string): Promise<void> {
  await client.query(`select set_config('svc.request_id', $1, false)`, [requestId]);
}

/** Record how many document jobs of each kind one agency may run at once (DOCUMENT_JOBS_PER_AGENCY). */
export async function setDocumentFairShare(db: Pick<pg.ClientBase, 'query'>, jobsPerAgency: number): Promise<void> {
  await db.query('select app_private.set_document_fair_share($1)', [jobsPerAgency]);
}
