-- THE LOCK ORDER of every money or idempotency transaction (docs/locking.md); never an earlier one after a later one:
--   1. the call's idempotency record (account_id, key): claimed by reserve_call's insert, or locked here
--   2. accounts, ascending id
--   3. api_keys, ascending id
--   4. jobs, ascending id; then holds; then what hangs off them (job_inputs, ledger, usage, webhook rows)
-- Accounts and keys are locked FOR NO KEY UPDATE, never FOR UPDATE: every insert that references them (a record,
-- a hold, a job, a ledger row) takes FOR KEY SHARE, which FOR UPDATE conflicts with.
-- Locking a row again that the transaction already holds is free, so callers of callers may call it too.
create or replace function lock_money(p_idem_account uuid, p_idem_key text, p_accounts uuid[], p_keys uuid[]) returns void
language plpgsql as $$
begin
  if p_idem_key is not null then
    perform from idempotency_records r where r.account_id = p_idem_account and r.key = p_idem_key for no key update;
  end if;
  perform from accounts a where a.id = any(p_accounts) order by a.id for no key update;
  perform from api_keys k where k.id = any(p_keys) order by k.id for no key update;
end $$;
