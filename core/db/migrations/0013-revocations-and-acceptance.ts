// Issue 32, two of the round trips' costs:
// - every instance caches keys by hash (core/accounts/accounts.ts, KeyCache) and LISTENs here, so a revocation from
//   any instance, the admin CLI or plain SQL reaches every cache at once, not when its entry expires;
// - accept_job queues its graphile-worker job with one insert instead of graphile_worker.add_job, which cost
//   PostgreSQL ≈ 1.0 ms of CPU per job (its generic add_jobs: task and queue upserts, a job-key update, a
//   five-way insert with an upsert, a set-returning wrapper) of the acceptance's ≈ 1.7 (scripts/bench/accept-sql.ts);
// - a refusal for want of credits (402) says what is available from the statement that refused, read under its
//   lock, instead of a second round trip to read the balance.
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

drop function accept_job(uuid, uuid, bigint, text, text, text, bytea, interval, timestamptz, uuid, jsonb, text, text, text, text);
drop function reserve_call(uuid, uuid, bigint, text, text, interval, text, bytea, interval, timestamptz);

-- As in 0011, and an insufficient refusal returns the account's available credits.
create function reserve_call(
  p_account uuid, p_key uuid, p_price bigint, p_endpoint text, p_request_id text,
  p_hold_ttl interval, p_idem_key text, p_fingerprint bytea, p_idem_window interval, p_now timestamptz
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
  insert into holds (account_id, key_id, amount, endpoint, request_id, expires_at, created_at)
  values (p_account, p_key, p_price, p_endpoint, p_request_id, p_now + p_hold_ttl, p_now)
  returning id into v_hold;
  return query select 'ok'::text, v_hold, null::int, null::text, null::bigint;
end $$;

-- As in 0011, with the job queued as add_jobs would queue a job with no key, no queue and no flags (graphile-worker
-- 0.18, schema 000020: _private_jobs' other columns keep their defaults, run_at now(), and the same NOTIFY the
-- workers listen for). The task's row exists after the first job; that one goes through add_job.
create function accept_job(
  p_account uuid, p_key uuid, p_price bigint, p_endpoint text, p_request_id text,
  p_idem_key text, p_fingerprint bytea, p_idem_window interval, p_now timestamptz,
  p_job uuid, p_input jsonb, p_callback_url text, p_task text, p_accepted text, p_traceparent text
) returns table (outcome text, status int, body text, available bigint)
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
  return query select v.outcome, v.status, v.body, v.available;
end $$;
`)
  }
}
