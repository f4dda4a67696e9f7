// The kernel's schema. Money lives in `accounts` (balance, reserved) and moves only through the
// functions below, each one statement for the caller: one database round trip per stage (C4).
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
create function reserve_call(
  p_account uuid, p_key uuid, p_price bigint, p_endpoint text, p_request_id text,
  p_hold_ttl interval, p_idem_key text, p_fingerprint bytea, p_now timestamptz
) returns table (outcome text, hold_id uuid, status int, body text)
language plpgsql as $$
declare
  v_month text := to_char(p_now at time zone 'UTC', 'YYYY-MM');
  v_rec idempotency_records%rowtype;
  v_key api_keys%rowtype;
  v_hold uuid;
begin
  if p_idem_key is not null then
    insert into idempotency_records as r (account_id, key, fingerprint, state, locked_until, created_at)
    values (p_account, p_idem_key, p_fingerprint, 'running', p_now + interval '2 minutes', p_now)
    on conflict (account_id, key) do update
      set fingerprint = excluded.fingerprint, state = 'running', locked_until = excluded.locked_until,
          created_at = excluded.created_at, status = null, body = null
      -- An expired window is absent; a lock past its time belongs to a dead process.
      where r.created_at <= p_now - interval '24 hours' or (r.state = 'running' and r.locked_until < p_now)
    returning r.* into v_rec;
    if not found then
      select * into v_rec from idempotency_records r where r.account_id = p_account and r.key = p_idem_key;
      if v_rec.fingerprint <> p_fingerprint then
        return query select 'reused'::text, null::uuid, null::int, null::text;
      elsif v_rec.state = 'done' then
        return query select 'replay'::text, null::uuid, v_rec.status, v_rec.body;
      else
        return query select 'in_use'::text, null::uuid, null::int, null::text;
      end if;
      return;
    end if;
  end if;

  -- Lock order everywhere: accounts, then api_keys (capture and release follow it too), so concurrent
  -- calls of one account queue instead of deadlocking.
  update accounts a set reserved = a.reserved + p_price
   where a.id = p_account and a.balance - a.reserved >= p_price;
  if not found then
    delete from idempotency_records r where r.account_id = p_account and r.key = p_idem_key;
    return query select 'insufficient'::text, null::uuid, null::int, null::text;
    return;
  end if;

  select * into v_key from api_keys k where k.id = p_key for update;
  if v_key.monthly_spend_cap is not null and
     (case when v_key.spend_month = v_month then v_key.month_spend else 0 end) + v_key.held + p_price > v_key.monthly_spend_cap then
    update accounts a set reserved = a.reserved - p_price where a.id = p_account;
    delete from idempotency_records r where r.account_id = p_account and r.key = p_idem_key;
    return query select 'cap'::text, null::uuid, null::int, null::text;
    return;
  end if;

  update api_keys k set held = k.held + p_price where k.id = p_key;
  insert into holds (account_id, key_id, amount, endpoint, request_id, expires_at)
  values (p_account, p_key, p_price, p_endpoint, p_request_id, p_now + p_hold_ttl)
  returning id into v_hold;
  return query select 'ok'::text, v_hold, null::int, null::text;
end $$;

-- Captures an open hold: balance, ledger, usage, the key's month spend and the idempotency record in one
-- statement. The response body is assembled here so that the stored replay is byte-identical to what was
-- sent: p_result is the JSON object of the result without usage.
create function capture_hold(p_hold uuid, p_result text, p_idem_key text, p_now timestamptz)
returns table (body text, available bigint)
language plpgsql as $$
declare
  v_month text := to_char(p_now at time zone 'UTC', 'YYYY-MM');
  v_hold holds%rowtype;
  v_balance bigint;
  v_reserved bigint;
  v_body text;
begin
  update holds h set state = 'captured' where h.id = p_hold and h.state = 'open' returning h.* into v_hold;
  if not found then
    raise exception 'hold % is not open', p_hold using errcode = 'P0002';
  end if;
  update accounts a set balance = a.balance - v_hold.amount, reserved = a.reserved - v_hold.amount
   where a.id = v_hold.account_id returning a.balance, a.reserved into v_balance, v_reserved;
  insert into ledger (account_id, kind, amount, balance_after, reference, key_id)
  values (v_hold.account_id, 'charge', -v_hold.amount, v_balance, v_hold.endpoint || ' ' || v_hold.request_id, v_hold.key_id);
  insert into usage_events (account_id, key_id, endpoint, credits, request_id)
  values (v_hold.account_id, v_hold.key_id, v_hold.endpoint, v_hold.amount, v_hold.request_id);
  update api_keys k
     set held = k.held - v_hold.amount,
         month_spend = (case when k.spend_month = v_month then k.month_spend else 0 end) + v_hold.amount,
         spend_month = v_month
   where k.id = v_hold.key_id;
  v_body := case when p_result = '{}' then '{' else left(p_result, -1) || ',' end
    || '"usage":{"credits":' || v_hold.amount || ',"balanceRemaining":' || (v_balance - v_reserved) || '}}';
  if p_idem_key is not null then
    update idempotency_records r set state = 'done', status = 200, body = v_body
     where r.account_id = v_hold.account_id and r.key = p_idem_key;
  end if;
  return query select v_body, v_balance - v_reserved;
end $$;

-- Releases an open hold (a failed call is free) and forgets the idempotency claim (C5: failures leave no
-- record). Releasing twice is harmless.
create function release_hold(p_hold uuid, p_idem_key text) returns boolean
language plpgsql as $$
declare
  v_hold holds%rowtype;
begin
  update holds h set state = 'released' where h.id = p_hold and h.state = 'open' returning h.* into v_hold;
  if not found then
    return false;
  end if;
  update accounts a set reserved = a.reserved - v_hold.amount where a.id = v_hold.account_id;
  update api_keys k set held = k.held - v_hold.amount where k.id = v_hold.key_id;
  if p_idem_key is not null then
    delete from idempotency_records r
     where r.account_id = v_hold.account_id and r.key = p_idem_key and r.state = 'running';
  end if;
  return true;
end $$;

-- Every change of balance other than a charge: purchase, plan_grant, adjustment (C4).
create function credit_account(p_account uuid, p_kind text, p_amount bigint, p_reference text)
returns bigint
language plpgsql as $$
declare
  v_balance bigint;
begin
  update accounts a set balance = a.balance + p_amount where a.id = p_account returning a.balance into v_balance;
  if not found then
    raise exception 'account % not found', p_account using errcode = 'P0002';
  end if;
  insert into ledger (account_id, kind, amount, balance_after, reference)
  values (p_account, p_kind, p_amount, v_balance, p_reference);
  return v_balance;
end $$;

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
