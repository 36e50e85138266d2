-- Lease compliance analyses (SPEC §1.4, §2.8, §4.3). POST /api/analyze stores the lease and the insurance
-- document (documents of purpose 'lease' and 'insurance') and an analysis, queued. The analysis moves
-- queued → processing → completed | failed only through the state functions below, each of which queues the
-- next graphile-worker task in the same transaction:
--   analyses__read (text layer of one document) → analyses__ocr (one job per page without text, lower
--   priority) → analyses__facts (that document's facts) → analyses__compare (when both documents' facts are in).
-- Both documents go through the chain side by side; the analysis row lock serialises their steps. The request
-- waits for the result until a deadline and otherwise answers 202 with the id (GET /api/analyses/{id}).
-- No event is emitted: SPEC §6 has no topic for lease analyses.

create table app_public.analyses (
  id uuid primary key default gen_random_uuid(),
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  api_key_id bigint references app_public.api_keys (id) on delete set null,
  lease_document_id uuid not null references app_public.documents (id) on delete cascade,
  insurance_document_id uuid not null references app_public.documents (id) on delete cascade,
  as_of date not null,
  status text not null default 'queued' check (status in ('queued', 'processing', 'completed', 'failed')),
  lease_facts jsonb,
  insurance_facts jsonb,
  result jsonb,
  error_code text check (error_code in ('extraction_failed', 'internal_error', 'bad_request')),
  error_details text,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  started_at timestamptz,
  completed_at timestamptz,
  constraint result_when_completed check ((status = 'completed') = (result is not null)),
  constraint error_when_failed check ((status = 'failed') = (error_code is not null))
);
alter table app_public.analyses enable row level security;
alter table app_public.analyses force row level security;
create index analyses_agency_id_mode_created_at_idx on app_public.analyses (agency_id, mode, created_at desc);
create index analyses_mode_idx on app_public.analyses (mode);
create index analyses_api_key_id_idx on app_public.analyses (api_key_id);
create index analyses_lease_document_id_idx on app_public.analyses (lease_document_id);
create index analyses_insurance_document_id_idx on app_public.analyses (insurance_document_id);
create trigger _100_timestamps before update on app_public.analyses
  for each row execute function app_private.tg__set_updated_at();
create trigger _200_status before update of status on app_public.analyses
  for each row when (old.status is distinct from new.status)
  execute function app_private.tg__refuse_direct_status_change('status');
create policy select_own_mode on app_public.analyses for select using (
  agency_id = (select app_public.current_agency_id()) and app_public.mode_visible(mode)
);
grant select on app_public.analyses to svc_request;
comment on table app_public.analyses is 'Lease compliance analyses (SPEC §2.8): a lease and an insurance document, each document''s facts as the chain reads them, and the result; status moves only through the state functions of 0008.';
comment on column app_public.analyses.as_of is 'The day policy status and period are judged on (the request''s as_of, default the day of the request), so results are reproducible.';
comment on column app_public.analyses.lease_facts is 'Output of the facts stage for the lease (pipelines/lease leaseStage), kept so a restarted chain never redoes it.';
comment on column app_public.analyses.insurance_facts is 'Output of the facts stage for the insurance document (pipelines/lease insuranceStage).';

---------------------------------------------------------------------------------------------------------------
-- State functions.

create function app_private.queue_analysis_job(p_task text, p_payload json, p_key text, p_priority integer default 0) returns void
  language sql volatile security definer set search_path = '' as $$
  select graphile_worker.add_job(p_task, p_payload, job_key => p_key, job_key_mode => 'preserve_run_at', priority => p_priority, max_attempts => 5)
$$;
comment on function app_private.queue_analysis_job(text, json, text, integer) is 'Queue one stage of the analysis chain once (job key); OCR pages use a larger priority number than other stages.';

/* The document of one side of an analysis ('lease' or 'insurance'). */
create function app_private.analysis_document_id(a app_public.analyses, p_which text) returns uuid
  language sql immutable as $$
  select case p_which when 'lease' then a.lease_document_id when 'insurance' then a.insurance_document_id end
$$;
comment on function app_private.analysis_document_id(app_public.analyses, text) is 'The document id of the lease or the insurance side of an analysis.';

/*
 * Store both uploads and queue the analysis: the caller must act with an API key (agency and mode).
 * p_lease / p_insurance: {id, blob_key, filename, content_type, size_bytes, sha256}.
 */
create function app_private.start_analysis(p_lease jsonb, p_insurance jsonb, p_as_of date) returns uuid
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v_mode text := app_public.current_mode();
  v_agency bigint := app_public.current_agency_id();
  v_id uuid;
  d jsonb;
  v_purpose text;
begin
  if v_mode is null or v_agency is null then
    raise exception 'analyses are started with an API key' using errcode = 'FORBD';
  end if;
  foreach v_purpose in array array['lease', 'insurance'] loop
    d := case v_purpose when 'lease' then p_lease else p_insurance end;
    insert into app_public.documents (id, agency_id, agent_id, mode, purpose, blob_key, filename, content_type, size_bytes, sha256)
    values ((d ->> 'id')::uuid, v_agency, null, v_mode, v_purpose, d ->> 'blob_key', d ->> 'filename', d ->> 'content_type',
            (d ->> 'size_bytes')::bigint, d ->> 'sha256');
  end loop;
  insert into app_public.analyses (agency_id, mode, api_key_id, lease_document_id, insurance_document_id, as_of)
  values (v_agency, v_mode, nullif(current_setting('svc.api_key_id', true), '')::bigint,
          (p_lease ->> 'id')::uuid, (p_insurance ->> 'id')::uuid, p_as_of)
  returning id into v_id;
  perform app_private.queue_analysis_job('analyses__read', json_build_object('analysis_id', v_id, 'document', 'lease'), 'analysis:read:' || v_id || ':lease');
  perform app_private.queue_analysis_job('analyses__read', json_build_object('analysis_id', v_id, 'document', 'insurance'), 'analysis:read:' || v_id || ':insurance');
  return v_id;
end
$$;
grant execute on function app_private.start_analysis(jsonb, jsonb, date) to svc_request;
comment on function app_private.start_analysis(jsonb, jsonb, date) is 'Record the two uploaded documents and a queued analysis for the caller''s agency and mode, and queue analyses__read for each document.';

/* queued → processing when a document's first stage starts. Returns the analysis, or null when finished. */
create function app_private.begin_analysis(p_analysis_id uuid) returns app_public.analyses
  language plpgsql volatile security definer set search_path = '' as $$
declare
  a app_public.analyses;
begin
  select * into a from app_public.analyses where id = p_analysis_id for update;
  if not found or a.status not in ('queued', 'processing') then
    return null;
  end if;
  if a.status = 'queued' then
    perform set_config('svc.transition', 'on', true);
    update app_public.analyses set status = 'processing', started_at = now() where id = a.id returning * into a;
    perform set_config('svc.transition', '', true);
  end if;
  return a;
end
$$;
comment on function app_private.begin_analysis(uuid) is 'Move an analysis from queued to processing when a document''s first stage starts; a no-op for one already processing.';

/* Save one document's text layer; queue OCR of its pages without one, or its facts when none needs it. */
create function app_private.record_analysis_text(p_analysis_id uuid, p_which text, p_page_count integer, p_pages jsonb, p_need_ocr integer[])
  returns void
  language plpgsql volatile security definer set search_path = '' as $$
declare
  a app_public.analyses;
  v_doc uuid;
  v_page integer;
begin
  select * into a from app_public.analyses where id = p_analysis_id and status = 'processing' for update;
  if not found then
    return;
  end if;
  v_doc := app_private.analysis_document_id(a, p_which);
  update app_public.documents set page_count = p_page_count where id = v_doc;
  insert into app_private.document_pages (document_id, page, state, content)
  select v_doc, (p ->> 'page')::int, 'read', p from jsonb_array_elements(p_pages) p
  on conflict (document_id, page) do nothing;
  insert into app_private.document_pages (document_id, page, state, content)
  select v_doc, o.page_no, 'ocr_pending', (select p from jsonb_array_elements(p_pages) p where (p ->> 'page')::int = o.page_no)
    from unnest(p_need_ocr) as o (page_no)
  on conflict (document_id, page) do update set state = 'ocr_pending'
    where app_private.document_pages.state = 'read';
  for v_page in select dp.page from app_private.document_pages dp where dp.document_id = v_doc and dp.state = 'ocr_pending' order by dp.page loop
    perform app_private.queue_analysis_job('analyses__ocr', json_build_object('analysis_id', a.id, 'document', p_which, 'page', v_page),
      'analysis:ocr:' || a.id || ':' || p_which || ':' || v_page, 10);
  end loop;
  if not found then
    perform app_private.queue_analysis_job('analyses__facts', json_build_object('analysis_id', a.id, 'document', p_which), 'analysis:facts:' || a.id || ':' || p_which);
  end if;
end
$$;
comment on function app_private.record_analysis_text(uuid, text, integer, jsonb, integer[]) is 'analyses__read saves a document''s text layer; queues analyses__ocr per page without one (priority 10) or analyses__facts.';

/* Save one OCR'd page; the document's last page to finish queues its facts. */
create function app_private.record_analysis_ocr_page(p_analysis_id uuid, p_which text, p_page integer, p_content jsonb, p_error text) returns void
  language plpgsql volatile security definer set search_path = '' as $$
declare
  a app_public.analyses;
  v_doc uuid;
begin
  select * into a from app_public.analyses where id = p_analysis_id and status = 'processing' for update;
  if not found then
    return;
  end if;
  v_doc := app_private.analysis_document_id(a, p_which);
  update app_private.document_pages
     set state = case when p_error is null then 'ocr_done' else 'ocr_failed' end,
         content = coalesce(p_content, content), error = p_error, updated_at = now()
   where document_id = v_doc and page = p_page and state = 'ocr_pending';
  if not exists (select 1 from app_private.document_pages where document_id = v_doc and state = 'ocr_pending') then
    perform app_private.queue_analysis_job('analyses__facts', json_build_object('analysis_id', a.id, 'document', p_which), 'analysis:facts:' || a.id || ':' || p_which);
  end if;
end
$$;
comment on function app_private.record_analysis_ocr_page(uuid, text, integer, jsonb, text) is 'analyses__ocr saves a page (or its error); when the document has no page pending it queues analyses__facts.';

/* Save one document's facts; when both documents' facts are in, queue the comparison. */
create function app_private.record_analysis_facts(p_analysis_id uuid, p_which text, p_facts jsonb) returns void
  language plpgsql volatile security definer set search_path = '' as $$
declare
  a app_public.analyses;
begin
  select * into a from app_public.analyses where id = p_analysis_id and status = 'processing' for update;
  if not found then
    return;
  end if;
  if p_which = 'lease' then
    update app_public.analyses set lease_facts = p_facts where id = a.id returning * into a;
  elsif p_which = 'insurance' then
    update app_public.analyses set insurance_facts = p_facts where id = a.id returning * into a;
  else
    raise exception 'unknown document side %', p_which;
  end if;
  if a.lease_facts is not null and a.insurance_facts is not null then
    perform app_private.queue_analysis_job('analyses__compare', json_build_object('analysis_id', a.id), 'analysis:compare:' || a.id);
  end if;
end
$$;
comment on function app_private.record_analysis_facts(uuid, text, jsonb) is 'analyses__facts saves a document''s facts; the second one queues analyses__compare.';

/* processing → completed with the §2.8 result; wakes requests waiting for it. */
create function app_private.complete_analysis(p_analysis_id uuid, p_result jsonb) returns app_public.analyses
  language plpgsql volatile security definer set search_path = '' as $$
declare
  a app_public.analyses;
begin
  select * into a from app_public.analyses where id = p_analysis_id for update;
  if not found or a.status <> 'processing' or a.lease_facts is null or a.insurance_facts is null then
    return null;
  end if;
  perform set_config('svc.transition', 'on', true);
  update app_public.analyses set status = 'completed', result = p_result, completed_at = now() where id = a.id returning * into a;
  perform set_config('svc.transition', '', true);
  perform pg_notify('svc_analysis_done', a.id::text);
  return a;
end
$$;
comment on function app_private.complete_analysis(uuid, jsonb) is 'analyses__compare saves the result: processing → completed, and notifies svc_analysis_done.';

/* queued|processing → failed with a §7.2 error code (a document that cannot be read). */
create function app_private.fail_analysis(p_analysis_id uuid, p_code text, p_details text) returns void
  language plpgsql volatile security definer set search_path = '' as $$
declare
  a app_public.analyses;
begin
  select * into a from app_public.analyses where id = p_analysis_id for update;
  if not found or a.status not in ('queued', 'processing') then
    return;
  end if;
  perform set_config('svc.transition', 'on', true);
  update app_public.analyses set status = 'failed', error_code = p_code, error_details = left(p_details, 2000), completed_at = now() where id = a.id;
  perform set_config('svc.transition', '', true);
  perform pg_notify('svc_analysis_done', a.id::text);
end
$$;
comment on function app_private.fail_analysis(uuid, text, text) is 'Any stage that finds a document unreadable: the analysis fails with a §7.2 code and details; notifies svc_analysis_done.';
