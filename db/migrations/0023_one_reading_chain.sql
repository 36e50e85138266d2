-- One document-reading chain, keyed by the document, whoever asked for the reading.
--
-- Until now a policy extraction and each document of a lease analysis had their own chain: begin / record-text /
-- record-OCR-page functions per product, and task pairs (documents__read/documents__ocr with an extraction id,
-- analyses__read/analyses__ocr with an analysis id and a side). Now one pair of tasks reads any document:
-- documents__read {document_id} and documents__ocr {document_id, page}. The document's purpose says who owns its
-- reading (a policy: the extraction of that document; a lease or an insurance document: the analysis that has it on
-- that side), and app_private.reading_done queues that owner's continuation when the last page is in
-- (extractions__extract, analyses__facts). A new product that reads documents adds a purpose and one branch there.
--
-- The OCR engine of a page is a column (it was smuggled into the page's JSON as ocr_engine).

alter table app_private.document_pages add column engine text;
comment on column app_private.document_pages.engine is 'The OCR engine that read the page (tesseract-cli, tesseract.js); null for a page read from the text layer or not yet read.';
update app_private.document_pages set engine = content ->> 'ocr_engine', content = content - 'ocr_engine' where content ? 'ocr_engine';

-- One body for queueing a stage of a document's work (the two product-named functions keep their callers).
create function app_private.queue_document_job(p_task text, p_payload json, p_key text, p_priority integer default 0)
  returns void language sql security definer set search_path = '' as $$
  select graphile_worker.add_job(p_task, app_private.job_payload(p_payload::jsonb), job_key => p_key, job_key_mode => 'preserve_run_at',
    priority => p_priority, max_attempts => 5)
$$;
comment on function app_private.queue_document_job(text, json, text, integer) is 'Queue one stage of a document''s work once (job key; OCR pages at a larger priority number); the payload carries the request id.';

create or replace function app_private.queue_extraction_job(p_task text, p_payload json, p_key text, p_priority integer default 0)
  returns void language sql security definer set search_path = '' as $$
  select app_private.queue_document_job(p_task, p_payload, p_key, p_priority)
$$;
create or replace function app_private.queue_analysis_job(p_task text, p_payload json, p_key text, p_priority integer default 0)
  returns void language sql security definer set search_path = '' as $$
  select app_private.queue_document_job(p_task, p_payload, p_key, p_priority)
$$;

-- Who owns a document's reading, and where that owner stands.
create function app_private.reading_owner(p_document_id uuid, out purpose text, out owner_id uuid, out owner_status text)
  language sql stable security definer set search_path = '' as $$
  select d.purpose, o.id, o.status
    from app_public.documents d
    left join lateral (
      select x.id, x.status from app_public.extractions x where d.purpose = 'policy' and x.document_id = d.id
      union all
      select a.id, a.status from app_public.analyses a where d.purpose = 'lease' and a.lease_document_id = d.id
      union all
      select a.id, a.status from app_public.analyses a where d.purpose = 'insurance' and a.insurance_document_id = d.id
      limit 1) o on true
   where d.id = p_document_id
$$;
comment on function app_private.reading_owner(uuid) is 'The purpose of a document and the extraction (policy) or analysis (lease, insurance) that owns its reading, with that owner''s status.';

-- What a reading stage needs of its document, while its owner is processing.
create function app_private.reading_work(p_document_id uuid)
  returns table (document_id uuid, purpose text, owner_id uuid, blob_key text, content_type text, size_bytes bigint, page_count integer)
  language sql stable security definer set search_path = '' as $$
  select d.id, o.purpose, o.owner_id, d.blob_key, d.content_type, d.size_bytes, d.page_count
    from app_public.documents d, app_private.reading_owner(d.id) o
   where d.id = p_document_id and o.owner_status = 'processing'
$$;
comment on function app_private.reading_work(uuid) is 'A document being read: its purpose, owner, stored file and page count; no row when its owner is not processing (finished, failed or removed).';

create function app_private.begin_reading(p_document_id uuid)
  returns table (document_id uuid, purpose text, owner_id uuid, blob_key text, content_type text, size_bytes bigint, page_count integer)
  language plpgsql security definer set search_path = '' as $$
declare
  o record;
begin
  select * into o from app_private.reading_owner(p_document_id);
  if o.owner_id is null then
    return;
  end if;
  if o.purpose = 'policy' then
    perform app_private.begin_extraction(o.owner_id);
  else
    perform app_private.begin_analysis(o.owner_id);
  end if;
  return query select * from app_private.reading_work(p_document_id);
end
$$;
comment on function app_private.begin_reading(uuid) is 'documents__read starts: the document''s owner moves from queued to processing (begin_extraction, begin_analysis); returns what reading_work returns.';

create function app_private.reading_done(p_document_id uuid) returns void
  language plpgsql security definer set search_path = '' as $$
declare
  o record;
begin
  select * into o from app_private.reading_owner(p_document_id);
  if o.owner_status is distinct from 'processing' then
    return;
  end if;
  case o.purpose
    when 'policy' then
      perform app_private.queue_document_job('extractions__extract', json_build_object('extraction_id', o.owner_id), 'extraction:extract:' || o.owner_id);
    when 'lease', 'insurance' then
      perform app_private.queue_document_job('analyses__facts', json_build_object('analysis_id', o.owner_id, 'document', o.purpose),
        'analysis:facts:' || o.owner_id || ':' || o.purpose);
  end case;
end
$$;
comment on function app_private.reading_done(uuid) is 'Every page of a document is in: queue the continuation of its owner (extractions__extract for a policy, analyses__facts for a lease or insurance document).';

create function app_private.record_reading_text(p_document_id uuid, p_page_count integer, p_pages jsonb, p_need_ocr integer[])
  returns void language plpgsql security definer set search_path = '' as $$
declare
  v_page integer;
begin
  -- The document row lock serialises the stages of one document, so exactly one of them sees no page left.
  perform 1 from app_public.documents where id = p_document_id for update;
  if not exists (select 1 from app_private.reading_work(p_document_id)) then
    return;
  end if;
  update app_public.documents set page_count = p_page_count where id = p_document_id;
  insert into app_private.document_pages (document_id, page, state, content)
  select p_document_id, (p ->> 'page')::int, 'read', p from jsonb_array_elements(p_pages) p
  on conflict (document_id, page) do nothing;
  insert into app_private.document_pages (document_id, page, state, content)
  select p_document_id, o.page_no, 'ocr_pending', (select p from jsonb_array_elements(p_pages) p where (p ->> 'page')::int = o.page_no)
    from unnest(p_need_ocr) as o (page_no)
  on conflict (document_id, page) do update set state = 'ocr_pending'
    where app_private.document_pages.state = 'read';
  for v_page in select dp.page from app_private.document_pages dp where dp.document_id = p_document_id and dp.state = 'ocr_pending' order by dp.page loop
    perform app_private.queue_document_job('documents__ocr', json_build_object('document_id', p_document_id, 'page', v_page),
      'document:ocr:' || p_document_id || ':' || v_page, 10);
  end loop;
  if not found then
    perform app_private.reading_done(p_document_id);
  end if;
end
$$;
comment on function app_private.record_reading_text(uuid, integer, jsonb, integer[]) is 'documents__read saves the text layer and page count; queues documents__ocr per page without one (priority 10), or the owner''s continuation when none needs OCR.';

create function app_private.record_reading_page(p_document_id uuid, p_page integer, p_content jsonb, p_engine text, p_error text)
  returns void language plpgsql security definer set search_path = '' as $$
begin
  perform 1 from app_public.documents where id = p_document_id for update;
  if not exists (select 1 from app_private.reading_work(p_document_id)) then
    return;
  end if;
  update app_private.document_pages
     set state = case when p_error is null then 'ocr_done' else 'ocr_failed' end,
         content = coalesce(p_content, content), engine = case when p_error is null then p_engine end, error = p_error, updated_at = now()
   where document_id = p_document_id and page = p_page and state = 'ocr_pending';
  if found and not exists (select 1 from app_private.document_pages where document_id = p_document_id and state = 'ocr_pending') then
    perform app_private.reading_done(p_document_id);
  end if;
end
$$;
comment on function app_private.record_reading_page(uuid, integer, jsonb, text, text) is 'documents__ocr saves one OCR''d page with its engine (or the page''s error); the last page in queues the owner''s continuation.';

create function app_private.fail_reading(p_document_id uuid, p_code text, p_details text, p_parsing_method text)
  returns void language plpgsql security definer set search_path = '' as $$
declare
  o record;
begin
  select * into o from app_private.reading_owner(p_document_id);
  if o.owner_id is null then
    return;
  end if;
  if o.purpose = 'policy' then
    perform app_private.fail_extraction(o.owner_id, p_code, p_details, p_parsing_method);
  else
    perform app_private.fail_analysis(o.owner_id, p_code, p_details);
  end if;
end
$$;
comment on function app_private.fail_reading(uuid, text, text, text) is 'A document cannot be read: its owner fails with a §7.2 code and details (fail_extraction with the parsing method used, fail_analysis).';

-- The products start their documents' reading with the one chain.
create or replace function app_private.start_extraction(p_agent_id bigint, p_document_id uuid, p_blob_key text, p_filename text, p_content_type text,
  p_size_bytes bigint, p_sha256 text, p_entity_type text, p_client_id uuid)
  returns app_public.extractions language plpgsql security definer set search_path = '' as $$
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
  perform app_private.queue_document_job('documents__read', json_build_object('document_id', p_document_id), 'document:read:' || p_document_id);
  return x;
end
$$;
comment on function app_private.start_extraction(bigint, uuid, text, text, text, bigint, text, text, uuid) is 'Record an uploaded document and its queued extraction for an agent of the caller''s agency, and queue documents__read of the document.';

create or replace function app_private.start_analysis(p_lease jsonb, p_insurance jsonb, p_as_of date)
  returns uuid language plpgsql security definer set search_path = '' as $$
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
  perform app_private.queue_document_job('documents__read', json_build_object('document_id', p_lease ->> 'id'), 'document:read:' || (p_lease ->> 'id'));
  perform app_private.queue_document_job('documents__read', json_build_object('document_id', p_insurance ->> 'id'), 'document:read:' || (p_insurance ->> 'id'));
  return v_id;
end
$$;
comment on function app_private.start_analysis(jsonb, jsonb, date) is 'Record the two uploaded documents and a queued analysis for the caller''s agency and mode, and queue documents__read of each document.';

-- Jobs of the old chains still queued move to the one chain (same stage, the document's id), then the old
-- functions go.
do $$
declare
  j record;
  v_doc uuid;
begin
  for j in
    select t.identifier as task, k.key, k.payload::jsonb as payload
      from graphile_worker._private_jobs k join graphile_worker._private_tasks t on t.id = k.task_id
     where k.key is not null
       and (t.identifier in ('analyses__read', 'analyses__ocr') or (t.identifier in ('documents__read', 'documents__ocr') and k.payload::jsonb ? 'extraction_id'))
  loop
    if j.task like 'analyses__%' then
      select case j.payload ->> 'document' when 'lease' then a.lease_document_id else a.insurance_document_id end into v_doc
        from app_public.analyses a where a.id = (j.payload ->> 'analysis_id')::uuid;
    else
      select x.document_id into v_doc from app_public.extractions x where x.id = (j.payload ->> 'extraction_id')::uuid;
    end if;
    perform graphile_worker.remove_job(j.key);
    continue when v_doc is null;
    if j.task like '%__read' then
      perform graphile_worker.add_job('documents__read', jsonb_strip_nulls(jsonb_build_object('document_id', v_doc, 'request_id', j.payload -> 'request_id'))::json,
        job_key => 'document:read:' || v_doc, job_key_mode => 'preserve_run_at', max_attempts => 5);
    else
      perform graphile_worker.add_job('documents__ocr',
        jsonb_strip_nulls(jsonb_build_object('document_id', v_doc, 'page', (j.payload ->> 'page')::int, 'request_id', j.payload -> 'request_id'))::json,
        job_key => 'document:ocr:' || v_doc || ':' || (j.payload ->> 'page'), job_key_mode => 'preserve_run_at', priority => 10, max_attempts => 5);
    end if;
  end loop;
end
$$;

drop function app_private.record_document_text(uuid, integer, jsonb, integer[]);
drop function app_private.record_ocr_page(uuid, integer, jsonb, text);
drop function app_private.record_analysis_text(uuid, text, integer, jsonb, integer[]);
drop function app_private.record_analysis_ocr_page(uuid, text, integer, jsonb, text);
drop function app_private.analysis_document_id(app_public.analyses, text);
