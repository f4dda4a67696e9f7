// Self-serve: dashboard sign-in and sessions, Stripe payments (granted once per event), auto-recharge.
import { Migration } from '@mikro-orm/migrations'

export class Migration0005Billing extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table accounts
  add column stripe_customer_id text,
  add column stripe_payment_method text,
  add column stripe_subscription_id text,
  -- Auto-recharge is on while a threshold is set; recharge_pending marks one crossing being recharged.
  add column auto_recharge_threshold bigint check (auto_recharge_threshold > 0),
  add column auto_recharge_pack text check (auto_recharge_pack in ('starter', 'growth', 'scale')),
  add column recharge_pending boolean not null default false;

-- Every Stripe event (and auto-recharge PaymentIntent) that granted credits: the primary key makes a grant
-- happen once, inserted in the grant's own transaction.
create table payment_grants (
  reference text primary key,
  account_id uuid not null references accounts (id),
  kind text not null,
  created_at timestamptz not null default now()
);

-- One-time sign-in links: only the SHA-256 of the token is stored.
create table login_links (
  token_hash bytea primary key,
  email text not null,
  expires_at timestamptz not null,
  used_at timestamptz
);

create table dashboard_sessions (
  id_hash bytea primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  csrf_token text not null,
  expires_at timestamptz not null,
  created_at timestamptz not null default now()
);
create index dashboard_sessions_account on dashboard_sessions (account_id);

-- The auto-recharge trigger on accounts: its current text is core/wallet/sql/queue_auto_recharge.sql
`)
  }
}
