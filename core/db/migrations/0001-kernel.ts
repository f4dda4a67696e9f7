// The kernel's schema. Money lives in `accounts` (balance, reserved) and moves only through the wallet's SQL
// functions (core/wallet/sql/), each one statement for the caller: one database round trip per stage (C4).
import { Migration } from '@mikro-orm/migrations'

// The first schema as one SQL text, applied as one statement (kept out of up() so that it reads as SQL).
const KERNEL = `
create table accounts (
  id uuid primary key,
  email text not null unique,
  plan text not null default 'none' check (plan in ('none', 'developer', 'team')),
  first_pack_used boolean not null default false,
  balance bigint not null default 0 check (balance >= 0),
  reserved bigint not null default 0 check (reserved >= 0 and reserved <= balance),
  webhook_secret text,
  plan_renews_at timestamptz,
  created_at timestamptz not null default now()
);

create table api_keys (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  name text,
  key_hash bytea not null unique,
  prefix text not null,
  monthly_spend_cap bigint check (monthly_spend_cap >= 0),
  spend_month text not null default '',
  month_spend bigint not null default 0,
  held bigint not null default 0 check (held >= 0),
  created_at timestamptz not null default now(),
  revoked_at timestamptz
);
create index api_keys_account on api_keys (account_id);

create table ledger (
  id bigserial primary key,
  account_id uuid not null references accounts (id),
  kind text not null check (kind in ('purchase', 'plan_grant', 'charge', 'adjustment')),
  amount bigint not null,
  balance_after bigint not null,
  reference text,
  key_id uuid,
  created_at timestamptz not null default now()
);
create index ledger_account on ledger (account_id);

create table holds (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references accounts (id),
  key_id uuid not null references api_keys (id),
  amount bigint not null check (amount > 0),
  endpoint text not null,
  request_id text not null,
  state text not null default 'open' check (state in ('open', 'captured', 'released')),
  -- Sync holds expire so that a crashed process cannot strand credits; job holds end with their job.
  expires_at timestamptz,
  created_at timestamptz not null default now()
);
create index holds_open on holds (expires_at) where state = 'open';

create table usage_events (
  id bigserial primary key,
  account_id uuid not null references accounts (id),
  key_id uuid not null,
  endpoint text not null,
  credits bigint not null,
  request_id text not null,
  created_at timestamptz not null default now()
);
create index usage_events_account on usage_events (account_id, created_at);

create table idempotency_records (
  account_id uuid not null references accounts (id),
  key text not null,
  fingerprint bytea not null,
  state text not null check (state in ('running', 'done')),
  locked_until timestamptz not null,
  status int,
  body text,
  created_at timestamptz not null,
  primary key (account_id, key)
);
create index idempotency_records_created on idempotency_records (created_at);

-- Places a hold of p_price after the idempotency claim (C5) and before the spend cap (C9), as C1 orders
-- them. Outcomes: ok, replay, in_use, reused, insufficient, cap.
-- reserve_call: its current text is core/wallet/sql/reserve_call.sql

-- Captures an open hold: balance, ledger, usage, the key's month spend and the idempotency record in one
-- statement. The response body is assembled here so that the stored replay is byte-identical to what was
-- sent: p_result is the JSON object of the result without usage.
-- capture_hold: its current text is core/wallet/sql/capture_hold.sql

-- Releases an open hold (a failed call is free) and forgets the idempotency claim (C5: failures leave no
-- record). Releasing twice is harmless.
-- release_hold: its current text is core/wallet/sql/release_hold.sql

-- Every change of balance other than a charge: purchase, plan_grant, adjustment (C4).
-- credit_account: its current text is core/wallet/sql/credit_account.sql

create table jobs (
  id uuid primary key,
  account_id uuid not null references accounts (id),
  key_id uuid not null references api_keys (id),
  endpoint text not null,
  status text not null check (status in ('queued', 'running', 'succeeded', 'failed')),
  request_id text not null,
  hold_id uuid not null references holds (id),
  idempotency_key text,
  callback_url text,
  result text,
  error jsonb,
  lease_until timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null,
  started_at timestamptz,
  finished_at timestamptz
);
create index jobs_account on jobs (account_id);
create index jobs_open on jobs (status, created_at) where status in ('queued', 'running');

create table job_inputs (
  job_id uuid primary key references jobs (id) on delete cascade,
  input jsonb not null
);

create table webhook_deliveries (
  id text primary key,
  job_id uuid not null references jobs (id) on delete cascade,
  account_id uuid not null references accounts (id),
  event text not null,
  url text not null,
  payload text,
  status text not null check (status in ('pending', 'delivered', 'failed', 'skipped')),
  attempts int not null default 0,
  created_at timestamptz not null default now(),
  updated_at timestamptz not null default now()
);
create index webhook_deliveries_job on webhook_deliveries (job_id);

create table webhook_attempts (
  id bigserial primary key,
  delivery_id text not null references webhook_deliveries (id) on delete cascade,
  attempt int not null,
  at timestamptz not null,
  status_code int,
  error text,
  duration_ms int not null
);
create index webhook_attempts_delivery on webhook_attempts (delivery_id);
`

export class Migration0001Kernel extends Migration {
  override async up(): Promise<void> {
    this.addSql(KERNEL)
  }
}
