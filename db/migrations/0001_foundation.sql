-- Foundation: schemas, the request role, identity helpers, OAuth clients, agencies, agents, agent tokens,
-- rate-limit counters. Tenant tables force row-level security; every state change is a function here.

create schema if not exists app_public;
create schema if not exists app_private;

-- The role every API request runs as (set local role svc_request, or log in as a member of it).
-- It owns nothing and is subject to RLS.
do $$
begin
  if not exists (select 1 from pg_roles where rolname = 'svc_request') then
    create role svc_request nologin;
  end if;
end
$$;

-- Requests reach app_private only through security-definer functions granted one by one; no table in it is
-- granted to svc_request.
revoke all on schema app_public, app_private from public;
grant usage on schema app_public, app_private to svc_request;
alter default privileges revoke execute on functions from public;

-- Identity of the acting caller, set per request transaction with set_config(..., true).
create function app_public.current_role_name() returns text
  language sql stable parallel safe as $$ select nullif(current_setting('svc.role', true), '') $$;
create function app_public.current_agency_id() returns bigint
  language sql stable parallel safe as $$ select nullif(current_setting('svc.agency_id', true), '')::bigint $$;
create function app_public.current_agent_id() returns bigint
  language sql stable parallel safe as $$ select nullif(current_setting('svc.agent_id', true), '')::bigint $$;
create function app_public.current_oauth_client_id() returns bigint
  language sql stable parallel safe as $$ select nullif(current_setting('svc.oauth_client_id', true), '')::bigint $$;
create function app_public.current_mode() returns text
  language sql stable parallel safe as $$ select nullif(current_setting('svc.mode', true), '') $$;
create function app_public.current_is_admin() returns boolean
  language sql stable parallel safe as $$ select coalesce(current_setting('svc.role', true) in ('admin', 'owner'), false) $$;
grant execute on function app_public.current_role_name(), app_public.current_agency_id(), app_public.current_agent_id(),
  app_public.current_oauth_client_id(), app_public.current_mode(), app_public.current_is_admin() to svc_request;

-- Shared trigger: keep updated_at honest.
create function app_private.tg__set_updated_at() returns trigger
  language plpgsql volatile as $$
begin
  new.updated_at := now();
  return new;
end
$$;

-- Shared trigger: a status-like column changes only inside a state function, which sets svc.transition.
create function app_private.tg__refuse_direct_status_change() returns trigger
  language plpgsql volatile as $$
begin
  if coalesce(current_setting('svc.transition', true), '') <> 'on' then
    raise exception '% of % changes only through its state function', tg_argv[0], tg_table_name using errcode = 'STATE';
  end if;
  return new;
end
$$;

---------------------------------------------------------------------------------------------------------------
-- OAuth clients (partners' platforms) and their access tokens. Secrets live here only as SHA-256 hashes.
create table app_private.oauth_clients (
  id bigint generated always as identity primary key,
  client_id text not null unique,
  name text not null check (length(name) between 1 and 200),
  secret_hash bytea not null check (length(secret_hash) = 32),
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
comment on table app_private.oauth_clients is 'Partner platforms that provision agencies (OAuth 2.0 client credentials).';

create table app_private.oauth_access_tokens (
  token_hash bytea primary key check (length(token_hash) = 32),
  oauth_client_id bigint not null references app_private.oauth_clients (id) on delete cascade,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null
);
create index oauth_access_tokens_oauth_client_id_idx on app_private.oauth_access_tokens (oauth_client_id);
create index oauth_access_tokens_expires_at_idx on app_private.oauth_access_tokens (expires_at);
comment on table app_private.oauth_access_tokens is 'Bearer tokens issued by POST /oauth/token; expired rows are purged hourly.';

---------------------------------------------------------------------------------------------------------------
-- Agencies
create table app_public.agencies (
  id bigint generated always as identity primary key,
  oauth_client_id bigint not null references app_private.oauth_clients (id) on delete restrict,
  name text not null check (length(btrim(name)) between 1 and 200),
  color_code text check (color_code ~ '^[0-9A-Fa-f]{6}$'),
  logo_key text,
  referral text check (length(referral) <= 200),
  status text not null default 'active' check (status in ('active', 'deactivated')),
  deactivated_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
alter table app_public.agencies enable row level security;
alter table app_public.agencies force row level security;
create index agencies_oauth_client_id_idx on app_public.agencies (oauth_client_id);
create trigger _100_timestamps before update on app_public.agencies
  for each row execute function app_private.tg__set_updated_at();
create trigger _200_status before update of status on app_public.agencies
  for each row when (old.status is distinct from new.status)
  execute function app_private.tg__refuse_direct_status_change('status');
-- An OAuth client sees the agencies linked to it; an agent sees its own agency.
create policy select_linked_or_own on app_public.agencies for select using (
  oauth_client_id = (select app_public.current_oauth_client_id())
  or id = (select app_public.current_agency_id())
);
create policy update_own_as_admin on app_public.agencies for update using (
  id = (select app_public.current_agency_id()) and (select app_public.current_is_admin())
);
grant select on app_public.agencies to svc_request;
grant update (name, color_code, logo_key) on app_public.agencies to svc_request;
comment on table app_public.agencies is 'An organisation that owns forms and has agents; linked to the OAuth client that created it.';
comment on column app_public.agencies.color_code is 'Branding colour, six hex digits without the leading #.';

---------------------------------------------------------------------------------------------------------------
-- Agents
create table app_public.agents (
  id bigint generated always as identity primary key,
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  first_name text not null check (length(btrim(first_name)) between 1 and 100),
  last_name text not null check (length(btrim(last_name)) between 1 and 100),
  email text not null check (email ~ '^[^@\s]+@[^@\s]+\.[^@\s]+$' and length(email) <= 254),
  slug text not null unique check (slug ~ '^[a-z0-9]+(-[a-z0-9]+)*$' and length(slug) <= 80),
  phone_number text check (length(phone_number) <= 40),
  is_admin boolean not null default false,
  is_owner boolean not null default false,
  profile_picture_key text,
  status text not null default 'active' check (status in ('active', 'deactivated')),
  deactivated_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now(),
  constraint owner_is_admin check (not is_owner or is_admin)
);
alter table app_public.agents enable row level security;
alter table app_public.agents force row level security;
create index agents_agency_id_idx on app_public.agents (agency_id);
create unique index agents_one_owner_per_agency on app_public.agents (agency_id) where is_owner;
create unique index agents_email_per_agency on app_public.agents (agency_id, lower(email));
create index agents_lower_email_idx on app_public.agents (lower(email));
create trigger _100_timestamps before update on app_public.agents
  for each row execute function app_private.tg__set_updated_at();
create trigger _200_status before update of status, is_owner on app_public.agents
  for each row when (old.status is distinct from new.status or old.is_owner is distinct from new.is_owner)
  execute function app_private.tg__refuse_direct_status_change('status/is_owner');
create policy select_linked_or_own on app_public.agents for select using (
  agency_id = (select app_public.current_agency_id())
  or agency_id in (select a.id from app_public.agencies a where a.oauth_client_id = (select app_public.current_oauth_client_id()))
);
create policy update_own_as_admin on app_public.agents for update using (
  agency_id = (select app_public.current_agency_id()) and (select app_public.current_is_admin())
);
grant select on app_public.agents to svc_request;
grant update (first_name, last_name, email, phone_number, is_admin, profile_picture_key) on app_public.agents to svc_request;
comment on table app_public.agents is 'A person in an agency; the slug is used in hosted form links.';
comment on column app_public.agents.is_owner is 'The one agent that owns the agency; moved with app_public.transfer_agency_ownership.';

create table app_private.agent_tokens (
  token_hash bytea primary key check (length(token_hash) = 32),
  agent_id bigint not null references app_public.agents (id) on delete cascade,
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index agent_tokens_agent_id_idx on app_private.agent_tokens (agent_id);
comment on table app_private.agent_tokens is 'Agent access tokens (hashes); a reset revokes every earlier token of the agent.';

---------------------------------------------------------------------------------------------------------------
-- Rate-limit counters, fixed windows, shared by every process.
create table app_private.rate_limit_counters (
  bucket text not null,
  window_start timestamptz not null,
  hits integer not null default 0,
  primary key (bucket, window_start)
);
create index rate_limit_counters_window_start_idx on app_private.rate_limit_counters (window_start);
comment on table app_private.rate_limit_counters is 'One row per bucket and window; rows older than a day are purged.';

create function app_private.consume_rate_limit(p_bucket text, p_limit integer, p_window_seconds integer,
  out allowed boolean, out remaining integer, out reset_at bigint)
  language sql volatile security definer set search_path = '' as $$
  with w as (
    select to_timestamp(floor(extract(epoch from now()) / p_window_seconds) * p_window_seconds) as start
  ), hit as (
    insert into app_private.rate_limit_counters as c (bucket, window_start, hits)
    select p_bucket, w.start, 1 from w
    on conflict (bucket, window_start) do update set hits = c.hits + 1
    returning c.hits, c.window_start
  )
  select hit.hits <= p_limit, greatest(p_limit - hit.hits, 0),
         (extract(epoch from hit.window_start)::bigint + p_window_seconds)
  from hit
$$;
grant execute on function app_private.consume_rate_limit(text, integer, integer) to svc_request;

---------------------------------------------------------------------------------------------------------------
-- Authentication: resolve a bearer token's hash to the acting identity (bypasses RLS, so it lives here).
create function app_private.authenticate_bearer(p_token_hash bytea,
  out kind text, out oauth_client_id bigint, out agency_id bigint, out agent_id bigint, out role text)
  returns setof record
  language sql stable security definer set search_path = '' as $$
  select 'oauth_client', t.oauth_client_id, null::bigint, null::bigint, 'oauth_client'
  from app_private.oauth_access_tokens t
  join app_private.oauth_clients c on c.id = t.oauth_client_id
  where t.token_hash = p_token_hash and t.expires_at > now() and c.revoked_at is null
  union all
  select 'agent', null, g.id, a.id, case when a.is_owner then 'owner' when a.is_admin then 'admin' else 'agent' end
  from app_private.agent_tokens t
  join app_public.agents a on a.id = t.agent_id
  join app_public.agencies g on g.id = a.agency_id
  where t.token_hash = p_token_hash and t.revoked_at is null and a.status = 'active' and g.status = 'active'
$$;
grant execute on function app_private.authenticate_bearer(bytea) to svc_request;

---------------------------------------------------------------------------------------------------------------
-- State functions. Each checks scope and state, changes the row, and says why it refused with a stable code.

-- Visible agency linked to the calling OAuth client, locked; raises NTFND otherwise.
create function app_private.lock_linked_agency(p_agency_id bigint) returns app_public.agencies
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v app_public.agencies;
begin
  select * into v from app_public.agencies
   where id = p_agency_id and oauth_client_id = app_public.current_oauth_client_id()
   for update;
  if not found then
    raise exception 'agency % not found', p_agency_id using errcode = 'NTFND';
  end if;
  return v;
end
$$;

-- Unique slug from a base, adding -2, -3 … on collision.
create function app_private.unique_agent_slug(p_base text) returns text
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v_base text := left(coalesce(nullif(p_base, ''), 'agent'), 70);
  v_try text := v_base;
  n int := 1;
begin
  while exists (select 1 from app_public.agents where slug = v_try) loop
    n := n + 1;
    v_try := v_base || '-' || n;
  end loop;
  return v_try;
end
$$;

create function app_private.insert_agent(p_agency_id bigint, p_first_name text, p_last_name text, p_email text,
  p_slug_base text, p_phone_number text, p_is_admin boolean, p_is_owner boolean, p_picture_key text, p_token_hash bytea)
  returns app_public.agents
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v app_public.agents;
begin
  if exists (select 1 from app_public.agents where agency_id = p_agency_id and lower(email) = lower(p_email)) then
    raise exception 'an agent with email % already exists in this agency', p_email using errcode = 'EMAIL';
  end if;
  for attempt in 1..5 loop
    begin
      insert into app_public.agents (agency_id, first_name, last_name, email, slug, phone_number, is_admin, is_owner, profile_picture_key)
      values (p_agency_id, btrim(p_first_name), btrim(p_last_name), btrim(p_email), app_private.unique_agent_slug(p_slug_base),
              nullif(btrim(p_phone_number), ''), p_is_admin or p_is_owner, p_is_owner, p_picture_key)
      returning * into v;
      exit;
    exception when unique_violation then
      -- a concurrent insert took the same slug; pick again
      if attempt = 5 then raise; end if;
    end;
  end loop;
  insert into app_private.agent_tokens (token_hash, agent_id) values (p_token_hash, v.id);
  return v;
end
$$;

/* Create an agency linked to the calling OAuth client, with its owner agent (an admin) and that agent's token. */
create function app_public.create_agency(p_name text, p_referral text, p_first_name text, p_last_name text,
  p_email text, p_slug_base text, p_token_hash bytea, out agency app_public.agencies, out agent app_public.agents)
  language plpgsql volatile security definer set search_path = '' as $$
begin
  if app_public.current_oauth_client_id() is null then
    raise exception 'only an OAuth client creates agencies' using errcode = 'FORBD';
  end if;
  insert into app_public.agencies (oauth_client_id, name, referral)
  values (app_public.current_oauth_client_id(), btrim(p_name), nullif(btrim(p_referral), ''))
  returning * into agency;
  agent := app_private.insert_agent(agency.id, p_first_name, p_last_name, p_email, p_slug_base, null, true, true, null, p_token_hash);
end
$$;
grant execute on function app_public.create_agency(text, text, text, text, text, text, bytea) to svc_request;

/* Add an agent to an active agency linked to the calling OAuth client. */
create function app_public.create_agent(p_agency_id bigint, p_first_name text, p_last_name text, p_email text,
  p_slug_base text, p_phone_number text, p_is_admin boolean, p_picture_key text, p_token_hash bytea)
  returns app_public.agents
  language plpgsql volatile security definer set search_path = '' as $$
declare
  g app_public.agencies := app_private.lock_linked_agency(p_agency_id);
begin
  if g.status <> 'active' then
    raise exception 'agency % is deactivated', p_agency_id using errcode = 'DEACT';
  end if;
  return app_private.insert_agent(g.id, p_first_name, p_last_name, p_email, p_slug_base, p_phone_number, p_is_admin, false, p_picture_key, p_token_hash);
end
$$;
grant execute on function app_public.create_agent(bigint, text, text, text, text, text, boolean, text, bytea) to svc_request;

/* Deactivate an agency linked to the calling OAuth client, and with it every agent. Idempotent. */
create function app_public.deactivate_agency(p_agency_id bigint) returns app_public.agencies
  language plpgsql volatile security definer set search_path = '' as $$
declare
  g app_public.agencies := app_private.lock_linked_agency(p_agency_id);
begin
  perform set_config('svc.transition', 'on', true);
  update app_public.agents set status = 'deactivated', deactivated_at = coalesce(deactivated_at, now())
   where agency_id = g.id and status = 'active';
  update app_public.agencies set status = 'deactivated', deactivated_at = coalesce(deactivated_at, now())
   where id = g.id returning * into g;
  perform set_config('svc.transition', '', true);
  return g;
end
$$;
grant execute on function app_public.deactivate_agency(bigint) to svc_request;

-- The agent, locked, if the caller may act on it: the linked OAuth client, or an admin of its agency.
create function app_private.lock_manageable_agent(p_agent_id bigint) returns app_public.agents
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v app_public.agents;
begin
  select a.* into v from app_public.agents a join app_public.agencies g on g.id = a.agency_id
   where a.id = p_agent_id
     and (g.oauth_client_id = app_public.current_oauth_client_id() or a.agency_id = app_public.current_agency_id())
   for update of a;
  if not found then
    raise exception 'agent % not found', p_agent_id using errcode = 'NTFND';
  end if;
  if app_public.current_oauth_client_id() is null and not app_public.current_is_admin() then
    raise exception 'managing agents requires admin privileges in the agency' using errcode = 'FORBD';
  end if;
  return v;
end
$$;

/* Deactivate an agent. The agency owner is refused until ownership is transferred. Idempotent. */
create function app_public.deactivate_agent(p_agent_id bigint) returns app_public.agents
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v app_public.agents := app_private.lock_manageable_agent(p_agent_id);
begin
  if v.status = 'deactivated' then
    return v;
  end if;
  if v.is_owner then
    raise exception 'agent % owns the agency; transfer ownership first (PATCH another agent with is_owner: true)', p_agent_id
      using errcode = 'OWNER';
  end if;
  perform set_config('svc.transition', 'on', true);
  update app_public.agents set status = 'deactivated', deactivated_at = now() where id = v.id returning * into v;
  perform set_config('svc.transition', '', true);
  return v;
end
$$;
grant execute on function app_public.deactivate_agent(bigint) to svc_request;

/* Replace every token of an active agent with one new token (given by its hash). */
create function app_public.reset_agent_token(p_agent_id bigint, p_token_hash bytea) returns app_public.agents
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v app_public.agents := app_private.lock_manageable_agent(p_agent_id);
begin
  if v.status <> 'active' then
    raise exception 'agent % is deactivated', p_agent_id using errcode = 'DEACT';
  end if;
  update app_private.agent_tokens set revoked_at = now() where agent_id = v.id and revoked_at is null;
  insert into app_private.agent_tokens (token_hash, agent_id) values (p_token_hash, v.id);
  return v;
end
$$;
grant execute on function app_public.reset_agent_token(bigint, bytea) to svc_request;

/* Make an active agent of the same agency its owner; the previous owner stays an admin. Owner or OAuth client only. */
create function app_public.transfer_agency_ownership(p_agent_id bigint) returns app_public.agents
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v app_public.agents := app_private.lock_manageable_agent(p_agent_id);
begin
  if app_public.current_oauth_client_id() is null and app_public.current_role_name() <> 'owner' then
    raise exception 'only the agency owner can transfer ownership' using errcode = 'FORBD';
  end if;
  if v.status <> 'active' then
    raise exception 'agent % is deactivated', p_agent_id using errcode = 'DEACT';
  end if;
  if v.is_owner then
    return v;
  end if;
  perform set_config('svc.transition', 'on', true);
  update app_public.agents set is_owner = false where agency_id = v.agency_id and is_owner;
  update app_public.agents set is_owner = true, is_admin = true where id = v.id returning * into v;
  perform set_config('svc.transition', '', true);
  return v;
end
$$;
grant execute on function app_public.transfer_agency_ownership(bigint) to svc_request;

/* Hourly housekeeping: expired OAuth tokens and old rate-limit windows. */
create function app_private.purge_expired() returns void
  language sql volatile security definer set search_path = '' as $$
  delete from app_private.oauth_access_tokens where expires_at < now() - interval '1 hour';
  delete from app_private.rate_limit_counters where window_start < now() - interval '1 day';
$$;
