-- Captures an open hold: balance, ledger, usage, the key's month spend and the idempotency record in one
-- statement, dated by p_now. The response body is assembled here (charged_body) so that the stored replay is
-- byte-identical to what was sent: usage gets the credits, the balance remaining and the hold's size. The hold is read
-- unlocked for its account and key, the lock order taken (lock_money), then the hold checked.
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
  v_body := charged_body(p_result, v_hold.amount, v_balance - v_reserved, v_hold.size);
  if p_idem_key is not null then
    update idempotency_records r set state = 'done', status = 200, body = v_body
     where r.account_id = v_hold.account_id and r.key = p_idem_key;
  end if;
  return query select v_body, v_balance - v_reserved;
end $$;
