-- The capture of a result cache miss (core/cache/turn.ts): capture_hold, and the sealed result kept in the same
-- transaction (into the row the leader's hold marked in flight, or a new one for a call that ran alone). When a
-- follower waits (the row is marked followed), the key is announced on result_cache_done, delivered at commit, so a
-- woken follower finds the result.
create or replace function result_cache_capture(
  p_hold uuid, p_result text, p_idem_key text, p_now timestamptz,
  p_account uuid, p_livemode boolean, p_cache_key bytea, p_endpoint text, p_sealed text, p_provider_cost_usd numeric,
  p_expires timestamptz
) returns table (body text, available bigint)
language plpgsql as $$
declare
  v_body text;
  v_available bigint;
  v_followed boolean;
begin
  select c.body, c.available into v_body, v_available from capture_hold(p_hold, p_result, p_idem_key, p_now) c;
  insert into result_cache as c (account_id, livemode, key, endpoint, result, provider_cost_usd, created_at, expires_at)
  values (p_account, p_livemode, p_cache_key, p_endpoint, p_sealed, p_provider_cost_usd, p_now, p_expires)
  on conflict (account_id, livemode, key) do update
    set endpoint = excluded.endpoint, result = excluded.result, provider_cost_usd = excluded.provider_cost_usd,
        created_at = excluded.created_at, expires_at = excluded.expires_at, hold_id = null, leader = null
  returning c.followed into v_followed;
  if v_followed then
    perform pg_notify('result_cache_done', encode(p_cache_key, 'hex'));
  end if;
  return query select v_body, v_available;
end $$;
