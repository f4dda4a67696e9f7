// What an integrator needs to tell test from live and to debug a call from the request log:
//  - usage says `livemode`: capture_hold (live holds only) appends true; test_answer appends false, and the size a
//    size-priced input was measured at, as a live call's usage carries it (test mode is live minus the money).
//  - request_log keeps, per row: a dry run and the status it quoted, a replay of an Idempotency-Key, the error's
//    message, the job a 202 accepted, and the caller's own tags (Service-Metadata); indexed for the lookups the
//    API offers (by request id, by Idempotency-Key, by a tag), the last two partial so untagged rows cost nothing.
//  - model_requests.outcome: model_not_found, a provider's 404 for the model (not a server error).
import { Migration } from '@mikro-orm/migrations'

export class Migration0018LivemodeAndDebugging extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table request_log
  add column dry_run boolean not null default false,
  add column live_status int,
  add column replayed boolean not null default false,
  add column error_message text,
  add column job_id uuid,
  add column metadata jsonb;
create index request_log_request_id on request_log (account_id, request_id);
create index request_log_idempotency_key on request_log (account_id, idempotency_key) where idempotency_key is not null;
create index request_log_metadata on request_log using gin (metadata jsonb_path_ops) where metadata is not null;

alter table model_requests drop constraint model_requests_outcome_check,
  add constraint model_requests_outcome_check
  check (outcome in ('ok', 'rate_limited', 'server_error', 'timeout', 'connection', 'context_length', 'model_not_found', 'refused'));

-- As in 0014, with "livemode":true closing usage (a hold is only ever placed by a live key).
-- capture_hold: its current text is core/wallet/sql/capture_hold.sql

-- As in 0010, with the size the input was measured at and "livemode":false in a 200's usage.
drop function if exists test_answer(uuid, text, bytea, interval, int, text, timestamptz);
-- test_answer: its current text is core/wallet/sql/test_answer.sql
`)
  }
}
