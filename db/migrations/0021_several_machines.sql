-- Operating on several machines: the key-check value that proves a process holds the database's
-- WEBHOOK_SECRET_KEY, and the request role granted to the migrating role so a non-superuser owner
-- (BYPASSRLS, CREATEROLE) can SET ROLE svc_request.

---------------------------------------------------------------------------------------------------------------
-- One row: a value encrypted with the key that encrypts the secrets stored in this database. A process whose
-- key cannot decrypt it refuses to start instead of failing every delivery ("failed authentication").
create table app_private.secret_key_check (
  id boolean primary key default true constraint one_row check (id),
  check_ciphertext text not null,
  created_at timestamptz not null default now()
);
comment on table app_private.secret_key_check is
  'One row: a known value encrypted (lib/crypto.ts) with the key of this database''s secrets at rest (WEBHOOK_SECRET_KEY), stored by the first process that starts; every later process must decrypt it or refuse to start.';

/**
 * Store p_check_ciphertext as the key check when none is stored yet; returns the stored one (the given value, or
 * the one another process stored first).
 */
create function app_private.record_secret_key_check(p_check_ciphertext text) returns text
  language sql volatile as $$
  insert into app_private.secret_key_check (check_ciphertext) values (p_check_ciphertext) on conflict (id) do nothing;
  select check_ciphertext from app_private.secret_key_check;
$$;
comment on function app_private.record_secret_key_check(text) is
  'Store the key-check ciphertext at the first start (a no-op when one is stored) and return the stored one; the caller decrypts it to prove it holds WEBHOOK_SECRET_KEY.';

---------------------------------------------------------------------------------------------------------------
-- API requests run as svc_request after `set local role svc_request` on the migrating role's connections. A
-- superuser may always do that; any other role must be a member. A role that cannot grant it (no CREATEROLE,
-- or on Postgres 16+ no ADMIN OPTION on svc_request) gets a warning here and a start-up error that names the
-- grant to run.
do $$
begin
  if not pg_has_role(current_user, 'svc_request', 'member') then
    execute format('grant svc_request to %I', current_user);
  end if;
exception when insufficient_privilege then
  raise warning 'could not grant svc_request to %: %', current_user, sqlerrm
    using hint = format('as a superuser: grant svc_request to %I', current_user);
end
$$;
