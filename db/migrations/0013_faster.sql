-- Faster durable delivery (issue 14): the outbox is the fan-out queue.
--
-- Until now every event queued its own events__fan_out job (job key 'event:<id>'). graphile_worker.add_job
-- costs an upsert and a pg_notify (NOTIFY takes one cluster-wide lock at commit), so concurrent emitting
-- transactions committed one at a time: emitting was the narrowest part of the durable path. An event is
-- now a row marked as waiting (fanned_out_at is null), and one fan-out job per agency and 50 ms time slice
-- is queued by the slice's first emitter (job key 'fan_out:<agency>:<slice>'). Later emitters of the slice
-- take a share lock on that job's row instead of calling add_job; graphile-worker fetches jobs with
-- `for update skip locked`, so the job cannot start before every emitting transaction that relied on it
-- has committed, and it sees their events. Share locks do not block each other, so emitters never wait
-- for one another; and since a slice's job gets no new sharers once the slice is over, it is never starved.
-- The job fans out every waiting event of its agency, a batch at a time, with one statement that reads and
-- locks the batch (fan_out_batch, skipping events another job holds) and one that creates its deliveries
-- and marks it done (create_event_deliveries), in one transaction. Running it twice adds nothing (one
-- delivery per event and endpoint). A job that finds the slice's job running queues a new one (add_job
-- moves the key). Cost: at most 20 add_job calls a second per busy agency instead of one per event.

alter table app_public.events add column fanned_out_at timestamptz;
-- Events written before 0013 each have their own fan-out job (payload {event_id}), which still runs.
update app_public.events set fanned_out_at = created_at;
create index events_waiting_fan_out_idx on app_public.events (agency_id, id) where fanned_out_at is null;
comment on column app_public.events.fanned_out_at is 'When events__fan_out made the event''s deliveries; null while it waits.';

/* Make sure a fan-out job of the agency will run after this transaction commits. */
create function app_private.wake_fan_out(p_agency_id bigint) returns void
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v_slice text := 'fan_out:' || p_agency_id || ':' || floor(extract(epoch from clock_timestamp()) * 20)::bigint || ':';
  v_payload json := json_build_object('agency_id', p_agency_id);
  v_job bigint;
  v_waiting boolean;
  v_added bigint;
begin
  -- A slice has up to four jobs (generations): when one has started, its emitters move on to the next.
  for g in 1..4 loop
    v_job := null;
    -- Read without locking: a lock taken on a row that then fails the recheck (the worker took the job in the
    -- meantime) is kept to commit, and two emitters keeping one each while add_job updates the row deadlock.
    select j.id, j.locked_at is null and j.attempts = 0 into v_job, v_waiting from graphile_worker._private_jobs j where j.key = v_slice || g;
    if v_job is null then
      -- The first emitter of this generation queues its job (concurrent first emitters merge on the key).
      select (j).id into v_added from (select graphile_worker.add_job('events__fan_out', v_payload, job_key => v_slice || g) j) q;
      if v_added is not null then
        return;
      end if;
    elsif v_waiting then
      -- The job waits: share-lock it so graphile-worker's fetch (for update skip locked) leaves it until this
      -- transaction has committed; then it sees this transaction's events.
      perform 1 from graphile_worker._private_jobs j where j.id = v_job and j.locked_at is null and j.attempts = 0 for share;
      if found then
        return;
      end if;
    end if;
  end loop;
  -- Every generation has started (or failed): a job of our own, without a key, so no job row is touched.
  perform graphile_worker.add_job('events__fan_out', v_payload);
end
$$;
comment on function app_private.wake_fan_out(bigint) is 'Ensure an events__fan_out job of the agency runs after the current transaction: queue the job of the 50 ms slice (up to four generations), or share-lock a waiting one so it cannot start before this commits.';

/* Write an event to the outbox (waiting for fan-out) and wake its agency's fan-out job, in the caller's transaction. */
create or replace function app_private.emit_event(p_agency_id bigint, p_mode text, p_topic text, p_event_name text, p_data jsonb)
  returns bigint
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v_id bigint;
begin
  insert into app_public.events (agency_id, mode, topic, event_name, data)
  values (p_agency_id, p_mode, p_topic, p_event_name, p_data) returning id into v_id;
  perform app_private.wake_fan_out(p_agency_id);
  return v_id;
end
$$;
comment on function app_private.emit_event(bigint, text, text, text, jsonb) is 'Write an event to the outbox and wake its agency''s events__fan_out job, in the caller''s transaction.';

/* The next waiting events of an agency with their targets, locked for this transaction (concurrent jobs skip them). */
create function app_private.fan_out_batch(p_agency_id bigint, p_limit integer)
  returns table (id bigint, uuid uuid, mode text, topic text, event_name text, data jsonb, created_at timestamptz,
                 endpoint_id uuid, url text, kind text, request_id text)
  language sql volatile security definer set search_path = '' as $$
  with e as (
    select * from app_public.events
     where agency_id = p_agency_id and fanned_out_at is null
     order by id limit p_limit
       for update skip locked
  )
  select e.id, e.uuid, e.mode, e.topic, e.event_name, e.data, e.created_at, t.endpoint_id, t.url, t.kind, e.request_id
    from e left join app_private.event_targets(e.id) t on true
   order by e.id
$$;
comment on function app_private.fan_out_batch(bigint, integer) is 'Up to p_limit waiting events of an agency (locked, skipping ones another job holds), one line per target (endpoint_id null for an event without targets).';

/* Given events with their targets, in one round trip (jobs queued before 0013 name their events). */
create function app_private.fan_out_plans(p_event_ids bigint[])
  returns table (id bigint, uuid uuid, mode text, topic text, event_name text, data jsonb, created_at timestamptz,
                 endpoint_id uuid, url text, kind text)
  language sql stable security definer set search_path = '' as $$
  select e.id, e.uuid, e.mode, e.topic, e.event_name, e.data, e.created_at, t.endpoint_id, t.url, t.kind
    from app_public.events e left join app_private.event_targets(e.id) t on true
   where e.id = any (p_event_ids)
   order by e.id
$$;
comment on function app_private.fan_out_plans(bigint[]) is 'Given events, one line per target (endpoint_id null for an event without targets); deleted events have no line.';

/* Create the deliveries of fanned-out events (one per event and endpoint; repeated calls add nothing), queue them per endpoint, mark the events done. */
create function app_private.create_event_deliveries(p_event_ids bigint[], p_deliveries jsonb) returns integer
  language plpgsql volatile security definer set search_path = '' as $$
declare
  n int := 0;
  g record;
begin
  for g in
    with created as (
      insert into app_public.webhook_deliveries (agency_id, endpoint_id, event_id, message_id, mode, url, body)
      select e.agency_id, (x ->> 'endpoint_id')::uuid, e.id, 'msg_' || e.id || '_' || replace(x ->> 'endpoint_id', '-', ''), e.mode,
             x ->> 'url', x ->> 'body'
        from jsonb_array_elements(p_deliveries) x
        join app_public.events e on e.id = (x ->> 'event_id')::bigint
       order by e.id
      on conflict (event_id, endpoint_id) where redelivery_of is null and event_id is not null do nothing
      returning id, endpoint_id
    )
    select endpoint_id, array_agg(id order by id) ids from created group by endpoint_id
  loop
    perform app_private.queue_deliveries(g.endpoint_id, g.ids);
    n := n + cardinality(g.ids);
  end loop;
  update app_public.events set fanned_out_at = now() where id = any (p_event_ids) and fanned_out_at is null;
  return n;
end
$$;
comment on function app_private.create_event_deliveries(bigint[], jsonb) is 'Create the deliveries of fanned-out events ([{event_id, endpoint_id, url, body}]; existing ones are kept), append them to each endpoint''s send batch and mark the events fanned out; returns how many were created.';
