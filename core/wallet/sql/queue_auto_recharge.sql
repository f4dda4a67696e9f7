-- Auto-recharge trigger: a charge that takes available below the threshold queues one recharge job and
-- marks the crossing, all under the account row lock the charge already holds, so concurrent captures
-- queue exactly one job. The job clears recharge_pending when it is done.
create or replace function queue_auto_recharge() returns trigger
language plpgsql as $$
begin
  new.recharge_pending := true;
  perform graphile_worker.add_job('auto_recharge', json_build_object('accountId', new.id), max_attempts => 1);
  return new;
end $$;

create or replace trigger accounts_auto_recharge before update of balance on accounts for each row
when (new.balance < old.balance and new.auto_recharge_threshold is not null and not new.recharge_pending
      and new.stripe_payment_method is not null and new.balance - new.reserved < new.auto_recharge_threshold)
execute function queue_auto_recharge();
