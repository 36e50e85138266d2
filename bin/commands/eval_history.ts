// The eval history `svc eval --labels` keeps in app_analyst (0028): each run's accuracy and calibration per field
// and document kind, recorded through app_private.record_eval_history when a database is configured, and read
// back (with the calibration reviewers' corrections show on real traffic) for the HTML report's charts.
import type pg from 'pg';
import { z } from 'zod';
import {
  evalHistoryByField,
  recordEvalHistory,
  reviewCalibrationByField,
  type EvalHistoryPoint,
  type ReviewCalibrationPoint,
} from '../../db/queries/analysts.ts';
import type { FieldKindTally } from './eval_summary.ts';

/** Runs drawn in the report's charts, and weeks of real-traffic calibration beside them. */
export const CHART_RUNS = 20;
export const CORRECTION_WEEKS = 12;

/** What the report draws: the recorded runs per field (oldest first) and real-traffic calibration per week. */
export interface History {
  points: EvalHistoryPoint[];
  corrections: ReviewCalibrationPoint[];
  /** Where the history is kept, or why it is not. */
  note: string;
}

/** The database the history lives in, opened on demand by `svc` (bin/svc.ts). */
export interface HistoryDatabase {
  /** Where the runs are kept, for the output: the database without its password. */
  where: string;
  open(): Promise<{ db: pg.Pool; close(): Promise<void> }>;
}

/** Whether and where to record: a database, or the reason there is none (`--no-history`, no database configured). */
export type HistoryTarget = { database: HistoryDatabase } | { skipped: string };

const tallies = z.array(
  z
    .object({
      field: z.string().min(1).max(200),
      kind: z.string().min(1).max(100),
      compared: z.number().int().positive(),
      correct: z.number().int().nonnegative(),
      high_confidence: z.number().int().nonnegative(),
      high_confidence_wrong: z.number().int().nonnegative(),
    })
    .refine((t) => t.correct <= t.compared && t.high_confidence <= t.compared && t.high_confidence_wrong <= t.high_confidence, 'counts out of order'),
);

/** Record a run and read the history back; never throws: a failure is the note (and `recorded` stays undefined). */
export async function recordAndLoad(
  target: HistoryTarget,
  run: { labelsDir: string; documents: number; fields: FieldKindTally[] },
): Promise<{ recorded?: number; history?: History; note: string }> {
  if ('skipped' in target) return { note: `history: not recorded (${target.skipped})` };
  let opened: Awaited<ReturnType<HistoryDatabase['open']>> | undefined;
  try {
    const fields = tallies.parse(run.fields);
    opened = await target.database.open();
    const id = await recordEvalHistory(opened.db, { labelsDir: run.labelsDir, documents: run.documents, fields });
    const note = `history: run ${id} recorded in app_analyst.eval_history of ${target.database.where}`;
    const [points, corrections] = await Promise.all([evalHistoryByField(opened.db, CHART_RUNS), reviewCalibrationByField(opened.db, CORRECTION_WEEKS)]);
    return { recorded: id, history: { points, corrections, note }, note };
  } catch (e) {
    return { note: `history: not recorded in ${target.database.where}: ${(e as Error).message}` };
  } finally {
    await opened?.close();
  }
}

/** A database URL as it may be printed: no password, no query string. */
export function printableDatabase(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.username ? `${decodeURIComponent(u.username)}@` : ''}${u.host}${u.pathname}`;
  } catch {
    return 'the configured database';
  }
}
