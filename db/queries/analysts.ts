// Eval runs and fixtures that analysts read in app_analyst (svc analysts import-eval).
import type pg from 'pg';

type Queryable = Pick<pg.Pool | pg.ClientBase, 'query'>;

/** Store one `svc eval --json` report and the fixtures' expected outputs (path → expected); returns the run id. */
export async function importEval(db: Queryable, label: string | null, report: unknown, fixtures: Record<string, unknown>): Promise<number> {
  const { rows } = await db.query<{ id: number }>('select app_private.import_eval($1, $2, $3) as id', [
    label,
    JSON.stringify(report),
    JSON.stringify(fixtures),
  ]);
  return rows[0].id;
}
