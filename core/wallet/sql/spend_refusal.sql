-- Why a call of p_price cannot be held now: 'insufficient' (available credits, C4) before 'spend_cap' (the key's
-- monthly cap counts its month's spend and its open holds, C9), or null when it can. The one definition of the rule:
-- reserve_call asks it under its row locks, the dry run's quote (core/wallet/wallet.ts) without them.
create or replace function spend_refusal(a accounts, k api_keys, p_price bigint, p_now timestamptz) returns text
language sql stable as $$
  select case
    when a.balance - a.reserved < p_price then 'insufficient'
    when k.monthly_spend_cap is not null and key_month_spend(k, p_now) + k.held + p_price > k.monthly_spend_cap then 'spend_cap'
  end
$$;
