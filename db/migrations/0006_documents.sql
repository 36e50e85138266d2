-- Documents, extractions and the client model they feed (SPEC §1.3, §2.9, §3.3, §4.4, §6.2, §6.4, §8).
-- An upload becomes a document (the stored file) and an extraction (its parsing record). The extraction moves
-- queued → processing → completed | partial | failed only through the state functions below, each of which
-- queues the next graphile-worker task in the same transaction:
--   documents__read (text layer) → documents__ocr (one job per page without text) → extractions__extract
--   → extractions__complete (client, submission, declaration page and the events, in one transaction).
-- OCR page jobs run at a lower priority (larger number) than every other stage, so a long scan never holds
-- text documents behind it: a text document waits at most for one OCR page to finish.
-- Plan limits of the /api surface (per agency, per minute and per day) are counted here too.

---------------------------------------------------------------------------------------------------------------
-- Identity helper: tenant rows with a mode are visible to API keys of that mode and to agent tokens (no mode).
create function app_public.mode_visible(p_mode text) returns boolean
  language sql stable parallel safe as $$
  select app_public.current_mode() is null or p_mode = app_public.current_mode()
$$;
grant execute on function app_public.mode_visible(text) to svc_request;
comment on function app_public.mode_visible(text) is 'True when a row of this mode is visible to the caller: agent tokens (no mode) see both, API keys only their own.';

---------------------------------------------------------------------------------------------------------------
-- Documents: one stored file each. blob_key is unique per document (never content-addressed), so erasing one
-- client's file never breaks another's; it is null once the file expired or was erased.
create table app_public.documents (
  id uuid primary key default gen_random_uuid(),
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  agent_id bigint references app_public.agents (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  purpose text not null default 'policy' check (purpose in ('policy', 'lease', 'insurance')),
  blob_key text unique check (length(blob_key) <= 300),
  filename text not null check (length(filename) between 1 and 255),
  content_type text not null check (content_type in ('application/pdf', 'image/jpeg', 'image/png')),
  size_bytes bigint not null check (size_bytes > 0),
  sha256 text not null check (sha256 ~ '^[0-9a-f]{64}$'),
  page_count integer check (page_count >= 0),
  created_at timestamptz not null default now(),
  file_expired_at timestamptz,
  constraint file_or_expired check (blob_key is not null or file_expired_at is not null)
);
alter table app_public.documents enable row level security;
alter table app_public.documents force row level security;
create index documents_agency_id_mode_created_at_idx on app_public.documents (agency_id, mode, created_at);
create index documents_agent_id_idx on app_public.documents (agent_id);
create index documents_mode_idx on app_public.documents (mode);
create index documents_retention_idx on app_public.documents (created_at) where file_expired_at is null;
create policy select_own_mode on app_public.documents for select using (
  agency_id = (select app_public.current_agency_id()) and app_public.mode_visible(mode)
);
grant select on app_public.documents to svc_request;
comment on table app_public.documents is 'Uploaded documents (policy, lease, insurance): the stored file (blob_key, unique per document), its hash, size and pages.';
comment on column app_public.documents.file_expired_at is 'When the retention task (or an erasure) deleted the stored file; blob_key is null from then on.';

-- The text of each page as the worker read it (text layer or OCR); the intermediate of the job chain, kept
-- so a restarted stage never redoes a finished page. Deleted with the document's file.
create table app_private.document_pages (
  document_id uuid not null references app_public.documents (id) on delete cascade,
  page integer not null check (page >= 1),
  state text not null check (state in ('read', 'ocr_pending', 'ocr_done', 'ocr_failed')),
  content jsonb,
  error text,
  updated_at timestamptz not null default now(),
  primary key (document_id, page)
);
comment on table app_private.document_pages is 'Per-page text of a document (pipelines/documents PageText as JSON) and the OCR state of pages without a text layer.';

---------------------------------------------------------------------------------------------------------------
-- Clients of an agent (SPEC §2.7), their submissions and declaration pages. Issue 11 (clients API) adds the
-- state functions of create/update/reassign/destroy; the extraction chain creates and updates them here.
create table app_public.clients (
  id uuid primary key default gen_random_uuid(),
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  agent_id bigint not null references app_public.agents (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  first_name text check (length(first_name) <= 200),
  last_name text check (length(last_name) <= 200),
  email text check (length(email) <= 254),
  phone text check (length(phone) <= 40),
  address jsonb,
  sales_funnel_status text check (length(sales_funnel_status) <= 100),
  additional_questions jsonb,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
alter table app_public.clients enable row level security;
alter table app_public.clients force row level security;
create index clients_agency_id_mode_idx on app_public.clients (agency_id, mode);
create index clients_agent_id_idx on app_public.clients (agent_id, mode, lower(last_name), lower(first_name));
create index clients_mode_idx on app_public.clients (mode);
create trigger _100_timestamps before update on app_public.clients
  for each row execute function app_private.tg__set_updated_at();
create policy select_own_mode on app_public.clients for select using (
  agency_id = (select app_public.current_agency_id()) and app_public.mode_visible(mode)
);
grant select on app_public.clients to svc_request;
comment on table app_public.clients is 'A client of an agent (SPEC §2.7): created or updated by completed extractions and by the clients API.';

create table app_public.client_submissions (
  id uuid primary key default gen_random_uuid(),
  client_id uuid not null references app_public.clients (id) on delete cascade,
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  agent_id bigint references app_public.agents (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  extraction_id uuid,
  created_at timestamptz not null default now()
);
alter table app_public.client_submissions enable row level security;
alter table app_public.client_submissions force row level security;
create index client_submissions_client_id_idx on app_public.client_submissions (client_id);
create index client_submissions_agency_id_mode_idx on app_public.client_submissions (agency_id, mode);
create index client_submissions_agent_id_idx on app_public.client_submissions (agent_id);
create index client_submissions_mode_idx on app_public.client_submissions (mode);
create unique index client_submissions_once_per_extraction on app_public.client_submissions (extraction_id) where extraction_id is not null;
create policy select_own_mode on app_public.client_submissions for select using (
  agency_id = (select app_public.current_agency_id()) and app_public.mode_visible(mode)
);
grant select on app_public.client_submissions to svc_request;
comment on table app_public.client_submissions is 'One submission of policy data for a client (SPEC §2.7); an extraction creates exactly one.';

create table app_public.declaration_pages (
  id uuid primary key default gen_random_uuid(),
  submission_id uuid references app_public.client_submissions (id) on delete cascade,
  client_id uuid not null references app_public.clients (id) on delete cascade,
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  document_id uuid references app_public.documents (id) on delete set null,
  extraction_id uuid,
  filename text not null check (length(filename) between 1 and 255),
  created_at timestamptz not null default now()
);
alter table app_public.declaration_pages enable row level security;
alter table app_public.declaration_pages force row level security;
create index declaration_pages_submission_id_idx on app_public.declaration_pages (submission_id);
create index declaration_pages_client_id_idx on app_public.declaration_pages (client_id);
create index declaration_pages_agency_id_mode_idx on app_public.declaration_pages (agency_id, mode);
create index declaration_pages_mode_idx on app_public.declaration_pages (mode);
create index declaration_pages_document_id_idx on app_public.declaration_pages (document_id);
create unique index declaration_pages_once_per_extraction on app_public.declaration_pages (extraction_id) where extraction_id is not null;
create policy select_own_mode on app_public.declaration_pages for select using (
  agency_id = (select app_public.current_agency_id()) and app_public.mode_visible(mode)
);
grant select on app_public.declaration_pages to svc_request;
comment on table app_public.declaration_pages is 'A declaration page of a client submission: the stored document it was read from (SPEC §2.7).';

---------------------------------------------------------------------------------------------------------------
-- Extractions: the §2.9 record of one document.
create table app_public.extractions (
  id uuid primary key default gen_random_uuid(),
  document_id uuid not null references app_public.documents (id) on delete cascade,
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  agent_id bigint not null references app_public.agents (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  entity_type text not null check (entity_type in ('declaration_page', 'auto_policy', 'home_policy', 'umbrella_policy',
    'cyber_security', 'flood', 'workers_comp', 'd_and_o', 'commercial_auto_policy', 'commercial_home_policy',
    'commercial_worker_comp', 'commercial_general_liability', 'commercial_flood', 'commercial_umbrella')),
  status text not null default 'queued' check (status in ('queued', 'processing', 'completed', 'partial', 'failed')),
  -- text | ocr | hybrid, with +llm when an LLM took part
  parsing_method text check (parsing_method ~ '^(text|ocr|hybrid)(\+llm)?$'),
  -- the outcome the extract stage found, made the status by complete_extraction
  outcome text check (outcome in ('completed', 'partial')),
  error_code text check (error_code in ('extraction_failed', 'internal_error', 'bad_request')),
  error_details text,
  result jsonb,
  stage_errors jsonb not null default '[]',
  requested_client_id uuid references app_public.clients (id) on delete set null,
  client_id uuid references app_public.clients (id) on delete set null,
  submission_id uuid references app_public.client_submissions (id) on delete set null,
  declaration_page_id uuid references app_public.declaration_pages (id) on delete set null,
  queued_at timestamptz not null default now(),
  started_at timestamptz,
  completed_at timestamptz,
  data_expired_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
alter table app_public.extractions enable row level security;
alter table app_public.extractions force row level security;
create index extractions_agency_id_mode_idx on app_public.extractions (agency_id, mode);
create index extractions_agent_id_created_idx on app_public.extractions (agent_id, created_at desc, id desc);
create index extractions_mode_idx on app_public.extractions (mode);
create index extractions_document_id_idx on app_public.extractions (document_id);
create index extractions_requested_client_id_idx on app_public.extractions (requested_client_id);
create index extractions_client_id_idx on app_public.extractions (client_id);
create index extractions_submission_id_idx on app_public.extractions (submission_id);
create index extractions_declaration_page_id_idx on app_public.extractions (declaration_page_id);
create trigger _100_timestamps before update on app_public.extractions
  for each row execute function app_private.tg__set_updated_at();
create trigger _200_status before update of status on app_public.extractions
  for each row when (old.status is distinct from new.status)
  execute function app_private.tg__refuse_direct_status_change('status');
create policy select_own_mode on app_public.extractions for select using (
  agency_id = (select app_public.current_agency_id()) and app_public.mode_visible(mode)
);
grant select on app_public.extractions to svc_request;
comment on table app_public.extractions is 'The policy extraction record (SPEC §2.9) of one document; status moves only through the state functions of 0006.';
comment on column app_public.extractions.result is 'extracted_data of the record; null until extracted and again after the retention period.';

alter table app_public.client_submissions add constraint client_submissions_extraction_fk
  foreign key (extraction_id) references app_public.extractions (id) on delete set null;
alter table app_public.declaration_pages add constraint declaration_pages_extraction_fk
  foreign key (extraction_id) references app_public.extractions (id) on delete set null;

---------------------------------------------------------------------------------------------------------------
-- Retention: per agency, default from configuration (null = the service default).
alter table app_public.agencies add column document_retention_days integer check (document_retention_days between 1 and 3650);
comment on column app_public.agencies.document_retention_days is 'Days stored documents and their extracted data are kept; null = the service default (DOCUMENT_RETENTION_DAYS).';

---------------------------------------------------------------------------------------------------------------
-- Plan limits of the /api surface (SPEC §8): one call authenticates the API key and spends one unit of the
-- agency's per-minute and per-day budgets (the day budget only when the minute one allows), or, without a
-- valid key, one unit of the caller address's budget. Returns the window that binds for the headers.
create function app_private.authenticate_api_request(p_key_hash bytea, p_address text, p_anon_limit integer, p_anon_window integer,
  out api_key_id bigint, out agency_id bigint, out mode text, out permissions text,
  out allowed boolean, out lim integer, out remaining integer, out reset_at bigint)
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v_plan text;
  per_min integer;
  per_day integer;
  m record;
  d record;
begin
  if p_key_hash is not null then
    select k.api_key_id, k.agency_id, k.mode, k.permissions, k.plan,
           case k.plan when 'free' then 5 when 'pro' then 30 else k.plan_per_minute end,
           case k.plan when 'free' then 50 when 'pro' then 1000 else k.plan_per_day end
      into api_key_id, agency_id, mode, permissions, v_plan, per_min, per_day
      from app_private.authenticate_api_key(p_key_hash) k limit 1;
  end if;
  if api_key_id is null then
    select * into m from app_private.consume_rate_limit('api:addr:' || coalesce(p_address, '?'), p_anon_limit, p_anon_window);
    allowed := m.allowed; lim := p_anon_limit; remaining := m.remaining; reset_at := m.reset_at;
    return;
  end if;
  select * into m from app_private.consume_rate_limit('api:min:' || agency_id, per_min, 60);
  if not m.allowed then
    allowed := false; lim := per_min; remaining := 0; reset_at := m.reset_at;
    return;
  end if;
  select * into d from app_private.consume_rate_limit('api:day:' || agency_id, per_day, 86400);
  allowed := d.allowed;
  if not d.allowed or d.remaining < m.remaining then
    lim := per_day; remaining := d.remaining; reset_at := d.reset_at;
  else
    lim := per_min; remaining := m.remaining; reset_at := m.reset_at;
  end if;
end
$$;
grant execute on function app_private.authenticate_api_request(bytea, text, integer, integer) to svc_request;
comment on function app_private.authenticate_api_request(bytea, text, integer, integer) is 'Authenticate an X-API-Key and spend one unit of its agency''s plan budgets (minute, day); the binding window for the X-RateLimit headers.';

---------------------------------------------------------------------------------------------------------------
-- State functions of the extraction chain.

-- Job priorities: every stage runs before any OCR page (graphile-worker runs lower numbers first).
create function app_private.queue_extraction_job(p_task text, p_payload json, p_key text, p_priority integer default 0) returns void
  language sql volatile security definer set search_path = '' as $$
  select graphile_worker.add_job(p_task, p_payload, job_key => p_key, job_key_mode => 'preserve_run_at', priority => p_priority, max_attempts => 5)
$$;
comment on function app_private.queue_extraction_job(text, json, text, integer) is 'Queue one stage of the extraction chain once (job key); OCR pages use a larger priority number than other stages.';

/* Store a new upload and queue its extraction: the agent must be an active agent of the caller's agency. */
create function app_private.start_extraction(p_agent_id bigint, p_document_id uuid, p_blob_key text, p_filename text,
  p_content_type text, p_size_bytes bigint, p_sha256 text, p_entity_type text, p_client_id uuid)
  returns app_public.extractions
  language plpgsql volatile security definer set search_path = '' as $$
declare
  a app_public.agents;
  x app_public.extractions;
  v_mode text := app_public.current_mode();
begin
  if v_mode is null then
    raise exception 'extractions are started with an API key' using errcode = 'FORBD';
  end if;
  select * into a from app_public.agents where id = p_agent_id and agency_id = app_public.current_agency_id();
  if not found then
    raise exception 'agent % not found', p_agent_id using errcode = 'NTFND';
  end if;
  if a.status <> 'active' then
    raise exception 'agent % is deactivated', p_agent_id using errcode = 'DEACT';
  end if;
  if p_client_id is not null and not exists (
    select 1 from app_public.clients c where c.id = p_client_id and c.agency_id = a.agency_id and c.mode = v_mode
  ) then
    raise exception 'client % not found', p_client_id using errcode = 'NTFND';
  end if;
  insert into app_public.documents (id, agency_id, agent_id, mode, purpose, blob_key, filename, content_type, size_bytes, sha256)
  values (p_document_id, a.agency_id, a.id, v_mode, 'policy', p_blob_key, p_filename, p_content_type, p_size_bytes, p_sha256);
  insert into app_public.extractions (document_id, agency_id, agent_id, mode, entity_type, requested_client_id)
  values (p_document_id, a.agency_id, a.id, v_mode, p_entity_type, p_client_id)
  returning * into x;
  perform app_private.queue_extraction_job('documents__read', json_build_object('extraction_id', x.id), 'extraction:read:' || x.id);
  return x;
end
$$;
grant execute on function app_private.start_extraction(bigint, uuid, text, text, text, bigint, text, text, uuid) to svc_request;
comment on function app_private.start_extraction(bigint, uuid, text, text, text, bigint, text, text, uuid) is 'Record an uploaded document and its queued extraction for an agent of the caller''s agency, and queue documents__read.';

/* queued → processing (idempotent: a processing extraction stays as it is). Returns the row, or null when finished. */
create function app_private.begin_extraction(p_extraction_id uuid) returns app_public.extractions
  language plpgsql volatile security definer set search_path = '' as $$
declare
  x app_public.extractions;
begin
  select * into x from app_public.extractions where id = p_extraction_id for update;
  if not found or x.status not in ('queued', 'processing') then
    return null;
  end if;
  if x.status = 'queued' then
    perform set_config('svc.transition', 'on', true);
    update app_public.extractions set status = 'processing', started_at = now() where id = x.id returning * into x;
    perform set_config('svc.transition', '', true);
  end if;
  return x;
end
$$;
comment on function app_private.begin_extraction(uuid) is 'Move an extraction from queued to processing when its first stage starts; a no-op for one already processing.';

/* Save the text layer of a document; queue OCR of the pages without one, or the extraction when none needs it. */
create function app_private.record_document_text(p_extraction_id uuid, p_page_count integer, p_pages jsonb, p_need_ocr integer[])
  returns void
  language plpgsql volatile security definer set search_path = '' as $$
declare
  x app_public.extractions;
  v_page integer;
begin
  select * into x from app_public.extractions where id = p_extraction_id and status = 'processing' for update;
  if not found then
    return;
  end if;
  update app_public.documents set page_count = p_page_count where id = x.document_id;
  insert into app_private.document_pages (document_id, page, state, content)
  select x.document_id, (p ->> 'page')::int, 'read', p from jsonb_array_elements(p_pages) p
  on conflict (document_id, page) do nothing;
  insert into app_private.document_pages (document_id, page, state, content)
  select x.document_id, o.page_no, 'ocr_pending', (select p from jsonb_array_elements(p_pages) p where (p ->> 'page')::int = o.page_no)
    from unnest(p_need_ocr) as o (page_no)
  on conflict (document_id, page) do update set state = 'ocr_pending'
    where app_private.document_pages.state = 'read';
  for v_page in select dp.page from app_private.document_pages dp where dp.document_id = x.document_id and dp.state = 'ocr_pending' order by dp.page loop
    perform app_private.queue_extraction_job('documents__ocr', json_build_object('extraction_id', x.id, 'page', v_page),
      'extraction:ocr:' || x.id || ':' || v_page, 10);
  end loop;
  if not found then
    perform app_private.queue_extraction_job('extractions__extract', json_build_object('extraction_id', x.id), 'extraction:extract:' || x.id);
  end if;
end
$$;
comment on function app_private.record_document_text(uuid, integer, jsonb, integer[]) is 'documents__read saves the text layer; queues documents__ocr per page without one (priority 10) or extractions__extract.';

/* Save one OCR'd page; the last page to finish queues the extraction. */
create function app_private.record_ocr_page(p_extraction_id uuid, p_page integer, p_content jsonb, p_error text) returns void
  language plpgsql volatile security definer set search_path = '' as $$
declare
  x app_public.extractions;
begin
  -- The extraction row lock serialises the pages of one document, so exactly one of them sees none left.
  select * into x from app_public.extractions where id = p_extraction_id and status = 'processing' for update;
  if not found then
    return;
  end if;
  update app_private.document_pages
     set state = case when p_error is null then 'ocr_done' else 'ocr_failed' end,
         content = coalesce(p_content, content), error = p_error, updated_at = now()
   where document_id = x.document_id and page = p_page and state = 'ocr_pending';
  if not exists (select 1 from app_private.document_pages where document_id = x.document_id and state = 'ocr_pending') then
    perform app_private.queue_extraction_job('extractions__extract', json_build_object('extraction_id', x.id), 'extraction:extract:' || x.id);
  end if;
end
$$;
comment on function app_private.record_ocr_page(uuid, integer, jsonb, text) is 'documents__ocr saves a page (or its error); when no page is pending it queues extractions__extract.';

/* Save what the extractor found and queue the completion (the status changes there, with the events). */
create function app_private.record_extraction_result(p_extraction_id uuid, p_outcome text, p_parsing_method text,
  p_result jsonb, p_stage_errors jsonb) returns void
  language plpgsql volatile security definer set search_path = '' as $$
begin
  update app_public.extractions
     set outcome = p_outcome, parsing_method = p_parsing_method, result = p_result, stage_errors = coalesce(p_stage_errors, '[]')
   where id = p_extraction_id and status = 'processing';
  if found then
    perform app_private.queue_extraction_job('extractions__complete', json_build_object('extraction_id', p_extraction_id), 'extraction:complete:' || p_extraction_id);
  end if;
end
$$;
comment on function app_private.record_extraction_result(uuid, text, text, jsonb, jsonb) is 'extractions__extract saves extracted_data and its outcome, and queues extractions__complete.';

/* queued | processing → failed, with the §7.2 code and details. Idempotent. */
create function app_private.fail_extraction(p_extraction_id uuid, p_code text, p_details text, p_parsing_method text)
  returns app_public.extractions
  language plpgsql volatile security definer set search_path = '' as $$
declare
  x app_public.extractions;
begin
  select * into x from app_public.extractions where id = p_extraction_id for update;
  if not found or x.status not in ('queued', 'processing') then
    return x;
  end if;
  perform set_config('svc.transition', 'on', true);
  update app_public.extractions
     set status = 'failed', error_code = p_code, error_details = p_details, parsing_method = coalesce(p_parsing_method, parsing_method),
         started_at = coalesce(started_at, now()), completed_at = now()
   where id = x.id returning * into x;
  perform set_config('svc.transition', '', true);
  return x;
end
$$;
comment on function app_private.fail_extraction(uuid, text, text, text) is 'End an extraction as failed with its SPEC §7.2 code (extraction_failed, internal_error) and details.';

-- The v1 event shape of a client (pipelines/webhooks/payloads.ts ClientRef).
create function app_private.client_ref(p_client_id uuid) returns jsonb
  language sql stable security definer set search_path = '' as $$
  select jsonb_build_object('uuid', c.id, 'first_name', c.first_name, 'last_name', c.last_name, 'email', c.email,
    'phone', c.phone, 'sales_funnel_status', c.sales_funnel_status,
    'agent', case when a.id is null then null else jsonb_build_object('id', a.id, 'name', a.first_name || ' ' || a.last_name, 'email', a.email) end)
    from app_public.clients c left join app_public.agents a on a.id = c.agent_id
   where c.id = p_client_id
$$;
comment on function app_private.client_ref(uuid) is 'A client as v1 webhook events carry it: uuid, names, contact, sales funnel status and agent.';

/*
 * processing → completed | partial, in one transaction: create or update the agent's client (the requested
 * client, else the one with the policyholder's name, else a new one), add a submission and a declaration
 * page, and emit the `client-submission` topic event and the v1 events client-submission.complete and
 * client-submission.declaration-page-upload. p_policy_data is the §6.2 `data` (document_link included).
 */
create function app_private.complete_extraction(p_extraction_id uuid, p_policy_data jsonb) returns app_public.extractions
  language plpgsql volatile security definer set search_path = '' as $$
declare
  x app_public.extractions;
  doc app_public.documents;
  v_client uuid;
  v_sub app_public.client_submissions;
  v_page app_public.declaration_pages;
  v_first text := nullif(btrim(p_policy_data #>> '{policyholder,first_name}'), '');
  v_last text := nullif(btrim(coalesce(p_policy_data #>> '{policyholder,last_name}', p_policy_data #>> '{policyholder,organization}')), '');
  v_email text := nullif(btrim(p_policy_data #>> '{policyholder,email}'), '');
  v_phone text := nullif(btrim(p_policy_data #>> '{policyholder,phone}'), '');
  v_address jsonb := case when jsonb_typeof(p_policy_data #> '{policyholder,address}') in ('object', 'string') then p_policy_data #> '{policyholder,address}' end;
  v_ref jsonb;
begin
  select * into x from app_public.extractions where id = p_extraction_id for update;
  if not found or x.status <> 'processing' or x.outcome is null then
    return x;
  end if;
  select * into doc from app_public.documents where id = x.document_id;
  -- The client: the requested one (still in this agency and mode), else the agent's client with this name.
  select c.id into v_client from app_public.clients c
   where c.id = x.requested_client_id and c.agency_id = x.agency_id and c.mode = x.mode for update;
  if v_client is null and v_last is not null then
    select c.id into v_client from app_public.clients c
     where c.agent_id = x.agent_id and c.mode = x.mode and lower(c.last_name) = lower(v_last)
       and lower(coalesce(c.first_name, '')) = lower(coalesce(v_first, ''))
     order by c.created_at limit 1 for update;
  end if;
  if v_client is null then
    insert into app_public.clients (agency_id, agent_id, mode, first_name, last_name, email, phone, address)
    values (x.agency_id, x.agent_id, x.mode, left(v_first, 200), left(v_last, 200), left(v_email, 254), left(v_phone, 40), v_address)
    returning id into v_client;
  else
    update app_public.clients
       set first_name = coalesce(first_name, left(v_first, 200)), last_name = coalesce(last_name, left(v_last, 200)),
           email = coalesce(email, left(v_email, 254)), phone = coalesce(phone, left(v_phone, 40)), address = coalesce(v_address, address)
     where id = v_client;
  end if;
  insert into app_public.client_submissions (client_id, agency_id, agent_id, mode, extraction_id)
  values (v_client, x.agency_id, x.agent_id, x.mode, x.id) returning * into v_sub;
  insert into app_public.declaration_pages (submission_id, client_id, agency_id, mode, document_id, extraction_id, filename)
  values (v_sub.id, v_client, x.agency_id, x.mode, doc.id, x.id, doc.filename) returning * into v_page;
  perform set_config('svc.transition', 'on', true);
  update app_public.extractions
     set status = x.outcome, client_id = v_client, submission_id = v_sub.id, declaration_page_id = v_page.id, completed_at = now()
   where id = x.id returning * into x;
  perform set_config('svc.transition', '', true);
  v_ref := app_private.client_ref(v_client);
  perform app_private.emit_event(x.agency_id, x.mode, 'client-submission', null, p_policy_data);
  perform app_private.emit_event(x.agency_id, x.mode, null, 'client-submission.complete', jsonb_build_object(
    'client', v_ref,
    'submission', jsonb_build_object('uuid', v_sub.id, 'completed_at', to_char(x.completed_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
    'policy_data', p_policy_data));
  perform app_private.emit_event(x.agency_id, x.mode, null, 'client-submission.declaration-page-upload', jsonb_build_object(
    'client', v_ref,
    'submission_uuid', v_sub.id,
    'declaration_page', jsonb_build_object('uuid', v_page.id, 'filename', doc.filename, 'content_type', doc.content_type,
      'size_bytes', doc.size_bytes, 'uploaded_at', to_char(doc.created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'document_link', p_policy_data ->> 'document_link')));
  return x;
end
$$;
comment on function app_private.complete_extraction(uuid, jsonb) is 'Finish an extraction (completed or partial) with its client, submission, declaration page and the three events, in one transaction.';

---------------------------------------------------------------------------------------------------------------
-- Retention: documents older than their agency's retention period lose their file, pages and extracted data.
-- Two steps so a crash half-way loses nothing: claim (mark expired, return the keys to delete), then the task
-- deletes each blob; a blob whose delete did not happen is listed again by expired_blobs until it is gone.
create table app_private.expired_blobs (
  blob_key text primary key,
  document_id uuid,
  expired_at timestamptz not null default now()
);
comment on table app_private.expired_blobs is 'Blob keys whose documents expired or were erased; the retention task deletes each blob, then its row.';

/* Expire up to p_limit documents past retention: clear their extracted data and queue their blobs for deletion. */
create function app_private.expire_documents(p_default_days integer, p_limit integer) returns integer
  language plpgsql volatile security definer set search_path = '' as $$
declare
  n integer;
begin
  with due as (
    select d.id, d.blob_key from app_public.documents d join app_public.agencies g on g.id = d.agency_id
     where d.file_expired_at is null
       and d.created_at < now() - make_interval(days => coalesce(g.document_retention_days, p_default_days))
     order by d.created_at limit p_limit for update of d skip locked
  ), blobs as (
    insert into app_private.expired_blobs (blob_key, document_id) select blob_key, id from due where blob_key is not null
    on conflict do nothing
  ), pages as (
    delete from app_private.document_pages p using due where p.document_id = due.id
  ), x as (
    update app_public.extractions e set result = null, stage_errors = '[]', data_expired_at = now()
      from due where e.document_id = due.id
  ), events as (
    -- Copies of the extracted data in the outbox and in finished deliveries (each names the document's blob key
    -- in its document_link) go too; the delivery log keeps status, timings and the attempts.
    update app_public.events e set data = jsonb_build_object('expired', true)
      from due where due.blob_key is not null and e.agency_id = (select agency_id from app_public.documents where id = due.id)
       and strpos(e.data::text, due.blob_key) > 0
    returning e.id
  ), bodies as (
    update app_public.webhook_deliveries w set body = '{"expired":true}'
     where w.event_id in (select id from events) and w.status <> 'pending'
  ), docs as (
    update app_public.documents d set blob_key = null, file_expired_at = now() from due where d.id = due.id returning 1
  )
  select count(*)::int into n from docs;
  return n;
end
$$;
comment on function app_private.expire_documents(integer, integer) is 'Retention step 1: mark documents past their agency''s retention expired, clear extracted data (record, page text, event and delivered bodies), list their blobs.';

/* Forget a blob key once its file is deleted. */
create function app_private.forget_expired_blob(p_blob_key text) returns void
  language sql volatile security definer set search_path = '' as $$
  delete from app_private.expired_blobs where blob_key = p_blob_key
$$;
comment on function app_private.forget_expired_blob(text) is 'Retention step 2: the blob is deleted from the store; drop its row.';
