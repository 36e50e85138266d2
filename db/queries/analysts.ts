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

/** One field in one document kind of a `svc eval --labels` run, as kept in the eval history. */
export interface EvalHistoryField {
  field: string;
  kind: string;
  compared: number;
  correct: number;
  /** Values cited at confidence >= 0.9, and how many of those were wrong. */
  high_confidence: number;
  high_confidence_wrong: number;
}

/** Keep one `svc eval --labels` run in app_analyst's eval history (app_private.record_eval_history); returns the run id. */
export async function recordEvalHistory(db: Queryable, run: { labelsDir: string; documents: number; fields: EvalHistoryField[] }): Promise<number> {
  const { rows } = await db.query<{ id: string }>('select app_private.record_eval_history($1, $2, $3) as id', [
    run.labelsDir,
    run.documents,
    JSON.stringify(run.fields),
  ]);
  return Number(rows[0].id);
}

export interface EvalHistoryPoint {
  run_id: number;
  recorded_at: Date;
  field: string;
  compared: number;
  correct: number;
  high_confidence: number;
  high_confidence_wrong: number;
}

/** The last `runs` recorded runs, per field (every kind together), oldest first. */
export async function evalHistoryByField(db: Queryable, runs: number): Promise<EvalHistoryPoint[]> {
  const { rows } = await db.query<EvalHistoryPoint & { run_id: string }>(
    `select h.run_id, h.recorded_at, h.field, h.compared, h.correct, h.high_confidence, h.high_confidence_wrong
       from app_analyst.eval_history_by_field h
      where h.run_id in (select id from app_analyst.eval_history_runs order by id desc limit $1)
      order by h.run_id, h.field`,
    [runs],
  );
  return rows.map((r) => ({ ...r, run_id: Number(r.run_id) }));
}

export interface ReviewCalibrationPoint {
  week: string;
  field: string;
  reviewed: number;
  high_confidence: number;
  high_confidence_wrong: number;
}

/** Calibration on real traffic (app_analyst.review_calibration: sharing agencies only) per week and field, every kind together, for the last `weeks` weeks. */
export async function reviewCalibrationByField(db: Queryable, weeks: number): Promise<ReviewCalibrationPoint[]> {
  const { rows } = await db.query<ReviewCalibrationPoint>(
    `select to_char(week, 'YYYY-MM-DD') as week, field, sum(reviewed)::int as reviewed, sum(high_confidence)::int as high_confidence,
            sum(high_confidence_wrong)::int as high_confidence_wrong
       from app_analyst.review_calibration
      where week > (now() at time zone 'UTC')::date - 7 * $1::int
      group by week, field order by week, field`,
    [weeks],
  );
  return rows;
}
