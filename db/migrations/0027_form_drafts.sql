-- Hosted forms a consumer can leave and come back to (issue 31, part 2). The hosted page saves the answers as the
-- consumer goes into a draft tied to the link it was opened from (its form, its agent, the signed link's metadata);
-- "Save and finish later" hands out a resume link (a token signed by the service, lib/links.ts formDraftKey) that
-- reopens the page on the saved step with the answers and the uploaded files. A draft is never a submission: it
-- emits no event and queues no job; submitting it goes through app_private.create_submission like any hosted
-- submit, and app_private.submit_form_draft marks it submitted in the same transaction.
--
-- Every save pushes the draft's expiry to FORM_DRAFT_TTL_HOURS from then. Expired drafts and the uploads they held
-- are deleted by the form_drafts__purge cron task: the rows go in one transaction that lists the files for
-- blobs__sweep, which deletes each file before forgetting its key, so no row ever names a missing file. Uploads a
-- draft holds are kept while the draft lives (purge_abandoned_uploads leaves them to the draft's purge).

create table app_public.form_drafts (
  id bigint generated always as identity primary key,
  public_id uuid not null unique default gen_random_uuid(),
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  form_id bigint not null references app_public.forms (id) on delete cascade,
  snapshot_id bigint not null references app_public.form_snapshots (id) on delete cascade,
  agent_id bigint not null references app_public.agents (id) on delete cascade,
  status text not null default 'open' check (status in ('open', 'submitted')),
  step integer not null default 0 check (step between 0 and 999),
  history integer[] not null default '{}' check (cardinality(history) <= 1000),
  answers jsonb not null default '{}' check (jsonb_typeof(answers) = 'object'),
  metadata jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object'),
  client_key uuid not null,
  submission_id bigint references app_public.submissions (id) on delete set null,
  created_at timestamptz not null default now(),
  saved_at timestamptz not null default now(),
  expires_at timestamptz not null,
  submitted_at timestamptz,
  constraint expires_after_creation check (expires_at > created_at)
);
alter table app_public.form_drafts enable row level security;
alter table app_public.form_drafts force row level security;
create index form_drafts_agency_id_mode_idx on app_public.form_drafts (agency_id, mode);
create index form_drafts_mode_idx on app_public.form_drafts (mode);
create index form_drafts_form_id_idx on app_public.form_drafts (form_id);
create index form_drafts_snapshot_id_idx on app_public.form_drafts (snapshot_id);
create index form_drafts_agent_id_idx on app_public.form_drafts (agent_id);
create index form_drafts_submission_id_idx on app_public.form_drafts (submission_id) where submission_id is not null;
create index form_drafts_expires_at_idx on app_public.form_drafts (expires_at);
create trigger _200_status before update of status on app_public.form_drafts
  for each row when (old.status is distinct from new.status)
  execute function app_private.tg__refuse_direct_status_change('status');
create policy select_own_mode on app_public.form_drafts for select using (
  agency_id = (select app_public.current_agency_id()) and mode = (select app_public.current_mode())
);
grant select on app_public.form_drafts to svc_request;
comment on table app_public.form_drafts is 'Hosted forms saved part-way by their consumer, resumable from a signed link until expires_at; written only by the form-draft functions of app_private, never a submission until submitted.';
comment on column app_public.form_drafts.public_id is 'The id signed into the resume link (with the form, the agent and an expiry).';
comment on column app_public.form_drafts.step is 'Index of the step on screen when last saved.';
comment on column app_public.form_drafts.history is 'Indexes of the steps walked before it (what Back returns to).';
comment on column app_public.form_drafts.answers is 'The answers as the page holds them, by question id (file questions as [{ upload_id }]); emptied when the draft is submitted.';
comment on column app_public.form_drafts.metadata is 'The signed link''s metadata, checked when the draft was made; the submission made from the draft carries it.';
comment on column app_public.form_drafts.client_key is 'The page''s key for this filled form: every submit of the draft, from any browser, repeats it, so one submission is made.';
comment on column app_public.form_drafts.expires_at is 'The resume link is refused and the draft with its uploads is purged after this instant; every save moves it to FORM_DRAFT_TTL_HOURS later.';

alter table app_public.submission_uploads add column draft_id bigint references app_public.form_drafts (id) on delete set null;
create index submission_uploads_draft_id_idx on app_public.submission_uploads (draft_id) where draft_id is not null;
comment on column app_public.submission_uploads.draft_id is 'The open draft whose answers name this upload: it is kept while the draft lives and purged with it.';

/* Attach to a draft the uploads its answers name (of its form and agent, unclaimed, held by no other draft); release the rest. */
create function app_private.attach_draft_uploads(p_draft_id bigint, p_upload_ids uuid[]) returns void
  language plpgsql volatile security definer set search_path = '' as $$
declare
  d app_public.form_drafts;
begin
  select * into d from app_public.form_drafts where id = p_draft_id;
  update app_public.submission_uploads u set draft_id = null
   where u.draft_id = d.id and u.submission_id is null and u.public_id <> all (coalesce(p_upload_ids, '{}'));
  update app_public.submission_uploads u set draft_id = d.id
   where u.form_id = d.form_id and u.agent_id = d.agent_id and u.public_id = any (coalesce(p_upload_ids, '{}'))
     and u.submission_id is null and u.draft_id is null;
end
$$;
comment on function app_private.attach_draft_uploads(bigint, uuid[]) is
  'Form drafts: the uploads a save names are held by the draft (kept until it expires); uploads it no longer names go back to the abandoned-upload retention.';

/* Start a draft of a live form for an agent of its agency, from the snapshot the page was rendered from. */
create function app_private.create_form_draft(p_form_id bigint, p_agent_id bigint, p_snapshot_id bigint, p_metadata jsonb,
  p_client_key uuid, p_ttl_seconds integer, p_step integer, p_history integer[], p_answers jsonb, p_upload_ids uuid[])
  returns app_public.form_drafts
  language plpgsql volatile security definer set search_path = '' as $$
declare
  f app_public.forms;
  d app_public.form_drafts;
begin
  select * into f from app_public.forms where forms.id = p_form_id and status = 'active';
  if not found then
    raise exception 'form % is not published', p_form_id using errcode = 'NTFND';
  end if;
  if not exists (select 1 from app_public.agents a join app_public.agencies g on g.id = a.agency_id
                  where a.id = p_agent_id and a.agency_id = f.agency_id and a.status = 'active' and g.status = 'active') then
    raise exception 'agent % cannot receive submissions of form %', p_agent_id, p_form_id using errcode = 'NTFND';
  end if;
  if not exists (select 1 from app_public.form_snapshots fs where fs.id = p_snapshot_id and fs.form_id = f.id) then
    raise exception 'snapshot % is not a published version of form %', p_snapshot_id, p_form_id using errcode = 'SNAPS';
  end if;
  insert into app_public.form_drafts (agency_id, mode, form_id, snapshot_id, agent_id, step, history, answers, metadata, client_key, expires_at)
  values (f.agency_id, f.mode, f.id, p_snapshot_id, p_agent_id, p_step, coalesce(p_history, '{}'), p_answers, coalesce(p_metadata, '{}'),
          p_client_key, date_trunc('second', now()) + make_interval(secs => p_ttl_seconds))
  returning * into d;
  perform app_private.attach_draft_uploads(d.id, p_upload_ids);
  return d;
end
$$;
grant execute on function app_private.create_form_draft(bigint, bigint, bigint, jsonb, uuid, integer, integer, integer[], jsonb, uuid[]) to svc_request;
comment on function app_private.create_form_draft(bigint, bigint, bigint, jsonb, uuid, integer, integer, integer[], jsonb, uuid[]) is
  'Hosted page: save a form part-way for the first time (answers, step, the link''s metadata, the page''s client key), expiring after p_ttl_seconds; no event, no job.';

/* The open, unexpired draft of this form and agent, locked; the reason otherwise. */
create function app_private.lock_open_draft(p_draft uuid, p_form_id bigint, p_agent_id bigint) returns app_public.form_drafts
  language plpgsql volatile security definer set search_path = '' as $$
declare
  d app_public.form_drafts;
begin
  select * into d from app_public.form_drafts where public_id = p_draft for update;
  if not found or d.form_id <> p_form_id or d.agent_id <> p_agent_id then
    raise exception 'saved form % not found', p_draft using errcode = 'NTFND';
  end if;
  if d.status = 'submitted' then
    raise exception 'this saved form was already sent' using errcode = 'DRFTS';
  end if;
  if d.expires_at <= now() then
    raise exception 'this saved form has expired' using errcode = 'DRFTX';
  end if;
  return d;
end
$$;
comment on function app_private.lock_open_draft(uuid, bigint, bigint) is
  'Form drafts: lock the draft for a save or a submit; NTFND when it is not a draft of this form and agent, DRFTS when already submitted, DRFTX when expired.';

/* Save the answers and step of an open draft; its expiry moves to p_ttl_seconds from now. */
create function app_private.save_form_draft(p_draft uuid, p_form_id bigint, p_agent_id bigint, p_ttl_seconds integer,
  p_step integer, p_history integer[], p_answers jsonb, p_upload_ids uuid[]) returns app_public.form_drafts
  language plpgsql volatile security definer set search_path = '' as $$
declare
  d app_public.form_drafts;
begin
  d := app_private.lock_open_draft(p_draft, p_form_id, p_agent_id);
  update app_public.form_drafts
     set step = p_step, history = coalesce(p_history, '{}'), answers = p_answers, saved_at = now(),
         expires_at = greatest(expires_at, date_trunc('second', now()) + make_interval(secs => p_ttl_seconds))
   where id = d.id returning * into d;
  perform app_private.attach_draft_uploads(d.id, p_upload_ids);
  return d;
end
$$;
grant execute on function app_private.save_form_draft(uuid, bigint, bigint, integer, integer, integer[], jsonb, uuid[]) to svc_request;
comment on function app_private.save_form_draft(uuid, bigint, bigint, integer, integer, integer[], jsonb, uuid[]) is
  'Hosted page: save an open draft of this form and agent again (answers, step, the uploads it holds) and extend its life to p_ttl_seconds from now; NTFND, DRFTS, DRFTX.';

/* A draft as the resume link opens it: its answers, step, metadata, state, and the files it holds. */
create function app_private.form_draft(p_draft uuid,
  out public_id uuid, out form_id bigint, out agent_id bigint, out snapshot_id bigint, out step integer, out history integer[],
  out answers jsonb, out metadata jsonb, out client_key uuid, out expires_at timestamptz, out state text, out submission_id bigint,
  out files jsonb)
  returns setof record
  language sql stable security definer set search_path = '' as $$
  select d.public_id, d.form_id, d.agent_id, d.snapshot_id, d.step, d.history, d.answers, d.metadata, d.client_key, d.expires_at,
         case when d.status = 'submitted' then 'submitted' when d.expires_at <= now() then 'expired' else 'open' end,
         d.submission_id,
         coalesce((select jsonb_agg(jsonb_build_object('upload_id', u.public_id, 'question_id', u.question_id, 'filename', u.filename,
                                                       'content_type', u.content_type, 'size', u.size_bytes) order by u.id)
                     from app_public.submission_uploads u where u.draft_id = d.id and u.submission_id is null), '[]')
    from app_public.form_drafts d
   where d.public_id = p_draft
$$;
grant execute on function app_private.form_draft(uuid) to svc_request;
comment on function app_private.form_draft(uuid) is
  'Hosted page: the draft a signed resume link names, with its state (open, submitted, expired) and the unclaimed uploads it holds; no row for an unknown or purged draft.';

/* The submit of a draft made its submission: the draft is submitted (its answers dropped), the uploads it still held are released. */
create function app_private.submit_form_draft(p_draft uuid, p_form_id bigint, p_agent_id bigint, p_submission_id bigint)
  returns app_public.form_drafts
  language plpgsql volatile security definer set search_path = '' as $$
declare
  d app_public.form_drafts;
begin
  select * into d from app_public.form_drafts where public_id = p_draft for update;
  if found and d.status = 'submitted' and d.submission_id = p_submission_id and d.form_id = p_form_id and d.agent_id = p_agent_id then
    return d; -- the same submit again (a replay): nothing changes
  end if;
  d := app_private.lock_open_draft(p_draft, p_form_id, p_agent_id);
  if not exists (select 1 from app_public.submissions s where s.id = p_submission_id and s.form_id = d.form_id and s.agent_id = d.agent_id) then
    raise exception 'submission % is not of the draft''s form and agent', p_submission_id using errcode = 'NTFND';
  end if;
  perform set_config('svc.transition', 'on', true);
  update app_public.form_drafts
     set status = 'submitted', submission_id = p_submission_id, submitted_at = now(), answers = '{}', history = '{}'
   where id = d.id returning * into d;
  perform set_config('svc.transition', '', true);
  -- Files removed from the answers after the last save: back to the abandoned-upload retention.
  update app_public.submission_uploads u set draft_id = null where u.draft_id = d.id and u.submission_id is null;
  return d;
end
$$;
grant execute on function app_private.submit_form_draft(uuid, bigint, bigint, bigint) to svc_request;
comment on function app_private.submit_form_draft(uuid, bigint, bigint, bigint) is
  'Hosted submit of a draft, in the transaction that made the submission: open → submitted, answers emptied, uploads left unclaimed released; the same submission again is a no-op; NTFND, DRFTS (another submission), DRFTX.';

/*
 * Delete up to p_limit expired drafts and the unclaimed uploads they hold; list those uploads' files for blobs__sweep
 * (in this transaction, so a file is deleted only once no row names it). Returns how many drafts went.
 */
create function app_private.purge_expired_form_drafts(p_limit integer) returns integer
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v_ids bigint[];
  n integer;
  v_uploads integer;
begin
  select array_agg(x.id) into v_ids
    from (select d.id from app_public.form_drafts d where d.expires_at <= now()
           order by d.expires_at limit p_limit for update skip locked) x;
  if v_ids is null then
    return 0;
  end if;
  with gone as (
    delete from app_public.submission_uploads u
     where u.draft_id = any (v_ids) and u.submission_id is null
    returning u.id, u.blob_key
  ), blobs as (
    -- (this statement's snapshot still shows the rows being deleted: they are not "another upload")
    insert into app_private.expired_blobs (blob_key)
    select distinct g.blob_key from gone g
     where not exists (select 1 from app_public.submission_uploads o where o.blob_key = g.blob_key and o.id not in (select id from gone))
    on conflict (blob_key) do nothing returning 1
  )
  select count(*) into v_uploads from gone;
  delete from app_public.form_drafts d where d.id = any (v_ids);
  get diagnostics n = row_count;
  if v_uploads > 0 then
    perform graphile_worker.add_job('blobs__sweep', '{}'::json, job_key => 'blobs:sweep', max_attempts => 25);
  end if;
  return n;
end
$$;
comment on function app_private.purge_expired_form_drafts(integer) is
  'Housekeeping (form_drafts__purge): delete up to p_limit expired drafts with the unclaimed uploads they hold, list those files for blobs__sweep; returns how many drafts.';

/* Forget uploads no submission claimed within p_hours and no live draft holds: their rows go, their blobs are listed for blobs__sweep. */
create or replace function app_private.purge_abandoned_uploads(p_hours integer, p_limit integer) returns integer
  language plpgsql volatile security definer set search_path = '' as $$
declare
  n integer;
begin
  with gone as (
    delete from app_public.submission_uploads u
     where u.id in (select x.id from app_public.submission_uploads x
                     where x.submission_id is null and x.draft_id is null and x.created_at < now() - make_interval(hours => p_hours)
                     order by x.created_at limit p_limit for update skip locked)
       and u.submission_id is null and u.draft_id is null
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
  'Housekeeping (maintenance__purge): delete up to p_limit hosted-form uploads left unsubmitted for p_hours and held by no draft (a draft''s go with it), list their blobs for blobs__sweep; returns how many.';
drop index app_public.submission_uploads_created_at_idx;
create index submission_uploads_created_at_idx on app_public.submission_uploads (created_at) where submission_id is null and draft_id is null;
