// Issue 32, two of the round trips' costs:
// - every instance caches keys by hash (core/accounts/accounts.ts, KeyCache) and LISTENs here, so a revocation from
//   any instance, the admin CLI or plain SQL reaches every cache at once, not when its entry expires;
// - accept_job queues its graphile-worker job with one insert instead of graphile_worker.add_job, which cost
//   PostgreSQL ≈ 1.0 ms of CPU per job (its generic add_jobs: task and queue upserts, a job-key update, a
//   five-way insert with an upsert, a set-returning wrapper) of the acceptance's ≈ 1.7 (scripts/bench/accept-sql.ts).
import { Migration } from '@mikro-orm/migrations'

export class Migration0013RevocationsAndAcceptance extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create function notify_api_key_revoked() returns trigger
language plpgsql as $$
begin
  perform pg_notify('api_key_revoked', old.id::text);
  return null;
end $$;
-- "of revoked_at": the money statements update api_keys (held, month_spend) on every call and must not fire it.
create trigger api_key_revoked after update of revoked_at on api_keys
  for each row when (old.revoked_at is distinct from new.revoked_at) execute function notify_api_key_revoked();
create trigger api_key_deleted after delete on api_keys
  for each row execute function notify_api_key_revoked();

-- As in 0011, with the job queued as add_jobs would queue a job with no key, no queue and no flags (graphile-worker
-- 0.18, schema 000020: _private_jobs' other columns keep their defaults, run_at now(), and the same NOTIFY the
-- workers listen for). The task's row exists after the first job; that one goes through add_job.
create or replace function accept_job(
  p_account uuid, p_key uuid, p_price bigint, p_endpoint text, p_request_id text,
  p_idem_key text, p_fingerprint bytea, p_idem_window interval, p_now timestamptz,
  p_job uuid, p_input jsonb, p_callback_url text, p_task text, p_accepted text, p_traceparent text
) returns table (outcome text, status int, body text)
language plpgsql as $$
declare
  v record;
  v_payload json;
begin
  select * into v from reserve_call(p_account, p_key, p_price, p_endpoint, p_request_id, null, p_idem_key, p_fingerprint, p_idem_window, p_now) r;
  if v.outcome = 'ok' then
    insert into jobs (id, account_id, key_id, endpoint, status, request_id, hold_id, idempotency_key, callback_url, created_at, updated_at)
    values (p_job, p_account, p_key, p_endpoint, 'queued', p_request_id, v.hold_id, p_idem_key, p_callback_url, p_now, p_now);
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
    if p_idem_key is not null then
      update idempotency_records r set state = 'done', status = 202, body = p_accepted
       where r.account_id = p_account and r.key = p_idem_key;
    end if;
  end if;
  return query select v.outcome, v.status, v.body;
end $$;
`)
  }
}
