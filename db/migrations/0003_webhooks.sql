-- Webhooks: topic endpoints (v2, per agency and topic, staging + production URL) and v1 subscriptions
-- (per agency, one URL, a list of event names) share one table; an events outbox written in the same
-- transaction as the change it reports; one delivery per event and endpoint; every attempt logged.

create table app_public.webhook_endpoints (
  id uuid primary key default gen_random_uuid(),
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  kind text not null check (kind in ('topic', 'subscription')),
  topic text check (topic in ('client-submission', 'form-submission')),
  staging_url text check (length(staging_url) <= 2000),
  production_url text check (length(production_url) <= 2000),
  url text check (length(url) <= 2000),
  events text[] not null default '{}',
  description text check (length(description) <= 500),
  created_by_agent_id bigint references app_public.agents (id) on delete set null,
  -- AES-256-GCM ciphertexts (lib/crypto.ts); never granted to requests.
  secret_ciphertext text not null,
  auth_kind text check (auth_kind in ('bearer', 'basic', 'header')),
  auth_ciphertext text,
  enabled boolean not null default true,
  disabled_reason text,
  disabled_at timestamptz,
  failing_since timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint topic_shape check (kind <> 'topic' or (topic is not null and url is null)),
  constraint subscription_shape check (kind <> 'subscription' or (url is not null and topic is null and cardinality(events) > 0)),
  constraint auth_pair check ((auth_kind is null) = (auth_ciphertext is null))
);
alter table app_public.webhook_endpoints enable row level security;
alter table app_public.webhook_endpoints force row level security;
create index webhook_endpoints_agency_id_idx on app_public.webhook_endpoints (agency_id);
create index webhook_endpoints_created_by_agent_id_idx on app_public.webhook_endpoints (created_by_agent_id);
create unique index webhook_endpoints_one_per_topic on app_public.webhook_endpoints (agency_id, topic) where kind = 'topic';
create trigger _100_timestamps before update on app_public.webhook_endpoints
  for each row execute function app_private.tg__set_updated_at();
create trigger _200_status before update of enabled on app_public.webhook_endpoints
  for each row when (old.enabled is distinct from new.enabled)
  execute function app_private.tg__refuse_direct_status_change('enabled');
create policy select_own on app_public.webhook_endpoints for select using (
  agency_id = (select app_public.current_agency_id())
);
create policy insert_own_as_admin on app_public.webhook_endpoints for insert with check (
  agency_id = (select app_public.current_agency_id()) and (select app_public.current_is_admin())
);
create policy update_own_as_admin on app_public.webhook_endpoints for update using (
  agency_id = (select app_public.current_agency_id()) and (select app_public.current_is_admin())
);
create policy delete_own_as_admin on app_public.webhook_endpoints for delete using (
  agency_id = (select app_public.current_agency_id()) and (select app_public.current_is_admin())
);
grant select (id, agency_id, kind, topic, staging_url, production_url, url, events, description, created_by_agent_id,
  auth_kind, enabled, disabled_reason, disabled_at, failing_since, created_at, updated_at) on app_public.webhook_endpoints to svc_request;
grant insert (agency_id, kind, topic, staging_url, production_url, url, events, description, created_by_agent_id,
  secret_ciphertext, auth_kind, auth_ciphertext) on app_public.webhook_endpoints to svc_request;
grant update (staging_url, production_url, url, events, description, secret_ciphertext, auth_kind, auth_ciphertext)
  on app_public.webhook_endpoints to svc_request;
grant delete on app_public.webhook_endpoints to svc_request;
comment on table app_public.webhook_endpoints is 'Where events go: v2 topic endpoints (staging/production URL) and v1 subscriptions (url + events).';

---------------------------------------------------------------------------------------------------------------
create table app_public.events (
  id bigint generated always as identity primary key,
  uuid uuid not null unique default gen_random_uuid(),
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  topic text check (topic in ('client-submission', 'form-submission')),
  event_name text,
  data jsonb not null,
  created_at timestamptz not null default now(),
  constraint names_something check (topic is not null or event_name is not null)
);
alter table app_public.events enable row level security;
alter table app_public.events force row level security;
create index events_agency_id_idx on app_public.events (agency_id, id);
create policy select_own on app_public.events for select using (agency_id = (select app_public.current_agency_id()));
grant select on app_public.events to svc_request;
comment on table app_public.events is 'Outbox: written in the transaction of the change; events__fan_out turns each into deliveries.';

create table app_public.webhook_deliveries (
  id bigint generated always as identity primary key,
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  endpoint_id uuid not null references app_public.webhook_endpoints (id) on delete cascade,
  event_id bigint references app_public.events (id) on delete cascade,
  redelivery_of bigint references app_public.webhook_deliveries (id) on delete set null,
  message_id text not null,
  mode text not null check (mode in ('test', 'live')),
  is_test boolean not null default false,
  url text not null,
  body text not null,
  status text not null default 'pending' check (status in ('pending', 'delivered', 'failed')),
  attempt_count integer not null default 0,
  next_attempt_at timestamptz,
  last_status_code integer,
  last_error text,
  created_at timestamptz not null default now(),
  completed_at timestamptz
);
alter table app_public.webhook_deliveries enable row level security;
alter table app_public.webhook_deliveries force row level security;
create index webhook_deliveries_agency_id_idx on app_public.webhook_deliveries (agency_id);
create index webhook_deliveries_endpoint_id_id_idx on app_public.webhook_deliveries (endpoint_id, id);
create index webhook_deliveries_redelivery_of_idx on app_public.webhook_deliveries (redelivery_of);
create unique index webhook_deliveries_once_per_event on app_public.webhook_deliveries (event_id, endpoint_id) where redelivery_of is null and event_id is not null;
create index webhook_deliveries_pending_idx on app_public.webhook_deliveries (endpoint_id) where status = 'pending';
create trigger _200_status before update of status on app_public.webhook_deliveries
  for each row when (old.status is distinct from new.status)
  execute function app_private.tg__refuse_direct_status_change('status');
create policy select_own on app_public.webhook_deliveries for select using (agency_id = (select app_public.current_agency_id()));
grant select (id, agency_id, endpoint_id, event_id, redelivery_of, message_id, mode, is_test, url, status, attempt_count,
  next_attempt_at, last_status_code, last_error, created_at, completed_at, body) on app_public.webhook_deliveries to svc_request;
comment on table app_public.webhook_deliveries is 'One delivery of one event to one endpoint; retried by deliveries__send until delivered or exhausted.';

create table app_public.webhook_delivery_attempts (
  id bigint generated always as identity primary key,
  delivery_id bigint not null references app_public.webhook_deliveries (id) on delete cascade,
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  attempt_number integer not null,
  url text not null,
  started_at timestamptz not null,
  duration_ms integer not null,
  status_code integer,
  response_headers jsonb not null default '{}',
  response_body text,
  error_code text,
  error_message text
);
alter table app_public.webhook_delivery_attempts enable row level security;
alter table app_public.webhook_delivery_attempts force row level security;
create index webhook_delivery_attempts_delivery_id_idx on app_public.webhook_delivery_attempts (delivery_id, attempt_number);
create index webhook_delivery_attempts_agency_id_idx on app_public.webhook_delivery_attempts (agency_id);
create policy select_own on app_public.webhook_delivery_attempts for select using (agency_id = (select app_public.current_agency_id()));
grant select on app_public.webhook_delivery_attempts to svc_request;
comment on table app_public.webhook_delivery_attempts is 'The delivery log: every attempt with status, duration, headers, truncated body and error.';

---------------------------------------------------------------------------------------------------------------
/* Queue the send job of a delivery (one job per delivery: the job key replaces a pending one). */
create function app_private.queue_delivery(p_delivery_id bigint, p_run_at timestamptz default now()) returns void
  language sql volatile security definer set search_path = '' as $$
  select graphile_worker.add_job('deliveries__send', json_build_object('delivery_id', p_delivery_id),
    run_at => p_run_at, job_key => 'delivery:' || p_delivery_id)
$$;

/* Write an event to the outbox and queue its fan-out, in the caller's transaction. */
create function app_private.emit_event(p_agency_id bigint, p_mode text, p_topic text, p_event_name text, p_data jsonb)
  returns bigint
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v_id bigint;
begin
  insert into app_public.events (agency_id, mode, topic, event_name, data)
  values (p_agency_id, p_mode, p_topic, p_event_name, p_data) returning id into v_id;
  perform graphile_worker.add_job('events__fan_out', json_build_object('event_id', v_id), job_key => 'event:' || v_id);
  return v_id;
end
$$;

/* Endpoints an event goes to, with the URL for its mode (staging for test data, production for live). */
create function app_private.event_targets(p_event_id bigint)
  returns table (endpoint_id uuid, url text, kind text)
  language sql stable security definer set search_path = '' as $$
  select w.id, case when w.kind = 'subscription' then w.url when e.mode = 'test' then w.staging_url else w.production_url end, w.kind
    from app_public.events e
    join app_public.webhook_endpoints w on w.agency_id = e.agency_id
   where e.id = p_event_id
     and ((w.kind = 'topic' and w.topic = e.topic) or (w.kind = 'subscription' and (e.event_name = any (w.events) or '*' = any (w.events))))
     and (case when w.kind = 'subscription' then w.url when e.mode = 'test' then w.staging_url else w.production_url end) is not null
$$;

/* Create the deliveries of an event (one per endpoint; repeated calls add nothing) and queue each. */
create function app_private.create_deliveries(p_event_id bigint, p_deliveries jsonb) returns integer
  language plpgsql volatile security definer set search_path = '' as $$
declare
  e app_public.events;
  d record;
  n int := 0;
begin
  select * into e from app_public.events where id = p_event_id;
  for d in
    insert into app_public.webhook_deliveries (agency_id, endpoint_id, event_id, message_id, mode, url, body)
    select e.agency_id, (x ->> 'endpoint_id')::uuid, e.id, 'msg_' || e.id || '_' || replace(x ->> 'endpoint_id', '-', ''), e.mode, x ->> 'url', x ->> 'body'
      from jsonb_array_elements(p_deliveries) x
    on conflict (event_id, endpoint_id) where redelivery_of is null and event_id is not null do nothing
    returning id
  loop
    perform app_private.queue_delivery(d.id);
    n := n + 1;
  end loop;
  return n;
end
$$;

/* Queue a test delivery of a sample body to an endpoint (always the staging URL of a topic endpoint). */
create function app_public.send_test_delivery(p_endpoint_id uuid, p_body text) returns app_public.webhook_deliveries
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
  insert into app_public.webhook_deliveries (agency_id, endpoint_id, message_id, mode, is_test, url, body)
  values (w.agency_id, w.id, 'msg_test_' || replace(gen_random_uuid()::text, '-', ''), 'test', true,
          case when w.kind = 'topic' then w.staging_url else w.url end, p_body)
  returning * into v;
  perform app_private.queue_delivery(v.id);
  return v;
end
$$;
grant execute on function app_public.send_test_delivery(uuid, text) to svc_request;

/* Send a delivery again as a new delivery of the same message (same message id, so receivers de-duplicate). */
create function app_public.redeliver(p_delivery_id bigint) returns app_public.webhook_deliveries
  language plpgsql volatile security definer set search_path = '' as $$
declare
  old app_public.webhook_deliveries;
  v app_public.webhook_deliveries;
begin
  select * into old from app_public.webhook_deliveries where id = p_delivery_id and agency_id = app_public.current_agency_id();
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
grant execute on function app_public.redeliver(bigint) to svc_request;

/* Record one attempt; finish the delivery or schedule the next attempt; disable endpoints that are gone. */
create function app_private.record_delivery_attempt(p_delivery_id bigint, p_started_at timestamptz, p_duration_ms integer,
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
  insert into app_public.webhook_delivery_attempts (delivery_id, agency_id, attempt_number, url, started_at, duration_ms,
    status_code, response_headers, response_body, error_code, error_message)
  values (v.id, v.agency_id, v.attempt_count + 1, v.url, p_started_at, p_duration_ms, p_status_code, coalesce(p_headers, '{}'),
    p_body, p_error_code, p_error_message);
  perform set_config('svc.transition', 'on', true);
  if p_ok then
    update app_public.webhook_deliveries set status = 'delivered', attempt_count = attempt_count + 1, completed_at = now(),
      next_attempt_at = null, last_status_code = p_status_code, last_error = null where id = v.id returning * into v;
    update app_public.webhook_endpoints set failing_since = null where id = v.endpoint_id and failing_since is not null;
  else
    update app_public.webhook_endpoints set failing_since = coalesce(failing_since, p_started_at)
     where id = v.endpoint_id returning * into w;
    if p_gone or (not v.is_test and w.failing_since < now() - p_disable_after) then
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

/* Enable or disable an endpoint (an API call); enabling resumes its pending deliveries. */
create function app_public.set_webhook_endpoint_enabled(p_endpoint_id uuid, p_enabled boolean) returns app_public.webhook_endpoints
  language plpgsql volatile security definer set search_path = '' as $$
declare
  w app_public.webhook_endpoints;
  d record;
begin
  select * into w from app_public.webhook_endpoints where id = p_endpoint_id and agency_id = app_public.current_agency_id() for update;
  if not found then
    raise exception 'webhook endpoint not found' using errcode = 'NTFND';
  end if;
  if not app_public.current_is_admin() then
    raise exception 'enabling or disabling endpoints requires admin permissions' using errcode = 'FORBD';
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
    for d in select id from app_public.webhook_deliveries where endpoint_id = w.id and status = 'pending' loop
      perform app_private.queue_delivery(d.id);
    end loop;
  end if;
  return w;
end
$$;
grant execute on function app_public.set_webhook_endpoint_enabled(uuid, boolean) to svc_request;

---------------------------------------------------------------------------------------------------------------
-- Liveness of worker processes, so a new worker can release the jobs of one that was killed (SIGKILL)
-- instead of waiting for graphile-worker's four-hour lock timeout.
create table app_private.worker_heartbeats (
  worker_id text primary key,
  last_seen timestamptz not null default now()
);
comment on table app_private.worker_heartbeats is 'graphile-worker worker ids and when their process last said it was alive.';
