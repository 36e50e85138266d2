-- Embed origins belong to a mode, as webhook URLs do (issue 28): a sandbox key lists the origins that may frame the
-- agency's test forms, a live key those of its live forms, and the hosted page of a form reads the list of the
-- form's own mode (for frame-ancestors and as the target of its messages). Before, one list served both modes, so a
-- test key changed what live form pages allowed.

-- An existing list served the forms of both modes: it is kept for both.
alter table app_public.embed_origins add column mode text;
insert into app_public.embed_origins (agency_id, origin, created_at, mode)
select agency_id, origin, created_at, 'test' from app_public.embed_origins;
update app_public.embed_origins set mode = 'live' where mode is null;
alter table app_public.embed_origins
  alter column mode set not null,
  add constraint embed_origins_mode_check check (mode in ('test', 'live')),
  drop constraint embed_origins_pkey,
  add primary key (agency_id, mode, origin);
drop policy select_own on app_public.embed_origins;
create policy select_own_mode on app_public.embed_origins for select using (
  agency_id = (select app_public.current_agency_id())
  and (mode = (select app_public.current_mode()) or (select app_public.current_sees_all_modes()))
);
comment on column app_public.embed_origins.mode is 'The mode whose forms these origins may frame: test (sandbox key, test dashboard) or live.';

/* Replace the embed origins of the caller's agency in the caller's mode (admin API key, or the dashboard of a mode) and return that list, sorted. */
create or replace function app_public.set_embed_origins(p_origins text[]) returns setof text
  language plpgsql volatile security definer set search_path = '' as $$
declare
  v_agency bigint := app_public.current_agency_id();
  v_mode text := app_public.current_mode();
begin
  if v_agency is null or not app_public.current_is_admin() then
    raise exception 'registering embed origins requires an admin API key' using errcode = 'FORBD';
  end if;
  if v_mode is null then
    raise exception 'embed origins belong to a mode: set them with an API key or in the dashboard of that mode' using errcode = 'FORBD';
  end if;
  delete from app_public.embed_origins where agency_id = v_agency and mode = v_mode and origin <> all (p_origins);
  insert into app_public.embed_origins (agency_id, mode, origin)
  select v_agency, v_mode, o from unnest(p_origins) o on conflict do nothing;
  return query select origin from app_public.embed_origins where agency_id = v_agency and mode = v_mode order by origin;
end
$$;
comment on function app_public.set_embed_origins(text[]) is 'PUT /v2/embed-origins: replace the framing origins of the caller''s agency in the caller''s mode.';

/* As in 0007, but a form's page gets the embed origins of the form's own mode. */
create or replace function app_private.hosted_form(p_agent_slug text, p_public_id text,
  out agent_id bigint, out agent_first_name text, out agent_last_name text, out agent_email text,
  out agency_id bigint, out agency_name text, out color_code text, out logo_key text,
  out form_id bigint, out public_id text, out form_name text, out insurance_line text, out mode text,
  out snapshot_id bigint, out structure jsonb, out embed_origins text[])
  returns setof record
  language sql stable security definer set search_path = '' as $$
  select a.id, a.first_name, a.last_name, a.email, g.id, g.name, g.color_code, g.logo_key,
         f.id, f.public_id, s.name, s.insurance_line, f.mode, s.id, s.structure,
         coalesce((select array_agg(e.origin order by e.origin) from app_public.embed_origins e
                    where e.agency_id = g.id and e.mode = f.mode), '{}')
    from app_public.agents a
    join app_public.agencies g on g.id = a.agency_id
    join app_public.forms f on f.agency_id = g.id
    join app_public.form_snapshots s on s.id = f.live_snapshot_id
   where a.slug = p_agent_slug and f.public_id = p_public_id
     and a.status = 'active' and g.status = 'active' and f.status = 'active'
     and (f.owner_agent_id is null or f.owner_agent_id = a.id)
$$;
comment on function app_private.hosted_form(text, text) is 'Resolve {agentSlug}/form/{publicId} to the live snapshot, branding and the embed origins of the form''s mode; no row = 404.';
