-- Releases an open hold (a failed call is free) and forgets the idempotency claim (C5: failures leave no record).
-- Releasing twice is harmless. The lock order is taken (lock_money) before the hold is checked.
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
