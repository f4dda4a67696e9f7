// Issue 32, two of the round trips' costs:
// - every instance caches keys by hash (core/accounts/key-cache.ts, KeyCache) and LISTENs here, so a revocation from
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

drop function if exists accept_job(uuid, uuid, bigint, text, text, text, bytea, interval, timestamptz, uuid, jsonb, text, text, text, text);
drop function if exists reserve_call(uuid, uuid, bigint, text, text, interval, text, bytea, interval, timestamptz);

-- As in 0011, and an insufficient refusal returns the account's available credits.
-- reserve_call: its current text is core/wallet/sql/reserve_call.sql

-- As in 0011, with the job queued as add_jobs would queue a job with no key, no queue and no flags (graphile-worker
-- 0.18, schema 000020: _private_jobs' other columns keep their defaults, run_at now(), and the same NOTIFY the
-- workers listen for). The task's row exists after the first job; that one goes through add_job.
-- accept_job: its current text is core/wallet/sql/accept_job.sql
`)
  }
}
