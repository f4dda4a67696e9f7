-- Settles a credit lease in one statement under the lock order (lock_money, then the lease row): the calls charged
-- against it move the account's balance and the key's month spend (one ledger and one usage row each, dated when
-- they were charged), the slices in p_keep (calls of its process still running) become ordinary holds, and the rest
-- goes back (reserved, held). Every range no committed charge holds is fenced first, so that a charge arriving
-- later, from a process that still believes in the lease, overlaps a fence and is refused by the exclusion
-- constraint: a lease settled by maintenance (its process died) or by another process's recall can only
-- refund. Settling twice is harmless. Returns each kept slice's offset and its hold.
create or replace function settle_lease(p_lease uuid, p_keep jsonb, p_hold_ttl interval, p_now timestamptz)
returns table (kept_from bigint, hold_id uuid)
language plpgsql as $$
declare
  v_lease credit_leases%rowtype;
  v_charged bigint;
  v_kept bigint := 0;
  v_before bigint;
  v_hold uuid;
  r record;
begin
  select * into v_lease from credit_leases l where l.id = p_lease;
  if not found then
    return;
  end if;
  perform lock_money(null, null, array[v_lease.account_id], array[v_lease.key_id]);
  select * into v_lease from credit_leases l where l.id = p_lease and l.state = 'open' for no key update;
  if not found then
    return;
  end if;
  -- A charge in flight in a fenced range makes the insert wait for it; if it commits, the insert fails and the
  -- ranges are read again with it counted (each statement of a function sees what committed before it).
  loop
    begin
      insert into lease_charges (lease_id, lease_lo, lease_hi, kind, credits, created_at)
      select v_lease.id, v_lease.lo, v_lease.hi, 'fence', g, p_now
        from unnest(int8multirange(int8range(v_lease.lo, v_lease.hi)) - coalesce(
               (select range_agg(c.credits) from lease_charges c where c.lease_id = p_lease), '{}'::int8multirange)) g;
      exit;
    exception when exclusion_violation or deadlock_detected then
      null;
    end;
  end loop;
  for r in
    select (e->>'from')::bigint as f, (e->>'price')::bigint as price, e->>'endpoint' as endpoint,
           e->>'requestId' as request_id, e->'size' as size
      from jsonb_array_elements(coalesce(p_keep, '[]'::jsonb)) e
     where (e->>'price')::bigint > 0 and (e->>'from')::bigint >= v_lease.lo
       and (e->>'from')::bigint + (e->>'price')::bigint <= v_lease.hi
       and not exists (select from lease_charges c where c.lease_id = p_lease and c.kind = 'charge'
                          and c.credits && int8range((e->>'from')::bigint, (e->>'from')::bigint + (e->>'price')::bigint))
  loop
    insert into holds (account_id, key_id, amount, endpoint, request_id, expires_at, created_at, size)
    values (v_lease.account_id, v_lease.key_id, r.price, r.endpoint, r.request_id, p_now + p_hold_ttl, p_now,
            nullif(r.size, 'null'::jsonb))
    returning id into v_hold;
    v_kept := v_kept + r.price;
    kept_from := r.f;
    hold_id := v_hold;
    return next;
  end loop;
  select coalesce(sum(upper(c.credits) - lower(c.credits)), 0) into v_charged
    from lease_charges c where c.lease_id = p_lease and c.kind = 'charge';
  update accounts a set balance = a.balance - v_charged, reserved = a.reserved - (v_lease.hi - v_lease.lo) + v_kept
   where a.id = v_lease.account_id returning a.balance + v_charged into v_before;
  insert into ledger (account_id, kind, amount, balance_after, reference, key_id, created_at, size)
  select v_lease.account_id, 'charge', -(upper(c.credits) - lower(c.credits)),
         v_before - sum(upper(c.credits) - lower(c.credits)) over (order by c.created_at, c.id),
         c.endpoint || ' ' || c.request_id, v_lease.key_id, c.created_at, c.size
    from lease_charges c where c.lease_id = p_lease and c.kind = 'charge' order by c.created_at, c.id;
  insert into usage_events (account_id, key_id, endpoint, credits, request_id, created_at, size)
  select v_lease.account_id, v_lease.key_id, c.endpoint, upper(c.credits) - lower(c.credits), c.request_id, c.created_at, c.size
    from lease_charges c where c.lease_id = p_lease and c.kind = 'charge' order by c.created_at, c.id;
  update api_keys k
     set held = k.held - (v_lease.hi - v_lease.lo) + v_kept,
         month_spend = key_month_spend(k, p_now) + v_charged,
         spend_month = to_char(p_now at time zone 'UTC', 'YYYY-MM')
   where k.id = v_lease.key_id;
  -- The block's rows give way to one fence over all of it (the ledger and usage rows keep its calls), so the table
  -- holds one row per settled block and a late charge still overlaps it.
  delete from lease_charges c where c.lease_id = p_lease;
  insert into lease_charges (lease_id, lease_lo, lease_hi, kind, credits, created_at)
  values (v_lease.id, v_lease.lo, v_lease.hi, 'fence', int8range(v_lease.lo, v_lease.hi), p_now);
  update credit_leases l set state = 'settled', charged = v_charged, settled_at = p_now where l.id = p_lease;
end $$;
