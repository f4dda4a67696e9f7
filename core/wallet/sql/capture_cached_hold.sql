-- A hit of the result cache (C20): capture_hold, then the call marked as answered from the cache: its usage event
-- (with the provider cost it saved) and its body's usage ("cached":true), also as its Idempotency-Key replays it.
-- capture_hold takes the lock order (lock_money) before any of these rows is written.
create or replace function capture_cached_hold(p_hold uuid, p_result text, p_idem_key text, p_now timestamptz, p_saved_usd numeric)
returns table(body text, available bigint) language plpgsql as $$
declare
  v_hold holds%rowtype;
  v_body text;
  v_available bigint;
  v_tail constant text := ',"livemode":true}}';
begin
  select c.body, c.available into v_body, v_available from capture_hold(p_hold, p_result, p_idem_key, p_now) c;
  select * into v_hold from holds h where h.id = p_hold;
  update usage_events u set cached = true, saved_usd = p_saved_usd
   where u.account_id = v_hold.account_id and u.created_at = p_now and u.request_id = v_hold.request_id;
  if right(v_body, length(v_tail)) <> v_tail then
    raise exception 'capture_hold answered an unexpected usage: %', right(v_body, 80);
  end if;
  v_body := left(v_body, -length(v_tail)) || ',"cached":true' || v_tail;
  if p_idem_key is not null then
    update idempotency_records r set body = v_body where r.account_id = v_hold.account_id and r.key = p_idem_key;
  end if;
  return query select v_body, v_available;
end $$;
