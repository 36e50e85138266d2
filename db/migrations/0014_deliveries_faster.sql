-- Faster durable delivery (issue 14, continued): the outbox is polled; emitting an event is one insert.
--
-- 0013 woke one events__fan_out job per agency and 50 ms slice: the slice's first emitter called add_job,
-- later ones share-locked the job's row. Measured alone (bench "webhooks", stage (a)), emit_event then wrote
-- 452 events/s with 4 writers against 1,613/s for a plain insert into events: the share lock writes the job's
-- tuple (and a MultiXact once two emitters hold it) on every emit, and every emitter of an agency touches the
-- same row. Emitting is now only the insert. The worker process polls the outbox instead (tasks/events__fan_out.ts
-- startOutboxPoller): every few milliseconds when idle, at once while batches come back full, it reads and locks
-- the oldest waiting events of every agency (fan_out_waiting, `for update skip locked`, so pollers of several
-- processes never take the same event) and turns them into deliveries with create_event_deliveries (0013), in
-- one transaction. An event committed late (a long request) is simply seen by a later poll: nothing is lost,
-- and running a batch twice adds nothing (one delivery per event and endpoint). events__fan_out jobs queued
-- before this migration (payload {agency_id} or {event_id}) still run.

drop index app_public.events_waiting_fan_out_idx;
create index events_waiting_idx on app_public.events (id) where fanned_out_at is null;

/* Write an event to the outbox (waiting for fan-out), in the caller's transaction. */
create or replace function app_private.emit_event(p_agency_id bigint, p_mode text, p_topic text, p_event_name text, p_data jsonb)
  returns bigint
  language sql volatile security definer set search_path = '' as $$
  insert into app_public.events (agency_id, mode, topic, event_name, data)
  values (p_agency_id, p_mode, p_topic, p_event_name, p_data) returning id
$$;
comment on function app_private.emit_event(bigint, text, text, text, jsonb) is 'Write an event to the outbox in the caller''s transaction; the worker''s outbox poller fans it out after the commit.';

drop function app_private.wake_fan_out(bigint);

/* The oldest waiting events of any agency with their targets, locked for this transaction (concurrent pollers skip them). */
create function app_private.fan_out_waiting(p_limit integer)
  returns table (id bigint, uuid uuid, mode text, topic text, event_name text, data jsonb, created_at timestamptz,
                 endpoint_id uuid, url text, kind text, request_id text)
  language sql volatile security definer set search_path = '' as $$
  with e as (
    select * from app_public.events
     where fanned_out_at is null
     order by id limit p_limit
       for update skip locked
  )
  select e.id, e.uuid, e.mode, e.topic, e.event_name, e.data, e.created_at, t.endpoint_id, t.url, t.kind, e.request_id
    from e left join app_private.event_targets(e.id) t on true
   order by e.id
$$;
comment on function app_private.fan_out_waiting(integer) is 'Up to p_limit waiting events of any agency (locked, skipping ones another poller holds), one line per target (endpoint_id null for an event without targets).';


-- Fewer index entries per delivery: each delivery inserts one entry per index and, since its status update
-- cannot be HOT (the pending index's predicate reads status), one more per index when it is delivered; each
-- attempt one per index. (agency_id) is the leading column of (agency_id, mode) on both tables, which serves
-- the same lookups and the policies; redelivery_of is null but for redeliveries, and `redelivery_of = $1` (the
-- foreign key's check, the redelivery lookups) implies not null, so a partial index serves them.
drop index app_public.webhook_deliveries_agency_id_idx;
drop index app_public.webhook_delivery_attempts_agency_id_idx;
drop index app_public.webhook_deliveries_redelivery_of_idx;
create index webhook_deliveries_redelivery_of_idx on app_public.webhook_deliveries (redelivery_of) where redelivery_of is not null;
