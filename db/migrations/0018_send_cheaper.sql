-- Cheaper durable delivery (issue 14, fourth step): the worker's statements look up the rows they were given by
-- primary key, whatever the planner believes about the queue tables' sizes, and a claim that skips busy endpoints
-- no longer reads every due delivery's row.
--
-- Measured under the webhooks bench (pg_stat_statements, EXPLAIN ANALYZE on a database holding 58,000 events and a
-- few thousand due deliveries), four statements cost in proportion to a table, not to their batch:
-- - fan_out_waiting joined its batch of waiting events to app_public.events with a merge join that read the events
--   table from its first row (58,000 rows for a batch of 500: 105 ms), since the planner cannot know the size of the
--   locked batch; the whole table grows with every event the service ever emitted.
-- - send_round's claim, when it skipped busy endpoints (one endpoint holding 2 × its share, i.e. any backlog to one
--   receiver), joined every due delivery to its webhook_deliveries row to learn its endpoint, and found none to
--   take: 15 ms a round at 5,000 due, on most rounds of a backlog.
-- - record_delivery_attempts locked the batch's deliveries by scanning the partial index of every pending delivery
--   (status = 'pending') and hashing them against the batch: a backlog of pending deliveries was read per round.
-- - send_round's claim updated its rows through a hash join over a sequential scan of deliveries_due.
-- Now each takes its batch as an array of ids (`id = any (…)`: an index scan of the primary key), and a due row
-- carries its endpoint (deliveries_due.endpoint_id, set by queue_deliveries), so the skip is a filter on the row the
-- claim reads anyway.

alter table app_private.deliveries_due add column endpoint_id uuid;
comment on column app_private.deliveries_due.endpoint_id is 'The delivery''s endpoint (a copy of webhook_deliveries.endpoint_id), so a claim can pass over endpoints the send loop already holds enough of without reading each delivery; null on rows queued before 0018, which no endpoint skip holds back.';
update app_private.deliveries_due q set endpoint_id = d.endpoint_id from app_public.webhook_deliveries d where d.id = q.delivery_id;

/* As in 0015, and the due row names its endpoint. */
create or replace function app_private.queue_deliveries(p_endpoint_id uuid, p_delivery_ids bigint[]) returns void
  language sql volatile security definer set search_path = '' as $$
  insert into app_private.deliveries_due (delivery_id, endpoint_id)
  select x, p_endpoint_id from unnest(p_delivery_ids) x order by x
  on conflict (delivery_id) do update set due_at = now(), claimed_by = null, endpoint_id = excluded.endpoint_id
$$;
comment on function app_private.queue_deliveries(uuid, bigint[]) is 'Make deliveries of one endpoint due now for the worker''s send loop (app_private.deliveries_due, with their endpoint), taking back a claim in progress (a loop that claimed them while the endpoint was disabled would drop them).';

/* As in 0015; the claim reads due rows only (the endpoint is on the row) and everything else goes by primary key. */
create or replace function app_private.send_round(p_worker text, p_attempts jsonb, p_done bigint[], p_release bigint[], p_limit integer,
  p_lease interval, p_skip_endpoints uuid[], p_disable_after interval)
  returns table (id bigint, attempt_count integer, message_id text, mode text, is_test boolean, url text, body text,
                 endpoint_id uuid, enabled boolean, status text, secret_ciphertext text, auth_ciphertext text, request_id text)
  language plpgsql volatile security definer set search_path = '' as $$
declare
  claimed bigint[];
begin
  -- Only the worker calls this: its commit need not wait for the WAL flush (see the head of 0015).
  perform set_config('synchronous_commit', 'off', true);
  if jsonb_array_length(p_attempts) > 0 then
    perform app_private.record_delivery_attempts(p_attempts, p_disable_after);
  end if;
  -- Only claims still this loop's: a claim taken back meanwhile (an endpoint enabled again, the heartbeat of a
  -- process that took this one for dead) is due again and left alone.
  if cardinality(p_done) > 0 then
    delete from app_private.deliveries_due q where q.delivery_id = any (p_done) and q.claimed_by = p_worker;
  end if;
  if cardinality(p_release) > 0 then
    update app_private.deliveries_due q set due_at = now(), claimed_by = null where q.delivery_id = any (p_release) and q.claimed_by = p_worker;
  end if;
  if p_limit > 0 then
    claimed := array(
      select q.delivery_id from app_private.deliveries_due q
       where q.due_at <= now()
         and (cardinality(p_skip_endpoints) = 0 or q.endpoint_id is null or q.endpoint_id <> all (p_skip_endpoints))
       order by q.due_at limit p_limit -- the index order: a backlog is not sorted on every round
         for update skip locked);
    if cardinality(claimed) > 0 then
      update app_private.deliveries_due q set due_at = now() + p_lease, claimed_by = p_worker where q.delivery_id = any (claimed);
      return query
        select d.id, d.attempt_count, d.message_id, d.mode, d.is_test, d.url, d.body, w.id, w.enabled, d.status, w.secret_ciphertext,
               w.auth_ciphertext, d.request_id
          from app_public.webhook_deliveries d join app_public.webhook_endpoints w on w.id = d.endpoint_id
         where d.id = any (claimed)
         order by d.id;
    end if;
  end if;
end
$$;

/*
 * As in 0005, but the batch's deliveries are locked by primary key, not found among every pending delivery, and an
 * attempt gets its delivery's request id here (its trigger then has no delivery to look up).
 */
create or replace function app_private.record_delivery_attempts(p_attempts jsonb, p_disable_after interval) returns integer
  language plpgsql volatile security definer set search_path = '' as $$
declare
  a jsonb;
  n int := 0;
  ok_given bigint[];
  ok_ids bigint[];
begin
  ok_given := array(select (x ->> 'delivery_id')::bigint from jsonb_array_elements(p_attempts) x where (x ->> 'ok')::boolean);
  -- Successes: insert their attempts, mark them delivered and clear failing_since, set-wise.
  if cardinality(ok_given) > 0 then
    with ok as (
      select (x ->> 'delivery_id')::bigint delivery_id, x from jsonb_array_elements(p_attempts) x where (x ->> 'ok')::boolean
    ), locked as (
      select d.* from app_public.webhook_deliveries d where d.id = any (ok_given) and d.status = 'pending' for update of d
    ), logged as (
      insert into app_public.webhook_delivery_attempts (delivery_id, agency_id, mode, attempt_number, url, started_at, duration_ms,
        status_code, response_headers, response_body, error_code, error_message, request_id)
      select l.id, l.agency_id, l.mode, l.attempt_count + 1, l.url, (ok.x ->> 'started_at')::timestamptz, (ok.x ->> 'duration_ms')::int,
             (ok.x ->> 'status_code')::int, coalesce(ok.x -> 'headers', '{}'), ok.x ->> 'body', null, null, l.request_id
        from locked l join ok on ok.delivery_id = l.id
      returning delivery_id
    )
    select array_agg(delivery_id) into ok_ids from logged;
  end if;
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

/* As in 0014, but the batch's events are read by primary key (a join let the planner read the events table from its start). */
create or replace function app_private.fan_out_waiting(p_limit integer)
  returns table (id bigint, uuid uuid, mode text, topic text, event_name text, data jsonb, created_at timestamptz,
                 endpoint_id uuid, url text, kind text, request_id text)
  language sql volatile security definer set search_path = '' as $$
  select e.id, e.uuid, e.mode, e.topic, e.event_name, e.data, e.created_at, t.endpoint_id, t.url, t.kind, e.request_id
    from app_public.events e left join app_private.event_targets(e.id) t on true
   where e.id = any (array(
           select w.event_id from app_private.events_waiting w
            where w.held_at is null
            order by w.event_id limit p_limit
              for update skip locked))
   order by e.id
$$;

-- event_targets ran as a function of its own for every event of a batch (security definer with its own
-- search_path, so the planner could not inline it): 40 µs an event, most of a batch's read. Its callers
-- (fan_out_waiting, fan_out_batch, fan_out_plans) are security definer functions with an empty search_path and it
-- names every object with its schema, so it needs neither: now the planner inlines it into their join. Called
-- directly it runs with the caller's rights (row-level security on events and endpoints applies).
alter function app_private.event_targets(bigint) security invoker reset all;

/*
 * As in 0015, but the batch's events are read by key (p_event_ids holds every event of p_deliveries), and a
 * delivery gets its event's request id here, from the event row the insert reads anyway (its _050_request_id
 * trigger then has no event to look up).
 */
create or replace function app_private.create_event_deliveries(p_event_ids bigint[], p_deliveries jsonb) returns integer
  language plpgsql volatile security definer set search_path = '' as $$
declare
  n int := 0;
  g record;
begin
  perform set_config('synchronous_commit', 'off', true);
  for g in
    with created as (
      insert into app_public.webhook_deliveries (agency_id, endpoint_id, event_id, message_id, mode, url, body, request_id)
      select e.agency_id, (x ->> 'endpoint_id')::uuid, e.id, 'msg_' || e.id || '_' || replace(x ->> 'endpoint_id', '-', ''), e.mode,
             x ->> 'url', x ->> 'body', e.request_id
        from jsonb_array_elements(p_deliveries) x
        join app_public.events e on e.id = (x ->> 'event_id')::bigint
       where e.id = any (p_event_ids) -- by key, whatever the planner guesses of the events table's size
       order by e.id
      on conflict (event_id, endpoint_id) where redelivery_of is null and event_id is not null do nothing
      returning id, endpoint_id
    )
    select endpoint_id, array_agg(id order by id) ids from created group by endpoint_id
  loop
    perform app_private.queue_deliveries(g.endpoint_id, g.ids);
    n := n + cardinality(g.ids);
  end loop;
  delete from app_private.events_waiting where event_id = any (p_event_ids);
  return n;
end
$$;

-- Every delivery and attempt wrote an entry into an index of agency_id alone beside the one of (agency_id, mode),
-- whose leading column serves every lookup by agency (row-level security, the agency's log, cascades); a delivery
-- wrote it twice (its insert and its non-HOT update when recorded).
drop index app_public.webhook_deliveries_agency_id_idx;
drop index app_public.webhook_delivery_attempts_agency_id_idx;

-- A delivery and an attempt checked their agency_id against app_public.agencies on insert: a key-share lock of the
-- agency's row, the row every emit_event of that agency locks the same way, so concurrent writers and the worker
-- made Postgres create a MultiXact for nearly every lock (pgbench, 4 clients inserting rows of one agency: 9,235
-- inserts/s with such a key, 14,586/s without). The agency is reached without them: a delivery's endpoint
-- (endpoint_id, not null, on delete cascade) belongs to the agency (on delete cascade), and an attempt's delivery
-- (delivery_id, on delete cascade) too, so deleting an agency still deletes its deliveries and attempts; their
-- agency_id is copied from the endpoint, event or delivery by the functions that insert them.
alter table app_public.webhook_deliveries drop constraint webhook_deliveries_agency_id_fkey;
alter table app_public.webhook_delivery_attempts drop constraint webhook_delivery_attempts_agency_id_fkey;

-- The index of redelivery_of held an entry for every delivery, nearly all of them null (only redeliveries name
-- the delivery they repeat), written on insert and again on the non-HOT update that records the attempt. Partial,
-- it still serves the lookups by a delivery's id (the on delete set null of redelivery_of, the delivery log).
drop index app_public.webhook_deliveries_redelivery_of_idx;
create index webhook_deliveries_redelivery_of_idx on app_public.webhook_deliveries (redelivery_of) where redelivery_of is not null;
