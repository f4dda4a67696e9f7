-- An alert of an account with alert_email also queues its mail (the email_alert task), in the same transaction.
create or replace function emit_event(p_account uuid, p_type text, p_livemode boolean, p_data jsonb, p_endpoint text, p_now timestamptz)
returns text language plpgsql as $$
declare
  v_id text := 'evt_' || replace(gen_random_uuid()::text, '-', '');
begin
  insert into events (id, account_id, type, livemode, data, created_at) values (v_id, p_account, p_type, p_livemode, p_data, p_now);
  perform queue_event_deliveries(v_id, p_endpoint, p_now);
  if p_type in ('balance.low', 'balance.recovered', 'key.budget_threshold') and (select a.alert_email from accounts a where a.id = p_account) then
    perform graphile_worker.add_job('email_alert', json_build_object('eventId', v_id), max_attempts => 3);
  end if;
  return v_id;
end $$;
