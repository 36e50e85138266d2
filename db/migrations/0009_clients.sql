-- Clients API (v1, SPEC §2.7, §4.2 "Further operations", §6.4): the sales-funnel statuses and their moves, the
-- additional-questions setting of each agent, the erasure audit, and the state functions that create, change,
-- reassign and erase clients. Each change checks scope and state, changes the rows and writes its v1 event to
-- the outbox (app_private.emit_event) in the same transaction. Builds on the client tables of 0006.

---------------------------------------------------------------------------------------------------------------
-- Sales funnel: a closed list with the allowed moves, kept as data so SQL checks and the API documents one list
-- (http/schemas/clients.ts mirrors it; test/db/clients.test.ts checks the two agree).
create table app_private.sales_funnel_statuses (
  status text primary key,
  position integer not null unique
);
insert into app_private.sales_funnel_statuses (status, position) values
  ('new', 1), ('contacted', 2), ('quoted', 3), ('bound', 4), ('lost', 5);
comment on table app_private.sales_funnel_statuses is 'The closed list of client sales-funnel statuses, in funnel order.';

create table app_private.sales_funnel_moves (
  from_status text not null references app_private.sales_funnel_statuses (status) on delete cascade,
  to_status text not null references app_private.sales_funnel_statuses (status) on delete cascade,
  primary key (from_status, to_status),
  check (from_status <> to_status)
);
create index sales_funnel_moves_to_status_idx on app_private.sales_funnel_moves (to_status);
insert into app_private.sales_funnel_moves (from_status, to_status) values
  ('new', 'contacted'), ('new', 'quoted'), ('new', 'bound'), ('new', 'lost'),
  ('contacted', 'quoted'), ('contacted', 'bound'), ('contacted', 'lost'),
  ('quoted', 'contacted'), ('quoted', 'bound'), ('quoted', 'lost'),
  ('bound', 'quoted'), ('bound', 'lost'),
  ('lost', 'contacted');
comment on table app_private.sales_funnel_moves is 'Allowed sales-funnel moves (from → to); setting the current status again is a no-op.';

-- Clients made by extractions start as new; the status is always one of the list.
update app_public.clients set sales_funnel_status = 'new' where sales_funnel_status is null;
alter table app_public.clients alter column sales_funnel_status set default 'new';
alter table app_public.clients alter column sales_funnel_status set not null;
alter table app_public.clients add constraint clients_sales_funnel_status_fk
  foreign key (sales_funnel_status) references app_private.sales_funnel_statuses (status) on update cascade on delete restrict;
create index clients_sales_funnel_status_idx on app_public.clients (sales_funnel_status);
-- Duplicate detection by email within the agency (and mode), and the list's default order.
create index clients_agency_lower_email_idx on app_public.clients (agency_id, mode, lower(email)) where email is not null;
create index clients_agent_id_updated_at_idx on app_public.clients (agent_id, updated_at desc, id);
-- The funnel status and the agent change only through their state functions.
create trigger _200_status before update of sales_funnel_status, agent_id on app_public.clients
  for each row when (old.sales_funnel_status is distinct from new.sales_funnel_status or old.agent_id is distinct from new.agent_id)
  execute function app_private.tg__refuse_direct_status_change('sales_funnel_status/agent_id');

-- A plain agent sees only its own clients and their submissions and pages (admins, owners and API keys see the
-- agency's). Restrictive, so it narrows the agency policies of 0006 and a route cannot widen it.
create policy own_clients_for_plain_agents on app_public.clients as restrictive for select using (
  coalesce((select app_public.current_role_name()), '') <> 'agent' or agent_id = (select app_public.current_agent_id())
);
create policy own_clients_for_plain_agents on app_public.client_submissions as restrictive for select using (
  coalesce((select app_public.current_role_name()), '') <> 'agent'
  or client_id in (select c.id from app_public.clients c where c.agent_id = (select app_public.current_agent_id()))
);
create policy own_clients_for_plain_agents on app_public.declaration_pages as restrictive for select using (
  coalesce((select app_public.current_role_name()), '') <> 'agent'
  or client_id in (select c.id from app_public.clients c where c.agent_id = (select app_public.current_agent_id()))
);

---------------------------------------------------------------------------------------------------------------
-- Additional questions: per agent, whether its clients are asked extra questions after uploading a declaration
-- page, and which (a list of { id, label, type, required, options }).
create table app_public.agent_client_settings (
  agent_id bigint primary key references app_public.agents (id) on delete cascade,
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  additional_questions_enabled boolean not null default false,
  additional_questions jsonb not null default '[]' check (jsonb_typeof(additional_questions) = 'array' and jsonb_array_length(additional_questions) <= 20),
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
alter table app_public.agent_client_settings enable row level security;
alter table app_public.agent_client_settings force row level security;
create index agent_client_settings_agency_id_idx on app_public.agent_client_settings (agency_id);
create trigger _100_timestamps before update on app_public.agent_client_settings
  for each row execute function app_private.tg__set_updated_at();
create policy select_own on app_public.agent_client_settings for select using (agency_id = (select app_public.current_agency_id()));
grant select on app_public.agent_client_settings to svc_request;
comment on table app_public.agent_client_settings is 'Per agent: whether its clients get additional questions after a declaration-page upload, and the questions.';

---------------------------------------------------------------------------------------------------------------
-- Erasure audit: who erased which client id and when, and nothing else about the client.
create table app_public.client_erasures (
  id bigint generated always as identity primary key,
  agency_id bigint not null references app_public.agencies (id) on delete cascade,
  client_uuid uuid not null,
  erased_by_agent_id bigint references app_public.agents (id) on delete set null,
  erased_by_role text not null check (erased_by_role in ('agent', 'admin', 'owner')),
  erased_at timestamptz not null default now()
);
alter table app_public.client_erasures enable row level security;
alter table app_public.client_erasures force row level security;
create index client_erasures_agency_id_idx on app_public.client_erasures (agency_id, erased_at);
create index client_erasures_erased_by_agent_id_idx on app_public.client_erasures (erased_by_agent_id);
create policy select_own_as_admin on app_public.client_erasures for select using (
  agency_id = (select app_public.current_agency_id()) and (select app_public.current_is_admin())
);
grant select on app_public.client_erasures to svc_request;
comment on table app_public.client_erasures is 'Audit of client erasures (POST …/clients/{uuid}/destroy): the client id, who erased it and when; nothing else about the client.';

---------------------------------------------------------------------------------------------------------------
-- Helpers

/* ISO 8601 UTC with milliseconds and Z, as v1 event payloads carry timestamps. */
create function app_private.iso_utc(p_at timestamptz) returns text
  language sql immutable parallel safe set search_path = '' as $$
  select to_char(p_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')
$$;
comment on function app_private.iso_utc(timestamptz) is 'A timestamp as ISO 8601 UTC text with milliseconds and a Z, the format of v1 event payloads.';

/* An agent of the caller's agency whose clients the caller may see and change: itself, or any agent for an admin. */
create function app_public.assert_client_agent(p_agent_id bigint) returns app_public.agents
  language plpgsql stable security definer set search_path = '' as $$
declare
  a app_public.agents;
begin
  select * into a from app_public.agents where id = p_agent_id and agency_id = app_public.current_agency_id();
  if not found or app_public.current_agent_id() is null then
    raise exception 'agent % not found', p_agent_id using errcode = 'NTFND';
  end if;
  if a.id <> app_public.current_agent_id() and not app_public.current_is_admin() then
    raise exception 'only an admin of the agency sees and changes the clients of another agent' using errcode = 'FORBD';
  end if;
  return a;
end
$$;
grant execute on function app_public.assert_client_agent(bigint) to svc_request;
comment on function app_public.assert_client_agent(bigint) is 'The path agent of a clients route, if the calling agent may act on its clients (itself, or any agent of the agency for an admin); NTFND or FORBD otherwise.';

/* The client of the path agent, locked, after the caller's scope is checked. */
create function app_private.lock_client(p_agent_id bigint, p_client_id uuid) returns app_public.clients
  language plpgsql volatile security definer set search_path = '' as $$
declare
  a app_public.agents := app_public.assert_client_agent(p_agent_id);
  c app_public.clients;
begin
  select * into c from app_public.clients where id = p_client_id and agent_id = a.id and agency_id = a.agency_id for update;
  if not found then
    raise exception 'client % not found', p_client_id using errcode = 'NTFND';
  end if;
  return c;
end
$$;
comment on function app_private.lock_client(bigint, uuid) is 'Lock a client of the path agent for a change, after app_public.assert_client_agent.';

/* Refuse an email another client of the agency (same mode) already has. */
create function app_private.check_client_email(p_agency_id bigint, p_mode text, p_email text, p_except uuid) returns void
  language plpgsql volatile security definer set search_path = '' as $$
declare
  other app_public.clients;
begin
  if p_email is null then
    return;
  end if;
  -- Serialise creates and changes of one address, so two concurrent requests cannot both pass the check.
  perform pg_advisory_xact_lock(hashtextextended('client-email:' || p_agency_id || ':' || p_mode || ':' || lower(p_email), 0));
  select * into other from app_public.clients
   where agency_id = p_agency_id and mode = p_mode and lower(email) = lower(p_email) and id is distinct from p_except
   order by created_at limit 1;
  if found then
    if other.agent_id = app_public.current_agent_id() or app_public.current_is_admin() then
      raise exception 'a client with this email already exists in the agency (client %, agent %)', other.id, other.agent_id
        using errcode = 'CLDUP', column = 'email';
    end if;
    raise exception 'a client with this email already exists in the agency (a client of another agent)'
      using errcode = 'CLDUP', column = 'email';
  end if;
end
$$;
comment on function app_private.check_client_email(bigint, text, text, uuid) is 'Duplicate detection: an email belongs to at most one client per agency and mode (CLDUP); the existing client is named only to whoever may see it.';

/* An active agent of the given agency to own a client; XAGCY (422) for another agency's, DEACT for an inactive one. */
create function app_private.client_target_agent(p_agency_id bigint, p_agent_id bigint) returns app_public.agents
  language plpgsql stable security definer set search_path = '' as $$
declare
  a app_public.agents;
begin
  select * into a from app_public.agents where id = p_agent_id and agency_id = p_agency_id;
  if not found then
    raise exception 'agent % is not an agent of your agency', p_agent_id using errcode = 'XAGCY', column = 'agent_id';
  end if;
  if a.status <> 'active' then
    raise exception 'agent % is deactivated', p_agent_id using errcode = 'DEACT', column = 'agent_id';
  end if;
  return a;
end
$$;
comment on function app_private.client_target_agent(bigint, bigint) is 'The target agent of a client create or reassign: active and in the same agency (XAGCY, DEACT otherwise).';

---------------------------------------------------------------------------------------------------------------
-- State functions

/* Create a live client for an agent of the caller's agency (the caller itself, or any agent for an admin). */
create function app_public.create_client(p_agent_id bigint, p_first_name text, p_last_name text, p_email text, p_phone text,
  p_address jsonb, p_sales_funnel_status text) returns app_public.clients
  language plpgsql volatile security definer set search_path = '' as $$
declare
  a app_public.agents;
  c app_public.clients;
begin
  if app_public.current_agent_id() is null then
    raise exception 'clients are created with an agent access token' using errcode = 'FORBD';
  end if;
  if p_agent_id <> app_public.current_agent_id() and not app_public.current_is_admin() then
    raise exception 'only an admin creates clients for another agent' using errcode = 'FORBD';
  end if;
  a := app_private.client_target_agent(app_public.current_agency_id(), p_agent_id);
  if not exists (select 1 from app_private.sales_funnel_statuses where status = p_sales_funnel_status) then
    raise exception 'unknown sales funnel status %', p_sales_funnel_status using errcode = 'FUNNL', column = 'sales_funnel_status';
  end if;
  perform app_private.check_client_email(a.agency_id, 'live', p_email, null);
  insert into app_public.clients (agency_id, agent_id, mode, first_name, last_name, email, phone, address, sales_funnel_status)
  values (a.agency_id, a.id, 'live', btrim(p_first_name), btrim(p_last_name), nullif(btrim(p_email), ''), nullif(btrim(p_phone), ''),
          p_address, p_sales_funnel_status)
  returning * into c;
  return c;
end
$$;
grant execute on function app_public.create_client(bigint, text, text, text, text, jsonb, text) to svc_request;
comment on function app_public.create_client(bigint, text, text, text, text, jsonb, text) is 'Create a live client for the calling agent, or for another active agent of the agency when the caller is an admin (no event: §6.4 names none for creation).';

/* Move a client along the sales funnel; emits client.sales-funnel-status-change. Setting the same status is a no-op. */
create function app_public.change_client_sales_funnel_status(p_agent_id bigint, p_client_id uuid, p_status text)
  returns app_public.clients
  language plpgsql volatile security definer set search_path = '' as $$
declare
  c app_public.clients := app_private.lock_client(p_agent_id, p_client_id);
  v_from text := c.sales_funnel_status;
begin
  if not exists (select 1 from app_private.sales_funnel_statuses where status = p_status) then
    raise exception 'unknown sales funnel status %', p_status using errcode = 'FUNNL', column = 'sales_funnel_status';
  end if;
  if v_from = p_status then
    return c;
  end if;
  if not exists (select 1 from app_private.sales_funnel_moves where from_status = v_from and to_status = p_status) then
    raise exception 'a client cannot move from % to %; allowed from %: %', v_from, p_status, v_from,
      coalesce((select string_agg(m.to_status, ', ' order by s.position) from app_private.sales_funnel_moves m
                  join app_private.sales_funnel_statuses s on s.status = m.to_status where m.from_status = v_from), 'none')
      using errcode = 'FUNNL', column = 'sales_funnel_status';
  end if;
  perform set_config('svc.transition', 'on', true);
  update app_public.clients set sales_funnel_status = p_status where id = c.id returning * into c;
  perform set_config('svc.transition', '', true);
  perform app_private.emit_event(c.agency_id, c.mode, null, 'client.sales-funnel-status-change', jsonb_build_object(
    'client', app_private.client_ref(c.id), 'previous_status', v_from, 'status', p_status, 'changed_at', app_private.iso_utc(c.updated_at)));
  return c;
end
$$;
grant execute on function app_public.change_client_sales_funnel_status(bigint, uuid, text) to svc_request;
comment on function app_public.change_client_sales_funnel_status(bigint, uuid, text) is 'Move a client to another sales-funnel status along an allowed move (FUNNL otherwise); emits client.sales-funnel-status-change.';

/*
 * Change a client's name, contact and address (keys present in p_changes are set, null clears a nullable one)
 * and, when given, its sales-funnel status. Emits client.updated naming the fields that really changed, and
 * client.sales-funnel-status-change for a status move.
 */
create function app_public.update_client(p_agent_id bigint, p_client_id uuid, p_changes jsonb) returns app_public.clients
  language plpgsql volatile security definer set search_path = '' as $$
declare
  c app_public.clients := app_private.lock_client(p_agent_id, p_client_id);
  v app_public.clients;
  v_changed text[] := '{}';
begin
  v := c;
  if p_changes ? 'first_name' then v.first_name := nullif(btrim(p_changes ->> 'first_name'), ''); end if;
  if p_changes ? 'last_name' then v.last_name := nullif(btrim(p_changes ->> 'last_name'), ''); end if;
  if p_changes ? 'email' then v.email := nullif(btrim(p_changes ->> 'email'), ''); end if;
  if p_changes ? 'phone' then v.phone := nullif(btrim(p_changes ->> 'phone'), ''); end if;
  if p_changes ? 'address' then v.address := case when jsonb_typeof(p_changes -> 'address') = 'null' then null else p_changes -> 'address' end; end if;
  if v.first_name is distinct from c.first_name then v_changed := array_append(v_changed, 'first_name'); end if;
  if v.last_name is distinct from c.last_name then v_changed := array_append(v_changed, 'last_name'); end if;
  if v.email is distinct from c.email then v_changed := array_append(v_changed, 'email'); end if;
  if v.phone is distinct from c.phone then v_changed := array_append(v_changed, 'phone'); end if;
  if v.address is distinct from c.address then v_changed := array_append(v_changed, 'address'); end if;
  if 'email' = any (v_changed) then
    perform app_private.check_client_email(c.agency_id, c.mode, v.email, c.id);
  end if;
  if cardinality(v_changed) > 0 then
    update app_public.clients set first_name = v.first_name, last_name = v.last_name, email = v.email, phone = v.phone, address = v.address
     where id = c.id returning * into c;
    perform app_private.emit_event(c.agency_id, c.mode, null, 'client.updated', jsonb_build_object(
      'client', app_private.client_ref(c.id), 'changed_fields', to_jsonb(v_changed), 'updated_at', app_private.iso_utc(c.updated_at)));
  end if;
  if p_changes ? 'sales_funnel_status' and jsonb_typeof(p_changes -> 'sales_funnel_status') = 'string' then
    c := app_public.change_client_sales_funnel_status(p_agent_id, p_client_id, p_changes ->> 'sales_funnel_status');
  end if;
  return c;
end
$$;
grant execute on function app_public.update_client(bigint, uuid, jsonb) to svc_request;
comment on function app_public.update_client(bigint, uuid, jsonb) is 'Change a client''s name, contact or address (client.updated with the changed fields) and sales-funnel status (client.sales-funnel-status-change).';

/* Move a client, its submissions and documents to another active agent of the same agency; emits client.reassigned. */
create function app_public.reassign_client(p_agent_id bigint, p_client_id uuid, p_target_agent_id bigint) returns app_public.clients
  language plpgsql volatile security definer set search_path = '' as $$
declare
  c app_public.clients := app_private.lock_client(p_agent_id, p_client_id);
  t app_public.agents := app_private.client_target_agent(c.agency_id, p_target_agent_id);
  prev app_public.agents;
begin
  if t.id = c.agent_id then
    return c;
  end if;
  select * into prev from app_public.agents where id = c.agent_id;
  perform set_config('svc.transition', 'on', true);
  update app_public.clients set agent_id = t.id where id = c.id returning * into c;
  perform set_config('svc.transition', '', true);
  update app_public.client_submissions set agent_id = t.id where client_id = c.id;
  perform app_private.emit_event(c.agency_id, c.mode, null, 'client.reassigned', jsonb_build_object(
    'client', app_private.client_ref(c.id),
    'previous_agent', jsonb_build_object('id', prev.id, 'name', prev.first_name || ' ' || prev.last_name, 'email', prev.email),
    'agent', jsonb_build_object('id', t.id, 'name', t.first_name || ' ' || t.last_name, 'email', t.email),
    'reassigned_at', app_private.iso_utc(c.updated_at)));
  return c;
end
$$;
grant execute on function app_public.reassign_client(bigint, uuid, bigint) to svc_request;
comment on function app_public.reassign_client(bigint, uuid, bigint) is 'Reassign a client to another active agent of its agency (XAGCY for another agency''s agent, DEACT for an inactive one); emits client.reassigned.';

/*
 * Erase a client completely, in one transaction: its submissions, declaration pages, their documents and
 * extractions, the outbox events that carry its data (and with them their deliveries and the delivery log),
 * and the client. The stored files are listed in app_private.expired_blobs and blobs__sweep deletes them after
 * the commit (a crash leaves the list, so the sweep finishes later). An audit row keeps who erased which id.
 */
create function app_public.destroy_client(p_agent_id bigint, p_client_id uuid) returns void
  language plpgsql volatile security definer set search_path = '' as $$
declare
  c app_public.clients := app_private.lock_client(p_agent_id, p_client_id);
  v_docs uuid[];
  v_keys text[];
begin
  select coalesce(array_agg(distinct d.id), '{}') into v_docs
    from app_public.documents d
   where d.agency_id = c.agency_id
     and (d.id in (select p.document_id from app_public.declaration_pages p where p.client_id = c.id)
          or d.id in (select x.document_id from app_public.extractions x
                       where x.client_id = c.id or x.requested_client_id = c.id
                          or x.submission_id in (select s.id from app_public.client_submissions s where s.client_id = c.id)));
  select coalesce(array_agg(d.blob_key), '{}') into v_keys from app_public.documents d where d.id = any (v_docs) and d.blob_key is not null;
  insert into app_private.expired_blobs (blob_key, document_id)
  select d.blob_key, d.id from app_public.documents d where d.id = any (v_docs) and d.blob_key is not null
  on conflict (blob_key) do nothing;
  -- Events about the client: v1 events name it; client-submission topic events link one of its files.
  delete from app_public.events e
   where e.agency_id = c.agency_id
     and (e.data #>> '{client,uuid}' = c.id::text
          or exists (select 1 from unnest(v_keys) k where strpos(e.data ->> 'document_link', '/files/' || k || '?') > 0));
  delete from app_public.extractions x where x.document_id = any (v_docs) or x.client_id = c.id or x.requested_client_id = c.id;
  delete from app_public.declaration_pages where client_id = c.id;
  delete from app_public.client_submissions where client_id = c.id;
  delete from app_public.documents where id = any (v_docs);
  delete from app_public.clients where id = c.id;
  insert into app_public.client_erasures (agency_id, client_uuid, erased_by_agent_id, erased_by_role)
  values (c.agency_id, c.id, app_public.current_agent_id(), app_public.current_role_name());
  if cardinality(v_keys) > 0 then
    perform graphile_worker.add_job('blobs__sweep', '{}'::json, job_key => 'blobs:sweep', max_attempts => 25);
  end if;
end
$$;
grant execute on function app_public.destroy_client(bigint, uuid) to svc_request;
comment on function app_public.destroy_client(bigint, uuid) is 'Erase a client with its submissions, declaration pages, documents, extractions and the events about it; list its files for blobs__sweep; audit who erased which id.';

/* Turn additional questions on or off for an agent's clients; p_questions replaces the list unless null. */
create function app_public.set_additional_questions(p_agent_id bigint, p_enabled boolean, p_questions jsonb)
  returns app_public.agent_client_settings
  language plpgsql volatile security definer set search_path = '' as $$
declare
  a app_public.agents := app_public.assert_client_agent(p_agent_id);
  s app_public.agent_client_settings;
begin
  insert into app_public.agent_client_settings (agent_id, agency_id, additional_questions_enabled, additional_questions)
  values (a.id, a.agency_id, p_enabled, coalesce(p_questions, '[]'))
  on conflict (agent_id) do update set additional_questions_enabled = excluded.additional_questions_enabled,
    additional_questions = coalesce(p_questions, app_public.agent_client_settings.additional_questions)
  returning * into s;
  return s;
end
$$;
grant execute on function app_public.set_additional_questions(bigint, boolean, jsonb) to svc_request;
comment on function app_public.set_additional_questions(bigint, boolean, jsonb) is 'Set whether an agent''s clients are asked additional questions, and which (the agent itself or an admin).';

---------------------------------------------------------------------------------------------------------------
-- The file sweep after an erasure (and any other listed blob): blobs__sweep reads the list, deletes each blob
-- from the store, then forgets it (app_private.forget_expired_blob of 0006).

/* Blob keys waiting for deletion, oldest first, whose documents no longer hold them. */
create function app_private.blobs_to_sweep(p_limit integer) returns setof text
  language sql stable security definer set search_path = '' as $$
  select b.blob_key from app_private.expired_blobs b
   where not exists (select 1 from app_public.documents d where d.blob_key = b.blob_key)
   order by b.expired_at, b.blob_key limit p_limit
$$;
comment on function app_private.blobs_to_sweep(integer) is 'Listed blob keys no document holds any more (erased or expired), for blobs__sweep to delete.';
