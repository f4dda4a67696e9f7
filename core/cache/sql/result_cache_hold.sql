-- The hold of a live call that reads the result cache (core/cache/turn.ts), with the cache's claim in the same
-- statement, so a miss costs no round trip more than the hold it makes anyway. Under the key's transaction-level
-- advisory lock (released at commit, so racing claimers of one key take turns and exactly one leads):
-- - 'hit': a result is kept; the hit price is held (reserve_call) and the sealed result returned;
-- - 'follower': an identical call is in flight (its row has no result, its hold is open and its process, whose
--   session advisory lock the row's leader names, is alive): nothing is held; the row is marked followed, so the
--   capture or release that ends the flight notifies; the caller waits and claims again;
-- - 'leader': the price is held and the key's row marked in flight by this hold; the capture stores the result
--   into it (result_cache_capture), a failing call's release deletes it (result_cache_release);
-- - 'alone' (p_followed: the caller waited for a leader that ended without a result): the price is held, unmarked.
-- The leader check reads pg_locks, but only when a row in flight is found (followers: the rare path). The lock's
-- first key (1128481352) is the cache's namespace; 1128481353 that of the processes' leader ids.
create or replace function result_cache_hold(
  p_account uuid, p_key uuid, p_price bigint, p_hit_price bigint, p_endpoint text, p_request_id text,
  p_hold_ttl interval, p_idem_key text, p_fingerprint bytea, p_idem_window interval, p_now timestamptz,
  p_size jsonb, p_livemode boolean, p_cache_key bytea, p_lock integer, p_leader integer, p_expires timestamptz,
  p_followed boolean
) returns table (role text, outcome text, hold_id uuid, status int, body text, available bigint, result text, saved_usd numeric)
language plpgsql as $$
declare
  v result_cache%rowtype;
  r record;
begin
  perform pg_advisory_xact_lock(1128481352, p_lock);
  loop
    select * into v from result_cache c where c.account_id = p_account and c.livemode = p_livemode and c.key = p_cache_key;
    if found and v.result is not null and v.expires_at > p_now then
      select * into r from reserve_call(p_account, p_key, p_hit_price, p_endpoint, p_request_id, p_hold_ttl, p_idem_key,
        p_fingerprint, p_idem_window, p_now, p_size) c;
      return query select 'hit'::text, r.outcome, r.hold_id, r.status, r.body, r.available, v.result, v.provider_cost_usd;
      return;
    end if;
    exit when not found or v.result is not null
      or not exists (select 1 from holds h where h.id = v.hold_id and h.state = 'open')
      or not exists (select 1 from pg_locks l
                      where l.locktype = 'advisory' and l.classid = 1128481353::oid and l.objid = v.leader::oid
                        and l.objsubid = 2 and l.granted
                        and l.database = (select d.oid from pg_database d where d.datname = current_database()));
    if v.followed is not true then
      -- Waits for a capture or release of the row committing meanwhile; finding the flight ended, it looks again.
      update result_cache c set followed = true
       where c.account_id = p_account and c.livemode = p_livemode and c.key = p_cache_key and c.hold_id = v.hold_id
         and c.result is null;
      continue when not found;
    end if;
    return query select 'follower'::text, null::text, null::uuid, null::int, null::text, null::bigint, null::text, null::numeric;
    return;
  end loop;
  select * into r from reserve_call(p_account, p_key, p_price, p_endpoint, p_request_id, p_hold_ttl, p_idem_key,
    p_fingerprint, p_idem_window, p_now, p_size) c;
  if r.outcome = 'ok' and not p_followed then
    -- The row's expiry is the result's already, so the capture that stores into it changes no indexed column.
    insert into result_cache as c (account_id, livemode, key, endpoint, result, created_at, expires_at, hold_id, leader)
    values (p_account, p_livemode, p_cache_key, p_endpoint, null, p_now, p_expires, r.hold_id, p_leader)
    on conflict (account_id, livemode, key) do update
      set endpoint = excluded.endpoint, result = null, provider_cost_usd = 0, created_at = excluded.created_at,
          expires_at = excluded.expires_at, hold_id = excluded.hold_id, leader = excluded.leader, followed = null;
  end if;
  return query select case when p_followed then 'alone' else 'leader' end, r.outcome, r.hold_id, r.status, r.body,
    r.available, null::text, null::numeric;
end $$;
