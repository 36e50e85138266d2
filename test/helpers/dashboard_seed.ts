// Rows behind the dashboard's lists for paging tests and the bench: extraction records written straight as the
// owner (the job chain is exercised by the extraction tests; here only the lists are under test).
import type pg from 'pg';

/**
 * `n` finished extraction records of one agent, one a minute apart (the newest an hour ago), with
 * `result` as extracted_data; their documents point at `blobKey` (the first) or count as expired.
 */
export async function seedExtractionRows(
  owner: pg.Pool,
  o: { agencyId: number; agentId: number; mode: 'test' | 'live'; n: number; status?: string; result?: unknown; blobKey?: string; pageCount?: number },
): Promise<string[]> {
  const { rows } = await owner.query<{ id: string }>(
    `with d as (
       insert into app_public.documents (agency_id, agent_id, mode, blob_key, filename, content_type, size_bytes, sha256, page_count, created_at, file_expired_at)
       select $1::bigint, $2::bigint, $3::text, case when g = 1 then $7::text end, 'seeded-' || g || '.pdf', 'application/pdf', 1000, repeat('0', 64), $8::integer,
              now() - interval '1 hour' - make_interval(mins => g), case when g = 1 and $7::text is not null then null else now() end
         from generate_series(1, $4::integer) g
       returning id, created_at
     )
     insert into app_public.extractions (document_id, agency_id, agent_id, mode, entity_type, status, parsing_method, result, created_at, completed_at)
     select d.id, $1::bigint, $2::bigint, $3::text, 'declaration_page', $5::text, 'text', $6::jsonb, d.created_at, d.created_at from d
     returning id`,
    [
      o.agencyId,
      o.agentId,
      o.mode,
      o.n,
      o.status ?? 'completed',
      o.result === undefined ? null : JSON.stringify(o.result),
      o.blobKey ?? null,
      o.pageCount ?? 1,
    ],
  );
  return rows.map((r) => r.id);
}
