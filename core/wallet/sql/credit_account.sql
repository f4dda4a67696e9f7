-- Every change of balance other than a charge: purchase, plan_grant, adjustment (C4), dated by p_now, under the
-- account's lock (lock_money).
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
