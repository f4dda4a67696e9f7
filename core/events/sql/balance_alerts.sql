-- balance.low when the available credits go below a threshold that is armed; balance.recovered when money comes
-- in (a purchase, a grant, a refund: the balance rises) and they are back at or above one that fired. A hold
-- released after a failed call raises the available credits without money coming in, so a balance teetering
-- around a threshold never alternates low, recovered, low.
create or replace function balance_alerts() returns trigger language plpgsql as $$
declare
  v_old bigint := old.balance - old.reserved;
  v_new bigint := new.balance - new.reserved;
  v_threshold bigint;
begin
  foreach v_threshold in array new.balance_thresholds loop
    if v_new < v_threshold and v_old >= v_threshold then
      insert into balance_alert_states as s (account_id, threshold, low) values (new.id, v_threshold, true)
      on conflict (account_id, threshold) do update set low = true where not s.low;
      if found then
        perform emit_event(new.id, 'balance.low', true,
          jsonb_build_object('threshold', v_threshold, 'available', v_new), null, clock_timestamp());
      end if;
    end if;
  end loop;
  if new.balance > old.balance then
    for v_threshold in
      update balance_alert_states s set low = false
       where s.account_id = new.id and s.low and s.threshold <= v_new and s.threshold = any(new.balance_thresholds)
      returning s.threshold
    loop
      perform emit_event(new.id, 'balance.recovered', true,
        jsonb_build_object('threshold', v_threshold, 'available', v_new), null, clock_timestamp());
    end loop;
  end if;
  return null;
end $$;

create or replace trigger accounts_balance_alerts after update of balance, reserved on accounts for each row
  when (new.balance_thresholds is not null and new.balance - new.reserved <> old.balance - old.reserved)
  execute function balance_alerts();
