// Account events (C17): the tables of registered webhook endpoints, the event log with its deliveries and
// attempts, and the balance and key-budget alerts' states. The functions and the alert triggers are the
// repeatable files of core/events/sql/ (applied after every migration; core/events/README.md says why).
import { Migration } from '@mikro-orm/migrations'

// The schema of account events as one SQL text (kept out of up() so that it reads as SQL).
const ACCOUNT_EVENTS = `
alter table accounts
  add column balance_thresholds bigint[],
  add column key_budget_percents integer[],
  add column alert_email boolean not null default false;

create table webhook_endpoints (
  id text primary key,
  account_id uuid not null references accounts (id),
  url text not null,
  events text[],
  description text,
  enabled boolean not null default true,
  secret text not null,
  previous_secret text,
  secret_rotated_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index webhook_endpoints_account on webhook_endpoints (account_id, created_at);

create table events (
  id text primary key,
  seq bigint generated always as identity,
  account_id uuid not null references accounts (id),
  type text not null,
  livemode boolean not null,
  data jsonb not null,
  created_at timestamptz not null
);
create index events_account on events (account_id, livemode, seq desc);
create index events_created on events (created_at);

create table event_deliveries (
  id bigint generated always as identity primary key,
  event_id text not null references events (id) on delete cascade,
  endpoint_id text references webhook_endpoints (id) on delete set null,
  url text,
  status text not null check (status in ('pending', 'delivered', 'failed', 'skipped')),
  reason text,
  attempts integer not null default 0,
  last_status_code integer,
  last_error text,
  next_attempt_at timestamptz,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index event_deliveries_event on event_deliveries (event_id);

create table event_attempts (
  id bigint generated always as identity primary key,
  delivery_id bigint not null references event_deliveries (id) on delete cascade,
  attempt integer not null,
  at timestamptz not null,
  status_code integer,
  error text,
  duration_ms integer not null
);
create index event_attempts_delivery on event_attempts (delivery_id);

-- Per account and threshold: whether balance.low has fired and balance.recovered has not yet (no row: armed).
create table balance_alert_states (
  account_id uuid not null references accounts (id),
  threshold bigint not null,
  low boolean not null,
  primary key (account_id, threshold)
);

-- key.budget_threshold fired for this key, percent and UTC month (YYYY-MM): never again that month.
create table key_budget_alerts (
  key_id uuid not null references api_keys (id) on delete cascade,
  percent integer not null,
  month text not null,
  primary key (key_id, percent, month)
);
`

export class Migration0024AccountEvents extends Migration {
  override async up(): Promise<void> {
    this.addSql(ACCOUNT_EVENTS)
  }
}
