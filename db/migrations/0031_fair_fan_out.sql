-- A fair share of each fan-out batch for every agency with events waiting.
--
-- fan_out_waiting took the oldest waiting events of any agency: one agency emitting a thousand events at once put
-- every other agency's next event behind all of them (two full batches, about 200 ms, before its delivery was
-- created; bench webhooks-neighbour). Now a batch takes at most p_share events of each agency (a fifth of the batch
-- unless given), oldest first, from the oldest ten batches' worth of waiting events: an agency's new event goes out
-- in the next batch beside the burst's next share. The poller runs the next batch at once while any agency fills
-- its share (tasks/webhooks/outbox.ts), so a burst still drains batch after batch.
--
-- A waiting event carries its agency, written by emit_event, so choosing the shares reads only the waiting rows.
alter table app_private.events_waiting add column agency_id bigint;
update app_private.events_waiting w set agency_id = e.agency_id from app_public.events e where e.id = w.event_id;
alter table app_private.events_waiting alter column agency_id set not null;
comment on column app_private.events_waiting.agency_id is 'The event''s agency (as on app_public.events), for each agency''s share of a fan-out batch.';

create or replace function app_private.emit_event(p_agency_id bigint, p_mode text, p_topic text, p_event_name text, p_data jsonb) returns bigint
  language sql volatile security definer set search_path = '' as $$
  with e as (
    insert into app_public.events (agency_id, mode, topic, event_name, data)
    values (p_agency_id, p_mode, p_topic, p_event_name, p_data) returning id
  ), w as (
    insert into app_private.events_waiting (event_id, agency_id) select id, p_agency_id from e
  )
  select id from e
$$;

drop function app_private.fan_out_waiting(integer);

create function app_private.fan_out_waiting(p_limit integer, p_share integer default null)
  returns table (id bigint, uuid uuid, mode text, topic text, event_name text, data jsonb, created_at timestamptz,
                 endpoint_id uuid, url text, kind text, request_id text)
  language sql volatile security definer set search_path = '' as $$
  select e.id, e.uuid, e.mode, e.topic, e.event_name, e.data, e.created_at, t.endpoint_id, t.url, t.kind, e.request_id
    from app_public.events e left join app_private.event_targets(e.id) t on true
   where e.id = any (array(
           select w.event_id from app_private.events_waiting w
            where w.held_at is null
              and w.event_id = any (array(
                select r.event_id from (
                  select o.event_id, row_number() over (partition by o.agency_id order by o.event_id) as nth
                    from (select x.event_id, x.agency_id from app_private.events_waiting x where x.held_at is null
                           order by x.event_id limit p_limit * 10) o) r
                 where r.nth <= coalesce(p_share, greatest(1, p_limit / 5))
                 order by r.event_id limit p_limit))
            order by w.event_id
              for update skip locked))
   order by e.id
$$;
comment on function app_private.fan_out_waiting(integer, integer) is 'Up to p_limit waiting events (locked, skipping ones another poller holds), at most p_share of each agency (default a fifth of p_limit) from the oldest 10 × p_limit waiting, oldest first, one line per target (endpoint_id null for an event without targets).';
