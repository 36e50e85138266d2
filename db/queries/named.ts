// The hot request paths run named prepared statements (parsed once per connection); most of them read one row.
import type pg from 'pg';
import type { Client } from './types.ts';

/** The first row of the named statement `name` (prepared once per connection), or undefined when it returns none. */
export async function namedRow<R extends pg.QueryResultRow>(db: Client, name: string, text: string, values: unknown[]): Promise<R | undefined> {
  const { rows } = await db.query<R>({ name, text, values });
  return rows[0];
}
