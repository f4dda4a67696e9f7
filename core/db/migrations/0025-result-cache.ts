// The result cache (C20): results of the deterministic capabilities kept per account and mode, sealed with the
// service's key, and the one-statement charge of a call answered from it. In-flight calls of one key are led by
// the process holding the key's advisory lock (core/cache/flights.ts); result_cache_claim takes it and reads the
// cache under one fresh snapshot after the lock, so a leader that stored and unlocked just before is seen.
import { Migration } from '@mikro-orm/migrations'

export class Migration0025ResultCache extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table result_cache (
  account_id uuid not null references accounts(id) on delete cascade,
  livemode boolean not null,
  key bytea not null,
  endpoint text not null,
  result text not null,
  provider_cost_usd numeric not null default 0,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  primary key (account_id, livemode, key)
);
create index result_cache_expiry on result_cache (expires_at);

-- A hit priced at 0 credits holds and captures 0 like any other call: one rule for refusals, replays and usage.
alter table holds drop constraint holds_amount_check, add constraint holds_amount_check check (amount >= 0);
alter table usage_events add column cached boolean not null default false, add column saved_usd numeric;
alter table request_log add column cache text check (cache in ('hit', 'miss', 'bypass'));

create function result_cache_claim(p_account uuid, p_livemode boolean, p_key bytea, p_lock integer, p_now timestamptz)
returns table(role text, result text, saved_usd numeric) language plpgsql as $$
declare
  v_led boolean := pg_try_advisory_lock(1128481352, p_lock);
  v result_cache%rowtype;
begin
  select * into v from result_cache c
   where c.account_id = p_account and c.livemode = p_livemode and c.key = p_key and c.expires_at > p_now;
  if found then
    if v_led then
      perform pg_advisory_unlock(1128481352, p_lock);
    end if;
    return query select 'hit'::text, v.result, v.provider_cost_usd;
    return;
  end if;
  return query select case when v_led then 'leader' else 'follower' end, null::text, null::numeric;
end $$;

-- capture_hold, then the call marked as answered from the cache: its usage event (with the provider cost it
-- saved) and its body's usage, also as its Idempotency-Key replays it.
create function capture_cached_hold(p_hold uuid, p_result text, p_idem_key text, p_now timestamptz, p_saved_usd numeric)
returns table(body text, available bigint) language plpgsql as $$
declare
  v_hold holds%rowtype;
  v_body text;
  v_available bigint;
  v_tail constant text := ',"livemode":true}}';
begin
  select c.body, c.available into v_body, v_available from capture_hold(p_hold, p_result, p_idem_key, p_now) c;
  select * into v_hold from holds h where h.id = p_hold;
  update usage_events u set cached = true, saved_usd = p_saved_usd
   where u.account_id = v_hold.account_id and u.created_at = p_now and u.request_id = v_hold.request_id;
  if right(v_body, length(v_tail)) <> v_tail then
    raise exception 'capture_hold answered an unexpected usage: %', right(v_body, 80);
  end if;
  v_body := left(v_body, -length(v_tail)) || ',"cached":true' || v_tail;
  if p_idem_key is not null then
    update idempotency_records r set body = v_body where r.account_id = v_hold.account_id and r.key = p_idem_key;
  end if;
  return query select v_body, v_available;
end $$;
`)
  }
}
