-- Two SPEC wording fixes of the integrator's contract (issue 30).
--
-- SPEC §2.5 types an agency's color_code as a string: a new agency starts with the service's default brand
-- colour (the one the hosted pages and the dashboard already showed for an agency without its own), and
-- agencies made before this migration get it too, so no API answer carries a null colour.
--
-- SPEC §8's plans (free 5 a minute and 50 a day, pro 30 and 1,000) count document submissions: extraction
-- uploads and lease analyses. Reads of their records (status polls, lists, unknown /api paths) spend a budget of
-- their own, per agency and window, given by the caller (a setting), and answer with the same X-RateLimit
-- headers; a refused read counts in the agency's api:rejected day bucket like a refused submission.

update app_public.agencies set color_code = '2563eb' where color_code is null;
alter table app_public.agencies alter column color_code set default '2563eb';
alter table app_public.agencies alter column color_code set not null;
comment on column app_public.agencies.color_code is 'Branding colour, six hex digits without the leading #; a new agency starts with the service''s default brand colour 2563eb.';

create function app_private.authenticate_api_request(p_key_hash bytea, p_address text, p_anon_limit integer, p_anon_window integer,
  p_read_limit integer,
  out api_key_id bigint, out agency_id bigint, out mode text, out permissions text,
  out allowed boolean, out lim integer, out remaining integer, out reset_at bigint)
  language plpgsql volatile security definer set search_path = '' as $$
declare
  m record;
begin
  -- A document submission: the plan's minute and day budgets, as before.
  if p_read_limit is null then
    select * into api_key_id, agency_id, mode, permissions, allowed, lim, remaining, reset_at
      from app_private.authenticate_api_request(p_key_hash, p_address, p_anon_limit, p_anon_window);
    return;
  end if;
  if p_key_hash is not null then
    select k.api_key_id, k.agency_id, k.mode, k.permissions
      into api_key_id, agency_id, mode, permissions
      from app_private.authenticate_api_key(p_key_hash) k limit 1;
  end if;
  if api_key_id is null then
    select * into m from app_private.consume_rate_limit('api:addr:' || coalesce(p_address, '?'), p_anon_limit, p_anon_window);
    allowed := m.allowed; lim := p_anon_limit; remaining := m.remaining; reset_at := m.reset_at;
    return;
  end if;
  select * into m from app_private.consume_rate_limit('api:read:' || agency_id, p_read_limit, p_anon_window);
  allowed := m.allowed; lim := p_read_limit; remaining := m.remaining; reset_at := m.reset_at;
  if not m.allowed then
    perform app_private.consume_rate_limit('api:rejected:' || agency_id, 2147483647, 86400);
  end if;
end
$$;
grant execute on function app_private.authenticate_api_request(bytea, text, integer, integer, integer) to svc_request;
comment on function app_private.authenticate_api_request(bytea, text, integer, integer, integer) is 'Authenticate an X-API-Key and spend one unit of a budget: a document submission (p_read_limit null) spends the agency''s plan budgets (minute, day); a read spends the agency''s read budget of p_read_limit per p_anon_window seconds. Returns the binding window for the X-RateLimit headers; a refusal also counts in the agency''s api:rejected day bucket.';
