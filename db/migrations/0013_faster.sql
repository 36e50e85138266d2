-- Faster durable delivery (issue 14): fan-out in batches.
--
-- Until now every event queued its own events__fan_out job (job key 'event:<id>'): one job to insert, fetch,
-- run and complete per event, plus a read and a write round trip each. An event now appends itself to its
-- agency's waiting fan-out job (graphile-worker batch jobs: an array payload with `job_key_mode =>
-- 'preserve_run_at'` is concatenated onto the unlocked job of the same key), so under load one job fans out
-- many events with one read (fan_out_plans) and one write (create_event_deliveries). A job a worker already
-- holds is never appended to: add_job moves the key to a new job. Running a batch twice still adds nothing
-- (one delivery per event and endpoint). The key is per agency, so concurrent emitters of different agencies
-- never wait on one another's job row.

/* Write an event to the outbox and append it to its agency's fan-out batch, in the caller's transaction. */
create or replace function app_private.emit_event(p_agency_id bigint, p_mode text, p_topic text, p_event_name text, p_data jsonb)
  returns bigint
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v_id bigint;
  v_payload json;
  v_job_id bigint;
begin
  insert into app_public.events (agency_id, mode, topic, event_name, data)
  values (p_agency_id, p_mode, p_topic, p_event_name, p_data) returning id into v_id;
  v_payload := json_build_array(app_private.job_payload(jsonb_build_object('event_id', v_id)));
  select (j).id into v_job_id
    from (select graphile_worker.add_job('events__fan_out', v_payload, job_key => 'events:' || p_agency_id,
                                         job_key_mode => 'preserve_run_at') j) q;
  -- As in queue_deliveries: a keyed upsert that a locking worker turned into a no-op gets a job of its own.
  if v_job_id is null then
    perform graphile_worker.add_job('events__fan_out', v_payload);
  end if;
  return v_id;
end
$$;
comment on function app_private.emit_event(bigint, text, text, text, jsonb) is 'Write an event to the outbox and append it to its agency''s events__fan_out batch job (each item carries the request id), in the caller''s transaction.';

/* The events of a fan-out batch with their targets, in one round trip. */
create function app_private.fan_out_plans(p_event_ids bigint[])
  returns table (id bigint, uuid uuid, mode text, topic text, event_name text, data jsonb, created_at timestamptz,
                 endpoint_id uuid, url text, kind text)
  language sql stable security definer set search_path = '' as $$
  select e.id, e.uuid, e.mode, e.topic, e.event_name, e.data, e.created_at, t.endpoint_id, t.url, t.kind
    from app_public.events e left join app_private.event_targets(e.id) t on true
   where e.id = any (p_event_ids)
   order by e.id
$$;
comment on function app_private.fan_out_plans(bigint[]) is 'Events of a fan-out batch, one line per target (endpoint_id null for an event without targets); deleted events have no line.';

/* Create the deliveries of a fan-out batch (one per event and endpoint; repeated calls add nothing) and queue them per endpoint. */
create function app_private.create_event_deliveries(p_deliveries jsonb) returns integer
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
  return n;
end
$$;
comment on function app_private.create_event_deliveries(jsonb) is 'Create the deliveries of many events ([{event_id, endpoint_id, url, body}]; existing ones are kept) and append them to each endpoint''s send batch; returns how many were created.';
