-- Fair share of the document workers per agency. Every stage of a document's work (reading, extracting,
-- completing, comparing) runs in the graphile-worker queue `documents:<agency id>` and every OCR page in
-- `scans:<agency id>` (or one of N such queues, `:<k>` by the job key, with DOCUMENT_JOBS_PER_AGENCY = N). A named
-- queue runs one job at a time across all worker processes, so one agency has at most N text-stage jobs and N OCR
-- pages running at once, whatever it queued: a burst of one agency's uploads
-- waits in its own queues while the other agencies' jobs take the remaining slots (tasks/index.ts runs document
-- stages and OCR pages in runners of their own, with their own concurrency and without the local queue, which
-- would fetch two jobs of one queue in one batch).

-- How many jobs of each kind one agency may run at once: its stages are spread over this many queues of its own
-- (DOCUMENT_JOBS_PER_AGENCY, written by every worker at start; one value everywhere).
create table app_private.document_fair_share (
  id boolean primary key default true constraint one_row check (id),
  jobs_per_agency integer not null default 2 check (jobs_per_agency between 1 and 64)
);
insert into app_private.document_fair_share default values;
comment on table app_private.document_fair_share is
  'One row: how many document jobs of each kind (text stages, OCR pages) one agency may run at once, as that many graphile-worker queues of its own (DOCUMENT_JOBS_PER_AGENCY, written by each worker at start).';

/* Set the number of queues of each kind per agency (a worker's DOCUMENT_JOBS_PER_AGENCY). */
create function app_private.set_document_fair_share(p_jobs_per_agency integer) returns void
  language sql volatile as $$
  update app_private.document_fair_share set jobs_per_agency = p_jobs_per_agency where jobs_per_agency is distinct from p_jobs_per_agency
$$;
comment on function app_private.set_document_fair_share(integer) is
  'Record DOCUMENT_JOBS_PER_AGENCY: the number of queues of each kind of document work per agency, read by document_job_queue.';

/*
 * The queue of one stage of a document's work: its agency's, per kind (OCR pages apart), and with several queues per
 * agency one of them by the job key. Null for a vanished row.
 */
create function app_private.document_job_queue(p_task text, p_payload json, p_key text) returns text
  language sql stable security definer set search_path = '' as $$
  select case when p_task like '%\_\_ocr' then 'scans:' else 'documents:' end || o.agency_id
         || case when f.jobs_per_agency > 1 then ':' || (abs(hashtext(coalesce(p_key, p_payload::text))::bigint) % f.jobs_per_agency) else '' end
    from (
      select x.agency_id from app_public.extractions x where x.id = (p_payload ->> 'extraction_id')::uuid
      union all
      select a.agency_id from app_public.analyses a where a.id = (p_payload ->> 'analysis_id')::uuid
      union all
      select d.agency_id from app_public.documents d where d.id = (p_payload ->> 'document_id')::uuid
    ) o
    cross join app_private.document_fair_share f
   limit 1
$$;
comment on function app_private.document_job_queue(text, json, text) is
  'The graphile-worker queue of a document stage: scans:<agency> for OCR pages, documents:<agency> for every other stage, with :<n> by the job key when an agency has several (document_fair_share); one running job per queue is the fair share of an agency. The agency comes from the payload''s extraction_id, analysis_id or document_id.';

-- One body queues every document stage (app_private.queue_document_job, 0023); it takes the queue too.
create or replace function app_private.queue_document_job(p_task text, p_payload json, p_key text, p_priority integer default 0)
  returns void language sql security definer set search_path = '' as $$
  select graphile_worker.add_job(p_task, app_private.job_payload(p_payload::jsonb), job_key => p_key, job_key_mode => 'preserve_run_at',
    priority => p_priority, max_attempts => 5, queue_name => app_private.document_job_queue(p_task, p_payload, p_key))
$$;
comment on function app_private.queue_document_job(text, json, text, integer) is
  'Queue one stage of a document''s work once (job key; OCR pages at a larger priority number) in its agency''s queue (document_job_queue); the payload carries the request id.';
