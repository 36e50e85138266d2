-- Hosted form submissions (SPEC §2.10, §4.5, §6.3, §6.5): the origins an agency lets frame its forms, files
-- uploaded by consumers before they submit, and submissions with the snapshot they were filled against.
-- Consumers are anonymous, so the hosted page reaches these tables only through the security-definer
-- functions below, which check the agent, the agency and the form themselves.

---------------------------------------------------------------------------------------------------------------
-- Embed origins: the page's CSP frame-ancestors lists exactly these (plus 'self').
create table app_public.embed_origins (
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  origin text not null check (origin ~ '^https?://[a-z0-9]([a-z0-9.-]*[a-z0-9])?(:[0-9]{1,5})?$' and length(origin) <= 300),
  created_at timestamptz not null default now(),
  primary key (agency_id, origin)
);
alter table app_public.embed_origins enable row level security;
alter table app_public.embed_origins force row level security;
create index embed_origins_agency_id_idx on app_public.embed_origins (agency_id);
create policy select_own on app_public.embed_origins for select using (agency_id = (select app_public.current_agency_id()));
grant select on app_public.embed_origins to svc_request;
comment on table app_public.embed_origins is 'Origins (scheme://host[:port]) allowed to frame the agency''s hosted forms.';

/* Replace the embed origins of the caller's agency (admin API key) and return the stored list, sorted. */
create function app_public.set_embed_origins(p_origins text[]) returns setof text
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v_agency bigint := app_public.current_agency_id();
begin
  if v_agency is null or not app_public.current_is_admin() then
    raise exception 'registering embed origins requires an admin API key' using errcode = 'FORBD';
  end if;
  delete from app_public.embed_origins where agency_id = v_agency and origin <> all (p_origins);
  insert into app_public.embed_origins (agency_id, origin)
  select v_agency, o from unnest(p_origins) o on conflict do nothing;
  return query select origin from app_public.embed_origins where agency_id = v_agency order by origin;
end
$$;
grant execute on function app_public.set_embed_origins(text[]) to svc_request;
comment on function app_public.set_embed_origins(text[]) is 'PUT /v2/embed-origins: replace the agency''s list of framing origins.';

---------------------------------------------------------------------------------------------------------------
-- Submissions: answers as presented (label, type, value; files by blob key), the snapshot they were checked
-- against, the attributed agent, the link's metadata, and the ACORD archive once the task has made it.
create table app_public.submissions (
  id bigint generated always as identity primary key,
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  form_id bigint not null references app_public.forms (id) on delete cascade,
  snapshot_id bigint not null references app_public.form_snapshots (id) on delete restrict,
  agent_id bigint not null references app_public.agents (id) on delete restrict,
  trace_id text not null unique default ('tr_' || replace(gen_random_uuid()::text, '-', '')),
  status text not null default 'processing' check (status in ('processing', 'complete')),
  answers jsonb not null check (jsonb_typeof(answers) = 'array'),
  contact jsonb check (jsonb_typeof(contact) = 'object'),
  metadata jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object'),
  acord_form_ids text[] not null default '{}',
  acord_archive_key text,
  acord_missing jsonb not null default '[]' check (jsonb_typeof(acord_missing) = 'array'),
  event_id bigint references app_public.events (id) on delete set null,
  submitted_at timestamptz not null default now(),
  completed_at timestamptz
);
alter table app_public.submissions enable row level security;
alter table app_public.submissions force row level security;
create index submissions_agency_id_mode_id_idx on app_public.submissions (agency_id, mode, id);
create index submissions_form_id_idx on app_public.submissions (form_id);
create index submissions_snapshot_id_idx on app_public.submissions (snapshot_id);
create index submissions_agent_id_idx on app_public.submissions (agent_id);
create index submissions_event_id_idx on app_public.submissions (event_id);
create trigger _200_status before update of status on app_public.submissions
  for each row when (old.status is distinct from new.status)
  execute function app_private.tg__refuse_direct_status_change('status');
create policy select_own_mode on app_public.submissions for select using (
  agency_id = (select app_public.current_agency_id()) and mode = (select app_public.current_mode())
);
grant select on app_public.submissions to svc_request;
comment on table app_public.submissions is 'Completed hosted forms (SPEC §6.3); written only by app_private.create_submission.';
comment on column app_public.submissions.acord_missing is 'Required ACORD fields the form did not capture: [{ form_id, field, label }].';

-- Files a consumer uploaded while filling a form; an answer refers to them by public id until submitted.
create table app_public.submission_uploads (
  id bigint generated always as identity primary key,
  public_id uuid not null unique default gen_random_uuid(),
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  form_id bigint not null references app_public.forms (id) on delete cascade,
  agent_id bigint not null references app_public.agents (id) on delete cascade,
  question_id text not null,
  submission_id bigint references app_public.submissions (id) on delete cascade,
  blob_key text not null,
  filename text not null check (length(filename) between 1 and 255),
  content_type text not null,
  size_bytes integer not null check (size_bytes > 0),
  created_at timestamptz not null default now()
);
alter table app_public.submission_uploads enable row level security;
alter table app_public.submission_uploads force row level security;
create index submission_uploads_agency_id_mode_idx on app_public.submission_uploads (agency_id, mode);
create index submission_uploads_form_id_idx on app_public.submission_uploads (form_id);
create index submission_uploads_agent_id_idx on app_public.submission_uploads (agent_id);
create index submission_uploads_submission_id_idx on app_public.submission_uploads (submission_id);
create policy select_own_mode on app_public.submission_uploads for select using (
  agency_id = (select app_public.current_agency_id()) and mode = (select app_public.current_mode())
);
grant select on app_public.submission_uploads to svc_request;
comment on table app_public.submission_uploads is 'Consumer uploads of a hosted form, kept by reference until the submission that uses them.';

---------------------------------------------------------------------------------------------------------------
-- The hosted page (anonymous) resolves its form through this function only.

/* The live form behind a hosted link: active agent and agency, published form of that agency (and of that agent when agent-owned). */
create function app_private.hosted_form(p_agent_slug text, p_public_id text,
  out agent_id bigint, out agent_first_name text, out agent_last_name text, out agent_email text,
  out agency_id bigint, out agency_name text, out color_code text, out logo_key text,
  out form_id bigint, out public_id text, out form_name text, out insurance_line text, out mode text,
  out snapshot_id bigint, out structure jsonb, out embed_origins text[])
  returns setof record
  language sql stable security definer set search_path = '' as $$
  select a.id, a.first_name, a.last_name, a.email, g.id, g.name, g.color_code, g.logo_key,
         f.id, f.public_id, s.name, s.insurance_line, f.mode, s.id, s.structure,
         coalesce((select array_agg(e.origin order by e.origin) from app_public.embed_origins e where e.agency_id = g.id), '{}')
    from app_public.agents a
    join app_public.agencies g on g.id = a.agency_id
    join app_public.forms f on f.agency_id = g.id
    join app_public.form_snapshots s on s.id = f.live_snapshot_id
   where a.slug = p_agent_slug and f.public_id = p_public_id
     and a.status = 'active' and g.status = 'active' and f.status = 'active'
     and (f.owner_agent_id is null or f.owner_agent_id = a.id)
$$;
grant execute on function app_private.hosted_form(text, text) to svc_request;
comment on function app_private.hosted_form(text, text) is 'Resolve {agentSlug}/form/{publicId} to the live snapshot, branding and embed origins; no row = 404.';

/* A published snapshot of a form (the one a page was rendered from, possibly replaced since). */
create function app_private.form_snapshot(p_form_id bigint, p_snapshot_id bigint,
  out snapshot_id bigint, out name text, out insurance_line text, out structure jsonb)
  returns setof record
  language sql stable security definer set search_path = '' as $$
  select s.id, s.name, s.insurance_line, s.structure from app_public.form_snapshots s
   where s.id = p_snapshot_id and s.form_id = p_form_id
$$;
grant execute on function app_private.form_snapshot(bigint, bigint) to svc_request;
comment on function app_private.form_snapshot(bigint, bigint) is 'A snapshot of the given form by id, for checking a submission against the page it was filled on.';

/* Record an upload of a hosted form (bytes already checked and stored); returns its public id. */
create function app_private.record_upload(p_form_id bigint, p_agent_id bigint, p_question_id text, p_blob_key text,
  p_filename text, p_content_type text, p_size integer) returns uuid
  language plpgsql volatile security definer set search_path = '' as $$
declare
  f app_public.forms;
  v uuid;
begin
  select * into f from app_public.forms where id = p_form_id and status = 'active';
  if not found or not exists (select 1 from app_public.agents where id = p_agent_id and agency_id = f.agency_id and status = 'active') then
    raise exception 'form % not found', p_form_id using errcode = 'NTFND';
  end if;
  insert into app_public.submission_uploads (agency_id, mode, form_id, agent_id, question_id, blob_key, filename, content_type, size_bytes)
  values (f.agency_id, f.mode, f.id, p_agent_id, p_question_id, p_blob_key, p_filename, p_content_type, p_size)
  returning public_id into v;
  return v;
end
$$;
grant execute on function app_private.record_upload(bigint, bigint, text, text, text, text, integer) to svc_request;
comment on function app_private.record_upload(bigint, bigint, text, text, text, text, integer) is 'Store the reference of a consumer upload so a later submission can use it.';

/* Uploads of a form by public id that a submission may still use (not yet part of another submission). */
create function app_private.pending_uploads(p_form_id bigint, p_public_ids uuid[])
  returns table (public_id uuid, question_id text, blob_key text, filename text, content_type text, size_bytes integer)
  language sql stable security definer set search_path = '' as $$
  select u.public_id, u.question_id, u.blob_key, u.filename, u.content_type, u.size_bytes
    from app_public.submission_uploads u
   where u.form_id = p_form_id and u.public_id = any (p_public_ids) and u.submission_id is null
$$;
grant execute on function app_private.pending_uploads(bigint, uuid[]) to svc_request;
comment on function app_private.pending_uploads(bigint, uuid[]) is 'Unclaimed uploads of a form, by the public ids a submission names.';

/* Create a submission of a live form: checks the agent, form and snapshot, claims the uploads, queues its completion. */
create function app_private.create_submission(p_form_id bigint, p_snapshot_id bigint, p_agent_id bigint, p_answers jsonb,
  p_contact jsonb, p_metadata jsonb, p_acord_form_ids text[], p_upload_ids uuid[]) returns app_public.submissions
  language plpgsql volatile security definer set search_path = '' as $$
declare
  f app_public.forms;
  v app_public.submissions;
  claimed int;
begin
  select * into f from app_public.forms where id = p_form_id and status = 'active';
  if not found then
    raise exception 'form % is not published', p_form_id using errcode = 'NTFND';
  end if;
  if not exists (select 1 from app_public.agents a join app_public.agencies g on g.id = a.agency_id
                  where a.id = p_agent_id and a.agency_id = f.agency_id and a.status = 'active' and g.status = 'active') then
    raise exception 'agent % cannot receive submissions of form %', p_agent_id, p_form_id using errcode = 'NTFND';
  end if;
  if not exists (select 1 from app_public.form_snapshots where id = p_snapshot_id and form_id = f.id) then
    raise exception 'snapshot % is not a published version of form %', p_snapshot_id, p_form_id using errcode = 'SNAPS';
  end if;
  insert into app_public.submissions (agency_id, mode, form_id, snapshot_id, agent_id, answers, contact, metadata, acord_form_ids)
  values (f.agency_id, f.mode, f.id, p_snapshot_id, p_agent_id, p_answers, p_contact, coalesce(p_metadata, '{}'), coalesce(p_acord_form_ids, '{}'))
  returning * into v;
  update app_public.submission_uploads set submission_id = v.id
   where form_id = f.id and public_id = any (coalesce(p_upload_ids, '{}')) and submission_id is null;
  get diagnostics claimed = row_count;
  if claimed <> coalesce(cardinality(p_upload_ids), 0) then
    raise exception 'an uploaded file was already used by another submission' using errcode = 'UPLDU';
  end if;
  perform graphile_worker.add_job('submissions__finalize', json_build_object('submission_id', v.id), job_key => 'submission:' || v.id);
  return v;
end
$$;
grant execute on function app_private.create_submission(bigint, bigint, bigint, jsonb, jsonb, jsonb, text[], uuid[]) to svc_request;
comment on function app_private.create_submission(bigint, bigint, bigint, jsonb, jsonb, jsonb, text[], uuid[]) is
  'Hosted form submit: store the checked answers against the snapshot the page was rendered from and queue submissions__finalize.';

/* Finish a submission: record its ACORD archive (if any) and emit the form-submission event with the given payload. */
create function app_private.complete_submission(p_submission_id bigint, p_archive_key text, p_missing jsonb, p_data jsonb)
  returns app_public.submissions
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v app_public.submissions;
  ev bigint;
begin
  select * into v from app_public.submissions where id = p_submission_id for update;
  if not found or v.status <> 'processing' then
    return v; -- unknown or already complete: a repeated job changes nothing
  end if;
  if p_data ->> 'submission_id' is distinct from v.id::text or p_data ->> 'trace_id' is distinct from v.trace_id then
    raise exception 'payload does not describe submission %', v.id using errcode = 'STATE';
  end if;
  ev := app_private.emit_event(v.agency_id, v.mode, 'form-submission', null, p_data);
  perform set_config('svc.transition', 'on', true);
  update app_public.submissions
     set status = 'complete', acord_archive_key = p_archive_key, acord_missing = coalesce(p_missing, '[]'),
         event_id = ev, completed_at = now()
   where id = v.id returning * into v;
  perform set_config('svc.transition', '', true);
  return v;
end
$$;
comment on function app_private.complete_submission(bigint, text, jsonb, jsonb) is
  'processing → complete: store the ACORD archive key and missing-field report, emit form-submission through the outbox.';
