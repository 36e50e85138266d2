-- The rest of the agency dashboard (issue 16): agent slugs that would collide with the service's own route
-- words are reserved; rate-limit rejections of the /api plan budgets are counted per agency and day (only on
-- the rejection path, so an allowed request costs nothing more); the usage page reads the agency's counters
-- through one function; the agency-wide extraction list has an index in its order.

---------------------------------------------------------------------------------------------------------------
-- Reserved agent slugs: hosted forms live at /{agent_slug}/form/…, so an agent must never get a slug that is
-- the first segment of another path of the service (lib/slug.ts RESERVED_SLUGS holds the same list; a test
-- compares them and checks the list covers every route).

/* The first path segments of the service's own routes: never an agent slug. */
create function app_private.reserved_agent_slugs() returns text[]
  language sql immutable parallel safe as $$
  select array['api', 'assets', 'dashboard', 'docs', 'files', 'graphiql', 'graphql', 'healthz', 'metrics', 'oauth',
               'openapi', 'v1', 'v2', 'v3']
$$;
comment on function app_private.reserved_agent_slugs() is 'First path segments of the service''s own routes (dashboard, api, v1, …): never given to an agent as its slug.';

/* Unique slug from a base, adding -2, -3 … on collision with an agent or a reserved route word. */
create or replace function app_private.unique_agent_slug(p_base text) returns text
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v_base text := left(coalesce(nullif(p_base, ''), 'agent'), 70);
  v_try text := v_base;
  n int := 1;
begin
  while v_try = any (app_private.reserved_agent_slugs()) or exists (select 1 from app_public.agents where slug = v_try) loop
    n := n + 1;
    v_try := v_base || '-' || n;
  end loop;
  return v_try;
end
$$;
comment on function app_private.unique_agent_slug(text) is 'A unique agent slug from a base, adding -2, -3 … on collision with another agent or a reserved route word (reserved_agent_slugs).';

---------------------------------------------------------------------------------------------------------------
-- Plan limits of the /api surface, as 0006, plus one hit of the agency's day bucket `api:rejected:<id>` when a
-- request is refused, so the dashboard can say how many were.
create or replace function app_private.authenticate_api_request(p_key_hash bytea, p_address text, p_anon_limit integer, p_anon_window integer,
  out api_key_id bigint, out agency_id bigint, out mode text, out permissions text,
  out allowed boolean, out lim integer, out remaining integer, out reset_at bigint)
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v_plan text;
  per_min integer;
  per_day integer;
  m record;
  d record;
begin
  if p_key_hash is not null then
    select k.api_key_id, k.agency_id, k.mode, k.permissions, k.plan,
           case k.plan when 'free' then 5 when 'pro' then 30 else k.plan_per_minute end,
           case k.plan when 'free' then 50 when 'pro' then 1000 else k.plan_per_day end
      into api_key_id, agency_id, mode, permissions, v_plan, per_min, per_day
      from app_private.authenticate_api_key(p_key_hash) k limit 1;
  end if;
  if api_key_id is null then
    select * into m from app_private.consume_rate_limit('api:addr:' || coalesce(p_address, '?'), p_anon_limit, p_anon_window);
    allowed := m.allowed; lim := p_anon_limit; remaining := m.remaining; reset_at := m.reset_at;
    return;
  end if;
  select * into m from app_private.consume_rate_limit('api:min:' || agency_id, per_min, 60);
  if not m.allowed then
    allowed := false; lim := per_min; remaining := 0; reset_at := m.reset_at;
    perform app_private.consume_rate_limit('api:rejected:' || agency_id, 2147483647, 86400);
    return;
  end if;
  select * into d from app_private.consume_rate_limit('api:day:' || agency_id, per_day, 86400);
  allowed := d.allowed;
  if not d.allowed then
    perform app_private.consume_rate_limit('api:rejected:' || agency_id, 2147483647, 86400);
  end if;
  if not d.allowed or d.remaining < m.remaining then
    lim := per_day; remaining := d.remaining; reset_at := d.reset_at;
  else
    lim := per_min; remaining := m.remaining; reset_at := m.reset_at;
  end if;
end
$$;
comment on function app_private.authenticate_api_request(bytea, text, integer, integer) is 'Authenticate an X-API-Key and spend one unit of its agency''s plan budgets (minute, day); the binding window for the X-RateLimit headers; a refusal also counts in the agency''s api:rejected day bucket.';

/* The calling agency's plan, its limits and today's counters of the /api surface (both modes: one budget). */
create function app_private.agency_api_usage(out plan text, out per_minute integer, out per_day integer,
  out minute_requests integer, out day_requests integer, out rejected_today integer,
  out minute_resets_at timestamptz, out day_resets_at timestamptz)
  language sql stable security definer set search_path = '' as $$
  with w as (
    select to_timestamp(floor(extract(epoch from now()) / 60) * 60) as minute,
           to_timestamp(floor(extract(epoch from now()) / 86400) * 86400) as day
  ), g as (
    select a.id, a.plan,
           case a.plan when 'free' then 5 when 'pro' then 30 else a.plan_per_minute end as per_minute,
           case a.plan when 'free' then 50 when 'pro' then 1000 else a.plan_per_day end as per_day
      from app_public.agencies a where a.id = app_public.current_agency_id() and app_public.current_is_admin()
  )
  select g.plan, g.per_minute, g.per_day,
         -- refused hits of the minute bucket are counted as rejections, not as requests served
         least(coalesce(m.hits, 0), g.per_minute), least(coalesce(d.hits, 0), g.per_day), coalesce(r.hits, 0),
         w.minute + interval '60 seconds', w.day + interval '1 day'
    from g cross join w
    left join app_private.rate_limit_counters m on m.bucket = 'api:min:' || g.id and m.window_start = w.minute
    left join app_private.rate_limit_counters d on d.bucket = 'api:day:' || g.id and d.window_start = w.day
    left join app_private.rate_limit_counters r on r.bucket = 'api:rejected:' || g.id and r.window_start = w.day
$$;
grant execute on function app_private.agency_api_usage() to svc_request;
comment on function app_private.agency_api_usage() is 'For an admin of the calling agency: its plan and limits, the /api requests served this minute and today (UTC day) and the requests refused today.';

---------------------------------------------------------------------------------------------------------------
-- The dashboard lists an agency's extractions newest first (admins see every agent's).
create index extractions_agency_id_created_idx on app_public.extractions (agency_id, created_at desc, id desc);
