-- The hold of async work, a batch's items (C19) or one job (accept_job): one spend check for the whole quote
-- (reserve_call: the Idempotency-Key's claim, 402 and the spend cap, as a call), then that hold split into one per
-- item in item order, so each item's ending captures or releases its own price (end_jobs); one item keeps the hold
-- as placed. No expiry: the hold lives with its job. The Idempotency-Key's record is done with the 202 in the same
-- statement; the caller writes the jobs or items with these hold ids in its transaction.
create or replace function reserve_batch(p_account uuid, p_key uuid, p_endpoint text, p_request_id text,
  p_idem_key text, p_fingerprint bytea, p_idem_window interval, p_now timestamptz,
  p_amounts bigint[], p_sizes jsonb[], p_accepted text)
returns table (outcome text, status int, body text, available bigint, hold_ids uuid[])
language plpgsql as $$
declare
  v record;
  v_holds uuid[];
begin
  select * into v from reserve_call(p_account, p_key, (select sum(a) from unnest(p_amounts) a)::bigint, p_endpoint,
    p_request_id, null, p_idem_key, p_fingerprint, p_idem_window, p_now,
    case when cardinality(p_amounts) = 1 then p_sizes[1] end) r;
  if v.outcome = 'ok' then
    if cardinality(p_amounts) = 1 then
      v_holds := array[v.hold_id];
    else
      delete from holds h where h.id = v.hold_id;
      with inserted as (
        insert into holds (account_id, key_id, amount, endpoint, request_id, expires_at, created_at, size)
        select p_account, p_key, i.amount, p_endpoint, p_request_id, null, p_now, i.size
          from unnest(p_amounts, p_sizes) with ordinality as i (amount, size, ord)
         order by i.ord
        returning id
      )
      select array_agg(id) into v_holds from inserted;
    end if;
    if p_idem_key is not null then
      update idempotency_records r set state = 'done', status = 202, body = p_accepted
       where r.account_id = p_account and r.key = p_idem_key;
    end if;
  end if;
  return query select v.outcome, v.status, v.body, v.available, v_holds;
end $$;
