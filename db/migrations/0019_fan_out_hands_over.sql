-- The fan-out hands its deliveries to the send loop of its own process already claimed (issue 14, fifth step).
--
-- Until now a delivery made by the outbox poller was queued due now (app_private.deliveries_due), and the send loop
-- of the same process found it on its next round: read the due row, updated it (the claim: a non-HOT update of a
-- row just written, with a new entry in its due_at index) and read the delivery and its endpoint back, the body
-- the poller had built a moment before included. Now the poller says which of the deliveries it creates the
-- loop has room for (app_private.create_event_deliveries_claimed): their due rows are written claimed by that loop
-- for its lease, in the same statement, and the statement returns what the loop needs that the poller does not
-- already hold (the delivery's id and message id, its endpoint's state and encrypted credentials).
--
-- Crash safety is the claim's, as before: a process killed after the commit leaves its claims to the worker
-- heartbeat of a live process (claimed_by names the dead loop) or, with none left, to the lease. Deliveries the
-- loop has no room for, and those of a disabled endpoint, are queued due now, as create_event_deliveries queues them.

create function app_private.create_event_deliveries_claimed(p_event_ids bigint[], p_deliveries jsonb, p_worker text, p_lease interval)
  returns table (id bigint, event_id bigint, endpoint_id uuid, message_id text, mode text, request_id text, enabled boolean,
                 secret_ciphertext text, auth_ciphertext text)
  language plpgsql volatile security definer set search_path = '' as $$
#variable_conflict use_column
-- (the output columns share their names with the tables' columns, which are meant wherever a name is used)
begin
  -- Only the worker calls this: its commit need not wait for the WAL flush (see the head of 0015).
  perform set_config('synchronous_commit', 'off', true);
  return query
    with items as (
      select (x ->> 'event_id')::bigint event_id, (x ->> 'endpoint_id')::uuid endpoint_id, x ->> 'url' url, x ->> 'body' body,
             coalesce((x ->> 'claim')::boolean, false) claim
        from jsonb_array_elements(p_deliveries) x
    ), created as (
      insert into app_public.webhook_deliveries (agency_id, endpoint_id, event_id, message_id, mode, url, body, request_id)
      select e.agency_id, i.endpoint_id, e.id, 'msg_' || e.id || '_' || replace(i.endpoint_id::text, '-', ''), e.mode, i.url, i.body, e.request_id
        from items i
        join app_public.events e on e.id = i.event_id
       where e.id = any (p_event_ids) -- by key, whatever the planner guesses of the events table's size
       order by e.id, i.endpoint_id
      on conflict (event_id, endpoint_id) where redelivery_of is null and event_id is not null do nothing
      returning id, event_id, endpoint_id, message_id, mode, request_id
    ), given as (
      -- A disabled endpoint's delivery is not handed over: it waits due, as before 0019, so the loop reads the
      -- endpoint's state after this commit. This statement's snapshot can predate the commit of a transaction that
      -- enables the endpoint (set_webhook_endpoint_enabled locks the endpoint, and the delivery's foreign key
      -- check waits for it, keeping the older snapshot); the loop would drop such a claim as disabled, while the
      -- enabling transaction, which makes the endpoint's pending deliveries due again, could not see this one.
      select c.*, i.claim and w.enabled claim, w.enabled, w.secret_ciphertext, w.auth_ciphertext
        from created c
        join items i on i.event_id = c.event_id and i.endpoint_id = c.endpoint_id
        join app_public.webhook_endpoints w on w.id = c.endpoint_id
    ), due as (
      insert into app_private.deliveries_due (delivery_id, endpoint_id, due_at, claimed_by)
      select g.id, g.endpoint_id, case when g.claim then now() + p_lease else now() end, case when g.claim then p_worker end
        from given g
       order by g.id
    )
    select g.id, g.event_id, g.endpoint_id, g.message_id, g.mode, g.request_id, g.enabled, g.secret_ciphertext, g.auth_ciphertext
      from given g
     where g.claim
     order by g.id;
  delete from app_private.events_waiting w where w.event_id = any (p_event_ids);
end
$$;
comment on function app_private.create_event_deliveries_claimed(bigint[], jsonb, text, interval) is 'As create_event_deliveries (one delivery per event and endpoint, existing ones kept, the events marked done), but the deliveries marked "claim" whose endpoint is enabled are queued claimed by the send loop p_worker for p_lease and returned to it, with their endpoint''s state and encrypted credentials; the others are queued due now.';
