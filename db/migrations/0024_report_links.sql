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
