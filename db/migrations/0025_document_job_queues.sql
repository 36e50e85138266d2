-- Fair share of the document workers per agency. Every stage of a document's work (reading, extracting,
-- completing, comparing) runs in the graphile-worker queue `documents:<agency id>` and every OCR page in
-- `scans:<agency id>`. A named queue runs one job at a time across all worker processes, so one agency has at
-- most one text-stage job and one OCR page running at once, whatever it queued: a burst of one agency's uploads
-- waits in its own queues while the other agencies' jobs take the remaining slots (tasks/index.ts runs document
-- stages and OCR pages in runners of their own, with their own concurrency and without the local queue, which
-- would fetch two jobs of one queue in one batch).

/* The queue of one stage of a document's work: its agency's, per kind (OCR pages apart). Null for a vanished row. */
create function app_private.document_job_queue(p_task text, p_payload json) returns text
  language sql stable security definer set search_path = '' as $$
  select case when p_task like '%\_\_ocr' then 'scans:' else 'documents:' end || o.agency_id
    from (
      select x.agency_id from app_public.extractions x where x.id = (p_payload ->> 'extraction_id')::uuid
      union all
      select a.agency_id from app_public.analyses a where a.id = (p_payload ->> 'analysis_id')::uuid
      union all
      select d.agency_id from app_public.documents d where d.id = (p_payload ->> 'document_id')::uuid
    ) o
   limit 1
$$;
comment on function app_private.document_job_queue(text, json) is
  'The graphile-worker queue of a document stage: scans:<agency> for OCR pages, documents:<agency> for every other stage (one running job per queue: the fair share of an agency). The agency comes from the payload''s extraction_id, analysis_id or document_id.';

create or replace function app_private.queue_extraction_job(p_task text, p_payload json, p_key text, p_priority integer default 0) returns void
  language sql volatile security definer set search_path = '' as $$
  select graphile_worker.add_job(p_task, app_private.job_payload(p_payload::jsonb), job_key => p_key, job_key_mode => 'preserve_run_at',
    priority => p_priority, max_attempts => 5, queue_name => app_private.document_job_queue(p_task, p_payload))
$$;
comment on function app_private.queue_extraction_job(text, json, text, integer) is
  'Queue one stage of the extraction chain once (job key; OCR pages at a larger priority number) in its agency''s queue (document_job_queue); the payload carries the request id.';

create or replace function app_private.queue_analysis_job(p_task text, p_payload json, p_key text, p_priority integer default 0) returns void
  language sql volatile security definer set search_path = '' as $$
  select graphile_worker.add_job(p_task, app_private.job_payload(p_payload::jsonb), job_key => p_key, job_key_mode => 'preserve_run_at',
    priority => p_priority, max_attempts => 5, queue_name => app_private.document_job_queue(p_task, p_payload))
$$;
comment on function app_private.queue_analysis_job(text, json, text, integer) is
  'Queue one stage of the lease analysis chain once (job key; OCR pages at a larger priority number) in its agency''s queue (document_job_queue); the payload carries the request id.';

-- Where one body queues every document stage (app_private.queue_document_job), it takes the queue too.
do $$
begin
  if to_regprocedure('app_private.queue_document_job(text, json, text, integer)') is not null then
    execute $f$
      create or replace function app_private.queue_document_job(p_task text, p_payload json, p_key text, p_priority integer default 0)
        returns void language sql security definer set search_path = '' as $b$
        select graphile_worker.add_job(p_task, app_private.job_payload(p_payload::jsonb), job_key => p_key, job_key_mode => 'preserve_run_at',
          priority => p_priority, max_attempts => 5, queue_name => app_private.document_job_queue(p_task, p_payload))
      $b$
    $f$;
    comment on function app_private.queue_document_job(text, json, text, integer) is
      'Queue one stage of a document''s work once (job key; OCR pages at a larger priority number) in its agency''s queue (document_job_queue); the payload carries the request id.';
  end if;
end
$$;
