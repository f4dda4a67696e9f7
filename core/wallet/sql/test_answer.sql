-- A test call's answer and its Idempotency-Key in one statement: the key is claimed and recorded done at once
-- (nothing runs in between), or the recorded answer is replayed, or the key is refused as reserve_call refuses it.
-- A 200's body gets usage as capture_hold writes it, with 0 credits, the size the input was measured at and
-- "livemode":false. Outcomes: ok, replay, in_use, reused.
create or replace function test_answer(
  p_account uuid, p_idem_key text, p_fingerprint bytea, p_idem_window interval, p_status int, p_result text, p_now timestamptz,
  p_size jsonb default null
) returns table (outcome text, status int, body text)
language plpgsql as $$
declare
  v_rec idempotency_records%rowtype;
  v_body text := p_result;
  v_available bigint;
begin
  if p_status = 200 then
    select a.balance - a.reserved into v_available from accounts a where a.id = p_account;
    v_body := case when p_result = '{}' then '{' else left(p_result, -1) || ',' end
      || '"usage":{"credits":0,"balanceRemaining":' || v_available
      || coalesce(',"size":' || p_size::text, '') || ',"livemode":false}}';
  end if;
  if p_idem_key is not null then
    insert into idempotency_records as r (account_id, key, fingerprint, state, locked_until, created_at, status, body)
    values (p_account, p_idem_key, p_fingerprint, 'done', p_now, p_now, p_status, v_body)
    on conflict (account_id, key) do update
      set fingerprint = excluded.fingerprint, state = 'done', locked_until = excluded.locked_until,
          created_at = excluded.created_at, status = excluded.status, body = excluded.body
      where r.created_at <= p_now - p_idem_window or (r.state = 'running' and r.locked_until < p_now)
    returning r.* into v_rec;
    if not found then
      select * into v_rec from idempotency_records r where r.account_id = p_account and r.key = p_idem_key;
      if v_rec.fingerprint <> p_fingerprint then
        return query select 'reused'::text, null::int, null::text;
      elsif v_rec.state = 'done' then
        return query select 'replay'::text, v_rec.status, v_rec.body;
      else
        return query select 'in_use'::text, null::int, null::text;
      end if;
      return;
    end if;
  end if;
  return query select 'ok'::text, p_status, v_body;
end $$;
