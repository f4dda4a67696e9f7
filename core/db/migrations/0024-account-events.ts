// Account events (C17): registered webhook endpoints, the event log with its deliveries and attempts, and the
// balance and key-budget alerts. An alert is decided by a trigger on the row whose update moved the money, so
// it is written in the same transaction and under the same row lock as the charge, hold, purchase or grant
// (an outbox: the event row and its delivery jobs commit with the money or not at all). The triggers' WHEN
// clauses read only the updated row, so an account without alerts pays nothing but that comparison.
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

-- The deliveries of an event: one per enabled endpoint of the account subscribed to its type (or only
-- p_endpoint, enabled or not, for a test ping or a resend to one endpoint), each a graphile-worker job in the
-- caller's transaction; none subscribed, one skipped delivery that says so.
create function queue_event_deliveries(p_event text, p_endpoint text, p_now timestamptz) returns integer
language plpgsql as $$
declare
  v_event events%rowtype;
  v_count integer;
begin
  select * into v_event from events where id = p_event;
  with d as (
    insert into event_deliveries (event_id, endpoint_id, url, status, created_at, updated_at)
    select v_event.id, e.id, e.url, 'pending', p_now, p_now from webhook_endpoints e
     where e.account_id = v_event.account_id
       and (case when p_endpoint is null
              then e.enabled and (e.events is null or exists (
                select from unnest(e.events) p where p = v_event.type or (p like '%.*' and v_event.type like left(p, -1) || '%')))
              else e.id = p_endpoint end)
    returning id
  )
  select count(*), count(graphile_worker.add_job('deliver_event', json_build_object('deliveryId', d.id, 'attempt', 1), max_attempts => 1))
    into v_count from d;
  if v_count = 0 then
    insert into event_deliveries (event_id, status, reason, created_at, updated_at)
    values (v_event.id, 'skipped', 'No enabled webhook endpoint of the account subscribes to ' || v_event.type || '.', p_now, p_now);
  end if;
  return v_count;
end $$;

-- An alert of an account with alert_email also queues its mail (the email_alert task), in the same transaction.
create function emit_event(p_account uuid, p_type text, p_livemode boolean, p_data jsonb, p_endpoint text, p_now timestamptz)
returns text language plpgsql as $$
declare
  v_id text := 'evt_' || replace(gen_random_uuid()::text, '-', '');
begin
  insert into events (id, account_id, type, livemode, data, created_at) values (v_id, p_account, p_type, p_livemode, p_data, p_now);
  perform queue_event_deliveries(v_id, p_endpoint, p_now);
  if p_type in ('balance.low', 'balance.recovered', 'key.budget_threshold') and (select a.alert_email from accounts a where a.id = p_account) then
    perform graphile_worker.add_job('email_alert', json_build_object('eventId', v_id), max_attempts => 3);
  end if;
  return v_id;
end $$;

-- balance.low when the available credits go below a threshold that is armed; balance.recovered when money comes
-- in (a purchase, a grant, a refund: the balance rises) and they are back at or above one that fired. A hold
-- released after a failed call raises the available credits without money coming in, so a balance teetering
-- around a threshold never alternates low, recovered, low.
create function balance_alerts() returns trigger language plpgsql as $$
declare
  v_old bigint := old.balance - old.reserved;
  v_new bigint := new.balance - new.reserved;
  v_threshold bigint;
begin
  foreach v_threshold in array new.balance_thresholds loop
    if v_new < v_threshold and v_old >= v_threshold then
      insert into balance_alert_states as s (account_id, threshold, low) values (new.id, v_threshold, true)
      on conflict (account_id, threshold) do update set low = true where not s.low;
      if found then
        perform emit_event(new.id, 'balance.low', true,
          jsonb_build_object('threshold', v_threshold, 'available', v_new), null, clock_timestamp());
      end if;
    end if;
  end loop;
  if new.balance > old.balance then
    for v_threshold in
      update balance_alert_states s set low = false
       where s.account_id = new.id and s.low and s.threshold <= v_new and s.threshold = any(new.balance_thresholds)
      returning s.threshold
    loop
      perform emit_event(new.id, 'balance.recovered', true,
        jsonb_build_object('threshold', v_threshold, 'available', v_new), null, clock_timestamp());
    end loop;
  end if;
  return null;
end $$;

create trigger accounts_balance_alerts after update of balance, reserved on accounts for each row
  when (new.balance_thresholds is not null and new.balance - new.reserved <> old.balance - old.reserved)
  execute function balance_alerts();

-- key.budget_threshold once per key, percent and UTC month, when the month's spend reaches the percent of the cap.
create function key_budget_alerts() returns trigger language plpgsql as $$
declare
  v_percent integer;
begin
  for v_percent in
    insert into key_budget_alerts (key_id, percent, month)
    select new.id, p, new.spend_month from accounts a cross join unnest(a.key_budget_percents) p
     where a.id = new.account_id and new.month_spend * 100 >= p * new.monthly_spend_cap
    on conflict do nothing
    returning percent
  loop
    perform emit_event(new.account_id, 'key.budget_threshold', new.mode = 'live',
      jsonb_build_object('keyId', new.id, 'keyPrefix', new.prefix, 'percent', v_percent, 'monthSpend', new.month_spend,
                         'cap', new.monthly_spend_cap),
      null, clock_timestamp());
  end loop;
  return null;
end $$;

create trigger api_keys_budget_alerts after update of month_spend, spend_month on api_keys for each row
  when (new.monthly_spend_cap > 0 and (new.month_spend <> old.month_spend or new.spend_month <> old.spend_month))
  execute function key_budget_alerts();
`

export class Migration0024AccountEvents extends Migration {
  override async up(): Promise<void> {
    this.addSql(ACCOUNT_EVENTS)
  }
}
