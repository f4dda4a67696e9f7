-- A key's spend in the month of p_now: the stored figure belongs to spend_month, and a new month starts at 0.
create or replace function key_month_spend(k api_keys, p_now timestamptz) returns bigint
language sql stable as $$
  select case when k.spend_month = to_char(p_now at time zone 'UTC', 'YYYY-MM') then k.month_spend else 0 end
$$;
