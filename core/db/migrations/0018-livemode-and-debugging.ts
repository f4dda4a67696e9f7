// What an integrator needs to tell test from live and to debug a call from the request log:
//  - usage says `livemode`: capture_hold (live holds only) appends true; test_answer appends false, and the size a
//    size-priced input was measured at, as a live call's usage carries it (test mode is live minus the money).
//  - request_log keeps, per row: a dry run and the status it quoted, a replay of an Idempotency-Key, the error's
//    message, the job a 202 accepted, and the caller's own tags (Service-Metadata); indexed for the lookups the
//    API offers (by request id, by Idempotency-Key, by a tag), the last two partial so untagged rows cost nothing.
//  - model_requests.outcome: model_not_found, a provider's 404 for the model (not a server error).
import { Migration } from '@mikro-orm/migrations'

export class Migration0018LivemodeAndDebugging extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table request_log
  add column dry_run boolean not null default false,
  add column live_status int,
  add column replayed boolean not null default false,
  add column error_message text,
  add column job_id uuid,
  add column metadata jsonb;
create index request_log_request_id on request_log (account_id, request_id);
create index request_log_idempotency_key on request_log (account_id, idempotency_key) where idempotency_key is not null;
create index request_log_metadata on request_log using gin (metadata jsonb_path_ops) where metadata is not null;

alter table model_requests drop constraint model_requests_outcome_check,
  add constraint model_requests_outcome_check
  check (outcome in ('ok', 'rate_limited', 'server_error', 'timeout', 'connection', 'context_length', 'model_not_found', 'refused'));

-- As in 0014, with "livemode":true closing usage (a hold is only ever placed by a live key).
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
    || coalesce(',"size":' || v_hold.size::text, '') || ',"livemode":true}}';
  if p_idem_key is not null then
    update idempotency_records r set state = 'done', status = 200, body = v_body
     where r.account_id = v_hold.account_id and r.key = p_idem_key;
  end if;
  return query select v_body, v_balance - v_reserved;
end $$;

-- As in 0010, with the size the input was measured at and "livemode":false in a 200's usage.
drop function test_answer(uuid, text, bytea, interval, int, text, timestamptz);
create function test_answer(
  p_account uuid, p_idem_key text, p_fingerprint bytea, p_idem_window interval, p_status int, p_result text, p_now timestamptz,
  p_size jsonb default null
) returns table (outcome text, status int, body text)
language plpgsql as $$
declare
  v_rec idempotency_records%rowtype;
  v_body text := p_result;
  v_available bigint;
begin
  if p_status = 200 then
    select a.balance - a.reserved into v_available from accounts a where a.id = p_account;
    v_body := case when p_result = '{}' then '{' else left(p_result, -1) || ',' end
      || '"usage":{"credits":0,"balanceRemaining":' || v_available
      || coalesce(',"size":' || p_size::text, '') || ',"livemode":false}}';
  end if;
  if p_idem_key is not null then
    insert into idempotency_records as r (account_id, key, fingerprint, state, locked_until, created_at, status, body)
    values (p_account, p_idem_key, p_fingerprint, 'done', p_now, p_now, p_status, v_body)
    on conflict (account_id, key) do update
      set fingerprint = excluded.fingerprint, state = 'done', locked_until = excluded.locked_until,
          created_at = excluded.created_at, status = excluded.status, body = excluded.body
      where r.created_at <= p_now - p_idem_window or (r.state = 'running' and r.locked_until < p_now)
    returning r.* into v_rec;
    if not found then
      select * into v_rec from idempotency_records r where r.account_id = p_account and r.key = p_idem_key;
      if v_rec.fingerprint <> p_fingerprint then
        return query select 'reused'::text, null::int, null::text;
      elsif v_rec.state = 'done' then
        return query select 'replay'::text, v_rec.status, v_rec.body;
      else
        return query select 'in_use'::text, null::int, null::text;
      end if;
      return;
    end if;
  end if;
  return query select 'ok'::text, p_status, v_body;
end $$;
`)
  }
}
