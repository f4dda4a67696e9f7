-- A credit lease (CREDIT_LEASE=on): moves a block of the account's available credits and of the key's cap headroom
-- into a credit_leases row for p_node, under the lock order (lock_money), durably. The block is the least of
-- 1000 credits, 1/p_min_calls of the account's available credits and the key's cap headroom, and only taken when
-- it covers at least p_min_calls calls of p_price (CREDIT_LEASE_MIN_CALLS, 20: 5 %, 20 calls): an account near
-- empty (or a key near its cap) is served hold by hold, so a 402 or a spend-cap refusal is only ever answered by
-- reserve_call. No row: no lease.
create or replace function lease_credits(
  p_account uuid, p_key uuid, p_node text, p_price bigint, p_ttl interval, p_now timestamptz, p_min_calls bigint
) returns table (lease_id uuid, lo bigint, hi bigint, available_after bigint)
language plpgsql as $$
declare
  v_account accounts%rowtype;
  v_key api_keys%rowtype;
  v_amount bigint;
  v_lo bigint;
  v_id uuid;
begin
  if p_price <= 0 or p_min_calls < 1 then
    return;
  end if;
  perform lock_money(null, null, array[p_account], array[p_key]);
  select * into v_account from accounts a where a.id = p_account;
  select * into v_key from api_keys k where k.id = p_key;
  v_amount := least(1000, (v_account.balance - v_account.reserved) / p_min_calls);
  if v_key.monthly_spend_cap is not null then
    v_amount := least(v_amount, v_key.monthly_spend_cap - key_month_spend(v_key, p_now) - v_key.held);
  end if;
  if v_amount < p_min_calls * p_price or v_key.revoked_at is not null or v_key.mode <> 'live' then
    return;
  end if;
  v_lo := nextval('credit_lease_blocks') * 1000; -- each lease its own offsets: no range of two leases overlaps
  update accounts a set reserved = a.reserved + v_amount where a.id = p_account;
  update api_keys k set held = k.held + v_amount where k.id = p_key;
  insert into credit_leases (node, account_id, key_id, lo, hi, available_after, created_at, expires_at)
  values (p_node, p_account, p_key, v_lo, v_lo + v_amount, v_account.balance - v_account.reserved - v_amount, p_now, p_now + p_ttl)
  returning id into v_id;
  return query select v_id, v_lo, v_lo + v_amount, v_account.balance - v_account.reserved - v_amount;
end $$;
