-- Acceptance of an async call (C7) in one statement: the hold and the key's 202 (reserve_batch, the hold of async
-- work: a job is a batch of one), the job row, its input and its graphile-worker job commit together, and the
-- account's lock is held for this statement and its commit only. max_attempts 1: a model call is never blindly
-- repeated. An insufficient refusal returns the account's available credits; the job is queued with one insert into
-- graphile-worker's jobs table (coupled to graphile-worker 0.18's schema: an upgrade must recheck it).
create or replace function accept_job(
  p_account uuid, p_key uuid, p_price bigint, p_endpoint text, p_request_id text,
  p_idem_key text, p_fingerprint bytea, p_idem_window interval, p_now timestamptz,
  p_job uuid, p_input jsonb, p_callback_url text, p_task text, p_accepted text, p_traceparent text,
  p_size jsonb default null
) returns table (outcome text, status int, body text, available bigint)
language plpgsql as $$
declare
  v record;
  v_payload json;
begin
  select * into v from reserve_batch(p_account, p_key, p_endpoint, p_request_id, p_idem_key, p_fingerprint, p_idem_window,
    p_now, array[p_price], array[p_size], p_accepted) r;
  if v.outcome = 'ok' then
    insert into jobs (id, account_id, key_id, endpoint, status, request_id, hold_id, idempotency_key, callback_url, created_at, updated_at)
    values (p_job, p_account, p_key, p_endpoint, 'queued', p_request_id, v.hold_ids[1], p_idem_key, p_callback_url, p_now, p_now);
    insert into job_inputs (job_id, input) values (p_job, p_input);
    -- traceparent: the job's span links to the accepting request's (null when tracing is off).
    v_payload := json_strip_nulls(json_build_object('jobId', p_job::text, 'traceparent', p_traceparent));
    insert into graphile_worker._private_jobs (task_id, payload, max_attempts)
    select t.id, v_payload, 1 from graphile_worker._private_tasks t where t.identifier = p_task;
    if found then
      perform pg_notify('jobs:insert', '{"r":' || random()::text || ',"count":1}');
    else
      perform graphile_worker.add_job(p_task, v_payload, max_attempts => 1);
    end if;
  end if;
  return query select v.outcome, v.status, v.body, v.available;
end $$;
