// Price by size (issue 27): a call's price depends on its input (pages, 1,000-token units), so the hold records
// what it was priced at (size: {unit, units, included, perUnit}, null for a flat price), and the capture copies it
// to the ledger row and the usage event and appends it to the result's `usage`. The functions take it as a last
// argument with a default, so every earlier call shape still works.
import { Migration } from '@mikro-orm/migrations'

export class Migration0014PriceBySize extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table holds add column size jsonb;
alter table ledger add column size jsonb;
alter table usage_events add column size jsonb;

drop function accept_job(uuid, uuid, bigint, text, text, text, bytea, interval, timestamptz, uuid, jsonb, text, text, text, text);
drop function reserve_call(uuid, uuid, bigint, text, text, interval, text, bytea, interval, timestamptz);

-- As in 0013 (a refusal for want of credits returns the available credits), the size recorded on the hold.
create function reserve_call(
  p_account uuid, p_key uuid, p_price bigint, p_endpoint text, p_request_id text,
  p_hold_ttl interval, p_idem_key text, p_fingerprint bytea, p_idem_window interval, p_now timestamptz,
  p_size jsonb default null
) returns table (outcome text, hold_id uuid, status int, body text, available bigint)
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
        return query select 'reused'::text, null::uuid, null::int, null::text, null::bigint;
      elsif v_rec.state = 'done' then
        return query select 'replay'::text, null::uuid, v_rec.status, v_rec.body, null::bigint;
      else
        return query select 'in_use'::text, null::uuid, null::int, null::text, null::bigint;
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
    return query select v_refusal, null::uuid, null::int, null::text, v_account.balance - v_account.reserved;
    return;
  end if;

  update accounts a set reserved = a.reserved + p_price where a.id = p_account;
  update api_keys k set held = k.held + p_price where k.id = p_key;
  insert into holds (account_id, key_id, amount, endpoint, request_id, expires_at, created_at, size)
  values (p_account, p_key, p_price, p_endpoint, p_request_id, p_now + p_hold_ttl, p_now, p_size)
  returning id into v_hold;
  return query select 'ok'::text, v_hold, null::int, null::text, null::bigint;
end $$;

-- As in 0013 (the job queued with one insert, the available credits on a refusal), passing the size on to the hold.
create function accept_job(
  p_account uuid, p_key uuid, p_price bigint, p_endpoint text, p_request_id text,
  p_idem_key text, p_fingerprint bytea, p_idem_window interval, p_now timestamptz,
  p_job uuid, p_input jsonb, p_callback_url text, p_task text, p_accepted text, p_traceparent text,
  p_size jsonb default null
) returns table (outcome text, status int, body text, available bigint)
language plpgsql as $$
declare
  v record;
  v_payload json;
begin
  select * into v from reserve_call(p_account, p_key, p_price, p_endpoint, p_request_id, null, p_idem_key, p_fingerprint, p_idem_window, p_now, p_size) r;
  if v.outcome = 'ok' then
    insert into jobs (id, account_id, key_id, endpoint, status, request_id, hold_id, idempotency_key, callback_url, created_at, updated_at)
    values (p_job, p_account, p_key, p_endpoint, 'queued', p_request_id, v.hold_id, p_idem_key, p_callback_url, p_now, p_now);
    insert into job_inputs (job_id, input) values (p_job, p_input);
    -- traceparent: the job's span links to the accepting request's (null when tracing is off).
    v_payload := json_strip_nulls(json_build_object('jobId', p_job::text, 'traceparent', p_traceparent));
    insert into graphile_worker._private_jobs (task_id, payload, max_attempts)
    select t.id, v_payload, 1 from graphile_worker._private_tasks t where t.identifier = p_task;
    if found then
      perform pg_notify('jobs:insert', '{"r":' || random()::text || ',"count":1}');
    else
      perform graphile_worker.add_job(p_task, v_payload, max_attempts => 1);
    end if;
    if p_idem_key is not null then
      update idempotency_records r set state = 'done', status = 202, body = p_accepted
       where r.account_id = p_account and r.key = p_idem_key;
    end if;
  end if;
  return query select v.outcome, v.status, v.body, v.available;
end $$;

-- As in 0011, the hold's size copied to the ledger row and the usage event, and appended to usage.
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
  insert into ledger (account_id, kind, amount, balance_after, reference, key_id, created_at, size)
  values (v_hold.account_id, 'charge', -v_hold.amount, v_balance, v_hold.endpoint || ' ' || v_hold.request_id, v_hold.key_id, p_now, v_hold.size);
  insert into usage_events (account_id, key_id, endpoint, credits, request_id, created_at, size)
  values (v_hold.account_id, v_hold.key_id, v_hold.endpoint, v_hold.amount, v_hold.request_id, p_now, v_hold.size);
  update api_keys k
     set held = k.held - v_hold.amount,
         month_spend = key_month_spend(k, p_now) + v_hold.amount,
         spend_month = to_char(p_now at time zone 'UTC', 'YYYY-MM')
   where k.id = v_hold.key_id;
  v_body := case when p_result = '{}' then '{' else left(p_result, -1) || ',' end
    || '"usage":{"credits":' || v_hold.amount || ',"balanceRemaining":' || (v_balance - v_reserved)
    || coalesce(',"size":' || v_hold.size::text, '') || '}}';
  if p_idem_key is not null then
    update idempotency_records r set state = 'done', status = 200, body = v_body
     where r.account_id = v_hold.account_id and r.key = p_idem_key;
  end if;
  return query select v_body, v_balance - v_reserved;
end $$;
`)
  }
}
