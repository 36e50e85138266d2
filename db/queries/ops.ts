// What /metrics reads from Postgres at scrape time: queue depth by task and state (app_ops views).
import type pg from 'pg';

type Queryable = Pick<pg.Pool | pg.ClientBase, 'query'>;

export interface JobStateRow {
  task: string;
  state: 'queued' | 'scheduled' | 'running' | 'retry_scheduled' | 'failed';
  jobs: number;
  oldest_age_seconds: number;
}

/** Jobs counted by task and state, with the age of the oldest. */
export async function jobStates(db: Queryable): Promise<JobStateRow[]> {
  const { rows } = await db.query<JobStateRow>(
    'select task, state, jobs, extract(epoch from oldest_age)::float8 as oldest_age_seconds from app_ops.job_states order by task, state',
  );
  return rows;
}
