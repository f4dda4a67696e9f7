-- Places a hold of p_price after the idempotency claim (C5) and the spend rule (spend_refusal), as C1 orders them,
-- and records on the hold the size a size-priced call was priced at (null for a flat price).
-- Outcomes: ok, replay, in_use, reused, insufficient (with the account's available credits, read under its lock),
-- spend_cap. The claim is step 1 of the lock order; lock_money() takes accounts and keys after it (docs/locking.md).
create or replace function reserve_call(
  p_account uuid, p_key uuid, p_price bigint, p_endpoint text, p_request_id text,
  p_hold_ttl interval, p_idem_key text, p_fingerprint bytea, p_idem_window interval, p_now timestamptz,
  p_size jsonb default null
) returns table (outcome text, hold_id uuid, status int, body text, available bigint)
language plpgsql as $$
declare
  v_rec idempotency_records%rowtype;
  v_account accounts%rowtype;
  v_key api_keys%rowtype;
  v_refusal text;
  v_hold uuid;
begin
  if p_idem_key is not null then
    insert into idempotency_records as r (account_id, key, fingerprint, state, locked_until, created_at)
    values (p_account, p_idem_key, p_fingerprint, 'running', p_now + interval '2 minutes', p_now)
    on conflict (account_id, key) do update
      set fingerprint = excluded.fingerprint, state = 'running', locked_until = excluded.locked_until,
          created_at = excluded.created_at, status = null, body = null
      -- An expired window is absent; a lock past its time belongs to a dead process.
      where r.created_at <= p_now - p_idem_window or (r.state = 'running' and r.locked_until < p_now)
    returning r.* into v_rec;
    if not found then
      select * into v_rec from idempotency_records r where r.account_id = p_account and r.key = p_idem_key;
      if v_rec.fingerprint <> p_fingerprint then
        return query select 'reused'::text, null::uuid, null::int, null::text, null::bigint;
      elsif v_rec.state = 'done' then
        return query select 'replay'::text, null::uuid, v_rec.status, v_rec.body, null::bigint;
      else
        return query select 'in_use'::text, null::uuid, null::int, null::text, null::bigint;
      end if;
      return;
    end if;
  end if;

  perform lock_money(null, null, array[p_account], array[p_key]);
  select * into v_account from accounts a where a.id = p_account;
  select * into v_key from api_keys k where k.id = p_key;
  v_refusal := spend_refusal(v_account, v_key, p_price, p_now);
  if v_refusal is not null then
    delete from idempotency_records r where r.account_id = p_account and r.key = p_idem_key;
    return query select v_refusal, null::uuid, null::int, null::text, v_account.balance - v_account.reserved;
    return;
  end if;

  update accounts a set reserved = a.reserved + p_price where a.id = p_account;
  update api_keys k set held = k.held + p_price where k.id = p_key;
  insert into holds (account_id, key_id, amount, endpoint, request_id, expires_at, created_at, size)
  values (p_account, p_key, p_price, p_endpoint, p_request_id, p_now + p_hold_ttl, p_now, p_size)
  returning id into v_hold;
  return query select 'ok'::text, v_hold, null::int, null::text, null::bigint;
end $$;
