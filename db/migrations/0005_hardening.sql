-- Hardening (issue 14): sandbox keys never see or change live webhook data (and the reverse), fan-out skips
-- what cannot take an event instead of failing it, idempotency claims die with their request, OAuth
-- failures are counted apart from the client's budget, and a cheaper durable delivery path (deliveries of
-- one endpoint batched into one job, one statement to record a batch of attempts).

---------------------------------------------------------------------------------------------------------------
-- Mode isolation of webhook data.
--
-- An API key acts in one mode (svc_test_ → test, svc_live_ → live) and sees only the events, deliveries and
-- attempts of that mode. Agent tokens (v1) carry no mode: they are the agency's own credentials, not a
-- sandbox, and see both (their subscriptions receive events of both modes). An identity with neither a mode
-- nor an agent sees nothing.

/* True when the caller is an agent (no mode): it sees webhook data of both modes. */
create function app_public.current_sees_all_modes() returns boolean
  language sql stable parallel safe as $$
  select nullif(current_setting('svc.mode', true), '') is null and nullif(current_setting('svc.agent_id', true), '') is not null
$$;
grant execute on function app_public.current_sees_all_modes() to svc_request;
comment on function app_public.current_sees_all_modes() is 'Agent tokens (no mode) see webhook data of both modes; API keys only their own mode.';

create index events_agency_id_mode_idx on app_public.events (agency_id, mode);
drop policy select_own on app_public.events;
create policy select_own_mode on app_public.events for select using (
  agency_id = (select app_public.current_agency_id())
  and (mode = (select app_public.current_mode()) or (select app_public.current_sees_all_modes()))
);

create index webhook_deliveries_agency_id_mode_idx on app_public.webhook_deliveries (agency_id, mode);
drop policy select_own on app_public.webhook_deliveries;
create policy select_own_mode on app_public.webhook_deliveries for select using (
  agency_id = (select app_public.current_agency_id())
  and (mode = (select app_public.current_mode()) or (select app_public.current_sees_all_modes()))
);

alter table app_public.webhook_delivery_attempts add column mode text;
update app_public.webhook_delivery_attempts a set mode = d.mode from app_public.webhook_deliveries d where d.id = a.delivery_id;
alter table app_public.webhook_delivery_attempts
  alter column mode set not null,
  add constraint webhook_delivery_attempts_mode_check check (mode in ('test', 'live'));
create index webhook_delivery_attempts_agency_id_mode_idx on app_public.webhook_delivery_attempts (agency_id, mode);
drop policy select_own on app_public.webhook_delivery_attempts;
create policy select_own_mode on app_public.webhook_delivery_attempts for select using (
  agency_id = (select app_public.current_agency_id())
  and (mode = (select app_public.current_mode()) or (select app_public.current_sees_all_modes()))
);
comment on column app_public.webhook_delivery_attempts.mode is 'Mode of the delivery (copied so the policy needs no join).';

-- Endpoint settings. A topic endpoint serves both modes, so its fields are split by the data they route:
-- a test key may create an endpoint and set its staging_url (test data, test events); the production_url,
-- the credentials sent with every delivery, the signing secret, enabling/disabling and removal concern live
-- deliveries and need a live key (or an agent token). Subscriptions (v1) are managed by agent tokens only.
create function app_private.tg_webhook_endpoints__live_fields() returns trigger
  language plpgsql volatile as $$
begin
  if coalesce(current_setting('svc.mode', true), '') <> 'test' then
    return new;
  end if;
  if tg_op = 'INSERT' then
    if new.kind <> 'topic' or new.production_url is not null or new.auth_kind is not null then
      raise exception 'a sandbox (svc_test_) key may register a staging_url only; production_url and auth need a live key'
        using errcode = 'LIVEK';
    end if;
  elsif new.production_url is distinct from old.production_url or new.url is distinct from old.url
     or new.events is distinct from old.events or new.auth_kind is distinct from old.auth_kind
     or new.auth_ciphertext is distinct from old.auth_ciphertext or new.secret_ciphertext is distinct from old.secret_ciphertext then
    raise exception 'a sandbox (svc_test_) key may change the staging_url only; production_url, auth and the signing secret need a live key'
      using errcode = 'LIVEK';
  end if;
  return new;
end
$$;
comment on function app_private.tg_webhook_endpoints__live_fields() is 'Refuses sandbox-key writes to endpoint fields that route live data.';
create trigger _150_live_fields before insert or update on app_public.webhook_endpoints
  for each row execute function app_private.tg_webhook_endpoints__live_fields();

drop policy delete_own_as_admin on app_public.webhook_endpoints;
create policy delete_own_as_admin on app_public.webhook_endpoints for delete using (
  agency_id = (select app_public.current_agency_id()) and (select app_public.current_is_admin())
  and (select app_public.current_mode()) is distinct from 'test'
);

/* Enable or disable an endpoint (a live key or an agent); enabling resumes its pending deliveries. */
create or replace function app_public.set_webhook_endpoint_enabled(p_endpoint_id uuid, p_enabled boolean) returns app_public.webhook_endpoints
  language plpgsql volatile security definer set search_path = '' as $$
declare
  w app_public.webhook_endpoints;
begin
  select * into w from app_public.webhook_endpoints where id = p_endpoint_id and agency_id = app_public.current_agency_id() for update;
  if not found then
    raise exception 'webhook endpoint not found' using errcode = 'NTFND';
  end if;
  if not app_public.current_is_admin() then
    raise exception 'enabling or disabling endpoints requires admin permissions' using errcode = 'FORBD';
  end if;
  if app_public.current_mode() = 'test' then
    raise exception 'enabling or disabling an endpoint stops or resumes live deliveries and needs a live key' using errcode = 'LIVEK';
  end if;
  if w.enabled = p_enabled then
    return w;
  end if;
  perform set_config('svc.transition', 'on', true);
  update app_public.webhook_endpoints
     set enabled = p_enabled, disabled_at = case when p_enabled then null else now() end,
         disabled_reason = case when p_enabled then null else 'disabled by the user' end, failing_since = null
   where id = w.id returning * into w;
  perform set_config('svc.transition', '', true);
  if p_enabled then
    perform app_private.queue_deliveries(w.id, array_agg(d.id order by d.id))
       from app_public.webhook_deliveries d where d.endpoint_id = w.id and d.status = 'pending' having count(*) > 0;
  end if;
  return w;
end
$$;

/* Send a delivery again as a new delivery of the same message, within the caller's agency and mode. */
create or replace function app_public.redeliver(p_delivery_id bigint) returns app_public.webhook_deliveries
  language plpgsql volatile security definer set search_path = '' as $$
declare
  old app_public.webhook_deliveries;
  v app_public.webhook_deliveries;
begin
  select * into old from app_public.webhook_deliveries
   where id = p_delivery_id and agency_id = app_public.current_agency_id()
     and (mode = app_public.current_mode() or app_public.current_sees_all_modes());
  if not found then
    raise exception 'delivery % not found', p_delivery_id using errcode = 'NTFND';
  end if;
  if not app_public.current_is_admin() then
    raise exception 'redelivering requires admin permissions' using errcode = 'FORBD';
  end if;
  insert into app_public.webhook_deliveries (agency_id, endpoint_id, event_id, redelivery_of, message_id, mode, is_test, url, body)
  values (old.agency_id, old.endpoint_id, old.event_id, old.id, old.message_id, old.mode, old.is_test, old.url, old.body)
  returning * into v;
  perform app_private.queue_delivery(v.id);
  return v;
end
$$;

/* Queue a test delivery of a sample body to the staging URL (or a subscription's URL), in the caller's mode. */
create or replace function app_public.send_test_delivery(p_endpoint_id uuid, p_body text) returns app_public.webhook_deliveries
  language plpgsql volatile security definer set search_path = '' as $$
declare
  w app_public.webhook_endpoints;
  v app_public.webhook_deliveries;
begin
  select * into w from app_public.webhook_endpoints where id = p_endpoint_id and agency_id = app_public.current_agency_id();
  if not found then
    raise exception 'webhook endpoint not found' using errcode = 'NTFND';
  end if;
  if not app_public.current_is_admin() then
    raise exception 'sending test events requires admin permissions' using errcode = 'FORBD';
  end if;
  if coalesce(case when w.kind = 'topic' then w.staging_url else w.url end, '') = '' then
    raise exception 'the endpoint has no staging URL to send a test event to' using errcode = 'NOURL';
  end if;
  -- A sample body carries no customer data; it is filed under the caller's mode so the caller sees it in its log.
  insert into app_public.webhook_deliveries (agency_id, endpoint_id, message_id, mode, is_test, url, body)
  values (w.agency_id, w.id, 'msg_test_' || replace(gen_random_uuid()::text, '-', ''), coalesce(app_public.current_mode(), 'test'), true,
          case when w.kind = 'topic' then w.staging_url else w.url end, p_body)
  returning * into v;
  perform app_private.queue_delivery(v.id);
  return v;
end
$$;

---------------------------------------------------------------------------------------------------------------
-- Fan-out: only targets that can take the event. A topic event has no v1 event name, so it never matches a
-- subscription (not even `*`); a named v1 event never matches a topic endpoint. The task skips, with a
-- logged reason, any target whose body cannot be built, and still delivers to the others.
create or replace function app_private.event_targets(p_event_id bigint)
  returns table (endpoint_id uuid, url text, kind text)
  language sql stable security definer set search_path = '' as $$
  select w.id, case when w.kind = 'subscription' then w.url when e.mode = 'test' then w.staging_url else w.production_url end, w.kind
    from app_public.events e
    join app_public.webhook_endpoints w on w.agency_id = e.agency_id
   where e.id = p_event_id
     and ((w.kind = 'topic' and e.topic is not null and w.topic = e.topic)
          or (w.kind = 'subscription' and e.event_name is not null and (e.event_name = any (w.events) or '*' = any (w.events))))
     and (case when w.kind = 'subscription' then w.url when e.mode = 'test' then w.staging_url else w.production_url end) is not null
$$;

---------------------------------------------------------------------------------------------------------------
-- Faster durable delivery. First attempts of an endpoint's deliveries share one job: `job_key_mode =>
-- 'preserve_run_at'` with an array payload appends to the endpoint's waiting job (graphile-worker batch jobs),
-- so under load one job carries many deliveries and the task sends them over one kept-alive connection and
-- records them in one statement. A job already running is not appended to; a new one is queued. Retries stay
-- one job per delivery (job key 'delivery:<id>'), at their own time.

/* Queue the first attempt of deliveries of one endpoint as (part of) a batch job. */
create function app_private.queue_deliveries(p_endpoint_id uuid, p_delivery_ids bigint[]) returns void
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v_payload json := (select json_agg(json_build_object('delivery_id', x) order by x) from unnest(p_delivery_ids) x);
  v_job_id bigint;
begin
  select (j).id into v_job_id
    from (select graphile_worker.add_job('deliveries__send', v_payload, job_key => 'deliveries:' || p_endpoint_id,
                                         job_key_mode => 'preserve_run_at') j) q;
  -- add_job first clears the key of a job a worker holds, then upserts; a worker that locks the keyed job
  -- between those two statements makes the upsert a no-op and no job is returned. Those deliveries get a
  -- job of their own, so nothing waits for a job that will never come.
  if v_job_id is null then
    perform graphile_worker.add_job('deliveries__send', v_payload);
  end if;
end
$$;
comment on function app_private.queue_deliveries(uuid, bigint[]) is 'Append deliveries of one endpoint to its waiting batch job.';

/* Create the deliveries of an event (one per endpoint; repeated calls add nothing) and queue them per endpoint. */
create or replace function app_private.create_deliveries(p_event_id bigint, p_deliveries jsonb) returns integer
  language plpgsql volatile security definer set search_path = '' as $$
declare
  e app_public.events;
  n int := 0;
  g record;
begin
  select * into e from app_public.events where id = p_event_id;
  if not found then
    return 0;
  end if;
  for g in
    with created as (
      insert into app_public.webhook_deliveries (agency_id, endpoint_id, event_id, message_id, mode, url, body)
      select e.agency_id, (x ->> 'endpoint_id')::uuid, e.id, 'msg_' || e.id || '_' || replace(x ->> 'endpoint_id', '-', ''), e.mode, x ->> 'url', x ->> 'body'
        from jsonb_array_elements(p_deliveries) x
      on conflict (event_id, endpoint_id) where redelivery_of is null and event_id is not null do nothing
      returning id, endpoint_id
    )
    select endpoint_id, array_agg(id) ids from created group by endpoint_id
  loop
    perform app_private.queue_deliveries(g.endpoint_id, g.ids);
    n := n + cardinality(g.ids);
  end loop;
  return n;
end
$$;

/* An event and its targets in one round trip (the fan-out task's read). */
create function app_private.fan_out_plan(p_event_id bigint)
  returns table (id bigint, uuid uuid, mode text, topic text, event_name text, data jsonb, created_at timestamptz,
                 endpoint_id uuid, url text, kind text)
  language sql stable security definer set search_path = '' as $$
  select e.id, e.uuid, e.mode, e.topic, e.event_name, e.data, e.created_at, t.endpoint_id, t.url, t.kind
    from app_public.events e left join app_private.event_targets(e.id) t on true
   where e.id = p_event_id
$$;
comment on function app_private.fan_out_plan(bigint) is 'The event row with one line per target (endpoint_id null when there is none).';

/* The deliveries of a batch with what the worker needs to send them (pending ones only). */
create function app_private.deliveries_to_send(p_delivery_ids bigint[])
  returns table (id bigint, attempt_count integer, message_id text, mode text, is_test boolean, url text, body text,
                 endpoint_id uuid, enabled boolean, secret_ciphertext text, auth_ciphertext text)
  language sql stable security definer set search_path = '' as $$
  select d.id, d.attempt_count, d.message_id, d.mode, d.is_test, d.url, d.body, w.id, w.enabled, w.secret_ciphertext, w.auth_ciphertext
    from app_public.webhook_deliveries d join app_public.webhook_endpoints w on w.id = d.endpoint_id
   where d.id = any (p_delivery_ids) and d.status = 'pending'
   order by d.id
$$;
comment on function app_private.deliveries_to_send(bigint[]) is 'Pending deliveries of a send batch, joined to their endpoint.';

/* Record one attempt; finish the delivery or schedule the next attempt; disable endpoints that are gone. */
create or replace function app_private.record_delivery_attempt(p_delivery_id bigint, p_started_at timestamptz, p_duration_ms integer,
  p_status_code integer, p_headers jsonb, p_body text, p_error_code text, p_error_message text, p_ok boolean,
  p_gone boolean, p_retry_in_seconds integer, p_disable_after interval)
  returns app_public.webhook_deliveries
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v app_public.webhook_deliveries;
  w app_public.webhook_endpoints;
begin
  select * into v from app_public.webhook_deliveries where id = p_delivery_id for update;
  if not found or v.status <> 'pending' then
    return v;
  end if;
  insert into app_public.webhook_delivery_attempts (delivery_id, agency_id, mode, attempt_number, url, started_at, duration_ms,
    status_code, response_headers, response_body, error_code, error_message)
  values (v.id, v.agency_id, v.mode, v.attempt_count + 1, v.url, p_started_at, p_duration_ms, p_status_code, coalesce(p_headers, '{}'),
    p_body, p_error_code, p_error_message);
  perform set_config('svc.transition', 'on', true);
  if p_ok then
    update app_public.webhook_deliveries set status = 'delivered', attempt_count = attempt_count + 1, completed_at = now(),
      next_attempt_at = null, last_status_code = p_status_code, last_error = null where id = v.id returning * into v;
    update app_public.webhook_endpoints set failing_since = null where id = v.endpoint_id and failing_since is not null;
  else
    select * into w from app_public.webhook_endpoints where id = v.endpoint_id;
    -- A failing staging URL (test data, test sends) must not switch off live deliveries of a topic endpoint.
    if not v.is_test and (v.mode = 'live' or w.kind = 'subscription') then
      update app_public.webhook_endpoints set failing_since = coalesce(failing_since, p_started_at)
       where id = v.endpoint_id returning * into w;
    end if;
    if (p_gone and (v.mode = 'live' or w.kind = 'subscription')) or (not v.is_test and w.failing_since < now() - p_disable_after) then
      update app_public.webhook_endpoints set enabled = false, disabled_at = now(),
        disabled_reason = case when p_gone then 'the receiver answered 410 Gone' else 'failing for longer than ' || p_disable_after::text end
       where id = w.id and enabled;
    end if;
    if p_retry_in_seconds is not null and not p_gone and not v.is_test then
      update app_public.webhook_deliveries set attempt_count = attempt_count + 1, last_status_code = p_status_code,
        last_error = coalesce(p_error_message, 'HTTP ' || p_status_code), next_attempt_at = now() + make_interval(secs => p_retry_in_seconds)
       where id = v.id returning * into v;
      perform app_private.queue_delivery(v.id, v.next_attempt_at);
    else
      update app_public.webhook_deliveries set status = 'failed', attempt_count = attempt_count + 1, completed_at = now(),
        next_attempt_at = null, last_status_code = p_status_code, last_error = coalesce(p_error_message, 'HTTP ' || p_status_code)
       where id = v.id returning * into v;
    end if;
  end if;
  perform set_config('svc.transition', '', true);
  return v;
end
$$;

/* Record the attempts of a send batch in one statement: successes in bulk, anything else one by one. */
create function app_private.record_delivery_attempts(p_attempts jsonb, p_disable_after interval) returns integer
  language plpgsql volatile security definer set search_path = '' as $$
declare
  a jsonb;
  n int := 0;
  ok_ids bigint[];
begin
  -- Successes: insert their attempts, mark them delivered and clear failing_since, set-wise.
  with ok as (
    select (x ->> 'delivery_id')::bigint delivery_id, x from jsonb_array_elements(p_attempts) x where (x ->> 'ok')::boolean
  ), locked as (
    select d.* from app_public.webhook_deliveries d join ok on ok.delivery_id = d.id where d.status = 'pending' for update of d
  ), logged as (
    insert into app_public.webhook_delivery_attempts (delivery_id, agency_id, mode, attempt_number, url, started_at, duration_ms,
      status_code, response_headers, response_body, error_code, error_message)
    select l.id, l.agency_id, l.mode, l.attempt_count + 1, l.url, (ok.x ->> 'started_at')::timestamptz, (ok.x ->> 'duration_ms')::int,
           (ok.x ->> 'status_code')::int, coalesce(ok.x -> 'headers', '{}'), ok.x ->> 'body', null, null
      from locked l join ok on ok.delivery_id = l.id
    returning delivery_id
  )
  select array_agg(delivery_id) into ok_ids from logged;
  if ok_ids is not null then
    perform set_config('svc.transition', 'on', true);
    with done as (
      update app_public.webhook_deliveries d set status = 'delivered', attempt_count = d.attempt_count + 1, completed_at = now(),
        next_attempt_at = null, last_status_code = (x.x ->> 'status_code')::int, last_error = null
        from jsonb_array_elements(p_attempts) x(x)
       where d.id = any (ok_ids) and d.id = (x.x ->> 'delivery_id')::bigint
      returning d.endpoint_id
    )
    update app_public.webhook_endpoints set failing_since = null
     where id in (select endpoint_id from done) and failing_since is not null;
    perform set_config('svc.transition', '', true);
    n := cardinality(ok_ids);
  end if;
  for a in select x from jsonb_array_elements(p_attempts) x where not (x ->> 'ok')::boolean loop
    perform app_private.record_delivery_attempt((a ->> 'delivery_id')::bigint, (a ->> 'started_at')::timestamptz,
      (a ->> 'duration_ms')::int, (a ->> 'status_code')::int, a -> 'headers', a ->> 'body', a ->> 'error_code',
      a ->> 'error_message', false, coalesce((a ->> 'gone')::boolean, false), (a ->> 'retry_in_seconds')::int, p_disable_after);
    n := n + 1;
  end loop;
  return n;
end
$$;
comment on function app_private.record_delivery_attempts(jsonb, interval) is 'Batch form of record_delivery_attempt: one round trip per send batch.';

---------------------------------------------------------------------------------------------------------------
-- Idempotency claims die with their request. The claim is a transaction-scoped advisory lock taken in the
-- request's own transaction; the stored record is written only when the request's work commits. A twin
-- arriving while the first runs cannot take the lock (409); a process killed mid-request loses its
-- connection, Postgres ends the transaction and the lock with it, and the client's honest retry runs.
-- No 'running' row is ever stored any more.

create or replace function app_private.claim_idempotency_key(p_agency_id bigint, p_mode text, p_key uuid, p_fingerprint text,
  out outcome text, out response_status integer, out response_body jsonb, out response_headers jsonb)
  language plpgsql volatile security definer set search_path = '' as $$
declare
  r app_private.idempotency_keys;
begin
  if not pg_try_advisory_xact_lock(hashtextextended('idempotency:' || p_agency_id || ':' || p_mode || ':' || p_key, 0)) then
    outcome := 'running';
    return;
  end if;
  -- Expired records, and 'running' rows left by the previous implementation, no longer hold the key. They are
  -- not deleted here: a row this transaction touched would make the answer of a refused request (stored on
  -- its own connection while this transaction is still open) wait for it. complete_idempotency_key replaces them.
  select * into r from app_private.idempotency_keys
   where agency_id = p_agency_id and mode = p_mode and key = p_key and state = 'done' and expires_at > now();
  if not found then
    outcome := 'new';
  elsif r.fingerprint <> p_fingerprint then
    outcome := 'mismatch';
  else
    outcome := 'done';
    response_status := r.response_status;
    response_body := r.response_body;
    response_headers := r.response_headers;
  end if;
end
$$;

/* Store the response of a claimed key; in the request's transaction it commits with the work, or never. */
create function app_private.complete_idempotency_key(p_agency_id bigint, p_mode text, p_key uuid, p_fingerprint text,
  p_status integer, p_body jsonb, p_headers jsonb) returns void
  language sql volatile security definer set search_path = '' as $$
  insert into app_private.idempotency_keys (agency_id, mode, key, fingerprint, state, response_status, response_body, response_headers)
  values (p_agency_id, p_mode, p_key, p_fingerprint, 'done', p_status, p_body, p_headers)
  on conflict (agency_id, mode, key) do update
    set fingerprint = excluded.fingerprint, state = 'done', response_status = excluded.response_status,
        response_body = excluded.response_body, response_headers = excluded.response_headers,
        created_at = now(), expires_at = now() + interval '24 hours'
  where app_private.idempotency_keys.state = 'running' or app_private.idempotency_keys.expires_at <= now()
$$;
grant execute on function app_private.complete_idempotency_key(bigint, text, uuid, text, integer, jsonb, jsonb) to svc_request;
comment on function app_private.complete_idempotency_key(bigint, text, uuid, text, integer, jsonb, jsonb) is 'Record the answer of an Idempotency-Key (first answer wins).';

---------------------------------------------------------------------------------------------------------------
-- OAuth token requests: a fixed-window counter that can be read without being spent, so failed attempts
-- (counted per source address and client) can be checked before any work, and the client's own budget is
-- spent only by requests that authenticated.

/* The state of a rate-limit bucket in the current window, without spending a hit. */
create function app_private.peek_rate_limit(p_bucket text, p_limit integer, p_window_seconds integer,
  out allowed boolean, out remaining integer, out reset_at bigint)
  language sql stable security definer set search_path = '' as $$
  with w as (select to_timestamp(floor(extract(epoch from now()) / p_window_seconds) * p_window_seconds) as start)
  select coalesce(c.hits, 0) < p_limit, greatest(p_limit - coalesce(c.hits, 0), 0), extract(epoch from w.start)::bigint + p_window_seconds
    from w left join app_private.rate_limit_counters c on c.bucket = p_bucket and c.window_start = w.start
$$;
comment on function app_private.peek_rate_limit(text, integer, integer) is 'Read a rate-limit bucket without spending a hit.';
