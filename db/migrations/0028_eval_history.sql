-- Issue 34, the analysts' part: `svc eval --labels` keeps a history of accuracy and calibration per field and
-- document kind in app_analyst; corrections made in review (field_reviews, 0026) and the calibration they show
-- on real traffic are readable by svc_analyst, only for agencies that share reviewed documents in that mode; and
-- a held extraction released by its last review carries a document link signed at release, not at completion.

-- ---- eval history: one row per recorded run, one per field and kind of a run ---------------------------
create table app_analyst.eval_history_runs (
  id bigint generated always as identity primary key,
  -- the labels directory scored (as given to `svc eval --labels`)
  labels_dir text not null check (length(labels_dir) between 1 and 1000),
  documents integer not null check (documents >= 0),
  compared integer not null check (compared >= 0),
  correct integer not null check (correct between 0 and compared),
  high_confidence integer not null check (high_confidence >= 0),
  high_confidence_wrong integer not null check (high_confidence_wrong between 0 and high_confidence),
  recorded_at timestamptz not null default now()
);
create index eval_history_runs_recorded_at_idx on app_analyst.eval_history_runs (recorded_at);
comment on table app_analyst.eval_history_runs is 'One `svc eval --labels` run kept in the history (recorded by record_eval_history): documents scored, values compared and right, values cited at confidence >= 0.9 and how many of those were wrong.';

create table app_analyst.eval_history (
  run_id bigint not null references app_analyst.eval_history_runs (id) on delete cascade,
  -- the scorer's field name (policy.provider, coverage.each_occurrence, certificate.insured, ...)
  field text not null check (length(field) between 1 and 200),
  -- the label's document kind (acord25, home_dec, auto_dec, noncord_certificate, ...)
  kind text not null check (length(kind) between 1 and 100),
  compared integer not null check (compared > 0),
  correct integer not null check (correct between 0 and compared),
  accuracy numeric generated always as (round(correct::numeric / compared, 4)) stored,
  high_confidence integer not null check (high_confidence between 0 and compared),
  high_confidence_wrong integer not null check (high_confidence_wrong between 0 and high_confidence),
  -- calibration: the share of values cited at confidence >= 0.9 that were wrong (null when there were none)
  high_confidence_wrong_rate numeric generated always as (case when high_confidence > 0 then round(high_confidence_wrong::numeric / high_confidence, 4) end) stored,
  primary key (run_id, field, kind)
);
comment on table app_analyst.eval_history is 'Accuracy and calibration of one field in one document kind in one recorded eval run: values compared, right, cited at confidence >= 0.9, and wrong among those.';

create view app_analyst.eval_history_by_field as
  select h.run_id, r.recorded_at, h.field, sum(h.compared)::int as compared, sum(h.correct)::int as correct,
         round(sum(h.correct)::numeric / sum(h.compared), 4) as accuracy,
         sum(h.high_confidence)::int as high_confidence, sum(h.high_confidence_wrong)::int as high_confidence_wrong,
         round(sum(h.high_confidence_wrong)::numeric / nullif(sum(h.high_confidence), 0), 4) as high_confidence_wrong_rate
    from app_analyst.eval_history h join app_analyst.eval_history_runs r on r.id = h.run_id
   group by h.run_id, r.recorded_at, h.field;
comment on view app_analyst.eval_history_by_field is 'The eval history per run and field, every document kind together: accuracy and the share of confidence >= 0.9 values that were wrong.';

/*
 * Record one `svc eval --labels` run: p_fields is an array of {field, kind, compared, correct, high_confidence,
 * high_confidence_wrong}; the run's totals are their sums. Returns the run id.
 */
create function app_private.record_eval_history(p_labels_dir text, p_documents integer, p_fields jsonb) returns bigint
  language plpgsql volatile set search_path = '' as $$
declare
  v_id bigint;
begin
  insert into app_analyst.eval_history_runs (labels_dir, documents, compared, correct, high_confidence, high_confidence_wrong)
  select p_labels_dir, p_documents, coalesce(sum(f.compared), 0), coalesce(sum(f.correct), 0), coalesce(sum(f.high_confidence), 0),
         coalesce(sum(f.high_confidence_wrong), 0)
    from jsonb_to_recordset(p_fields) f(compared integer, correct integer, high_confidence integer, high_confidence_wrong integer)
  returning id into v_id;
  insert into app_analyst.eval_history (run_id, field, kind, compared, correct, high_confidence, high_confidence_wrong)
  select v_id, f.field, f.kind, f.compared, f.correct, f.high_confidence, f.high_confidence_wrong
    from jsonb_to_recordset(p_fields) f(field text, kind text, compared integer, correct integer, high_confidence integer, high_confidence_wrong integer);
  return v_id;
end
$$;
comment on function app_private.record_eval_history(text, integer, jsonb) is 'Keep one `svc eval --labels` run in the eval history: per field and document kind, values compared and right, at confidence >= 0.9 and wrong among those.';

-- ---- corrections for the analysts: only agencies that share reviewed documents in that mode -------------

/* The scorer's field name (pipelines/extraction/labels.ts) of a reviewed value's JSON pointer. */
create function app_private.label_field(p_pointer text) returns text
  language sql immutable parallel safe set search_path = '' as $$
  select case
    when p_pointer ~ '^/policy/(provider|policy_number|effective_date|expiration_date)$' then 'policy.' || split_part(p_pointer, '/', 3)
    when p_pointer ~ '^/policyholder/(first_name|last_name|organization)$' then 'policyholder'
    when p_pointer = '/policyholder/address' then 'policyholder.address'
    when p_pointer ~ '^/property/[a-z_]+$' then 'property.' || split_part(p_pointer, '/', 3)
    when p_pointer ~ '^/certificate/(producer|insured|certificate_holder)$' then 'certificate.' || split_part(p_pointer, '/', 3)
    when p_pointer ~ '^/certificate/insurers/[0-9]+/name$' then 'certificate.insurer'
    when p_pointer ~ '^/certificate/coverages/[0-9]+/[a-z_]+$' then 'coverage.' || split_part(p_pointer, '/', 5)
    else regexp_replace(p_pointer, '/[0-9]+(?=/|$)', '/*', 'g')
  end
$$;
comment on function app_private.label_field(text) is 'The field name `svc eval --labels` reports for a JSON pointer of extracted data (policy.provider, coverage.each_occurrence, ...); other pointers with their indices as *.';

/* The labels' document kind (review_labels.ts) of an extraction's result. */
create function app_private.label_kind(p_result jsonb) returns text
  language sql immutable parallel safe set search_path = '' as $$
  select case
    when p_result ->> 'document_kind' = 'certificate' then
      coalesce('acord' || substring(p_result ->> 'policy_type' from '(?i)acord\s*([0-9]+)'), 'noncord_certificate')
    else case p_result ->> 'document_kind' when 'personal_auto' then 'auto_dec' when 'homeowners' then 'home_dec'
           when 'renters' then 'renters_dec' when 'businessowners' then 'bop_dec' else 'other' end
  end
$$;
comment on function app_private.label_kind(jsonb) is 'The document kind a label of this extraction has (acord25, noncord_certificate, auto_dec, home_dec, renters_dec, bop_dec, other).';

-- Owner-rights views with the opt-in in their own predicate: svc_analyst has no grant on field_reviews,
-- review_settings or extractions, and whoever reads the views (the analyst, PostGraphile, the eval report)
-- sees the same rows: never a review of an agency that does not share its reviewed documents in that mode.
create view app_analyst.corrections with (security_barrier) as
  select r.id as review_id, r.extraction_id, r.agency_id, r.mode, x.entity_type, app_private.label_kind(x.result) as kind,
         r.pointer, app_private.label_field(r.pointer) as field, r.action, r.old_value, r.new_value, r.confidence,
         (r.action = 'corrected' and r.new_value is distinct from r.old_value)
           or (r.action = 'not_on_document' and coalesce(r.old_value, 'null'::jsonb) <> 'null'::jsonb) as was_wrong,
         r.after_delivery, r.reviewed_at
    from app_public.field_reviews r
    join app_public.review_settings s on s.agency_id = r.agency_id and s.mode = r.mode and s.share_reviewed_documents
    join app_public.extractions x on x.id = r.extraction_id;
comment on view app_analyst.corrections is 'Reviewers'' decisions (field_reviews) of agencies that share reviewed documents in that mode: the value before and after, the machine''s confidence, whether it was wrong; no reviewer, no document.';
comment on column app_analyst.corrections.was_wrong is 'The reviewer changed the value, or said a value the machine read is not on the document.';

create view app_analyst.review_calibration as
  select date_trunc('week', c.reviewed_at at time zone 'UTC')::date as week, c.field, c.kind,
         count(*)::int as reviewed, count(*) filter (where c.was_wrong)::int as wrong,
         count(*) filter (where c.confidence >= 0.9)::int as high_confidence,
         count(*) filter (where c.confidence >= 0.9 and c.was_wrong)::int as high_confidence_wrong,
         round((count(*) filter (where c.confidence >= 0.9 and c.was_wrong))::numeric / nullif(count(*) filter (where c.confidence >= 0.9), 0), 4)
           as high_confidence_wrong_rate
    from app_analyst.corrections c
   group by 1, 2, 3;
comment on view app_analyst.review_calibration is 'Calibration on real traffic, per week (Monday, UTC), field and document kind: values reviewed, wrong, cited at confidence >= 0.9, and how often those were corrected (sharing agencies only).';

-- Functions a view calls are checked against the reader: the two namings are pure.
grant execute on function app_private.label_field(text), app_private.label_kind(jsonb) to svc_analyst;
grant select on app_analyst.eval_history_runs, app_analyst.eval_history, app_analyst.eval_history_by_field, app_analyst.corrections,
  app_analyst.review_calibration to svc_analyst;

-- ---- a held extraction's document link, signed at release ----------------------------------------------
drop function app_public.review_field(uuid, text, text, jsonb);

/*
 * Review one value of an extraction: 'confirmed' (the value stands), 'corrected' (p_value replaces it; the
 * route checks it against the field's schema, this function that it is a scalar) or 'not_on_document' (null).
 * The caller's agency and mode only; a plain agent only their own extractions. Writes the audit row, takes
 * the pointer off needs_review, and:
 *   - held (needs_review): updates the parked §6.2 data; the last field delivers it, with a `review` part
 *     naming the reviewer and every decision, and p_document_link (signed by the caller at release: the link
 *     signed at completion may have expired while the extraction waited) in place of the parked link;
 *   - delivered (completed, partial): updates the record (so the client's declaration page), and a changed
 *     name or address of the policyholder updates the client and emits client.updated.
 */
create function app_public.review_field(p_extraction_id uuid, p_pointer text, p_action text, p_value jsonb default null,
                                        p_document_link text default null)
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
      if p_document_link is not null then
        v_data := jsonb_set(v_data, '{document_link}', to_jsonb(p_document_link));
      end if;
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
grant execute on function app_public.review_field(uuid, text, text, jsonb, text) to svc_request;
comment on function app_public.review_field(uuid, text, text, jsonb, text) is 'Confirm, correct or mark "not on the document" one value of an extraction (audited in field_reviews); delivers a held extraction at its last field, with the document link the caller signed at release; after delivery updates the record and the client (client.updated).';
