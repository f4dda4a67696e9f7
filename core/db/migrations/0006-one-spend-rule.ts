// One definition of the rule that decides whether a call may be held (C4 balance, C9 spend cap), used by
// reserve_call under its row locks and by the dry run's quote without them; and the injected clock reaches
// every time these functions decide or record (the idempotency window arrives as a parameter too): ledger and
// usage rows are dated by it, so GET /v1/usage's windows follow the same clock as holds and keys.
import { Migration } from '@mikro-orm/migrations'

export class Migration0006OneSpendRule extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
-- A key's spend in the month of p_now: the stored figure belongs to spend_month, and a new month starts at 0.
create function key_month_spend(k api_keys, p_now timestamptz) returns bigint
language sql stable as $$
  select case when k.spend_month = to_char(p_now at time zone 'UTC', 'YYYY-MM') then k.month_spend else 0 end
$$;

-- Why a call of p_price cannot be held now: 'insufficient' (available credits, C4) before 'spend_cap' (the
-- key's monthly cap counts its month's spend and its open holds, C9), or null when it can.
create function spend_refusal(a accounts, k api_keys, p_price bigint, p_now timestamptz) returns text
language sql stable as $$
  select case
    when a.balance - a.reserved < p_price then 'insufficient'
    when k.monthly_spend_cap is not null and key_month_spend(k, p_now) + k.held + p_price > k.monthly_spend_cap then 'spend_cap'
  end
$$;

drop function reserve_call(uuid, uuid, bigint, text, text, interval, text, bytea, timestamptz);

-- Places a hold of p_price after the idempotency claim (C5) and the spend rule, as C1 orders them.
-- Outcomes: ok, replay, in_use, reused, insufficient, spend_cap.
create function reserve_call(
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

  -- Lock order everywhere: accounts, then api_keys (capture and release follow it too), so concurrent
  -- calls of one account queue instead of deadlocking.
  select * into v_account from accounts a where a.id = p_account for update;
  select * into v_key from api_keys k where k.id = p_key for update;
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

-- As in 0001, with the month rule above and the ledger and usage rows dated by p_now (GET /v1/usage's days).
create or replace function capture_hold(p_hold uuid, p_result text, p_idem_key text, p_now timestamptz)
returns table (body text, available bigint)
language plpgsql as $$
declare
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

drop function credit_account(uuid, text, bigint, text);

-- Every change of balance other than a charge: purchase, plan_grant, adjustment (C4), dated by p_now.
create function credit_account(p_account uuid, p_kind text, p_amount bigint, p_reference text, p_now timestamptz)
returns bigint
language plpgsql as $$
declare
  v_balance bigint;
begin
  update accounts a set balance = a.balance + p_amount where a.id = p_account returning a.balance into v_balance;
  if not found then
    raise exception 'account % not found', p_account using errcode = 'P0002';
  end if;
  insert into ledger (account_id, kind, amount, balance_after, reference, created_at)
  values (p_account, p_kind, p_amount, v_balance, p_reference, p_now);
  return v_balance;
end $$;
`)
  }
}
