// What a query function runs on: a pool, a client in a transaction, or a graphile-worker job's helpers
// (whose `query` takes text and values only, so task-side statements are never named).
import type pg from 'pg';

/** Anything that runs a text query with values: pg.Pool, pg.PoolClient, graphile-worker's helpers. */
export interface Queryable {
  query<R extends pg.QueryResultRow = pg.QueryResultRow>(text: string, values?: unknown[]): Promise<pg.QueryResult<R>>;
}

/** A pool or client: also runs named prepared statements (the hot request paths). */
export type Client = Pick<pg.ClientBase, 'query'>;
