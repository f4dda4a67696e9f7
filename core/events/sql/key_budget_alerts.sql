-- key.budget_threshold once per key, percent and UTC month, when the month's spend reaches the percent of the cap.
create or replace function key_budget_alerts() returns trigger language plpgsql as $$
declare
  v_percent integer;
begin
  for v_percent in
    insert into key_budget_alerts (key_id, percent, month)
    select new.id, p, new.spend_month from accounts a cross join unnest(a.key_budget_percents) p
     where a.id = new.account_id and new.month_spend * 100 >= p * new.monthly_spend_cap
    on conflict do nothing
    returning percent
  loop
    perform emit_event(new.account_id, 'key.budget_threshold', new.mode = 'live',
      jsonb_build_object('keyId', new.id, 'keyPrefix', new.prefix, 'percent', v_percent, 'monthSpend', new.month_spend,
                         'cap', new.monthly_spend_cap),
      null, clock_timestamp());
  end loop;
  return null;
end $$;

create or replace trigger api_keys_budget_alerts after update of month_spend, spend_month on api_keys for each row
  when (new.monthly_spend_cap > 0 and (new.month_spend <> old.month_spend or new.spend_month <> old.spend_month))
  execute function key_budget_alerts();
