-- Who answers a call of the result cache (core/cache/flights.ts): 'hit' with the stored (sealed) result, 'leader'
-- when this session took the key's advisory lock and nothing is stored, or 'follower' when another session holds
-- the lock. The read runs after the lock under a fresh snapshot, so a leader that stored (committed) and then
-- unlocked just before is seen. The lock's first key (1128481352) is the cache's namespace.
create or replace function result_cache_claim(p_account uuid, p_livemode boolean, p_key bytea, p_lock integer, p_now timestamptz)
returns table(role text, result text, saved_usd numeric) language plpgsql as $$
declare
  v_led boolean := pg_try_advisory_lock(1128481352, p_lock);
  v result_cache%rowtype;
begin
  select * into v from result_cache c
   where c.account_id = p_account and c.livemode = p_livemode and c.key = p_key and c.expires_at > p_now;
  if found then
    if v_led then
      perform pg_advisory_unlock(1128481352, p_lock);
    end if;
    return query select 'hit'::text, v.result, v.provider_cost_usd;
    return;
  end if;
  return query select case when v_led then 'leader' else 'follower' end, null::text, null::numeric;
end $$;
