-- Operators and analysts: read-only views of jobs, deliveries and rate limits in a schema of their own
-- (app_ops), the svc_operator and svc_analyst roles, operator/analyst tokens for /graphql and /metrics,
-- and the request id carried from an HTTP request into the jobs, deliveries and attempts it causes.
--
-- The views run with the rights of their owner (the migration role), so the operator role needs no grant
-- on app_public, app_private or graphile_worker; it sees exactly the columns chosen here and no secret.

create schema if not exists app_ops;
comment on schema app_ops is 'Read-only views for operators on call: jobs, deliveries, endpoints, rate limits (svc_operator).';

do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'svc_operator') then
    create role svc_operator nologin;
  end if;
  if not exists (select 1 from pg_roles where rolname = 'svc_analyst') then
    create role svc_analyst nologin;
  end if;
end
$$;
revoke all on schema app_ops from public;
grant usage on schema app_ops to svc_operator;

create schema if not exists app_analyst;
comment on schema app_analyst is 'What analysts review: extractions with their citations, fixtures and evaluation results (svc_analyst).';
revoke all on schema app_analyst from public;
grant usage on schema app_analyst to svc_analyst;

---------------------------------------------------------------------------------------------------------------
-- Request ids: set per request transaction as svc.request_id (db/pool.ts), stored on the rows a request
-- causes, and put in the payload of every job queued through app_private.job_payload.

/* The request id of the current transaction (HTTP request, or the job that carries one), or null. */
create function app_private.current_request_id() returns text
  language sql stable parallel safe as $$ select nullif(current_setting('svc.request_id', true), '') $$;
comment on function app_private.current_request_id() is 'svc.request_id of this transaction: the X-Request-Id of the HTTP request or of the job that carries it.';

/* A job payload with the current request id added (as "request_id"), so the job's log lines carry it. */
create function app_private.job_payload(p_payload jsonb) returns json
  language sql stable parallel safe as $$
  select (case when app_private.current_request_id() is null then p_payload
               else p_payload || jsonb_build_object('request_id', app_private.current_request_id()) end)::json
$$;
comment on function app_private.job_payload(jsonb) is 'Payload of a job queued in this transaction, with request_id when the transaction has one.';

alter table app_public.events add column request_id text default app_private.current_request_id();
comment on column app_public.events.request_id is 'X-Request-Id of the request (or job) that emitted the event.';
alter table app_public.webhook_deliveries add column request_id text;
comment on column app_public.webhook_deliveries.request_id is 'Request id of the event''s request, or of the request that asked for a test or redelivery.';
alter table app_public.webhook_delivery_attempts add column request_id text;
comment on column app_public.webhook_delivery_attempts.request_id is 'Request id of the delivery, copied onto each attempt so one id follows an upload to the receiver.';

create function app_private.tg_webhook_deliveries__request_id() returns trigger
  language plpgsql volatile security definer set search_path = '' as $$
begin
  if new.request_id is null and new.event_id is not null then
    select e.request_id into new.request_id from app_public.events e where e.id = new.event_id;
  end if;
  new.request_id := coalesce(new.request_id, app_private.current_request_id());
  return new;
end
$$;
comment on function app_private.tg_webhook_deliveries__request_id() is 'A delivery inherits the request id of its event (fan-out runs in the worker) or of the current request.';
create trigger _050_request_id before insert on app_public.webhook_deliveries
  for each row execute function app_private.tg_webhook_deliveries__request_id();

create function app_private.tg_webhook_delivery_attempts__request_id() returns trigger
  language plpgsql volatile security definer set search_path = '' as $$
begin
  if new.request_id is null then
    select d.request_id into new.request_id from app_public.webhook_deliveries d where d.id = new.delivery_id;
  end if;
  return new;
end
$$;
comment on function app_private.tg_webhook_delivery_attempts__request_id() is 'An attempt carries the request id of its delivery.';
create trigger _050_request_id before insert on app_public.webhook_delivery_attempts
  for each row execute function app_private.tg_webhook_delivery_attempts__request_id();

-- Same signatures and behaviour as in 0003; the job payloads now carry the request id.
create or replace function app_private.queue_delivery(p_delivery_id bigint, p_run_at timestamptz default now()) returns void
  language sql volatile security definer set search_path = '' as $$
  select graphile_worker.add_job('deliveries__send',
    jsonb_strip_nulls(jsonb_build_object('delivery_id', p_delivery_id,
      'request_id', coalesce((select d.request_id from app_public.webhook_deliveries d where d.id = p_delivery_id), app_private.current_request_id())))::json,
    run_at => p_run_at, job_key => 'delivery:' || p_delivery_id)
$$;
comment on function app_private.queue_delivery(bigint, timestamptz) is 'Queue the send job of a delivery (one job per delivery; the payload carries the delivery''s request id).';

/* Batched first attempts (0005): each item of the batch payload carries its delivery's request id too. */
create or replace function app_private.queue_deliveries(p_endpoint_id uuid, p_delivery_ids bigint[]) returns void
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v_payload json := (select json_agg(jsonb_strip_nulls(jsonb_build_object('delivery_id', x, 'request_id', d.request_id)) order by x)
                       from unnest(p_delivery_ids) x left join app_public.webhook_deliveries d on d.id = x);
  v_job_id bigint;
begin
  select (j).id into v_job_id
    from (select graphile_worker.add_job('deliveries__send', v_payload, job_key => 'deliveries:' || p_endpoint_id,
                                         job_key_mode => 'preserve_run_at') j) q;
  -- As in 0005: a keyed upsert that a locking worker turned into a no-op gets a job of its own.
  if v_job_id is null then
    perform graphile_worker.add_job('deliveries__send', v_payload);
  end if;
end
$$;
comment on function app_private.queue_deliveries(uuid, bigint[]) is 'Append deliveries of one endpoint to its waiting batch job; each item carries its delivery''s request id.';

create or replace function app_private.emit_event(p_agency_id bigint, p_mode text, p_topic text, p_event_name text, p_data jsonb)
  returns bigint
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v_id bigint;
begin
  insert into app_public.events (agency_id, mode, topic, event_name, data)
  values (p_agency_id, p_mode, p_topic, p_event_name, p_data) returning id into v_id;
  perform graphile_worker.add_job('events__fan_out', app_private.job_payload(jsonb_build_object('event_id', v_id)), job_key => 'event:' || v_id);
  return v_id;
end
$$;
comment on function app_private.emit_event(bigint, text, text, text, jsonb) is 'Write an event to the outbox and queue its fan-out (payload carries the request id), in the caller''s transaction.';

create or replace function app_private.queue_extraction_job(p_task text, p_payload json, p_key text, p_priority integer default 0) returns void
  language sql volatile security definer set search_path = '' as $$
  select graphile_worker.add_job(p_task, app_private.job_payload(p_payload::jsonb), job_key => p_key, job_key_mode => 'preserve_run_at',
    priority => p_priority, max_attempts => 5)
$$;
comment on function app_private.queue_extraction_job(text, json, text, integer) is 'Queue one stage of the extraction chain once (job key; OCR pages at a larger priority number); the payload carries the request id.';

create or replace function app_private.queue_analysis_job(p_task text, p_payload json, p_key text, p_priority integer default 0) returns void
  language sql volatile security definer set search_path = '' as $$
  select graphile_worker.add_job(p_task, app_private.job_payload(p_payload::jsonb), job_key => p_key, job_key_mode => 'preserve_run_at',
    priority => p_priority, max_attempts => 5)
$$;
comment on function app_private.queue_analysis_job(text, json, text, integer) is 'Queue one stage of the lease analysis chain once (job key; OCR pages at a larger priority number); the payload carries the request id.';

---------------------------------------------------------------------------------------------------------------
-- Operator and analyst tokens: `svc operators create --role operator|analyst --name NAME`. Stored hashed.
create table app_private.operator_tokens (
  id bigint generated always as identity primary key,
  name text not null check (length(btrim(name)) between 1 and 100),
  role text not null check (role in ('operator', 'analyst')),
  token_hash bytea not null unique check (length(token_hash) = 32),
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  revoked_at timestamptz
);
comment on table app_private.operator_tokens is 'Credentials of operators and analysts for /graphql and /metrics (SHA-256 hashes); never partner credentials.';

/* The operator or analyst behind a token hash; records use at most once a minute. */
create function app_private.authenticate_operator(p_token_hash bytea, out operator_token_id bigint, out name text, out role text)
  returns setof record
  language sql volatile security definer set search_path = '' as $$
  with t as (
    select t.id, t.name, t.role, t.last_used_at from app_private.operator_tokens t
     where t.token_hash = p_token_hash and t.revoked_at is null
  ), touched as (
    update app_private.operator_tokens o set last_used_at = now()
      from t where o.id = t.id and (t.last_used_at is null or t.last_used_at < now() - interval '1 minute')
  )
  select t.id, t.name, t.role from t
$$;
comment on function app_private.authenticate_operator(bytea) is 'Resolve an operator/analyst token hash to its id, name and role (operator or analyst).';
grant execute on function app_private.authenticate_operator(bytea) to svc_request;

/* Create an operator or analyst token (the CLI makes the token and passes its hash). */
create function app_private.create_operator_token(p_name text, p_role text, p_token_hash bytea) returns bigint
  language sql volatile security definer set search_path = '' as $$
  insert into app_private.operator_tokens (name, role, token_hash) values (btrim(p_name), p_role, p_token_hash) returning id
$$;
comment on function app_private.create_operator_token(text, text, bytea) is 'Store a new operator or analyst token by its hash; the token itself is shown once by the CLI.';

/* Revoke every live token of a name. Returns how many were revoked. */
create function app_private.revoke_operator_tokens(p_name text) returns integer
  language sql volatile security definer set search_path = '' as $$
  with r as (update app_private.operator_tokens set revoked_at = now() where name = btrim(p_name) and revoked_at is null returning 1)
  select count(*)::int from r
$$;
comment on function app_private.revoke_operator_tokens(text) is 'Revoke the live tokens of an operator or analyst by name.';

---------------------------------------------------------------------------------------------------------------
-- Jobs, over graphile-worker's public `jobs` view (never its private tables).

create view app_ops.jobs with (security_barrier) as
  select j.id,
         j.task_identifier as task,
         j.queue_name,
         case
           when j.locked_at is not null and j.locked_by is not null then 'running'
           when j.attempts >= j.max_attempts then 'failed'
           when j.attempts > 0 and j.run_at > now() then 'retry_scheduled'
           when j.run_at > now() then 'scheduled'
           else 'queued'
         end as state,
         j.attempts,
         j.max_attempts,
         j.last_error,
         j.priority,
         j.key,
         j.run_at,
         j.created_at,
         j.updated_at,
         j.locked_at,
         j.locked_by,
         now() - j.created_at as age,
         case when j.locked_at is not null then now() - j.locked_at end as running_for,
         case when j.locked_at is null and j.run_at <= now() and j.attempts < j.max_attempts then now() - j.run_at end as waiting_for
    from graphile_worker.jobs j;
comment on view app_ops.jobs is 'Every job with its state (queued, scheduled, running, retry_scheduled, failed), age, attempts and last error.';
comment on column app_ops.jobs.state is 'queued (due, waiting for a worker), scheduled (run_at in the future), running (locked by a worker), retry_scheduled (failed before, next try at run_at), failed (attempts exhausted).';
comment on column app_ops.jobs.waiting_for is 'How long a due job has waited for a worker: a growing value means the workers are behind or down.';

create view app_ops.job_states as
  select task, state, count(*)::int as jobs, max(age) as oldest_age, max(attempts) as max_attempts,
         min(run_at) filter (where state in ('scheduled', 'retry_scheduled')) as next_run_at,
         (array_agg(last_error order by updated_at desc) filter (where last_error is not null))[1] as last_error
    from app_ops.jobs
   group by task, state;
comment on view app_ops.job_states is 'Jobs counted by task and state, with the oldest age, most attempts, next run and the latest error.';

---------------------------------------------------------------------------------------------------------------
-- Webhook deliveries: per endpoint health, deliveries and attempts (bodies, headers and secrets left out).

create view app_ops.webhook_deliveries with (security_barrier) as
  select d.id, d.agency_id, d.endpoint_id, d.event_id, d.redelivery_of, d.message_id, d.mode, d.is_test, d.url, d.status,
         d.attempt_count, d.next_attempt_at, d.last_status_code, d.last_error, d.request_id, d.created_at, d.completed_at,
         coalesce(d.completed_at, now()) - d.created_at as age
    from app_public.webhook_deliveries d;
comment on view app_ops.webhook_deliveries is 'Every webhook delivery with its status, attempts, next attempt, last error and request id (bodies left out).';

create view app_ops.webhook_delivery_attempts with (security_barrier) as
  select a.id, a.delivery_id, d.endpoint_id, a.agency_id, a.attempt_number, a.url, a.started_at, a.duration_ms, a.status_code,
         a.error_code, a.error_message, a.request_id,
         (a.status_code between 200 and 299 and a.error_code is null) as succeeded
    from app_public.webhook_delivery_attempts a
    join app_public.webhook_deliveries d on d.id = a.delivery_id;
comment on view app_ops.webhook_delivery_attempts is 'The delivery log without response bodies or headers: status, duration, error and request id of each attempt.';

create view app_ops.webhook_endpoints with (security_barrier) as
  select w.id as endpoint_id, w.agency_id, g.name as agency_name, w.kind, w.topic, w.events,
         w.staging_url, w.production_url, w.url,
         w.enabled, w.disabled_at, w.disabled_reason, w.failing_since,
         now() - w.failing_since as failing_for,
         s.attempts_24h, s.succeeded_24h,
         round(s.succeeded_24h::numeric / nullif(s.attempts_24h, 0), 3) as success_rate_24h,
         coalesce(streak.n, 0) as failure_streak,
         s.last_attempt_at, s.last_success_at,
         p.pending, p.next_retry_at,
         la.error_message as last_error
    from app_public.webhook_endpoints w
    join app_public.agencies g on g.id = w.agency_id
    left join lateral (
      select count(*) filter (where a.started_at > now() - interval '24 hours')::int as attempts_24h,
             count(*) filter (where a.started_at > now() - interval '24 hours' and a.succeeded)::int as succeeded_24h,
             max(a.started_at) as last_attempt_at,
             max(a.started_at) filter (where a.succeeded) as last_success_at
        from app_ops.webhook_delivery_attempts a where a.endpoint_id = w.id
    ) s on true
    left join lateral (
      select count(*)::int as n from app_ops.webhook_delivery_attempts a
       where a.endpoint_id = w.id and not a.succeeded and a.started_at > coalesce(s.last_success_at, '-infinity')
    ) streak on true
    left join lateral (
      select count(*)::int as pending, min(d.next_attempt_at) as next_retry_at
        from app_public.webhook_deliveries d where d.endpoint_id = w.id and d.status = 'pending'
    ) p on true
    left join lateral (
      select a.error_message from app_ops.webhook_delivery_attempts a
       where a.endpoint_id = w.id and not a.succeeded order by a.started_at desc, a.id desc limit 1
    ) la on true;
comment on view app_ops.webhook_endpoints is 'Each webhook endpoint and subscription: enabled or disabled and why, failing since, success rate over 24 h, failure streak, pending deliveries and next retry.';
comment on column app_ops.webhook_endpoints.failure_streak is 'Failed attempts since the last successful one (all attempts when none ever succeeded).';

---------------------------------------------------------------------------------------------------------------
-- Rate limits: counters of the current windows, named by who they belong to.

/* Per-minute and per-day limits of an agency's plan for the lease checker and extraction (SPEC §8). */
create function app_ops.plan_limits(p_plan text, p_per_minute integer, p_per_day integer, out per_minute integer, out per_day integer)
  language sql immutable parallel safe as $$
  select case p_plan when 'free' then 5 when 'pro' then 30 else p_per_minute end,
         case p_plan when 'free' then 50 when 'pro' then 1000 else p_per_day end
$$;
comment on function app_ops.plan_limits(text, integer, integer) is 'Per-minute and per-day limits of a plan: free 5/50, pro 30/1000, enterprise its own.';
grant execute on function app_ops.plan_limits(text, integer, integer) to svc_operator;

create view app_ops.rate_limit_counters with (security_barrier) as
  select c.bucket,
         case when c.bucket like 'v1:%' then 'v1_token' when c.bucket like 'oauth:%' then 'oauth_token_requests'
              when c.bucket like 'oauth-fail:%' then 'oauth_failed_secrets'
              when c.bucket like 'api:min:%' then 'plan_minute' when c.bucket like 'api:day:%' then 'plan_day'
              when c.bucket like 'api:addr:%' then 'api_without_key' else split_part(c.bucket, ':', 1) end as kind,
         coalesce(ag.agency_id, case when c.bucket ~ '^api:(min|day):[0-9]+$' then split_part(c.bucket, ':', 3)::bigint end) as agency_id,
         ag.agent_id,
         coalesce(ot.oauth_client_id, oc.id) as oauth_client_id,
         c.window_start, c.hits
    from app_private.rate_limit_counters c
    left join lateral (
      select a.agency_id, a.id as agent_id from app_private.agent_tokens t join app_public.agents a on a.id = t.agent_id
       where t.token_hash = decode(case when c.bucket ~ '^v1:[0-9a-f]{64}$' then substr(c.bucket, 4) end, 'hex')
    ) ag on true
    left join lateral (
      select t.oauth_client_id from app_private.oauth_access_tokens t
       where t.token_hash = decode(case when c.bucket ~ '^v1:[0-9a-f]{64}$' then substr(c.bucket, 4) end, 'hex')
    ) ot on true
    left join app_private.oauth_clients oc on c.bucket ~ '^oauth(-fail)?:[0-9]+(:|$)' and oc.id = (case when c.bucket ~ '^oauth(-fail)?:[0-9]{1,18}(:|$)' then split_part(c.bucket, ':', 2)::bigint end)
   where c.window_start > now() - interval '1 day';
comment on view app_ops.rate_limit_counters is 'Rate-limit counters of the last day, with the agency, agent or OAuth client each bucket belongs to (token buckets are named by hash, never by token).';

create view app_ops.agency_rate_limits with (security_barrier) as
  select g.id as agency_id, g.name as agency_name, g.status, g.plan, l.per_minute as per_minute_limit, l.per_day as per_day_limit,
         coalesce(m.hits, 0) as minute_hits, coalesce(d.hits, 0) as day_hits,
         round(coalesce(m.hits, 0)::numeric / nullif(l.per_minute, 0), 3) as minute_used,
         round(coalesce(d.hits, 0)::numeric / nullif(l.per_day, 0), 3) as day_used
    from app_public.agencies g
    cross join lateral app_ops.plan_limits(g.plan, g.plan_per_minute, g.plan_per_day) l
    left join lateral (
      select c.hits from app_private.rate_limit_counters c
       where c.bucket = 'api:min:' || g.id and c.window_start = to_timestamp(floor(extract(epoch from now()) / 60) * 60)
    ) m on true
    left join lateral (
      select c.hits from app_private.rate_limit_counters c
       where c.bucket = 'api:day:' || g.id and c.window_start = to_timestamp(floor(extract(epoch from now()) / 86400) * 86400)
    ) d on true;
comment on view app_ops.agency_rate_limits is 'Each agency''s plan with its per-minute and per-day limits of the /api surface, the current counters against them (minute_used, day_used: 1.0 = at the limit).';

---------------------------------------------------------------------------------------------------------------
-- Documents and extractions by stage (queued → processing → completed | partial | failed), with durations and
-- failures by SPEC §7.2 code. File names, extracted data and page text are left out.

create view app_ops.extractions with (security_barrier) as
  select x.id as extraction_id, x.document_id, x.agency_id, x.agent_id, x.mode, x.entity_type, x.status, x.parsing_method,
         x.error_code, x.error_details, jsonb_array_length(x.stage_errors) as stage_errors,
         d.content_type, d.size_bytes, d.page_count,
         p.ocr_pending, p.ocr_done, p.ocr_failed,
         x.queued_at, x.started_at, x.completed_at,
         x.started_at - x.queued_at as queue_wait,
         x.completed_at - x.started_at as processing_time,
         coalesce(x.completed_at, now()) - x.queued_at as total_time,
         case when x.status in ('queued', 'processing') then now() - coalesce(x.started_at, x.queued_at) end as in_stage_for
    from app_public.extractions x
    join app_public.documents d on d.id = x.document_id
    left join lateral (
      select count(*) filter (where dp.state = 'ocr_pending')::int as ocr_pending,
             count(*) filter (where dp.state = 'ocr_done')::int as ocr_done,
             count(*) filter (where dp.state = 'ocr_failed')::int as ocr_failed
        from app_private.document_pages dp where dp.document_id = x.document_id
    ) p on true;
comment on view app_ops.extractions is 'Each extraction with its stage, how long it waited and worked, OCR pages pending/done/failed, and its §7.2 error code (no file names, no extracted data).';
comment on column app_ops.extractions.in_stage_for is 'How long an unfinished extraction has been in its current stage (queued or processing).';

create view app_ops.extraction_stages as
  select status, entity_type, count(*)::int as extractions,
         max(in_stage_for) as longest_in_stage,
         avg(queue_wait) as avg_queue_wait,
         avg(processing_time) as avg_processing_time,
         percentile_cont(0.95) within group (order by extract(epoch from total_time)) filter (where completed_at is not null) as p95_total_seconds,
         max(queued_at) as last_queued_at
    from app_ops.extractions
   group by status, entity_type;
comment on view app_ops.extraction_stages is 'Extractions counted by stage and entity type: the longest still in its stage, average queue wait and processing time, p95 total seconds.';

create view app_ops.extraction_failures as
  select error_code, entity_type, count(*)::int as failures,
         count(*) filter (where completed_at > now() - interval '24 hours')::int as failures_24h,
         max(completed_at) as last_failed_at,
         (array_agg(error_details order by completed_at desc))[1] as last_details
    from app_ops.extractions
   where status = 'failed'
   group by error_code, entity_type;
comment on view app_ops.extraction_failures is 'Failed extractions by SPEC §7.2 error code (extraction_failed, internal_error, bad_request) and entity type, with the latest details.';

grant select on all tables in schema app_ops to svc_operator;

-- Lease analyses (0008) the same way: stage, durations, OCR pages of both documents, §7.2 failures.
create view app_ops.analyses with (security_barrier) as
  select a.id as analysis_id, a.agency_id, a.mode, a.status, a.error_code, a.error_details,
         (a.lease_facts is not null) as lease_facts_read, (a.insurance_facts is not null) as insurance_facts_read,
         p.ocr_pending, p.ocr_done, p.ocr_failed,
         a.created_at as queued_at, a.started_at, a.completed_at,
         a.started_at - a.created_at as queue_wait,
         a.completed_at - a.started_at as processing_time,
         coalesce(a.completed_at, now()) - a.created_at as total_time,
         case when a.status in ('queued', 'processing') then now() - coalesce(a.started_at, a.created_at) end as in_stage_for
    from app_public.analyses a
    left join lateral (
      select count(*) filter (where dp.state = 'ocr_pending')::int as ocr_pending,
             count(*) filter (where dp.state = 'ocr_done')::int as ocr_done,
             count(*) filter (where dp.state = 'ocr_failed')::int as ocr_failed
        from app_private.document_pages dp where dp.document_id in (a.lease_document_id, a.insurance_document_id)
    ) p on true;
comment on view app_ops.analyses is 'Each lease analysis with its stage, which document''s facts are in, OCR pages of both documents, durations and its §7.2 error code (no facts, no result).';

create view app_ops.analysis_stages as
  select status, error_code, count(*)::int as analyses,
         count(*) filter (where queued_at > now() - interval '24 hours')::int as analyses_24h,
         max(in_stage_for) as longest_in_stage,
         avg(queue_wait) as avg_queue_wait,
         avg(processing_time) as avg_processing_time,
         percentile_cont(0.95) within group (order by extract(epoch from total_time)) filter (where completed_at is not null) as p95_total_seconds,
         (array_agg(error_details order by completed_at desc nulls last))[1] as last_error_details
    from app_ops.analyses
   group by status, error_code;
comment on view app_ops.analysis_stages is 'Lease analyses by stage and §7.2 error code: counts (all, 24 h), the longest still in its stage, average waits, p95 total seconds, latest failure details.';

grant select on app_ops.analyses, app_ops.analysis_stages to svc_operator;

---------------------------------------------------------------------------------------------------------------
-- Analysts (svc_analyst): extractions of test data with their citations, the fixtures' expected outputs and
-- the results of `svc eval` runs. The extraction views run as the analyst (security_invoker), so a row-level
-- policy decides what they see: test-mode extractions only, never live customers' documents.

grant usage on schema app_public to svc_analyst;
grant execute on function app_public.current_agency_id(), app_public.current_mode(), app_public.mode_visible(text) to svc_analyst;
grant select (id, document_id, mode, entity_type, status, parsing_method, outcome, error_code, error_details, result, stage_errors,
  queued_at, started_at, completed_at) on app_public.extractions to svc_analyst;
create policy select_test_mode_for_analysts on app_public.extractions for select to svc_analyst using (mode = 'test');

create view app_analyst.test_extractions with (security_invoker = true) as
  select x.id as extraction_id, x.document_id, x.entity_type, x.status, x.parsing_method, x.outcome, x.error_code, x.error_details,
         x.result as extracted_data, x.stage_errors, x.queued_at, x.started_at, x.completed_at
    from app_public.extractions x;
comment on view app_analyst.test_extractions is 'Extractions of test data (row-level policy for svc_analyst) with their extracted data and stage errors.';

create view app_analyst.test_extraction_citations with (security_invoker = true) as
  select x.id as extraction_id, x.entity_type, c.key as pointer,
         x.result #> string_to_array(ltrim(c.key, '/'), '/') as value,
         (c.value ->> 'page')::int as page, c.value ->> 'text' as quote, (c.value ->> 'confidence')::numeric as confidence,
         c.value ->> 'source' as source, coalesce((c.value ->> 'flagged')::boolean, false) as flagged
    from app_public.extractions x
    cross join lateral jsonb_each(case when jsonb_typeof(x.result -> 'citations') = 'object' then x.result -> 'citations' else '{}' end) c;
comment on view app_analyst.test_extraction_citations is 'One row per extracted value of a test-mode extraction: its JSON pointer, value, the page and text it was read from, confidence, source (rules or LLM) and whether grounding flagged it.';

create table app_analyst.fixtures (
  path text primary key check (length(path) between 1 and 500),
  entity_type text,
  expected jsonb not null,
  loaded_at timestamptz not null default now()
);
comment on table app_analyst.fixtures is 'Expected outputs (*.expected.json) of the fixture documents, as loaded with the last `svc analysts import-eval`.';

create table app_analyst.eval_runs (
  id bigint generated always as identity primary key,
  label text check (length(label) <= 200),
  dir text not null,
  documents integer not null,
  tp integer not null,
  fp integer not null,
  fn integer not null,
  precision numeric,
  recall numeric,
  created_at timestamptz not null default now()
);
comment on table app_analyst.eval_runs is 'One `svc eval --json` run imported with `svc analysts import-eval`: overall true/false positives, misses, precision and recall.';

create table app_analyst.eval_fields (
  run_id bigint not null references app_analyst.eval_runs (id) on delete cascade,
  field text not null,
  tp integer not null,
  fp integer not null,
  fn integer not null,
  precision numeric,
  recall numeric,
  primary key (run_id, field)
);
comment on table app_analyst.eval_fields is 'Precision and recall of each field of an eval run.';

create table app_analyst.eval_documents (
  run_id bigint not null references app_analyst.eval_runs (id) on delete cascade,
  file text not null,
  parsing_method text,
  ms integer,
  tp integer not null,
  fp integer not null,
  fn integer not null,
  error text,
  misses jsonb not null default '[]',
  primary key (run_id, file)
);
comment on table app_analyst.eval_documents is 'Each fixture document of an eval run: method, time, counts, error and the values it missed (pointer, expected, got).';

/* Store one `svc eval --json` report (and the fixtures' expected outputs); returns the run id. */
create function app_private.import_eval(p_label text, p_report jsonb, p_fixtures jsonb) returns bigint
  language plpgsql volatile as $$
declare
  v_id bigint;
begin
  insert into app_analyst.eval_runs (label, dir, documents, tp, fp, fn, precision, recall)
  values (p_label, p_report ->> 'dir', (p_report ->> 'documents')::int, (p_report #>> '{overall,tp}')::int, (p_report #>> '{overall,fp}')::int,
          (p_report #>> '{overall,fn}')::int, (p_report #>> '{overall,precision}')::numeric, (p_report #>> '{overall,recall}')::numeric)
  returning id into v_id;
  insert into app_analyst.eval_fields (run_id, field, tp, fp, fn, precision, recall)
  select v_id, f.key, (f.value ->> 'tp')::int, (f.value ->> 'fp')::int, (f.value ->> 'fn')::int, (f.value ->> 'precision')::numeric, (f.value ->> 'recall')::numeric
    from jsonb_each(coalesce(p_report -> 'fields', '{}')) f;
  insert into app_analyst.eval_documents (run_id, file, parsing_method, ms, tp, fp, fn, error, misses)
  select v_id, d ->> 'file', d ->> 'method', round((d ->> 'ms')::numeric)::int,
         coalesce((select sum((s.value ->> 'tp')::int) from jsonb_each(d -> 'fields') s), 0),
         coalesce((select sum((s.value ->> 'fp')::int) from jsonb_each(d -> 'fields') s), 0),
         coalesce((select sum((s.value ->> 'fn')::int) from jsonb_each(d -> 'fields') s), 0),
         d ->> 'error', coalesce(d -> 'misses', '[]')
    from jsonb_array_elements(coalesce(p_report -> 'documents_detail', '[]')) d;
  insert into app_analyst.fixtures (path, entity_type, expected)
  select f.key, f.value ->> 'entity_type', f.value from jsonb_each(coalesce(p_fixtures, '{}')) f
  on conflict (path) do update set entity_type = excluded.entity_type, expected = excluded.expected, loaded_at = now();
  return v_id;
end
$$;
comment on function app_private.import_eval(text, jsonb, jsonb) is 'Store an eval report (svc eval --json) with its per-field and per-document scores, and upsert the fixtures'' expected outputs.';

grant select on app_analyst.test_extractions, app_analyst.test_extraction_citations, app_analyst.fixtures, app_analyst.eval_runs,
  app_analyst.eval_fields, app_analyst.eval_documents to svc_analyst;
