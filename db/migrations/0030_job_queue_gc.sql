-- Document jobs run in per-agency named queues (graphile-worker job queues), one row per queue name; graphile-worker
-- never removes a queue row itself, so one row per agency and kind of work that ever uploaded stays for good. The
-- hourly maintenance__purge removes the rows no job uses and no worker holds, as graphile-worker's own cleanup
-- (GC_JOB_QUEUES) does.
create function app_private.purge_idle_job_queues() returns integer
  language sql volatile security definer set search_path = '' as $$
  with gone as (
    delete from graphile_worker._private_job_queues q
     where q.locked_at is null
       and not exists (select 1 from graphile_worker._private_jobs j where j.job_queue_id = q.id)
    returning 1
  )
  select count(*)::integer from gone
$$;
comment on function app_private.purge_idle_job_queues() is 'Delete graphile-worker job queue rows that no job uses and no worker holds (named queues of agencies with nothing queued); returns how many.';
