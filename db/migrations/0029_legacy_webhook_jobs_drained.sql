-- The webhook jobs only older releases queued are drained, so the worker keeps one code path for each:
-- an events__fan_out job ({event_id} or {agency_id}) is redundant, since every event not yet fanned out has a row in
-- app_private.events_waiting that the outbox poller reads; a deliveries__send job carrying an array of an endpoint's
-- first attempts becomes those deliveries' rows in app_private.deliveries_due, which the send loop claims.
-- Retries, redeliveries and test sends (one delivery_id per job) stay jobs.
do $$
declare
  v_fan_out bigint[];
  v_batches bigint[];
begin
  select coalesce(array_agg(k.id), '{}') into v_fan_out
    from graphile_worker._private_jobs k join graphile_worker._private_tasks t on t.id = k.task_id
   where t.identifier = 'events__fan_out' and k.locked_at is null;

  select coalesce(array_agg(k.id), '{}') into v_batches
    from graphile_worker._private_jobs k join graphile_worker._private_tasks t on t.id = k.task_id
   where t.identifier = 'deliveries__send' and json_typeof(k.payload) = 'array' and k.locked_at is null;

  insert into app_private.deliveries_due (delivery_id, endpoint_id)
  select d.id, d.endpoint_id
    from graphile_worker._private_jobs k
    cross join lateral json_array_elements(k.payload) e
    join app_public.webhook_deliveries d on d.id = (e ->> 'delivery_id')::bigint
   where k.id = any (v_batches) and d.status = 'pending'
   order by d.id
  on conflict (delivery_id) do nothing;

  perform graphile_worker.complete_jobs(v_fan_out || v_batches);
end
$$;
