-- API keys with test/live modes, agency plans, forms with their published snapshots, and idempotency records
-- of /v2 writes. Mode isolation is a policy, not route code: a test key sees only test rows.

---------------------------------------------------------------------------------------------------------------
-- Agency plans (set by the OAuth client; read by the lease checker and the extraction API).
alter table app_public.agencies
  add column plan text not null default 'free' check (plan in ('free', 'pro', 'enterprise')),
  add column plan_per_minute integer check (plan_per_minute between 1 and 100000),
  add column plan_per_day integer check (plan_per_day between 1 and 10000000),
  add constraint enterprise_limits check (plan <> 'enterprise' or (plan_per_minute is not null and plan_per_day is not null));
comment on column app_public.agencies.plan is 'free (5/min, 50/day), pro (30/min, 1000/day) or enterprise (plan_per_minute, plan_per_day).';

create trigger _210_plan before update of plan, plan_per_minute, plan_per_day on app_public.agencies
  for each row when (old.plan is distinct from new.plan or old.plan_per_minute is distinct from new.plan_per_minute
                     or old.plan_per_day is distinct from new.plan_per_day)
  execute function app_private.tg__refuse_direct_status_change('plan');

/* Set the plan of an agency linked to the calling OAuth client. */
create function app_public.set_agency_plan(p_agency_id bigint, p_plan text, p_per_minute integer, p_per_day integer)
  returns app_public.agencies
  language plpgsql volatile security definer set search_path = '' as $$
declare
  g app_public.agencies := app_private.lock_linked_agency(p_agency_id);
begin
  perform set_config('svc.transition', 'on', true);
  update app_public.agencies
     set plan = p_plan,
         plan_per_minute = case when p_plan = 'enterprise' then p_per_minute end,
         plan_per_day = case when p_plan = 'enterprise' then p_per_day end
   where id = g.id returning * into g;
  perform set_config('svc.transition', '', true);
  return g;
end
$$;
grant execute on function app_public.set_agency_plan(bigint, text, integer, integer) to svc_request;

---------------------------------------------------------------------------------------------------------------
-- API keys: server-to-server credentials of an agency, one mode each. Managed by the agency's admins.
create table app_public.api_keys (
  id bigint generated always as identity primary key,
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  created_by_agent_id bigint references app_public.agents (id) on delete set null,
  name text not null check (length(btrim(name)) between 1 and 100),
  mode text not null check (mode in ('test', 'live')),
  permissions text not null check (permissions in ('admin', 'read_only')),
  key_hash bytea not null unique check (length(key_hash) = 32),
  prefix text not null,
  last_four text not null check (length(last_four) = 4),
  created_at timestamptz not null default now(),
  last_used_at timestamptz,
  expires_at timestamptz,
  revoked_at timestamptz,
  replaced_by_id bigint references app_public.api_keys (id) on delete set null
);
alter table app_public.api_keys enable row level security;
alter table app_public.api_keys force row level security;
create index api_keys_agency_id_idx on app_public.api_keys (agency_id);
create index api_keys_created_by_agent_id_idx on app_public.api_keys (created_by_agent_id);
create index api_keys_replaced_by_id_idx on app_public.api_keys (replaced_by_id);
create policy select_own_as_admin on app_public.api_keys for select using (
  agency_id = (select app_public.current_agency_id()) and (select app_public.current_is_admin())
);
-- The hash is never readable by requests; keys are created, rolled and revoked by the functions below.
grant select (id, agency_id, created_by_agent_id, name, mode, permissions, prefix, last_four, created_at, last_used_at,
  expires_at, revoked_at, replaced_by_id) on app_public.api_keys to svc_request;
comment on table app_public.api_keys is 'svc_test_/svc_live_ keys of an agency (SHA-256 hashes); a rolled key lives until expires_at.';

create function app_private.insert_api_key(p_agency_id bigint, p_name text, p_mode text, p_permissions text,
  p_key_hash bytea, p_prefix text, p_last_four text) returns app_public.api_keys
  language sql volatile security definer set search_path = '' as $$
  insert into app_public.api_keys (agency_id, created_by_agent_id, name, mode, permissions, key_hash, prefix, last_four)
  values (p_agency_id, app_public.current_agent_id(), btrim(p_name), p_mode, p_permissions, p_key_hash, p_prefix, p_last_four)
  returning *
$$;

-- The caller's own agency, when the caller is one of its admins; raises otherwise.
create function app_private.assert_agency_admin(p_agency_id bigint) returns void
  language plpgsql stable security definer set search_path = '' as $$
begin
  if p_agency_id is distinct from app_public.current_agency_id() then
    raise exception 'agency % not found', p_agency_id using errcode = 'NTFND';
  end if;
  if not app_public.current_is_admin() then
    raise exception 'managing API keys requires admin privileges in the agency' using errcode = 'FORBD';
  end if;
end
$$;

/* Create an API key of the caller's agency (admin agents only); the key itself is made by the caller. */
create function app_public.create_api_key(p_agency_id bigint, p_name text, p_mode text, p_permissions text,
  p_key_hash bytea, p_prefix text, p_last_four text) returns app_public.api_keys
  language plpgsql volatile security definer set search_path = '' as $$
begin
  perform app_private.assert_agency_admin(p_agency_id);
  return app_private.insert_api_key(p_agency_id, p_name, p_mode, p_permissions, p_key_hash, p_prefix, p_last_four);
end
$$;
grant execute on function app_public.create_api_key(bigint, text, text, text, bytea, text, text) to svc_request;

/* Replace a live key by a new one with the same name, mode and permissions; the old key works for the grace period. */
create function app_public.roll_api_key(p_agency_id bigint, p_key_id bigint, p_grace_seconds integer,
  p_key_hash bytea, p_prefix text, p_last_four text) returns app_public.api_keys
  language plpgsql volatile security definer set search_path = '' as $$
declare
  old app_public.api_keys;
  fresh app_public.api_keys;
begin
  perform app_private.assert_agency_admin(p_agency_id);
  select * into old from app_public.api_keys where id = p_key_id and agency_id = p_agency_id for update;
  if not found then
    raise exception 'API key % not found', p_key_id using errcode = 'NTFND';
  end if;
  if old.revoked_at is not null or (old.expires_at is not null and old.expires_at <= now()) then
    raise exception 'API key % is revoked or expired and cannot be rolled', p_key_id using errcode = 'KEYRV';
  end if;
  fresh := app_private.insert_api_key(p_agency_id, old.name, old.mode, old.permissions, p_key_hash, p_prefix, p_last_four);
  update app_public.api_keys
     set expires_at = least(coalesce(expires_at, 'infinity'), now() + make_interval(secs => p_grace_seconds)), replaced_by_id = fresh.id
   where id = old.id;
  return fresh;
end
$$;
grant execute on function app_public.roll_api_key(bigint, bigint, integer, bytea, text, text) to svc_request;

/* Revoke a key at once. Idempotent. */
create function app_public.revoke_api_key(p_agency_id bigint, p_key_id bigint) returns app_public.api_keys
  language plpgsql volatile security definer set search_path = '' as $$
declare
  k app_public.api_keys;
begin
  perform app_private.assert_agency_admin(p_agency_id);
  update app_public.api_keys set revoked_at = coalesce(revoked_at, now())
   where id = p_key_id and agency_id = p_agency_id returning * into k;
  if not found then
    raise exception 'API key % not found', p_key_id using errcode = 'NTFND';
  end if;
  return k;
end
$$;
grant execute on function app_public.revoke_api_key(bigint, bigint) to svc_request;

/* Resolve an API key hash to its agency, mode and permissions; records use at most once a minute. */
create function app_private.authenticate_api_key(p_key_hash bytea,
  out api_key_id bigint, out agency_id bigint, out mode text, out permissions text, out plan text,
  out plan_per_minute integer, out plan_per_day integer)
  returns setof record
  language sql volatile security definer set search_path = '' as $$
  with k as (
    select k.id, k.agency_id, k.mode, k.permissions, g.plan, g.plan_per_minute, g.plan_per_day
      from app_public.api_keys k join app_public.agencies g on g.id = k.agency_id
     where k.key_hash = p_key_hash and k.revoked_at is null and (k.expires_at is null or k.expires_at > now())
       and g.status = 'active'
  ), touched as (
    update app_public.api_keys set last_used_at = now()
     where id in (select id from k) and (last_used_at is null or last_used_at < now() - interval '1 minute')
  )
  select * from k
$$;
grant execute on function app_private.authenticate_api_key(bytea) to svc_request;

---------------------------------------------------------------------------------------------------------------
-- Forms: the working structure is edited by PATCH; publishing copies it into an immutable snapshot that
-- becomes the live form (in place: the public_id does not change).
create table app_public.forms (
  id bigint generated always as identity primary key,
  public_id text not null unique default ('f_' || substr(replace(gen_random_uuid()::text, '-', ''), 1, 20))
    check (public_id ~ '^f_[A-Za-z0-9]{8,40}$'),
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  owner_agent_id bigint references app_public.agents (id) on delete restrict,
  name text not null check (length(btrim(name)) between 1 and 200),
  insurance_line text not null,
  template_id text check (template_id in ('auto', 'home', 'intake', 'habitational')),
  structure jsonb not null default '{"steps": []}'::jsonb check (jsonb_typeof(structure -> 'steps') = 'array'),
  status text not null default 'draft' check (status in ('draft', 'active')),
  live_snapshot_id bigint,
  published_at timestamptz,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
alter table app_public.forms enable row level security;
alter table app_public.forms force row level security;
create index forms_agency_id_mode_id_idx on app_public.forms (agency_id, mode, id);
create index forms_owner_agent_id_idx on app_public.forms (owner_agent_id);
create index forms_live_snapshot_id_idx on app_public.forms (live_snapshot_id);
create trigger _100_timestamps before update on app_public.forms
  for each row execute function app_private.tg__set_updated_at();
create trigger _200_status before update of status, live_snapshot_id, published_at on app_public.forms
  for each row when (old.status is distinct from new.status or old.live_snapshot_id is distinct from new.live_snapshot_id)
  execute function app_private.tg__refuse_direct_status_change('status');
-- API keys act for the whole agency in their mode (owner or admin scope, SPEC §5).
create policy select_own_mode on app_public.forms for select using (
  agency_id = (select app_public.current_agency_id()) and mode = (select app_public.current_mode())
);
create policy insert_own_mode on app_public.forms for insert with check (
  agency_id = (select app_public.current_agency_id()) and mode = (select app_public.current_mode())
  and (select app_public.current_is_admin())
);
create policy update_own_mode on app_public.forms for update using (
  agency_id = (select app_public.current_agency_id()) and mode = (select app_public.current_mode())
  and (select app_public.current_is_admin())
);
grant select on app_public.forms to svc_request;
grant insert (agency_id, mode, owner_agent_id, name, insurance_line, template_id, structure) on app_public.forms to svc_request;
grant update (name, insurance_line, structure) on app_public.forms to svc_request;
comment on table app_public.forms is 'Intake forms (SPEC §2.1); structure is the working copy, live_snapshot_id the published one.';

create table app_public.form_snapshots (
  id bigint generated always as identity primary key,
  form_id bigint not null references app_public.forms (id) on delete cascade,
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  name text not null,
  insurance_line text not null,
  structure jsonb not null,
  created_at timestamptz not null default now()
);
alter table app_public.form_snapshots enable row level security;
alter table app_public.form_snapshots force row level security;
create index form_snapshots_form_id_idx on app_public.form_snapshots (form_id);
create index form_snapshots_agency_id_mode_idx on app_public.form_snapshots (agency_id, mode);
alter table app_public.forms add constraint forms_live_snapshot_fk
  foreign key (live_snapshot_id) references app_public.form_snapshots (id) on delete set null;
create function app_private.tg__immutable() returns trigger
  language plpgsql volatile as $$
begin
  raise exception '% rows are immutable', tg_table_name using errcode = 'STATE';
end
$$;
create trigger _100_immutable before update on app_public.form_snapshots
  for each row execute function app_private.tg__immutable();
create policy select_own_mode on app_public.form_snapshots for select using (
  agency_id = (select app_public.current_agency_id()) and mode = (select app_public.current_mode())
);
grant select on app_public.form_snapshots to svc_request;
comment on table app_public.form_snapshots is 'Immutable published structures; each submission records the snapshot it was filled against.';

/* Publish the form's working structure: draft → active, or replace the live structure of an active form in place. */
create function app_public.publish_form(p_form_id bigint) returns app_public.forms
  language plpgsql volatile security definer set search_path = '' as $$
declare
  f app_public.forms;
  snap bigint;
begin
  select * into f from app_public.forms
   where id = p_form_id and agency_id = app_public.current_agency_id() and mode = app_public.current_mode()
   for update;
  if not found then
    raise exception 'form % not found', p_form_id using errcode = 'NTFND';
  end if;
  if not app_public.current_is_admin() then
    raise exception 'publishing requires an admin API key' using errcode = 'FORBD';
  end if;
  insert into app_public.form_snapshots (form_id, agency_id, mode, name, insurance_line, structure)
  values (f.id, f.agency_id, f.mode, f.name, f.insurance_line, f.structure) returning id into snap;
  perform set_config('svc.transition', 'on', true);
  update app_public.forms set status = 'active', live_snapshot_id = snap, published_at = now()
   where id = f.id returning * into f;
  perform set_config('svc.transition', '', true);
  return f;
end
$$;
grant execute on function app_public.publish_form(bigint) to svc_request;

---------------------------------------------------------------------------------------------------------------
-- Idempotency records of /v2 writes, per agency and mode, honoured for 24 hours.
create table app_private.idempotency_keys (
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  mode text not null check (mode in ('test', 'live')),
  key uuid not null,
  fingerprint text not null,
  state text not null default 'running' check (state in ('running', 'done')),
  response_status integer,
  response_body jsonb,
  response_headers jsonb,
  created_at timestamptz not null default now(),
  expires_at timestamptz not null default now() + interval '24 hours',
  primary key (agency_id, mode, key)
);
create index idempotency_keys_expires_at_idx on app_private.idempotency_keys (expires_at);
comment on table app_private.idempotency_keys is 'Idempotency-Key records: the first request runs, a retry replays its stored response.';

/* Claim a key for a request: 'new' (run it), 'running' (a twin is in flight), 'mismatch', or 'done' with the stored response. */
create function app_private.claim_idempotency_key(p_agency_id bigint, p_mode text, p_key uuid, p_fingerprint text,
  out outcome text, out response_status integer, out response_body jsonb, out response_headers jsonb)
  language plpgsql volatile security definer set search_path = '' as $$
declare
  r app_private.idempotency_keys;
begin
  delete from app_private.idempotency_keys
   where agency_id = p_agency_id and mode = p_mode and key = p_key and expires_at <= now();
  insert into app_private.idempotency_keys (agency_id, mode, key, fingerprint)
  values (p_agency_id, p_mode, p_key, p_fingerprint)
  on conflict do nothing;
  if found then
    outcome := 'new';
    return;
  end if;
  select * into r from app_private.idempotency_keys where agency_id = p_agency_id and mode = p_mode and key = p_key;
  if r.fingerprint <> p_fingerprint then
    outcome := 'mismatch';
  elsif r.state = 'running' then
    outcome := 'running';
  else
    outcome := 'done';
    response_status := r.response_status;
    response_body := r.response_body;
    response_headers := r.response_headers;
  end if;
end
$$;
grant execute on function app_private.claim_idempotency_key(bigint, text, uuid, text) to svc_request;

/* Store the response of a claimed key (called inside the request's transaction, so it commits with the work). */
create function app_private.complete_idempotency_key(p_agency_id bigint, p_mode text, p_key uuid, p_status integer,
  p_body jsonb, p_headers jsonb) returns void
  language sql volatile security definer set search_path = '' as $$
  update app_private.idempotency_keys
     set state = 'done', response_status = p_status, response_body = p_body, response_headers = p_headers
   where agency_id = p_agency_id and mode = p_mode and key = p_key
$$;
grant execute on function app_private.complete_idempotency_key(bigint, text, uuid, integer, jsonb, jsonb) to svc_request;

/* Forget a claim whose request failed unexpectedly, so the client may retry with the same key. */
create function app_private.release_idempotency_key(p_agency_id bigint, p_mode text, p_key uuid) returns void
  language sql volatile security definer set search_path = '' as $$
  delete from app_private.idempotency_keys where agency_id = p_agency_id and mode = p_mode and key = p_key and state = 'running'
$$;
grant execute on function app_private.release_idempotency_key(bigint, text, uuid) to svc_request;

/* Daily housekeeping of expired idempotency records. */
create function app_private.purge_idempotency_keys() returns integer
  language sql volatile security definer set search_path = '' as $$
  with d as (delete from app_private.idempotency_keys where expires_at < now() returning 1) select count(*)::int from d
$$;
