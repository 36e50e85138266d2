-- Faster durable delivery (issue 14, continued): the outbox is polled; emitting an event is an insert.
--
-- 0013 woke one events__fan_out job per agency and 50 ms slice: the slice's first emitter called add_job,
-- later ones share-locked the job's row. Measured alone (bench "webhooks", stage (a)), emit_event then wrote
-- 452 events/s with 4 writers against 1,613/s for a plain insert into events: the share lock writes the job's
-- tuple (and a MultiXact once two emitters hold it) on every emit, and every emitter of an agency touches the
-- same row. Emitting is now only the inserts (the event and its waiting row). The worker process polls the
-- outbox instead (tasks/events__fan_out.ts startOutboxPoller): every few milliseconds when idle, at once while
-- batches come back full, it reads and locks the oldest waiting events of every agency (fan_out_waiting, `for
-- update skip locked`, so pollers of several processes never take the same event) and turns them into
-- deliveries with create_event_deliveries, in one transaction. An event committed late (a long request) is simply seen by a later poll: nothing is lost,
-- and running a batch twice adds nothing (one delivery per event and endpoint). events__fan_out jobs queued
-- before this migration (payload {agency_id} or {event_id}) still run.

-- Waiting is a row of its own (app_private.events_waiting), not a column of the event: marking the event fanned
-- out was an update that copied the whole event row (~1.7 KB with its data, under the 2 KB at which Postgres
-- would keep the data out of line) and all five of its index entries (not HOT: the waiting index's predicate
-- read the column), the largest item of the fan-out's WAL (walinspect, 300 events: 540 KB of 1.27 MB). Now
-- emitting inserts one small row more and fan-out deletes it; the event row is written once.
create table app_private.events_waiting (
  event_id bigint primary key references app_public.events (id) on delete cascade,
  held_at timestamptz,
  held_error text
);
comment on table app_private.events_waiting is 'Outbox events not yet fanned out (one row each, deleted by create_event_deliveries); the worker''s poller reads it oldest first.';
comment on column app_private.events_waiting.event_id is 'The waiting event.';
comment on column app_private.events_waiting.held_at is 'Set when fanning out this event alone failed with a data error: the poller skips it so the events behind it still go out. An operator clears it (update … set held_at = null) to try again.';
comment on column app_private.events_waiting.held_error is 'Why fanning out the held event failed (SQLSTATE and message).';
insert into app_private.events_waiting (event_id) select id from app_public.events where fanned_out_at is null;
drop index app_public.events_waiting_fan_out_idx;
alter table app_public.events drop column fanned_out_at;

/* Write an event to the outbox (waiting for fan-out), in the caller's transaction. */
create or replace function app_private.emit_event(p_agency_id bigint, p_mode text, p_topic text, p_event_name text, p_data jsonb)
  returns bigint
  language sql volatile security definer set search_path = '' as $$
  with e as (
    insert into app_public.events (agency_id, mode, topic, event_name, data)
    values (p_agency_id, p_mode, p_topic, p_event_name, p_data) returning id
  ), w as (
    insert into app_private.events_waiting (event_id) select id from e
  )
  select id from e
$$;
comment on function app_private.emit_event(bigint, text, text, text, jsonb) is 'Write an event to the outbox in the caller''s transaction; the worker''s outbox poller fans it out after the commit.';

drop function app_private.wake_fan_out(bigint);

/* The oldest waiting events of any agency with their targets, locked for this transaction (concurrent pollers skip them). */
create function app_private.fan_out_waiting(p_limit integer)
  returns table (id bigint, uuid uuid, mode text, topic text, event_name text, data jsonb, created_at timestamptz,
                 endpoint_id uuid, url text, kind text, request_id text)
  language sql volatile security definer set search_path = '' as $$
  with w as (
    select event_id from app_private.events_waiting
     where held_at is null
     order by event_id limit p_limit
       for update skip locked
  )
  select e.id, e.uuid, e.mode, e.topic, e.event_name, e.data, e.created_at, t.endpoint_id, t.url, t.kind, e.request_id
    from w join app_public.events e on e.id = w.event_id left join app_private.event_targets(e.id) t on true
   order by e.id
$$;
comment on function app_private.fan_out_waiting(integer) is 'Up to p_limit waiting events of any agency (locked, skipping ones another poller holds), one line per target (endpoint_id null for an event without targets).';

/* 0013's per-agency read (its jobs may still be queued), on the waiting rows. */
create or replace function app_private.fan_out_batch(p_agency_id bigint, p_limit integer)
  returns table (id bigint, uuid uuid, mode text, topic text, event_name text, data jsonb, created_at timestamptz,
                 endpoint_id uuid, url text, kind text, request_id text)
  language sql volatile security definer set search_path = '' as $$
  with w as (
    select w.event_id from app_private.events_waiting w join app_public.events e on e.id = w.event_id
     where e.agency_id = p_agency_id and w.held_at is null
     order by w.event_id limit p_limit
       for update of w skip locked
  )
  select e.id, e.uuid, e.mode, e.topic, e.event_name, e.data, e.created_at, t.endpoint_id, t.url, t.kind, e.request_id
    from w join app_public.events e on e.id = w.event_id left join app_private.event_targets(e.id) t on true
   order by e.id
$$;

/* As in 0013, but an event is marked fanned out by deleting its waiting row. */
create or replace function app_private.create_event_deliveries(p_event_ids bigint[], p_deliveries jsonb) returns integer
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
  delete from app_private.events_waiting where event_id = any (p_event_ids);
  return n;
end
$$;
comment on function app_private.create_event_deliveries(bigint[], jsonb) is 'Create the deliveries of fanned-out events ([{event_id, endpoint_id, url, body}]; existing ones are kept), append them to each endpoint''s send batch and mark the events fanned out (their waiting rows deleted); returns how many were created.';

/* An event whose fan-out fails on its own is held, so it cannot block every agency's events behind it. */
create function app_private.hold_waiting_event(p_event_id bigint, p_error text) returns boolean
  language sql volatile security definer set search_path = '' as $$
  update app_private.events_waiting set held_at = now(), held_error = left(p_error, 1000)
   where event_id = p_event_id and held_at is null
  returning true
$$;
comment on function app_private.hold_waiting_event(bigint, text) is 'Hold a waiting event whose fan-out failed on its own with a data error (the poller skips held events); true when it was waiting and not held yet.';
