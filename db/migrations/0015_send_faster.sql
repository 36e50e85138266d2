-- Faster durable delivery (issue 14, third step): first attempts are claimed by the worker's send loop, not run
-- as graphile-worker jobs, and the worker's own commits do not wait for the disk.
--
-- Until 0014 the first attempts of an endpoint's deliveries were appended to the endpoint's waiting
-- deliveries__send job (add_job with job_key_mode 'preserve_run_at': the job row and its growing array payload
-- rewritten for every fan-out batch), and each batch cost get_job, a read, the record and complete_job: about four
-- round trips and two or more commits. Now a delivery due for its first attempt is a row of
-- app_private.deliveries_due. The worker process runs a send loop (tasks/deliveries__send.ts startSendLoop) that
-- records the attempts it made, releases what it could not send and claims the next due deliveries in one
-- statement (send_round), so one commit serves a whole round. A claim is a lease: due_at moves to now() + lease,
-- so the deliveries of a worker killed while sending are due again when the lease ends; sooner in practice, since
-- the claim names its loop (claimed_by), which beats in app_private.worker_heartbeats like graphile-worker's
-- workers, and the heartbeat of a live process gives back the claims of one that stopped beating, as it releases
-- its jobs. Claiming uses `for update skip locked`: several processes may run the loop.
--
-- Retries, redeliveries and test sends stay one graphile-worker job each (queue_delivery, at their own run_at);
-- deliveries__send jobs queued before this migration still run.
--
-- Worker commits are asynchronous (synchronous_commit off, set locally in send_round and in the fan-out
-- transaction, never in a request's transaction): a crash of Postgres may lose the last few hundred milliseconds
-- of them. What they record is then undone as a whole (WAL is replayed in order) and redone: a lost fan-out
-- leaves its events waiting, a lost record leaves its deliveries pending and due. A redone delivery has the same
-- message_id (msg_<event id>_<endpoint id>, the webhook-id header), so receivers can drop the duplicate.

create table app_private.deliveries_due (
  delivery_id bigint primary key references app_public.webhook_deliveries (id) on delete cascade,
  due_at timestamptz not null default now(),
  claimed_by text
);
create index deliveries_due_due_at_idx on app_private.deliveries_due (due_at);
comment on table app_private.deliveries_due is 'Deliveries waiting for the send loop (first attempts, and deliveries of an endpoint enabled again); a claimed one has due_at at the end of its claim''s lease. The row is deleted when its attempt is recorded.';
comment on column app_private.deliveries_due.delivery_id is 'The delivery to send.';
comment on column app_private.deliveries_due.claimed_by is 'The send loop holding the claim (its id in app_private.worker_heartbeats): when that process stops beating, the worker heartbeat gives its claims back at once instead of after the lease.';
comment on column app_private.deliveries_due.due_at is 'When the send loop may take it: now for a new one, the end of the lease for a claimed one (a worker killed while sending leaves it to be taken again then).';

/* First attempts are rows for the send loop now (same signature as 0005/0010: fan-out and endpoint enabling call it). */
create or replace function app_private.queue_deliveries(p_endpoint_id uuid, p_delivery_ids bigint[]) returns void
  language sql volatile security definer set search_path = '' as $$
  insert into app_private.deliveries_due (delivery_id)
  select x from unnest(p_delivery_ids) x order by x
  on conflict (delivery_id) do update set due_at = now(), claimed_by = null
$$;
comment on function app_private.queue_deliveries(uuid, bigint[]) is 'Make deliveries of one endpoint due now for the worker''s send loop (app_private.deliveries_due), taking back a claim in progress (a loop that claimed them while the endpoint was disabled would drop them); p_endpoint_id is kept for the callers'' signature.';

/*
 * One round of the send loop in one statement and one (asynchronous) commit: record the attempts made, forget the
 * claims that are finished (sent, or found not sendable), give back the claims that were not sent (shutdown), and
 * claim up to p_limit due deliveries for p_lease, skipping the endpoints in p_skip_endpoints (the caller already
 * holds enough of theirs). Returns the claimed deliveries with what is needed to send them.
 */
create function app_private.send_round(p_worker text, p_attempts jsonb, p_done bigint[], p_release bigint[], p_limit integer,
  p_lease interval, p_skip_endpoints uuid[], p_disable_after interval)
  returns table (id bigint, attempt_count integer, message_id text, mode text, is_test boolean, url text, body text,
                 endpoint_id uuid, enabled boolean, status text, secret_ciphertext text, auth_ciphertext text, request_id text)
  language plpgsql volatile security definer set search_path = '' as $$
begin
  -- Only the worker calls this: its commit need not wait for the WAL flush (see the head of this migration).
  perform set_config('synchronous_commit', 'off', true);
  if jsonb_array_length(p_attempts) > 0 then
    perform app_private.record_delivery_attempts(p_attempts, p_disable_after);
  end if;
  -- Only claims still this loop's: a claim taken back meanwhile (an endpoint enabled again, the heartbeat of a
  -- process that took this one for dead) is due again and left alone.
  if cardinality(p_done) > 0 then
    delete from app_private.deliveries_due where delivery_id = any (p_done) and claimed_by = p_worker;
  end if;
  if cardinality(p_release) > 0 then
    update app_private.deliveries_due set due_at = now(), claimed_by = null where delivery_id = any (p_release) and claimed_by = p_worker;
  end if;
  if p_limit > 0 then
    return query
      with c as (
        select q.delivery_id from app_private.deliveries_due q
         where q.due_at <= now()
           and (cardinality(p_skip_endpoints) = 0
                or not exists (select 1 from app_public.webhook_deliveries s where s.id = q.delivery_id and s.endpoint_id = any (p_skip_endpoints)))
         order by q.due_at limit p_limit -- the index order: a backlog is not sorted on every round
           for update skip locked
      ), claimed as (
        update app_private.deliveries_due q set due_at = now() + p_lease, claimed_by = p_worker from c where q.delivery_id = c.delivery_id
        returning q.delivery_id
      )
      select d.id, d.attempt_count, d.message_id, d.mode, d.is_test, d.url, d.body, w.id, w.enabled, d.status, w.secret_ciphertext,
             w.auth_ciphertext, d.request_id
        from claimed k join app_public.webhook_deliveries d on d.id = k.delivery_id join app_public.webhook_endpoints w on w.id = d.endpoint_id
       order by d.id;
  end if;
end
$$;
comment on function app_private.send_round(text, jsonb, bigint[], bigint[], integer, interval, uuid[], interval) is 'The send loop''s round: record attempts (record_delivery_attempts), forget finished claims, release unsent ones, and claim up to p_limit due deliveries for p_lease in the name of p_worker; one asynchronous commit.';

/* The fan-out transaction commits asynchronously too (its caller sets it; this makes legacy fan-out jobs do the same). */
create or replace function app_private.create_event_deliveries(p_event_ids bigint[], p_deliveries jsonb) returns integer
  language plpgsql volatile security definer set search_path = '' as $$
declare
  n int := 0;
  g record;
begin
  perform set_config('synchronous_commit', 'off', true);
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
comment on function app_private.create_event_deliveries(bigint[], jsonb) is 'Create the deliveries of fanned-out events ([{event_id, endpoint_id, url, body}]; existing ones are kept), make them due for the send loop and mark the events fanned out (their waiting rows deleted); commits asynchronously (worker only). Returns how many were created.';
