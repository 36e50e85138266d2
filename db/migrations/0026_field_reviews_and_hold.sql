-- Human review of uncertain fields (issue 34): a reviewer confirms, corrects or marks "not on the document"
-- each value an extraction lists in `needs_review`; every decision is an audit row (who, when, old → new).
-- An agency may hold, per mode, the delivery of extractions with uncertain fields until the last one is
-- reviewed: complete_extraction then parks the §6.2 data (status needs_review) and review_field delivers it.

-- ---- extractions: the held status and the data waiting for review --------------------------------------
alter table app_public.extractions drop constraint extractions_status_check;
alter table app_public.extractions add constraint extractions_status_check
  check (status in ('queued', 'processing', 'needs_review', 'completed', 'partial', 'failed'));
alter table app_public.extractions add column held_policy_data jsonb;
-- The review queue: finished extractions with fields still to review, oldest first per agency and mode.
create index extractions_review_queue_idx on app_public.extractions (agency_id, mode, created_at, id)
  where status in ('needs_review', 'completed', 'partial') and (result -> 'needs_review') <> '[]'::jsonb;
comment on column app_public.extractions.held_policy_data is 'The §6.2 client-submission data of an extraction held for review (status needs_review); delivered and cleared when its last field is reviewed.';

-- ---- review settings: hold for review, per agency and mode ---------------------------------------------
create table app_public.review_settings (
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  hold_for_review boolean not null default false,
  -- the agency lets the operators' analysts take its reviewed documents (within retention) as labelled data
  share_reviewed_documents boolean not null default false,
  updated_by_agent_id bigint references app_public.agents (id) on delete set null,
  updated_at timestamptz not null default now(),
  primary key (agency_id, mode)
);
alter table app_public.review_settings enable row level security;
alter table app_public.review_settings force row level security;
create index review_settings_mode_idx on app_public.review_settings (mode);
create index review_settings_updated_by_agent_id_idx on app_public.review_settings (updated_by_agent_id);
create policy select_own_mode on app_public.review_settings for select using (
  agency_id = (select app_public.current_agency_id()) and app_public.mode_visible(mode)
);
grant select on app_public.review_settings to svc_request;
comment on table app_public.review_settings is 'Per agency and mode: whether extractions with uncertain fields wait for review before their client-submission webhook (set_hold_for_review), and whether reviewed documents may go to the analysts with their labels (set_share_reviewed_documents).';

-- ---- field reviews: the audit of every decision ---------------------------------------------------------
create table app_public.field_reviews (
  id bigint generated always as identity primary key,
  extraction_id uuid not null references app_public.extractions (id) on delete cascade,
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  -- JSON pointer of the value in extracted_data (e.g. /policy/policy_number)
  pointer text not null check (pointer ~ '^(/[a-z_0-9]+)+$'),
  action text not null check (action in ('confirmed', 'corrected', 'not_on_document')),
  old_value jsonb,
  new_value jsonb,
  -- the machine's confidence in the old value, when it had a citation
  confidence numeric,
  reviewer_agent_id bigint references app_public.agents (id) on delete set null,
  reviewer_name text not null,
  -- true when the extraction's webhook had already gone out (a correction after delivery)
  after_delivery boolean not null,
  reviewed_at timestamptz not null default now()
);
alter table app_public.field_reviews enable row level security;
alter table app_public.field_reviews force row level security;
create index field_reviews_extraction_id_idx on app_public.field_reviews (extraction_id, reviewed_at);
create index field_reviews_agency_id_mode_idx on app_public.field_reviews (agency_id, mode, reviewed_at);
create index field_reviews_mode_idx on app_public.field_reviews (mode);
create index field_reviews_reviewer_agent_id_idx on app_public.field_reviews (reviewer_agent_id);
create trigger _100_immutable before update on app_public.field_reviews
  for each row execute function app_private.tg__immutable();
create policy select_own_mode on app_public.field_reviews for select using (
  agency_id = (select app_public.current_agency_id()) and app_public.mode_visible(mode)
);
grant select on app_public.field_reviews to svc_request;
comment on table app_public.field_reviews is 'Audit of human review (issue 34): one row per decision on an extracted value, who made it and when, old → new. Written only by review_field.';

-- ---- hold for review -------------------------------------------------------------------------------------

/* Turn hold-for-review on or off for the caller's agency in the caller's mode (admins only). */
create function app_public.set_hold_for_review(p_hold boolean) returns app_public.review_settings
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v app_public.review_settings;
  v_mode text := app_public.current_mode();
begin
  if app_public.current_agency_id() is null or not app_public.current_is_admin() then
    raise exception 'changing review settings requires admin privileges in the agency' using errcode = 'FORBD';
  end if;
  if v_mode is null then
    raise exception 'review settings are per mode: act with a test or live identity' using errcode = 'FORBD';
  end if;
  insert into app_public.review_settings (agency_id, mode, hold_for_review, updated_by_agent_id)
  values (app_public.current_agency_id(), v_mode, p_hold, app_public.current_agent_id())
  on conflict (agency_id, mode) do update
    set hold_for_review = excluded.hold_for_review, updated_by_agent_id = excluded.updated_by_agent_id, updated_at = now()
  returning * into v;
  return v;
end
$$;
grant execute on function app_public.set_hold_for_review(boolean) to svc_request;
comment on function app_public.set_hold_for_review(boolean) is 'Hold (or stop holding) extractions with uncertain fields for review before delivery, for the caller''s agency and mode; admins only (FORBD).';

/* Let the operators' analysts export reviewed documents with their labels (or stop), for the caller's agency and mode (admins only). */
create function app_public.set_share_reviewed_documents(p_share boolean) returns app_public.review_settings
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v app_public.review_settings;
  v_mode text := app_public.current_mode();
begin
  if app_public.current_agency_id() is null or not app_public.current_is_admin() or v_mode is null then
    raise exception 'changing review settings requires admin privileges in the agency, in a test or live identity' using errcode = 'FORBD';
  end if;
  insert into app_public.review_settings (agency_id, mode, share_reviewed_documents, updated_by_agent_id)
  values (app_public.current_agency_id(), v_mode, p_share, app_public.current_agent_id())
  on conflict (agency_id, mode) do update
    set share_reviewed_documents = excluded.share_reviewed_documents, updated_by_agent_id = excluded.updated_by_agent_id, updated_at = now()
  returning * into v;
  return v;
end
$$;
grant execute on function app_public.set_share_reviewed_documents(boolean) to svc_request;
comment on function app_public.set_share_reviewed_documents(boolean) is 'Opt the caller''s agency (in the caller''s mode) in or out of sharing reviewed documents with the analysts'' labelled data; admins only (FORBD).';

/*
 * Deliver a finished extraction: its client (the requested one, else the agent's client of this name, else a
 * new one), the submission, the declaration page, the status (its outcome) and the three events. Called by
 * complete_extraction, or by review_field when the last field of a held extraction is reviewed.
 */
create function app_private.deliver_extraction(p_extraction_id uuid, p_policy_data jsonb) returns app_public.extractions
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
  select * into doc from app_public.documents where id = x.document_id;
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
     set status = x.outcome, client_id = v_client, submission_id = v_sub.id, declaration_page_id = v_page.id,
         completed_at = now(), held_policy_data = null
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
comment on function app_private.deliver_extraction(uuid, jsonb) is 'Deliver a finished extraction: client, submission, declaration page, status = outcome and the three events, in the caller''s transaction.';

/*
 * Finish an extraction (the extractions__complete task). When the agency holds extractions for review in this
 * mode and the record lists uncertain fields, park the §6.2 data and set status needs_review: nothing is
 * delivered until review_field reviews the last field. Otherwise deliver at once, needs_review listed.
 */
create or replace function app_private.complete_extraction(p_extraction_id uuid, p_policy_data jsonb) returns app_public.extractions
  language plpgsql volatile security definer set search_path = '' as $$
declare
  x app_public.extractions;
begin
  select * into x from app_public.extractions where id = p_extraction_id for update;
  if not found or x.status <> 'processing' or x.outcome is null then
    return x;
  end if;
  if coalesce(x.result -> 'needs_review', '[]') <> '[]'::jsonb and exists (
       select 1 from app_public.review_settings s where s.agency_id = x.agency_id and s.mode = x.mode and s.hold_for_review) then
    perform set_config('svc.transition', 'on', true);
    update app_public.extractions set status = 'needs_review', held_policy_data = p_policy_data where id = x.id returning * into x;
    perform set_config('svc.transition', '', true);
    return x;
  end if;
  return app_private.deliver_extraction(x.id, p_policy_data);
end
$$;
comment on function app_private.complete_extraction(uuid, jsonb) is 'Finish an extraction (completed or partial): hold it for review (status needs_review) when its agency holds uncertain extractions in this mode, else deliver it (deliver_extraction) in one transaction.';

/* The path of a JSON pointer of extracted_data as a text[] for #> and jsonb_set. */
create function app_private.pointer_path(p_pointer text) returns text[]
  language sql immutable parallel safe set search_path = '' as $$
  select string_to_array(substr(p_pointer, 2), '/')
$$;
comment on function app_private.pointer_path(text) is 'A JSON pointer (/policy/policy_number, /coverages/0/limit) as a jsonb path array.';

/*
 * Review one value of an extraction: 'confirmed' (the value stands), 'corrected' (p_value replaces it; the
 * route checks it against the field's schema, this function that it is a scalar) or 'not_on_document' (null).
 * The caller's agency and mode only; a plain agent only their own extractions. Writes the audit row, takes
 * the pointer off needs_review, and:
 *   - held (needs_review): updates the parked §6.2 data; the last field delivers it, with a `review` part
 *     naming the reviewer and every decision;
 *   - delivered (completed, partial): updates the record (so the client's declaration page), and a changed
 *     name or address of the policyholder updates the client and emits client.updated.
 */
create function app_public.review_field(p_extraction_id uuid, p_pointer text, p_action text, p_value jsonb default null)
  returns app_public.extractions
  language plpgsql volatile security definer set search_path = '' as $$
declare
  x app_public.extractions;
  v_path text[];
  v_old jsonb;
  v_new jsonb;
  v_conf numeric;
  v_pending jsonb;
  v_reviewer app_public.agents;
  v_delivered boolean;
  c app_public.clients;
  v app_public.clients;
  v_changed text[] := '{}';
  v_data jsonb;
begin
  select * into x from app_public.extractions
   where id = p_extraction_id and agency_id = app_public.current_agency_id() and app_public.mode_visible(mode)
     and (app_public.current_is_admin() or agent_id = app_public.current_agent_id())
   for update;
  if not found then
    raise exception 'extraction % not found', p_extraction_id using errcode = 'NTFND';
  end if;
  select * into v_reviewer from app_public.agents where id = app_public.current_agent_id();
  if v_reviewer.id is null then
    raise exception 'a review is made by an agent (sign in to the dashboard)' using errcode = 'FORBD';
  end if;
  if x.status not in ('needs_review', 'completed', 'partial') or x.result is null then
    raise exception 'extraction % has no extracted data to review (status %)', x.id, x.status using errcode = 'REVST';
  end if;
  if p_action is null or p_action not in ('confirmed', 'corrected', 'not_on_document') then
    raise exception 'unknown review action %', p_action using errcode = 'REVIN', column = 'action', detail = 'confirmed, corrected or not_on_document';
  end if;
  v_pending := coalesce(x.result -> 'needs_review', '[]');
  -- Any uncertain field, or after delivery any cited value, may be reviewed.
  if p_pointer is null or p_pointer !~ '^(/[a-z_0-9]+)+$'
     or not (v_pending ? p_pointer or (x.status <> 'needs_review' and x.result -> 'citations' ? p_pointer)) then
    raise exception 'there is no field % to review in extraction %', p_pointer, x.id using errcode = 'REVIN', column = 'pointer', detail = 'not a field of this extraction under review';
  end if;
  v_path := app_private.pointer_path(p_pointer);
  v_old := coalesce(x.result #> v_path, 'null');
  v_new := case p_action when 'confirmed' then v_old when 'not_on_document' then 'null'::jsonb else coalesce(p_value, 'null') end;
  if jsonb_typeof(v_new) not in ('string', 'number', 'boolean', 'null') then
    raise exception 'a reviewed value is a string, number, true/false or null' using errcode = 'REVIN', column = 'value', detail = 'not a single value';
  end if;
  v_conf := (x.result #>> array['citations', p_pointer, 'confidence'])::numeric;
  v_delivered := x.status <> 'needs_review';

  insert into app_public.field_reviews (extraction_id, agency_id, mode, pointer, action, old_value, new_value, confidence,
                                        reviewer_agent_id, reviewer_name, after_delivery)
  values (x.id, x.agency_id, x.mode, p_pointer, p_action, v_old, v_new, v_conf,
          v_reviewer.id, v_reviewer.first_name || ' ' || v_reviewer.last_name, v_delivered);

  -- The record: the value, the pointer off needs_review, the citation (a reviewed value is certain; a value
  -- not on the document has no citation).
  x.result := jsonb_set(x.result, '{needs_review}', v_pending - p_pointer);
  if x.result #> v_path is not null then
    x.result := jsonb_set(x.result, v_path, v_new, false);
  end if;
  if p_action = 'not_on_document' then
    x.result := x.result #- array['citations', p_pointer];
  elsif x.result -> 'citations' ? p_pointer then
    x.result := jsonb_set(x.result, array['citations', p_pointer, 'confidence'], '1'::jsonb) #- array['citations', p_pointer, 'flagged'];
  end if;

  if not v_delivered then
    v_data := jsonb_set(x.held_policy_data, '{needs_review}', coalesce(x.held_policy_data -> 'needs_review', '[]') - p_pointer);
    if v_data #> v_path is not null then
      v_data := jsonb_set(v_data, v_path, v_new, false);
    end if;
    update app_public.extractions set result = x.result, held_policy_data = v_data where id = x.id returning * into x;
    if x.result -> 'needs_review' = '[]'::jsonb then
      -- The last field: deliver with who reviewed what.
      v_data := v_data || jsonb_build_object('review', jsonb_build_object(
        'reviewed_by', jsonb_build_object('id', v_reviewer.id, 'name', v_reviewer.first_name || ' ' || v_reviewer.last_name, 'email', v_reviewer.email),
        'reviewed_at', app_private.iso_utc(now()),
        'fields', (select jsonb_agg(jsonb_build_object('pointer', r.pointer, 'action', r.action, 'previous_value', r.old_value, 'value', r.new_value,
                                                        'reviewed_by', r.reviewer_name) order by r.id)
                     from app_public.field_reviews r where r.extraction_id = x.id)));
      x := app_private.deliver_extraction(x.id, v_data);
    end if;
    return x;
  end if;

  update app_public.extractions set result = x.result where id = x.id returning * into x;
  -- After delivery: the client's own fields follow a corrected policyholder.
  if v_new is distinct from v_old and x.client_id is not null and p_pointer in
     ('/policyholder/first_name', '/policyholder/last_name', '/policyholder/organization', '/policyholder/address') then
    select * into c from app_public.clients where id = x.client_id for update;
    v := c;
    case p_pointer
      when '/policyholder/first_name' then v.first_name := left(nullif(btrim(v_new #>> '{}'), ''), 200);
      when '/policyholder/last_name' then v.last_name := left(nullif(btrim(v_new #>> '{}'), ''), 200);
      when '/policyholder/organization' then
        -- The client's last name holds the organisation when the insured is a business.
        if c.last_name is not distinct from (v_old #>> '{}') then v.last_name := left(nullif(btrim(v_new #>> '{}'), ''), 200); end if;
      else v.address := case when jsonb_typeof(v_new) = 'string' then v_new end;
    end case;
    if v.first_name is distinct from c.first_name then v_changed := array_append(v_changed, 'first_name'); end if;
    if v.last_name is distinct from c.last_name and v.last_name is not null then v_changed := array_append(v_changed, 'last_name'); end if;
    if v.address is distinct from c.address then v_changed := array_append(v_changed, 'address'); end if;
    if cardinality(v_changed) > 0 then
      update app_public.clients set first_name = v.first_name, last_name = coalesce(v.last_name, c.last_name), address = v.address
       where id = c.id returning * into c;
      perform app_private.emit_event(c.agency_id, c.mode, null, 'client.updated', jsonb_build_object(
        'client', app_private.client_ref(c.id), 'changed_fields', to_jsonb(v_changed), 'updated_at', app_private.iso_utc(c.updated_at)));
    end if;
  end if;
  return x;
end
$$;
grant execute on function app_public.review_field(uuid, text, text, jsonb) to svc_request;
comment on function app_public.review_field(uuid, text, text, jsonb) is 'Confirm, correct or mark "not on the document" one value of an extraction (audited in field_reviews); delivers a held extraction at its last field; after delivery updates the record and the client (client.updated).';
