-- The release of a leader's hold (a failed call is free, release_hold): its row in flight goes with it and, when a
-- follower waits, the key is announced (at commit), so its followers claim again at once and run on their own.
create or replace function result_cache_release(
  p_hold uuid, p_idem_key text, p_account uuid, p_livemode boolean, p_cache_key bytea
) returns boolean
language plpgsql as $$
declare
  v_released boolean := release_hold(p_hold, p_idem_key);
  v_followed boolean;
begin
  delete from result_cache c
   where c.account_id = p_account and c.livemode = p_livemode and c.key = p_cache_key and c.hold_id = p_hold
  returning c.followed into v_followed;
  if v_followed then
    perform pg_notify('result_cache_done', encode(p_cache_key, 'hex'));
  end if;
  return v_released;
end $$;
