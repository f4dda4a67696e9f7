// Teams (C18): members with roles, invitations, dashboard sessions of a member, scoped keys, the append-only audit
// log and per-account OpenID Connect single sign-on. Every existing account gets one owner: its current email.
import { Migration } from '@mikro-orm/migrations'

export class Migration0020Teams extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table members (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  email text not null,
  role text not null check (role in ('owner', 'admin', 'developer', 'billing', 'viewer')),
  created_at timestamptz not null default now(),
  last_sign_in_at timestamptz,
  unique (account_id, email)
);
create index members_email on members (email);
insert into members (id, account_id, email, role, created_at)
  select gen_random_uuid(), id, email, 'owner', created_at from accounts;

create table invitations (
  id uuid primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  email text not null,
  role text not null check (role in ('owner', 'admin', 'developer', 'billing', 'viewer')),
  token_hash bytea not null unique,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  accepted_at timestamptz,
  revoked_at timestamptz
);
create index invitations_account on invitations (account_id, created_at desc);

-- A session is one member's (its email in one account); switching accounts moves it to another membership of the
-- same email. sso_account_id: the account whose identity provider signed it in (it may not leave that account).
alter table dashboard_sessions
  add column member_id uuid references members (id) on delete cascade,
  add column email text,
  add column sso_account_id uuid references accounts (id) on delete cascade;
update dashboard_sessions s set member_id = m.id, email = m.email from members m where m.account_id = s.account_id and m.role = 'owner';
delete from dashboard_sessions where member_id is null;
alter table dashboard_sessions alter column member_id set not null, alter column email set not null;
create index dashboard_sessions_member on dashboard_sessions (member_id);

alter table api_keys
  add column permissions text not null default 'all' check (permissions in ('all', 'call', 'read')),
  add column capabilities text[] check (capabilities is null or cardinality(capabilities) between 1 and 100);
-- A key's scope is read from the key cache: a change reaches every instance the way a revocation does.
create trigger api_key_scope_changed after update of permissions, capabilities on api_keys
  for each row when (old.permissions is distinct from new.permissions or old.capabilities is distinct from new.capabilities)
  execute function notify_api_key_revoked();

-- The audit log: append-only. The trigger refuses UPDATE, TRUNCATE and DELETE of an entry younger than the
-- retention (400 days) whoever asks, the table's owner included; maintenance deletes only older ones.
create table audit_entries (
  id bigint generated always as identity primary key,
  account_id uuid,
  at timestamptz not null,
  actor_type text not null check (actor_type in ('member', 'key', 'operator', 'system')),
  actor_id text,
  actor_email text,
  actor_key_prefix text,
  action text not null,
  target_type text not null,
  target_id text,
  request_id text,
  ip text,
  details jsonb not null default '{}'
);
create index audit_entries_account on audit_entries (account_id, id desc);
create index audit_entries_at on audit_entries (at);

create function refuse_audit_change() returns trigger
language plpgsql as $$
begin
  if tg_op = 'DELETE' and old.at < now() - interval '400 days' then
    return old;
  end if;
  raise exception 'audit entries are append-only (% refused)', tg_op using errcode = '42501';
end $$;
create trigger audit_entries_append_only before update or delete on audit_entries
  for each row execute function refuse_audit_change();
create trigger audit_entries_no_truncate before truncate on audit_entries
  for each statement execute function refuse_audit_change();
revoke update, truncate on audit_entries from public;
revoke update, truncate on audit_entries from current_user;

-- Single sign-on: one OpenID provider per account; its email domains are claimed by one account each.
create table sso_settings (
  account_id uuid primary key references accounts (id) on delete cascade,
  issuer text not null,
  client_id text not null,
  client_secret text not null,
  default_role text not null check (default_role in ('admin', 'developer', 'billing', 'viewer')),
  enforced boolean not null default false,
  updated_at timestamptz not null
);
create table sso_domains (
  domain text primary key,
  account_id uuid not null references sso_settings (account_id) on delete cascade
);
create index sso_domains_account on sso_domains (account_id);
-- One sign-in in flight: its state (hashed), the browser it started in, PKCE verifier and nonce; used once.
create table sso_flows (
  state_hash bytea primary key,
  browser_hash bytea not null,
  account_id uuid not null references accounts (id) on delete cascade,
  code_verifier text not null,
  nonce text not null,
  expires_at timestamptz not null,
  used_at timestamptz
);
`)
  }
}
