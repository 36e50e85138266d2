-- Hosted form submissions (SPEC §6.5) made safe to retry, and uploads nobody submitted cleaned up.
--
-- A consumer whose answers reached the server but whose browser never saw the 201 (a dropped connection, a
-- double click racing the disabled button, a reload and submit again) used to create a second submission, and
-- the agency got the same answers twice by webhook. The page now sends a key it draws once per filled form
-- (kept with the answers in sessionStorage); the first submit with that key creates the submission, every later
-- submit with it (even a concurrent one) gets that same submission back and claims nothing.
--
-- Files uploaded while filling a form that was never submitted used to stay stored forever. They are now listed
-- for the blob sweep and forgotten after HOSTED_UPLOAD_RETENTION_HOURS. Uploads were stored under a key made of
-- their content, so two uploads of the same file shared one blob: new uploads get a key of their own (the route),
-- and a shared key of an older upload is swept only once no upload and no document holds it.

alter table app_public.submissions add column client_key uuid;
comment on column app_public.submissions.client_key is
  'The key the hosted page drew for this filled form; a submit repeating it returns this submission instead of creating another.';
create unique index submissions_form_id_client_key_idx on app_public.submissions (form_id, client_key) where client_key is not null;

drop function app_private.create_submission(bigint, bigint, bigint, jsonb, jsonb, jsonb, text[], uuid[]);

/* Create a submission of a live form: checks the agent, form and snapshot, claims the uploads, queues its completion. */
create function app_private.create_submission(p_form_id bigint, p_snapshot_id bigint, p_agent_id bigint, p_answers jsonb,
  p_contact jsonb, p_metadata jsonb, p_acord_form_ids text[], p_upload_ids uuid[], p_client_key uuid default null)
  returns table (id bigint, trace_id text, submitted_at timestamptz, replayed boolean)
  language plpgsql volatile security definer set search_path = '' as $$
declare
  f app_public.forms;
  v app_public.submissions;
  claimed int;
begin
  select * into f from app_public.forms where forms.id = p_form_id and status = 'active';
  if not found then
    raise exception 'form % is not published', p_form_id using errcode = 'NTFND';
  end if;
  if p_client_key is not null then
    select * into v from app_public.submissions s where s.form_id = f.id and s.client_key = p_client_key;
    if found then
      return query select v.id, v.trace_id, v.submitted_at, true;
      return;
    end if;
  end if;
  if not exists (select 1 from app_public.agents a join app_public.agencies g on g.id = a.agency_id
                  where a.id = p_agent_id and a.agency_id = f.agency_id and a.status = 'active' and g.status = 'active') then
    raise exception 'agent % cannot receive submissions of form %', p_agent_id, p_form_id using errcode = 'NTFND';
  end if;
  if not exists (select 1 from app_public.form_snapshots fs where fs.id = p_snapshot_id and fs.form_id = f.id) then
    raise exception 'snapshot % is not a published version of form %', p_snapshot_id, p_form_id using errcode = 'SNAPS';
  end if;
  -- A concurrent submit with the same key waits here for the first to commit, then returns its submission.
  insert into app_public.submissions (agency_id, mode, form_id, snapshot_id, agent_id, answers, contact, metadata, acord_form_ids, client_key)
  values (f.agency_id, f.mode, f.id, p_snapshot_id, p_agent_id, p_answers, p_contact, coalesce(p_metadata, '{}'),
          coalesce(p_acord_form_ids, '{}'), p_client_key)
  on conflict (form_id, client_key) where client_key is not null do nothing
  returning * into v;
  if not found then
    select * into v from app_public.submissions s where s.form_id = f.id and s.client_key = p_client_key;
    return query select v.id, v.trace_id, v.submitted_at, true;
    return;
  end if;
  update app_public.submission_uploads u set submission_id = v.id
   where u.form_id = f.id and u.public_id = any (coalesce(p_upload_ids, '{}')) and u.submission_id is null;
  get diagnostics claimed = row_count;
  if claimed <> coalesce(cardinality(p_upload_ids), 0) then
    raise exception 'an uploaded file was already used by another submission' using errcode = 'UPLDU';
  end if;
  perform graphile_worker.add_job('submissions__finalize', json_build_object('submission_id', v.id), job_key => 'submission:' || v.id);
  return query select v.id, v.trace_id, v.submitted_at, false;
end
$$;
grant execute on function app_private.create_submission(bigint, bigint, bigint, jsonb, jsonb, jsonb, text[], uuid[], uuid) to svc_request;
comment on function app_private.create_submission(bigint, bigint, bigint, jsonb, jsonb, jsonb, text[], uuid[], uuid) is
  'Hosted form submit: store the checked answers against the snapshot the page was rendered from and queue submissions__finalize; a repeated client key returns the first submission (replayed).';

/*
 * The submission a hosted page already made with this key, if any. Checked before the answers are (a replay's
 * uploads are claimed already), under a transaction lock on the key, so a second submit racing the first waits
 * for it and then finds its submission.
 */
create function app_private.submission_of_client_key(p_form_id bigint, p_client_key uuid)
  returns table (id bigint, trace_id text, submitted_at timestamptz)
  language plpgsql volatile security definer set search_path = '' as $$
begin
  perform pg_advisory_xact_lock(hashtextextended('submission:' || p_form_id || ':' || p_client_key, 0));
  return query select s.id, s.trace_id, s.submitted_at from app_public.submissions s where s.form_id = p_form_id and s.client_key = p_client_key;
end
$$;
grant execute on function app_private.submission_of_client_key(bigint, uuid) to svc_request;
comment on function app_private.submission_of_client_key(bigint, uuid) is
  'Hosted submit replay: lock the page''s key for this transaction and return the submission already made with it.';

create index submission_uploads_created_at_idx on app_public.submission_uploads (created_at) where submission_id is null;

/* Forget uploads no submission claimed within p_hours: their rows go, their blobs are listed for blobs__sweep. */
create function app_private.purge_abandoned_uploads(p_hours integer, p_limit integer) returns integer
  language plpgsql volatile security definer set search_path = '' as $$
declare
  n integer;
begin
  with gone as (
    delete from app_public.submission_uploads u
     where u.id in (select x.id from app_public.submission_uploads x
                     where x.submission_id is null and x.created_at < now() - make_interval(hours => p_hours)
                     order by x.created_at limit p_limit for update skip locked)
       and u.submission_id is null
    returning u.id, u.blob_key
  ), listed as (
    -- (this statement's snapshot still shows the rows being deleted: they are not "another upload")
    insert into app_private.expired_blobs (blob_key)
    select distinct g.blob_key from gone g
     where not exists (select 1 from app_public.submission_uploads o where o.blob_key = g.blob_key and o.id not in (select id from gone))
    on conflict (blob_key) do nothing returning 1
  )
  select count(*) into n from gone;
  if n > 0 then
    perform graphile_worker.add_job('blobs__sweep', '{}'::json, job_key => 'blobs:sweep', max_attempts => 25);
  end if;
  return n;
end
$$;
comment on function app_private.purge_abandoned_uploads(integer, integer) is
  'Housekeeping (maintenance__purge): delete up to p_limit hosted-form uploads left unsubmitted for p_hours, list their blobs for blobs__sweep; returns how many.';

/* Blob keys waiting for deletion, oldest first, that no document and no hosted-form upload holds any more. */
create or replace function app_private.blobs_to_sweep(p_limit integer) returns setof text
  language sql stable security definer set search_path = '' as $$
  select b.blob_key from app_private.expired_blobs b
   where not exists (select 1 from app_public.documents d where d.blob_key = b.blob_key)
     and not exists (select 1 from app_public.submission_uploads u where u.blob_key = b.blob_key)
   order by b.expired_at, b.blob_key limit p_limit
$$;
comment on function app_private.blobs_to_sweep(integer) is 'Listed blob keys no document and no hosted-form upload holds any more (erased, expired or abandoned), for blobs__sweep to delete.';
create index submission_uploads_blob_key_idx on app_public.submission_uploads (blob_key);
