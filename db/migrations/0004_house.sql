-- The house: the writes that still happened as inline statements with their rules in route handlers become
-- state functions (form creation and duplication, the topic-endpoint upsert, v1 subscriptions); the "an
-- endpoint needs a URL" rule becomes a constraint; every function is documented with `comment on`, so \df+
-- and PostGraphile show what it does.

---------------------------------------------------------------------------------------------------------------
-- Forms

/* Create a draft form in the caller's agency and mode, owned by the agency or by one of its active agents. */
create function app_public.create_form(p_owner_agency_id bigint, p_owner_agent_id bigint, p_name text,
  p_insurance_line text, p_template_id text, p_structure jsonb)
  returns app_public.forms
  language plpgsql volatile security invoker set search_path = '' as $$
declare
  f app_public.forms;
begin
  if p_owner_agency_id is distinct from app_public.current_agency_id() then
    raise exception 'owner.agency_id must be the agency of the API key'
      using errcode = 'BADRF', column = 'owner.agency_id', detail = 'is not your agency';
  end if;
  if p_owner_agent_id is not null and not exists (
    select 1 from app_public.agents where id = p_owner_agent_id and agency_id = p_owner_agency_id and status = 'active'
  ) then
    raise exception 'owner.agent_id is not an active agent of the agency'
      using errcode = 'BADRF', column = 'owner.agent_id', detail = 'unknown or deactivated agent';
  end if;
  -- RLS (insert_own_mode) admits only admins of the caller's agency writing in the caller's mode.
  insert into app_public.forms (agency_id, mode, owner_agent_id, name, insurance_line, template_id, structure)
  values (p_owner_agency_id, app_public.current_mode(), p_owner_agent_id, p_name, p_insurance_line, p_template_id,
          coalesce(p_structure, '{"steps": []}'::jsonb))
  returning * into f;
  return f;
end
$$;
grant execute on function app_public.create_form(bigint, bigint, text, text, text, jsonb) to svc_request;

/* Copy a visible form into a new draft: new id and public_id, same owner, insurance line and working structure. */
create function app_public.duplicate_form(p_form_id bigint) returns app_public.forms
  language plpgsql volatile security invoker set search_path = '' as $$
declare
  f app_public.forms;
begin
  select * into f from app_public.forms where id = p_form_id;
  if not found then
    raise exception 'form not found' using errcode = 'NTFND';
  end if;
  insert into app_public.forms (agency_id, mode, owner_agent_id, name, insurance_line, template_id, structure)
  values (f.agency_id, app_public.current_mode(), f.owner_agent_id, left(f.name || ' (copy)', 200), f.insurance_line,
          f.template_id, f.structure)
  returning * into f;
  return f;
end
$$;
grant execute on function app_public.duplicate_form(bigint) to svc_request;

---------------------------------------------------------------------------------------------------------------
-- Webhook endpoints

-- A topic endpoint sends somewhere: at least one of its two URLs is set. (Before this migration the route
-- refused both empty on create and on update, so no stored row breaks it.)
alter table app_public.webhook_endpoints add constraint topic_has_url
  check (kind <> 'topic' or staging_url is not null or production_url is not null);

/*
 * Register or update the caller's endpoint of a topic. p_given names the fields the request carried
 * ('staging_url', 'production_url', 'auth'); the others keep their value. p_secret_ciphertext is stored only
 * when the endpoint is created (`created` says so). p_enabled, when not null, enables or disables it.
 */
create function app_public.put_topic_endpoint(p_topic text, p_staging_url text, p_production_url text,
  p_auth_kind text, p_auth_ciphertext text, p_given text[], p_secret_ciphertext text, p_enabled boolean,
  out endpoint app_public.webhook_endpoints, out created boolean)
  language plpgsql volatile security definer set search_path = '' as $$
begin
  if app_public.current_agency_id() is null or not app_public.current_is_admin() then
    raise exception 'managing webhook endpoints requires admin permissions' using errcode = 'FORBD';
  end if;
  select * into endpoint from app_public.webhook_endpoints
   where agency_id = app_public.current_agency_id() and kind = 'topic' and topic = p_topic
   for update;
  created := not found;
  if created then
    insert into app_public.webhook_endpoints (agency_id, kind, topic, staging_url, production_url, secret_ciphertext, auth_kind, auth_ciphertext)
    values (app_public.current_agency_id(), 'topic', p_topic, p_staging_url, p_production_url, p_secret_ciphertext,
            p_auth_kind, p_auth_ciphertext)
    returning * into endpoint;
  elsif cardinality(p_given) > 0 then
    update app_public.webhook_endpoints
       set staging_url = case when 'staging_url' = any (p_given) then p_staging_url else staging_url end,
           production_url = case when 'production_url' = any (p_given) then p_production_url else production_url end,
           auth_kind = case when 'auth' = any (p_given) then p_auth_kind else auth_kind end,
           auth_ciphertext = case when 'auth' = any (p_given) then p_auth_ciphertext else auth_ciphertext end
     where id = endpoint.id
    returning * into endpoint;
  end if;
  if p_enabled is not null then
    endpoint := app_public.set_webhook_endpoint_enabled(endpoint.id, p_enabled);
  end if;
end
$$;
grant execute on function app_public.put_topic_endpoint(text, text, text, text, text, text[], text, boolean) to svc_request;

/* Subscribe a URL to event names of the caller's agency (admin agents); created disabled when p_enabled is false. */
create function app_public.create_webhook_subscription(p_url text, p_events text[], p_description text,
  p_secret_ciphertext text, p_auth_kind text, p_auth_ciphertext text, p_enabled boolean)
  returns app_public.webhook_endpoints
  language plpgsql volatile security definer set search_path = '' as $$
declare
  w app_public.webhook_endpoints;
begin
  if app_public.current_agency_id() is null or not app_public.current_is_admin() then
    raise exception 'managing webhook subscriptions requires admin privileges in the agency' using errcode = 'FORBD';
  end if;
  insert into app_public.webhook_endpoints (agency_id, kind, url, events, description, created_by_agent_id, secret_ciphertext, auth_kind, auth_ciphertext)
  values (app_public.current_agency_id(), 'subscription', p_url, p_events, p_description, app_public.current_agent_id(),
          p_secret_ciphertext, p_auth_kind, p_auth_ciphertext)
  returning * into w;
  if p_enabled is false then
    w := app_public.set_webhook_endpoint_enabled(w.id, false);
  end if;
  return w;
end
$$;
grant execute on function app_public.create_webhook_subscription(text, text[], text, text, text, text, boolean) to svc_request;

---------------------------------------------------------------------------------------------------------------
-- Documentation: every function says what it does where operators look (\df+, PostGraphile).

comment on function app_public.current_role_name() is 'Role of the acting caller (svc.role): oauth_client, agent, admin, owner, read_only, system.';
comment on function app_public.current_agency_id() is 'Agency of the acting caller (svc.agency_id); read by the RLS policies.';
comment on function app_public.current_agent_id() is 'Agent of the acting caller (svc.agent_id), null for OAuth clients and API keys.';
comment on function app_public.current_oauth_client_id() is 'OAuth client of the acting caller (svc.oauth_client_id), null for agents and API keys.';
comment on function app_public.current_mode() is 'Data mode of the acting API key (svc.mode): test or live.';
comment on function app_public.current_is_admin() is 'Whether the acting caller is an admin or the owner of its agency (or an admin API key).';
comment on function app_private.tg__set_updated_at() is 'Trigger: keeps updated_at honest on every update.';
comment on function app_private.tg__refuse_direct_status_change() is 'Trigger: a status-like column changes only inside its state function (which sets svc.transition); raises STATE otherwise.';
comment on function app_private.tg__immutable() is 'Trigger: refuses every update of an immutable row (form snapshots); raises STATE.';
comment on function app_private.consume_rate_limit(text, integer, integer) is 'Spend one hit of a fixed-window rate-limit bucket; returns whether it was allowed, what remains and when the window resets.';
comment on function app_private.authenticate_bearer(bytea) is 'Resolve a bearer token''s hash to the acting identity (an OAuth client, or an active agent of an active agency).';
comment on function app_private.lock_linked_agency(bigint) is 'The agency linked to the calling OAuth client, locked for update; raises NTFND otherwise.';
comment on function app_private.unique_agent_slug(text) is 'A unique agent slug from a base, adding -2, -3 … on collision.';
comment on function app_private.insert_agent(bigint, text, text, text, text, text, boolean, boolean, text, bytea) is 'Insert an agent with a unique slug and its first token (by hash); raises EMAIL when the email is taken in the agency.';
comment on function app_public.create_agency(text, text, text, text, text, text, bytea) is 'Create an agency linked to the calling OAuth client, with its owner agent (an admin) and that agent''s token.';
comment on function app_public.create_agent(bigint, text, text, text, text, text, boolean, text, bytea) is 'Add an agent with its first token to an active agency linked to the calling OAuth client; DEACT for a deactivated agency.';
comment on function app_public.deactivate_agency(bigint) is 'Deactivate an agency linked to the calling OAuth client, and with it every agent. Idempotent.';
comment on function app_private.lock_manageable_agent(bigint) is 'The agent, locked, if the caller may act on it (the linked OAuth client, or an admin of its agency); NTFND or FORBD otherwise.';
comment on function app_public.deactivate_agent(bigint) is 'Deactivate an agent; the agency owner is refused (OWNER) until ownership is transferred. Idempotent.';
comment on function app_public.reset_agent_token(bigint, bytea) is 'Revoke every token of an active agent and store one new token (by hash).';
comment on function app_public.transfer_agency_ownership(bigint) is 'Make an active agent of the same agency its owner; the previous owner stays an admin. Owner or OAuth client only.';
comment on function app_private.purge_expired() is 'Hourly housekeeping (maintenance__purge): expired OAuth tokens and old rate-limit windows.';
comment on function app_public.set_agency_plan(bigint, text, integer, integer) is 'Set the plan of an agency linked to the calling OAuth client (per-minute and per-day limits only for enterprise).';
comment on function app_private.insert_api_key(bigint, text, text, text, bytea, text, text) is 'Insert an API key (by hash) created by the calling agent.';
comment on function app_private.assert_agency_admin(bigint) is 'Raise NTFND unless the agency is the caller''s own, FORBD unless the caller is one of its admins.';
comment on function app_public.create_api_key(bigint, text, text, text, bytea, text, text) is 'Create an API key of the caller''s agency (admins only); the key itself is made by the caller and stored as a hash.';
comment on function app_public.roll_api_key(bigint, bigint, integer, bytea, text, text) is 'Replace a live key by a new one with the same name, mode and permissions; the old key works for the grace period. KEYRV for a revoked or expired key.';
comment on function app_public.revoke_api_key(bigint, bigint) is 'Revoke an API key at once. Idempotent.';
comment on function app_private.authenticate_api_key(bytea) is 'Resolve an API key hash to its agency, mode, permissions and plan; records use at most once a minute.';
comment on function app_public.publish_form(bigint) is 'Publish the form''s working structure as an immutable snapshot: draft → active, or replace the live structure of an active form in place.';
comment on function app_private.claim_idempotency_key(bigint, text, uuid, text) is 'Claim an Idempotency-Key for a request: new (run it), running (a twin is in flight), mismatch, or done with the stored response.';
comment on function app_private.complete_idempotency_key(bigint, text, uuid, integer, jsonb, jsonb) is 'Store the response of a claimed Idempotency-Key (inside the request''s transaction, so it commits with the work).';
comment on function app_private.release_idempotency_key(bigint, text, uuid) is 'Forget a claim whose request failed unexpectedly, so the client may retry with the same key.';
comment on function app_private.purge_idempotency_keys() is 'Housekeeping (maintenance__purge): delete expired idempotency records; returns how many.';
comment on function app_private.queue_delivery(bigint, timestamptz) is 'Queue the deliveries__send job of a delivery (one job per delivery: the job key replaces a pending one).';
comment on function app_private.emit_event(bigint, text, text, text, jsonb) is 'Write an event to the outbox and queue its events__fan_out job, in the caller''s transaction.';
comment on function app_private.event_targets(bigint) is 'Endpoints an event goes to, with the URL for its mode (staging for test data, production for live).';
comment on function app_private.create_deliveries(bigint, jsonb) is 'Create the deliveries of an event (one per endpoint; repeated calls add nothing) and queue each.';
comment on function app_public.send_test_delivery(uuid, text) is 'Queue a test delivery of a sample body to an endpoint''s staging URL (or a subscription''s URL); NOURL when there is none.';
comment on function app_public.redeliver(bigint) is 'Send a delivery again as a new delivery of the same message (same message id, so receivers de-duplicate).';
comment on function app_private.record_delivery_attempt(bigint, timestamptz, integer, integer, jsonb, text, text, text, boolean, boolean, integer, interval) is 'Record one delivery attempt; finish the delivery or queue the next attempt; disable endpoints that are gone or failing too long.';
comment on function app_public.set_webhook_endpoint_enabled(uuid, boolean) is 'Enable or disable a webhook endpoint (admins); enabling resumes its pending deliveries.';
comment on function app_public.create_form(bigint, bigint, text, text, text, jsonb) is 'Create a draft form in the caller''s agency and mode, owned by the agency or one of its active agents; BADRF names a bad owner field.';
comment on function app_public.duplicate_form(bigint) is 'Copy a visible form into a new draft (new id and public_id, same owner and structure); NTFND otherwise.';
comment on function app_public.put_topic_endpoint(text, text, text, text, text, text[], text, boolean) is 'Register or update the caller''s endpoint of a topic (admins); the secret is stored only on creation; constraint topic_has_url needs one URL.';
comment on function app_public.create_webhook_subscription(text, text[], text, text, text, text, boolean) is 'Subscribe a URL to event names of the caller''s agency (admin agents), optionally created disabled.';

---------------------------------------------------------------------------------------------------------------
comment on table app_private.migrations is 'Applied migration files with their SHA-256 checksums (db/migrate.ts); a changed applied file refuses start-up.';
