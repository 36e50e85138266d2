// Statements of the lease compliance checker and of its job chain after each document is read (SQL state functions;
// the reading itself is db/queries/readings.ts).
import type pg from 'pg';
import { namedRow } from './named.ts';

type Queryable = Pick<pg.ClientBase, 'query'>;

export type AnalysisSide = 'lease' | 'insurance';

export interface StoredDocument {
  id: string;
  blob_key: string;
  filename: string;
  content_type: string;
  size_bytes: number;
  sha256: string;
}

/** An analysis as the API shows it. */
export interface AnalysisRow {
  id: string;
  mode: 'test' | 'live';
  status: 'queued' | 'processing' | 'completed' | 'failed';
  as_of: string;
  result: Record<string, unknown> | null;
  error_code: string | null;
  error_details: string | null;
  created_at: Date;
  completed_at: Date | null;
}

const analysisColumns = `id, mode, status, to_char(as_of, 'YYYY-MM-DD') as as_of, result, error_code, error_details, created_at, completed_at`;

/** Record both stored uploads and queue the analysis (app_private.start_analysis). */
export async function startAnalysis(c: Queryable, lease: StoredDocument, insurance: StoredDocument, asOf: string): Promise<string> {
  const { rows } = await c.query<{ id: string }>('select app_private.start_analysis($1, $2, $3) as id', [lease, insurance, asOf]);
  return rows[0].id;
}

/** One analysis as the caller may see it (RLS: agency and mode). */
export async function getAnalysis(c: Queryable, id: string): Promise<AnalysisRow | undefined> {
  const { rows } = await c.query<AnalysisRow>(`select ${analysisColumns} from app_public.analyses where id = $1`, [id]);
  return rows[0];
}

/** An analysis by id without RLS (the owner pool): only for an id the caller has just created. */
export async function analysisById(c: Queryable, id: string): Promise<AnalysisRow | undefined> {
  return namedRow<AnalysisRow>(c, 'svc_analysis_by_id', `select ${analysisColumns} from app_public.analyses where id = $1`, [id]);
}

/** What a stage needs: the analysis status, as_of and the document of one side. */
export interface AnalysisWork {
  id: string;
  status: AnalysisRow['status'];
  as_of: string;
  document_id: string;
  blob_key: string | null;
  content_type: string;
  size_bytes: number;
  page_count: number | null;
  lease_facts: unknown;
  insurance_facts: unknown;
}

/** The analysis and one side's document (owner pool, in a task). */
export async function analysisWork(c: Queryable, id: string, side: AnalysisSide): Promise<AnalysisWork | undefined> {
  const { rows } = await c.query<AnalysisWork>(
    `select a.id, a.status, to_char(a.as_of, 'YYYY-MM-DD') as as_of, d.id as document_id, d.blob_key, d.content_type, d.size_bytes::float8 as size_bytes, d.page_count, a.lease_facts, a.insurance_facts
       from app_public.analyses a join app_public.documents d on d.id = case $2 when 'lease' then a.lease_document_id else a.insurance_document_id end
      where a.id = $1`,
    [id, side],
  );
  return rows[0];
}

/** Save a side's facts (app_private.record_analysis_facts). */
export async function recordAnalysisFacts(c: Queryable, id: string, side: AnalysisSide, facts: unknown): Promise<void> {
  await c.query('select app_private.record_analysis_facts($1, $2, $3)', [id, side, JSON.stringify(facts)]);
}

/** processing → completed with the result (app_private.complete_analysis). */
export async function completeAnalysis(c: Queryable, id: string, result: unknown): Promise<void> {
  await c.query('select app_private.complete_analysis($1, $2)', [id, JSON.stringify(result)]);
}

/** → failed with a §7.2 code (app_private.fail_analysis). */
export async function failAnalysis(c: Queryable, id: string, code: string, details: string): Promise<void> {
  await c.query('select app_private.fail_analysis($1, $2, $3)', [id, code, details]);
}
