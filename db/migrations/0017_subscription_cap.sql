-- v1 webhook subscriptions (SPEC §4.2): at most 100 per agency.
--
-- GET /v1/webhooks lists all of an agency's subscriptions (SPEC: "List all subscriptions"), with no paging,
-- and every event of the agency is fanned out to each matching one. Without a cap one admin token could
-- register thousands of URLs: an unbounded list response and a delivery fan-out multiplied per event. A
-- hundred is far above what an integration uses (one per receiving system and environment).

/* Subscribe a URL to events of the caller's agency (admins); refuses a 101st subscription with SUBMX. */
create or replace function app_public.create_webhook_subscription(p_url text, p_events text[], p_description text,
  p_secret_ciphertext text, p_auth_kind text, p_auth_ciphertext text, p_enabled boolean)
  returns app_public.webhook_endpoints
  language plpgsql volatile security definer set search_path = '' as $$
declare
  w app_public.webhook_endpoints;
  max_subscriptions constant integer := 100;
begin
  if app_public.current_agency_id() is null or not app_public.current_is_admin() then
    raise exception 'managing webhook subscriptions requires admin privileges in the agency' using errcode = 'FORBD';
  end if;
  -- Concurrent creates of one agency queue here, so the count below is exact.
  perform 1 from app_public.agencies g where g.id = app_public.current_agency_id() for no key update;
  if (select count(*) from app_public.webhook_endpoints e
       where e.agency_id = app_public.current_agency_id() and e.kind = 'subscription') >= max_subscriptions then
    raise exception 'an agency has at most % webhook subscriptions; delete one it no longer uses', max_subscriptions
      using errcode = 'SUBMX', column = 'url', detail = format('the agency already has %s subscriptions', max_subscriptions);
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
comment on function app_public.create_webhook_subscription(text, text[], text, text, text, text, boolean) is
  'Subscribe a URL to event names of the caller''s agency (admin agents), optionally created disabled; at most 100 per agency (SUBMX).';
