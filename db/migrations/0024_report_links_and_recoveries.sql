-- Shareable compliance reports (issue 31): a signed, expiring, revocable link to an analysis's report that works
-- without credentials, for a property manager to forward to the tenant. The link's id and expiry are signed by
-- the service (lib/links.ts reportLinkKey); the row is what makes the link revocable, and what the unauthenticated
-- report route asks (app_private.report_link_target) before it shows anything.

create table app_public.report_links (
  id uuid primary key default gen_random_uuid(),
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  analysis_id uuid not null references app_public.analyses (id) on delete cascade,
  api_key_id bigint references app_public.api_keys (id) on delete set null,
  expires_at timestamptz not null,
  revoked_at timestamptz,
  created_at timestamptz not null default now(),
  constraint expires_after_creation check (expires_at > created_at)
);
alter table app_public.report_links enable row level security;
alter table app_public.report_links force row level security;
create index report_links_agency_id_mode_idx on app_public.report_links (agency_id, mode);
create index report_links_mode_idx on app_public.report_links (mode);
create index report_links_analysis_id_idx on app_public.report_links (analysis_id);
create index report_links_api_key_id_idx on app_public.report_links (api_key_id);
create policy select_own_mode on app_public.report_links for select
  using (agency_id = (select app_public.current_agency_id()) and app_public.mode_visible(mode));
grant select on app_public.report_links to svc_request;
comment on table app_public.report_links is 'Signed links to an analysis''s compliance report that work without credentials until expires_at, unless revoked; made and revoked only through app_private.create_report_link and app_private.revoke_report_link.';
comment on column app_public.report_links.expires_at is 'The link is refused after this instant (also signed into the URL, so a changed expiry never verifies).';
comment on column app_public.report_links.revoked_at is 'Set once by app_private.revoke_report_link: the link is refused from then on.';

/* A completed analysis the caller sees gets a report link valid for p_ttl_seconds. */
create function app_private.create_report_link(p_analysis_id uuid, p_ttl_seconds integer) returns app_public.report_links
  language plpgsql volatile security definer set search_path = '' as $$
declare
  a app_public.analyses;
  l app_public.report_links;
begin
  if app_public.current_agency_id() is null or app_public.current_mode() is null then
    raise exception 'report links are made with an API key' using errcode = 'FORBD';
  end if;
  select * into a from app_public.analyses
   where id = p_analysis_id and agency_id = app_public.current_agency_id() and mode = app_public.current_mode();
  if not found then
    raise exception 'analysis % not found', p_analysis_id using errcode = 'NTFND';
  end if;
  if a.status <> 'completed' then
    raise exception 'analysis % is %: a report exists only for a completed analysis', p_analysis_id, a.status using errcode = 'RPTNC';
  end if;
  insert into app_public.report_links (agency_id, mode, analysis_id, api_key_id, expires_at)
  values (a.agency_id, a.mode, a.id, nullif(current_setting('svc.api_key_id', true), '')::bigint,
          date_trunc('second', now()) + make_interval(secs => p_ttl_seconds))
  returning * into l;
  return l;
end
$$;
grant execute on function app_private.create_report_link(uuid, integer) to svc_request;
comment on function app_private.create_report_link(uuid, integer) is 'Make a report link for a completed analysis of the caller''s agency and mode (API key), expiring after p_ttl_seconds; NTFND for an analysis outside the scope, RPTNC for one not completed.';

/* Revoke a report link of the caller's agency and mode; revoking twice keeps the first instant. */
create function app_private.revoke_report_link(p_analysis_id uuid, p_link_id uuid) returns app_public.report_links
  language plpgsql volatile security definer set search_path = '' as $$
declare
  l app_public.report_links;
begin
  if app_public.current_agency_id() is null or app_public.current_mode() is null then
    raise exception 'report links are revoked with an API key' using errcode = 'FORBD';
  end if;
  update app_public.report_links set revoked_at = coalesce(revoked_at, now())
   where id = p_link_id and analysis_id = p_analysis_id
     and agency_id = app_public.current_agency_id() and mode = app_public.current_mode()
  returning * into l;
  if not found then
    raise exception 'report link % not found', p_link_id using errcode = 'NTFND';
  end if;
  return l;
end
$$;
grant execute on function app_private.revoke_report_link(uuid, uuid) to svc_request;
comment on function app_private.revoke_report_link(uuid, uuid) is 'Revoke a report link of the caller''s agency and mode (API key): the link is refused from then on; NTFND for a link outside the scope.';

/* What an unauthenticated request may learn from a link id whose signature checked: whether it still works. */
create function app_private.report_link_target(p_link_id uuid, out analysis_id uuid, out agency_id bigint, out mode text, out state text)
  language sql stable security definer set search_path = '' as $$
  select l.analysis_id, l.agency_id, l.mode,
         case when l.revoked_at is not null then 'revoked' when l.expires_at <= now() then 'expired' else 'ok' end
    from app_public.report_links l
   where l.id = p_link_id
$$;
grant execute on function app_private.report_link_target(uuid) to svc_request;
comment on function app_private.report_link_target(uuid) is 'The analysis, agency and mode a report link opens and whether it still works (ok, expired, revoked); no row for an unknown link.';

-- Bulk recovery of failed deliveries (issue 31): after an outage on the partner's side, every delivery of an
-- endpoint that ended failed in a window is sent again, in the original order, under its original message id
-- (webhook-id). A recovery keeps the originals' ids in order and sends one at a time: the next redelivery is made
-- and queued when the previous one's first attempt is recorded (trigger _300_recovery_next), so the receiver gets
-- them in order and at most one of them is in flight, whatever the send loop's concurrency.

create table app_public.webhook_recoveries (
  id uuid primary key default gen_random_uuid(),
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  endpoint_id uuid not null references app_public.webhook_endpoints (id) on delete cascade,
  mode text check (mode in ('test', 'live')),
  since timestamptz not null,
  until timestamptz,
  cutoff timestamptz not null,
  original_ids bigint[] not null,
  next_position integer not null default 1,
  status text not null default 'running' check (status in ('running', 'completed')),
  request_id text,
  created_at timestamptz not null default now(),
  completed_at timestamptz,
  constraint window_forward check (until is null or until > since),
  constraint position_in_range check (next_position between 1 and cardinality(original_ids) + 1)
);
alter table app_public.webhook_recoveries enable row level security;
alter table app_public.webhook_recoveries force row level security;
create index webhook_recoveries_agency_id_idx on app_public.webhook_recoveries (agency_id);
create index webhook_recoveries_mode_idx on app_public.webhook_recoveries (mode);
create index webhook_recoveries_endpoint_id_idx on app_public.webhook_recoveries (endpoint_id);
-- Idempotent per window: the same endpoint, scope and window is one recovery.
create unique index webhook_recoveries_once_per_window on app_public.webhook_recoveries
  (endpoint_id, coalesce(mode, 'all'), since, coalesce(until, 'infinity'::timestamptz));
create trigger _200_status before update of status on app_public.webhook_recoveries for each row
  when (old.status is distinct from new.status) execute function app_private.tg__refuse_direct_status_change('status');
create policy select_own_mode on app_public.webhook_recoveries for select
  using (agency_id = (select app_public.current_agency_id())
         and (mode = (select app_public.current_mode()) or (select app_public.current_sees_all_modes())));
grant select on app_public.webhook_recoveries to svc_request;
comment on table app_public.webhook_recoveries is 'A bulk recovery: the failed deliveries of an endpoint in a window, sent again one at a time in their original order under their message ids; made by app_public.recover_deliveries and advanced by app_private.advance_recovery.';
comment on column app_public.webhook_recoveries.mode is 'The mode whose deliveries are recovered (the API key''s), or null for both (a v1 agent token).';
comment on column app_public.webhook_recoveries.cutoff is 'The end of the window used: until, or the instant the recovery was made when until was not given.';
comment on column app_public.webhook_recoveries.original_ids is 'The failed deliveries recovered, in their original order (created_at, id); one per message.';
comment on column app_public.webhook_recoveries.next_position is 'Position in original_ids of the next delivery to send again; past the end once all were queued.';

alter table app_public.webhook_deliveries add column recovery_id uuid references app_public.webhook_recoveries (id) on delete set null;
create index webhook_deliveries_recovery_id_idx on app_public.webhook_deliveries (recovery_id) where recovery_id is not null;
grant select (recovery_id) on app_public.webhook_deliveries to svc_request;
comment on column app_public.webhook_deliveries.recovery_id is 'The bulk recovery that made this redelivery, if any.';

/* Make the next redelivery of a recovery and queue it; complete the recovery when none is left. */
create function app_private.advance_recovery(p_recovery_id uuid) returns void
  language plpgsql volatile security definer set search_path = '' as $$
declare
  r app_public.webhook_recoveries;
  old app_public.webhook_deliveries;
  w app_public.webhook_endpoints;
  v_id bigint;
begin
  select * into r from app_public.webhook_recoveries where id = p_recovery_id and status = 'running' for update;
  if not found then
    return;
  end if;
  select * into w from app_public.webhook_endpoints where id = r.endpoint_id;
  while r.next_position <= cardinality(r.original_ids) loop
    select * into old from app_public.webhook_deliveries where id = r.original_ids[r.next_position];
    r.next_position := r.next_position + 1;
    if found then
      -- To the endpoint's URL for the delivery's mode now (the partner may have fixed it during the outage).
      insert into app_public.webhook_deliveries (agency_id, endpoint_id, event_id, redelivery_of, message_id, mode, is_test, url, body, request_id, recovery_id)
      values (old.agency_id, old.endpoint_id, old.event_id, old.id, old.message_id, old.mode, old.is_test,
              coalesce(case when w.kind = 'subscription' then w.url when old.mode = 'live' then w.production_url else w.staging_url end, old.url),
              old.body, r.request_id, r.id)
      returning id into v_id;
      perform app_private.queue_delivery(v_id);
      exit;
    end if;
  end loop;
  perform set_config('svc.transition', 'on', true);
  update app_public.webhook_recoveries
     set next_position = r.next_position,
         status = case when v_id is null then 'completed' else status end,
         completed_at = case when v_id is null then now() else completed_at end
   where id = r.id;
  perform set_config('svc.transition', '', true);
end
$$;
comment on function app_private.advance_recovery(uuid) is 'Send the next delivery of a recovery again (a new delivery of the same message to the endpoint''s current URL, queued), or mark the recovery completed when none is left.';

/* A recovery's redelivery had its first attempt: the next one may go. */
create function app_private.tg_webhook_deliveries__recovery_next() returns trigger
  language plpgsql volatile security definer set search_path = '' as $$
begin
  perform app_private.advance_recovery(new.recovery_id);
  return null;
end
$$;
comment on function app_private.tg_webhook_deliveries__recovery_next() is 'Trigger: after the first attempt of a recovery''s redelivery, make and queue the next one (order kept, one in flight).';
create trigger _300_recovery_next after update of attempt_count on app_public.webhook_deliveries for each row
  when (new.recovery_id is not null and old.attempt_count = 0 and new.attempt_count > 0)
  execute function app_private.tg_webhook_deliveries__recovery_next();

/* The deliveries a recovery of this endpoint, scope and window would send again: one per message, oldest first. */
create function app_private.recoverable_deliveries(p_endpoint_id uuid, p_mode text, p_since timestamptz, p_until timestamptz)
  returns bigint[]
  language sql stable security definer set search_path = '' as $$
  select coalesce(array_agg(f.id order by f.created_at, f.id), '{}')
    from (
      select distinct on (d.message_id) d.id, d.created_at
        from app_public.webhook_deliveries d
       where d.endpoint_id = p_endpoint_id and d.status = 'failed' and not d.is_test and d.redelivery_of is null
         and (p_mode is null or d.mode = p_mode)
         and d.created_at >= p_since and d.created_at < p_until
         -- A message delivered since (a redelivery by hand, an earlier recovery) or on its way again is left alone.
         and not exists (select 1 from app_public.webhook_deliveries n
                          where n.endpoint_id = d.endpoint_id and n.message_id = d.message_id and n.status in ('delivered', 'pending'))
       order by d.message_id, d.created_at, d.id
    ) f
$$;
comment on function app_private.recoverable_deliveries(uuid, text, timestamptz, timestamptz) is 'Ids of the failed deliveries of an endpoint in [since, until) of a mode (null: both) that no later delivery of the same message delivered or is sending, oldest first.';

/* Start (or find, for the same window) the recovery of an endpoint's failed deliveries; admins only. */
create function app_public.recover_deliveries(p_endpoint_id uuid, p_since timestamptz, p_until timestamptz, p_dry_run boolean default false)
  returns app_public.webhook_recoveries
  language plpgsql volatile security definer set search_path = '' as $$
declare
  w app_public.webhook_endpoints;
  r app_public.webhook_recoveries;
  v_mode text := app_public.current_mode();
  v_cutoff timestamptz := coalesce(p_until, now());
begin
  select * into w from app_public.webhook_endpoints where id = p_endpoint_id and agency_id = app_public.current_agency_id();
  if not found then
    raise exception 'webhook endpoint % not found', p_endpoint_id using errcode = 'NTFND';
  end if;
  if not app_public.current_is_admin() then
    raise exception 'recovering deliveries requires admin permissions' using errcode = 'FORBD';
  end if;
  if p_until is not null and p_until <= p_since then
    raise exception 'until must be after since' using errcode = 'RCVWN', column = 'until', detail = 'must be after since';
  end if;
  if p_since > now() then
    raise exception 'since is in the future' using errcode = 'RCVWN', column = 'since', detail = 'must not be in the future';
  end if;
  select * into r from app_public.webhook_recoveries x
   where x.endpoint_id = w.id and coalesce(x.mode, 'all') = coalesce(v_mode, 'all') and x.since = p_since
     and coalesce(x.until, 'infinity'::timestamptz) = coalesce(p_until, 'infinity'::timestamptz);
  if found then
    return r;
  end if;
  r := row(gen_random_uuid(), w.agency_id, w.id, v_mode, p_since, p_until, v_cutoff,
           app_private.recoverable_deliveries(w.id, v_mode, p_since, v_cutoff), 1, 'running', app_private.current_request_id(), now(), null)::app_public.webhook_recoveries;
  if p_dry_run then
    return r;
  end if;
  insert into app_public.webhook_recoveries select r.*;
  perform app_private.advance_recovery(r.id);
  select * into r from app_public.webhook_recoveries where id = r.id;
  return r;
end
$$;
grant execute on function app_public.recover_deliveries(uuid, timestamptz, timestamptz, boolean) to svc_request;
comment on function app_public.recover_deliveries(uuid, timestamptz, timestamptz, boolean) is 'Recover the failed deliveries of an endpoint in [since, until or now) for the caller''s mode (an agent token: both): the same window returns the recovery made before; with p_dry_run nothing is stored (the count the dashboard shows before confirming).';
