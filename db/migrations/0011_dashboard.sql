-- The agency dashboard (issue 16): one-time sign-in links asked for by the partner's server for an agent, and
-- browser sessions opened with them. Both live in app_private (never readable by requests) and hold only
-- SHA-256 hashes of the link token and of the session id. A session acts as its agent (same role and agency
-- as the agent's token, under the same RLS); it ends on sign-out, after inactivity, when the agent or agency
-- is deactivated, and when the agent's token is reset.

---------------------------------------------------------------------------------------------------------------
create table app_private.dashboard_links (
  token_hash bytea primary key,
  agent_id bigint not null references app_public.agents (id) on delete cascade,
  created_by_oauth_client_id bigint references app_private.oauth_clients (id) on delete set null,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null,
  used_at timestamptz
);
create index dashboard_links_agent_id_idx on app_private.dashboard_links (agent_id);
create index dashboard_links_created_by_oauth_client_id_idx on app_private.dashboard_links (created_by_oauth_client_id);
create index dashboard_links_expires_at_idx on app_private.dashboard_links (expires_at);
comment on table app_private.dashboard_links is 'One-time dashboard sign-in links (SHA-256 of the token): valid for minutes and for one use.';

create table app_private.dashboard_sessions (
  id_hash bytea primary key,
  agent_id bigint not null references app_public.agents (id) on delete cascade,
  created_at timestamptz not null default now(),
  last_seen_at timestamptz not null default now(),
  ended_at timestamptz,
  ended_reason text check (ended_reason in ('sign_out', 'token_reset'))
);
create index dashboard_sessions_agent_id_idx on app_private.dashboard_sessions (agent_id);
create index dashboard_sessions_last_seen_at_idx on app_private.dashboard_sessions (last_seen_at);
comment on table app_private.dashboard_sessions is 'Dashboard browser sessions (SHA-256 of the cookie''s random id), acting as their agent.';

---------------------------------------------------------------------------------------------------------------
/* A one-time sign-in link for an active agent of an agency linked to the calling OAuth client. */
create function app_public.create_dashboard_link(p_agent_id bigint, p_token_hash bytea, p_ttl_seconds integer)
  returns timestamptz
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v app_public.agents := app_private.lock_manageable_agent(p_agent_id);
  v_expires timestamptz := now() + make_interval(secs => p_ttl_seconds);
begin
  if v.status <> 'active' then
    raise exception 'agent % is deactivated', p_agent_id using errcode = 'DEACT';
  end if;
  if exists (select 1 from app_public.agencies g where g.id = v.agency_id and g.status <> 'active') then
    raise exception 'the agency of agent % is deactivated', p_agent_id using errcode = 'DEACT';
  end if;
  insert into app_private.dashboard_links (token_hash, agent_id, created_by_oauth_client_id, expires_at)
  values (p_token_hash, v.id, app_public.current_oauth_client_id(), v_expires);
  return v_expires;
end
$$;
grant execute on function app_public.create_dashboard_link(bigint, bytea, integer) to svc_request;
comment on function app_public.create_dashboard_link(bigint, bytea, integer) is 'Store a one-time dashboard sign-in link (its hash) for an agent; returns when it expires.';

/* Use a sign-in link once: an unused, unexpired link of an active agent opens a session (no row otherwise). */
create function app_private.start_dashboard_session(p_link_hash bytea, p_session_hash bytea)
  returns table (agent_id bigint)
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v_agent bigint;
begin
  update app_private.dashboard_links l set used_at = now()
   where l.token_hash = p_link_hash and l.used_at is null and l.expires_at > now()
     and exists (select 1 from app_public.agents a join app_public.agencies g on g.id = a.agency_id
                  where a.id = l.agent_id and a.status = 'active' and g.status = 'active')
  returning l.agent_id into v_agent;
  if v_agent is null then
    return;
  end if;
  insert into app_private.dashboard_sessions (id_hash, agent_id) values (p_session_hash, v_agent);
  agent_id := v_agent;
  return next;
end
$$;
grant execute on function app_private.start_dashboard_session(bytea, bytea) to svc_request;
comment on function app_private.start_dashboard_session(bytea, bytea) is 'Consume a dashboard sign-in link and open a session for its agent; no row when the link is used, expired or its agent inactive.';

/* The identity behind a live session (seen within p_idle_seconds, agent and agency active); touches last_seen_at. */
create function app_private.authenticate_dashboard_session(p_session_hash bytea, p_idle_seconds integer)
  returns table (agent_id bigint, agency_id bigint, role text, first_name text, last_name text, agency_name text, color_code text)
  language sql volatile security definer set search_path = '' as $$
  update app_private.dashboard_sessions s set last_seen_at = now()
    from app_public.agents a join app_public.agencies g on g.id = a.agency_id
   where s.id_hash = p_session_hash and s.ended_at is null
     and s.last_seen_at > now() - make_interval(secs => p_idle_seconds)
     and a.id = s.agent_id and a.status = 'active' and g.status = 'active'
  returning a.id, g.id, case when a.is_owner then 'owner' when a.is_admin then 'admin' else 'agent' end,
    a.first_name, a.last_name, g.name, g.color_code
$$;
grant execute on function app_private.authenticate_dashboard_session(bytea, integer) to svc_request;
comment on function app_private.authenticate_dashboard_session(bytea, integer) is 'Resolve a dashboard session cookie to its agent''s identity and record the activity; no row when it is ended, idle or its agent inactive.';

/* Sign out: end the session (idempotent). */
create function app_private.end_dashboard_session(p_session_hash bytea) returns void
  language sql volatile security definer set search_path = '' as $$
  update app_private.dashboard_sessions set ended_at = now(), ended_reason = 'sign_out'
   where id_hash = p_session_hash and ended_at is null
$$;
grant execute on function app_private.end_dashboard_session(bytea) to svc_request;
comment on function app_private.end_dashboard_session(bytea) is 'End a dashboard session on sign-out.';

/* A new agent token (reset) ends the agent's open dashboard sessions. */
create function app_private.tg_agent_tokens__end_dashboard_sessions() returns trigger
  language plpgsql volatile security definer set search_path = '' as $$
begin
  update app_private.dashboard_sessions set ended_at = now(), ended_reason = 'token_reset'
   where agent_id = new.agent_id and ended_at is null;
  return new;
end
$$;
create trigger _900_end_dashboard_sessions after insert on app_private.agent_tokens
  for each row execute function app_private.tg_agent_tokens__end_dashboard_sessions();
comment on function app_private.tg_agent_tokens__end_dashboard_sessions() is 'Ends an agent''s dashboard sessions when its access token is reset.';

/* Forget sessions and links long past any use. */
create function app_private.purge_dashboard_sessions() returns void
  language sql volatile security definer set search_path = '' as $$
  delete from app_private.dashboard_links where expires_at < now() - interval '1 day';
  delete from app_private.dashboard_sessions where coalesce(ended_at, last_seen_at) < now() - interval '30 days';
$$;
comment on function app_private.purge_dashboard_sessions() is 'Delete dashboard links and sessions long past any use.';
