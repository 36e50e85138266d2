// Statements of the compliance report: what a report shows of an analysis, its two
// documents and the agency's brand, the signed links that open it without credentials, and the dashboard's list.
import type pg from 'pg';
import type { AnalysisRow } from './analyses.ts';

type Queryable = Pick<pg.ClientBase, 'query'>;

/** A document as the report draws it (blob_key is null once retention removed the file). */
export interface ReportDocument {
  id: string;
  blob_key: string | null;
  content_type: string;
  filename: string;
  page_count: number | null;
}

/** An analysis with everything its report shows. */
export interface ReportRow extends Omit<AnalysisRow, 'error_code' | 'error_details'> {
  agency_name: string;
  color_code: string | null;
  logo_key: string | null;
  lease: ReportDocument;
  insurance: ReportDocument;
}

const reportSelect = `select a.id, a.mode, a.status, to_char(a.as_of, 'YYYY-MM-DD') as as_of, a.result, a.created_at, a.completed_at,
         g.name as agency_name, g.color_code, g.logo_key,
         json_build_object('id', ld.id, 'blob_key', ld.blob_key, 'content_type', ld.content_type, 'filename', ld.filename, 'page_count', ld.page_count) as lease,
         json_build_object('id', id.id, 'blob_key', id.blob_key, 'content_type', id.content_type, 'filename', id.filename, 'page_count', id.page_count) as insurance
    from app_public.analyses a
    join app_public.agencies g on g.id = a.agency_id
    join app_public.documents ld on ld.id = a.lease_document_id
    join app_public.documents id on id.id = a.insurance_document_id`;

/** One analysis's report as the caller may see it (RLS: agency and mode). */
export async function getReport(c: Queryable, analysisId: string): Promise<ReportRow | undefined> {
  const { rows } = await c.query<ReportRow>(`${reportSelect} where a.id = $1`, [analysisId]);
  return rows[0];
}

/** The report a checked link opens (owner pool: the link row, found by app_private.report_link_target, names it). */
export async function reportOfLink(c: Queryable, analysisId: string, agencyId: number, mode: string): Promise<ReportRow | undefined> {
  const { rows } = await c.query<ReportRow>(`${reportSelect} where a.id = $1 and a.agency_id = $2 and a.mode = $3`, [analysisId, agencyId, mode]);
  return rows[0];
}

export interface ReportLinkRow {
  id: string;
  analysis_id: string;
  expires_at: Date;
  revoked_at: Date | null;
  created_at: Date;
}

/** A link to a completed analysis's report, valid for ttlSeconds (app_private.create_report_link). */
export async function createReportLink(c: Queryable, analysisId: string, ttlSeconds: number): Promise<ReportLinkRow> {
  const { rows } = await c.query<ReportLinkRow>('select id, analysis_id, expires_at, revoked_at, created_at from app_private.create_report_link($1, $2)', [
    analysisId,
    ttlSeconds,
  ]);
  return rows[0];
}

/** Revoke a report link (app_private.revoke_report_link). */
export async function revokeReportLink(c: Queryable, analysisId: string, linkId: string): Promise<ReportLinkRow> {
  const { rows } = await c.query<ReportLinkRow>('select id, analysis_id, expires_at, revoked_at, created_at from app_private.revoke_report_link($1, $2)', [
    analysisId,
    linkId,
  ]);
  return rows[0];
}

export interface ReportLinkTarget {
  analysis_id: string;
  agency_id: number;
  mode: 'test' | 'live';
  state: 'ok' | 'expired' | 'revoked';
}

/** What a link opens and whether it still works; undefined for an unknown link. */
export async function reportLinkTarget(c: Queryable, linkId: string): Promise<ReportLinkTarget | undefined> {
  const { rows } = await c.query<ReportLinkTarget>('select * from app_private.report_link_target($1) where analysis_id is not null', [linkId]);
  return rows[0];
}

/** A row of the dashboard's analysis list. */
export interface AnalysisListRow {
  id: string;
  status: ReportRow['status'];
  as_of: string;
  summary_status: string | null;
  lease_filename: string;
  insurance_filename: string;
  created_at: Date;
  created_key: string;
}

/** The agency's analyses of the session's mode (RLS), newest first, after a keyset position. */
export async function listAgencyAnalyses(c: Queryable, o: { after: { t: string; id: string } | null; limit: number }): Promise<AnalysisListRow[]> {
  const { rows } = await c.query<AnalysisListRow>(
    `select a.id, a.status, to_char(a.as_of, 'YYYY-MM-DD') as as_of, a.result -> 'summary' ->> 'status' as summary_status,
            ld.filename as lease_filename, id.filename as insurance_filename, a.created_at, a.created_at::text as created_key
       from app_public.analyses a
       join app_public.documents ld on ld.id = a.lease_document_id
       join app_public.documents id on id.id = a.insurance_document_id
      where a.agency_id = (select app_public.current_agency_id())
        and ($1::timestamptz is null or (a.created_at, a.id) < ($1::timestamptz, $2::uuid))
      order by a.created_at desc, a.id desc limit $3`,
    [o.after?.t ?? null, o.after?.id ?? null, o.limit],
  );
  return rows;
}

/** The text with positions of some pages of a document (owner pool: page texts are private; the caller checked the document). */
export async function documentPageTexts(c: Queryable, documentId: string, pages: number[]): Promise<Map<number, unknown>> {
  const { rows } = await c.query<{ page: number; content: unknown }>(
    'select page, content from app_private.document_pages where document_id = $1 and page = any($2) and content is not null',
    [documentId, pages],
  );
  return new Map(rows.map((r) => [r.page, r.content]));
}
