// Issue 33: one lock order for every transaction that moves money or claims an idempotency key, taken by
// lock_money() below (docs/locking.md). Async acceptances with Idempotency-Keys deadlocked: reserve_call's
// insert of the idempotency record took FOR KEY SHARE on the account (the foreign key's check), then asked for
// the account FOR UPDATE, which conflicts with the KEY SHARE every other acceptance of the account held the same
// way: each waited for the other (40P01 in "select … from accounts … for update").
import { Migration } from '@mikro-orm/migrations'

export class Migration0011LockOrder extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
-- THE LOCK ORDER of every money or idempotency transaction (docs/locking.md); never an earlier one after a later one:
--   1. the call's idempotency record (account_id, key): claimed by reserve_call's insert, or locked here
--   2. accounts, ascending id
--   3. api_keys, ascending id
--   4. jobs, ascending id; then holds; then what hangs off them (job_inputs, ledger, usage, webhook rows)
-- Accounts and keys are locked FOR NO KEY UPDATE, never FOR UPDATE: every insert that references them (a record,
-- a hold, a job, a ledger row) takes FOR KEY SHARE, which FOR UPDATE conflicts with (the cycle of issue 33).
-- Locking a row again that the transaction already holds is free, so callers of callers may call it too.
create function lock_money(p_idem_account uuid, p_idem_key text, p_accounts uuid[], p_keys uuid[]) returns void
language plpgsql as $$
begin
  if p_idem_key is not null then
    perform from idempotency_records r where r.account_id = p_idem_account and r.key = p_idem_key for no key update;
  end if;
  perform from accounts a where a.id = any(p_accounts) order by a.id for no key update;
  perform from api_keys k where k.id = any(p_keys) order by k.id for no key update;
end $$;

-- As in 0006, with the locks of lock_money after the claim (step 1).
create or replace function reserve_call(
  p_account uuid, p_key uuid, p_price bigint, p_endpoint text, p_request_id text,
  p_hold_ttl interval, p_idem_key text, p_fingerprint bytea, p_idem_window interval, p_now timestamptz
) returns table (outcome text, hold_id uuid, status int, body text)
language plpgsql as $$
declare
  v_rec idempotency_records%rowtype;
  v_account accounts%rowtype;
  v_key api_keys%rowtype;
  v_refusal text;
  v_hold uuid;
begin
  if p_idem_key is not null then
    insert into idempotency_records as r (account_id, key, fingerprint, state, locked_until, created_at)
    values (p_account, p_idem_key, p_fingerprint, 'running', p_now + interval '2 minutes', p_now)
    on conflict (account_id, key) do update
      set fingerprint = excluded.fingerprint, state = 'running', locked_until = excluded.locked_until,
          created_at = excluded.created_at, status = null, body = null
      -- An expired window is absent; a lock past its time belongs to a dead process.
      where r.created_at <= p_now - p_idem_window or (r.state = 'running' and r.locked_until < p_now)
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

  perform lock_money(null, null, array[p_account], array[p_key]);
  select * into v_account from accounts a where a.id = p_account;
  select * into v_key from api_keys k where k.id = p_key;
  v_refusal := spend_refusal(v_account, v_key, p_price, p_now);
  if v_refusal is not null then
    delete from idempotency_records r where r.account_id = p_account and r.key = p_idem_key;
    return query select v_refusal, null::uuid, null::int, null::text;
    return;
  end if;

  update accounts a set reserved = a.reserved + p_price where a.id = p_account;
  update api_keys k set held = k.held + p_price where k.id = p_key;
  insert into holds (account_id, key_id, amount, endpoint, request_id, expires_at, created_at)
  values (p_account, p_key, p_price, p_endpoint, p_request_id, p_now + p_hold_ttl, p_now)
  returning id into v_hold;
  return query select 'ok'::text, v_hold, null::int, null::text;
end $$;

-- Acceptance of an async call (C7) in one statement: the hold (reserve_call), the job row, its input, its
-- graphile-worker job and the key's 202 commit together, and the account's lock is held for this statement
-- and its commit only (it was held across four round trips of a transaction). max_attempts 1: a model call is
-- never blindly repeated.
create function accept_job(
  p_account uuid, p_key uuid, p_price bigint, p_endpoint text, p_request_id text,
  p_idem_key text, p_fingerprint bytea, p_idem_window interval, p_now timestamptz,
  p_job uuid, p_input jsonb, p_callback_url text, p_task text, p_accepted text, p_traceparent text
) returns table (outcome text, status int, body text)
language plpgsql as $$
declare
  v record;
begin
  select * into v from reserve_call(p_account, p_key, p_price, p_endpoint, p_request_id, null, p_idem_key, p_fingerprint, p_idem_window, p_now) r;
  if v.outcome = 'ok' then
    insert into jobs (id, account_id, key_id, endpoint, status, request_id, hold_id, idempotency_key, callback_url, created_at, updated_at)
    values (p_job, p_account, p_key, p_endpoint, 'queued', p_request_id, v.hold_id, p_idem_key, p_callback_url, p_now, p_now);
    insert into job_inputs (job_id, input) values (p_job, p_input);
    -- traceparent: the job's span links to the accepting request's (null when tracing is off).
    perform graphile_worker.add_job(p_task, json_strip_nulls(json_build_object('jobId', p_job::text, 'traceparent', p_traceparent)), max_attempts => 1);
    if p_idem_key is not null then
      update idempotency_records r set state = 'done', status = 202, body = p_accepted
       where r.account_id = p_account and r.key = p_idem_key;
    end if;
  end if;
  return query select v.outcome, v.status, v.body;
end $$;

-- As in 0006: the hold is read unlocked for its account and key, the order taken, then the hold checked.
create or replace function capture_hold(p_hold uuid, p_result text, p_idem_key text, p_now timestamptz)
returns table (body text, available bigint)
language plpgsql as $$
declare
  v_hold holds%rowtype;
  v_balance bigint;
  v_reserved bigint;
  v_body text;
begin
  select * into v_hold from holds h where h.id = p_hold;
  if found then
    perform lock_money(v_hold.account_id, p_idem_key, array[v_hold.account_id], array[v_hold.key_id]);
  end if;
  update holds h set state = 'captured' where h.id = p_hold and h.state = 'open' returning h.* into v_hold;
  if not found then
    raise exception 'hold % is not open', p_hold using errcode = 'P0002';
  end if;
  update accounts a set balance = a.balance - v_hold.amount, reserved = a.reserved - v_hold.amount
   where a.id = v_hold.account_id returning a.balance, a.reserved into v_balance, v_reserved;
  insert into ledger (account_id, kind, amount, balance_after, reference, key_id, created_at)
  values (v_hold.account_id, 'charge', -v_hold.amount, v_balance, v_hold.endpoint || ' ' || v_hold.request_id, v_hold.key_id, p_now);
  insert into usage_events (account_id, key_id, endpoint, credits, request_id, created_at)
  values (v_hold.account_id, v_hold.key_id, v_hold.endpoint, v_hold.amount, v_hold.request_id, p_now);
  update api_keys k
     set held = k.held - v_hold.amount,
         month_spend = key_month_spend(k, p_now) + v_hold.amount,
         spend_month = to_char(p_now at time zone 'UTC', 'YYYY-MM')
   where k.id = v_hold.key_id;
  v_body := case when p_result = '{}' then '{' else left(p_result, -1) || ',' end
    || '"usage":{"credits":' || v_hold.amount || ',"balanceRemaining":' || (v_balance - v_reserved) || '}}';
  if p_idem_key is not null then
    update idempotency_records r set state = 'done', status = 200, body = v_body
     where r.account_id = v_hold.account_id and r.key = p_idem_key;
  end if;
  return query select v_body, v_balance - v_reserved;
end $$;

-- As in 0001, in the order of lock_money.
create or replace function release_hold(p_hold uuid, p_idem_key text) returns boolean
language plpgsql as $$
declare
  v_hold holds%rowtype;
begin
  select * into v_hold from holds h where h.id = p_hold;
  if not found then
    return false;
  end if;
  perform lock_money(v_hold.account_id, p_idem_key, array[v_hold.account_id], array[v_hold.key_id]);
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

-- As in 0006, under lock_money.
create or replace function credit_account(p_account uuid, p_kind text, p_amount bigint, p_reference text, p_now timestamptz)
returns bigint
language plpgsql as $$
declare
  v_balance bigint;
begin
  perform lock_money(null, null, array[p_account], null);
  update accounts a set balance = a.balance + p_amount where a.id = p_account returning a.balance into v_balance;
  if not found then
    raise exception 'account % not found', p_account using errcode = 'P0002';
  end if;
  insert into ledger (account_id, kind, amount, balance_after, reference, created_at)
  values (p_account, p_kind, p_amount, v_balance, p_reference, p_now);
  return v_balance;
end $$;

-- As in 0008, with the accounts and keys of the whole group locked first (they came after the jobs before).
create or replace function end_jobs(
  p_ids uuid[], p_results text[], p_errors jsonb[], p_from text[], p_lease_expired_by timestamptz[], p_now timestamptz
) returns table (ord int, job_id uuid, status text)
language plpgsql as $$
declare
  r record;
  v_ended uuid[] := '{}';
  v_results text[] := '{}';
  v_errors jsonb[] := '{}';
  v_statuses text[] := '{}';
  v_body text;
begin
  perform lock_money(null, null,
    (select array_agg(distinct j.account_id) from jobs j where j.id = any(p_ids)),
    (select array_agg(distinct j.key_id) from jobs j where j.id = any(p_ids)));
  perform from jobs j where j.id = any(p_ids) order by j.id for update;
  for r in
    select e.ord::int as ord, j.id, j.hold_id, j.status as was, j.lease_until, e.result, e.error, e.from_, e.expired_by
      from unnest(p_ids, p_results, p_errors, p_from, p_lease_expired_by) with ordinality as e (id, result, error, from_, expired_by, ord)
      join jobs j on j.id = e.id
     order by j.account_id, e.ord
  loop
    continue when r.id = any(v_ended)
      or not r.was = any(string_to_array(r.from_, ','))
      or (r.expired_by is not null and (r.lease_until is null or r.lease_until >= r.expired_by));
    if r.result is not null then
      select c.body into v_body from capture_hold(r.hold_id, r.result, null, p_now) c;
      v_statuses := v_statuses || 'succeeded'::text;
    else
      perform release_hold(r.hold_id, null);
      v_body := null;
      v_statuses := v_statuses || 'failed'::text;
    end if;
    v_ended := v_ended || r.id;
    v_results := v_results || v_body;
    v_errors := v_errors || r.error;
    ord := r.ord;
    job_id := r.id;
    status := v_statuses[array_length(v_statuses, 1)];
    return next;
  end loop;
  update jobs j set status = v.status, result = v.result, error = v.error, finished_at = p_now, updated_at = p_now, lease_until = null
    from unnest(v_ended, v_statuses, v_results, v_errors) as v (id, status, result, error) where j.id = v.id;
  delete from job_inputs i where i.job_id = any(v_ended);
end $$;
`)
  }
}
