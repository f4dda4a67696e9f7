// Issue 30: test-mode keys and the customer's request log.
//  - api_keys.mode: a `test` key (ksk_test_…) is served the capability's example; it never holds or charges.
//    sealed_key: a test key minted by the dashboard, encrypted (SecretBox), so its owner can see it again (the
//    sign-up key, /docs "Try it out"); live keys stay hash-only.
//  - jobs.mode: a test key's jobs are listed apart from live ones; they hold nothing, so hold_id may be null.
//  - request_log: one row per call the account made, served or refused, written in groups (core/requests).
//  - test_answer(): a test call's idempotency in one statement, as reserve_call + capture_hold do it live.
import { Migration } from '@mikro-orm/migrations'

export class Migration0010TestModeAndRequestLog extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table api_keys
  add column mode text not null default 'live' check (mode in ('live', 'test')),
  add column sealed_key text check (sealed_key is null or mode = 'test');

alter table jobs
  add column mode text not null default 'live' check (mode in ('live', 'test')),
  alter column hold_id drop not null,
  add constraint jobs_live_hold check (mode = 'test' or hold_id is not null);
create index jobs_account_list on jobs (account_id, mode, created_at desc, id desc);

-- No foreign key to accounts: its check would take a KEY SHARE lock on the account's row for every group of rows,
-- and reserve_call's FOR UPDATE on a busy account would queue behind it. Accounts are never deleted; rows go by age.
create table request_log (
  id bigserial primary key,
  account_id uuid not null,
  key_id uuid not null,
  key_prefix text not null,
  mode text not null check (mode in ('live', 'test')),
  request_id text not null,
  method text not null,
  endpoint text not null,
  status int not null,
  error_code text,
  credits bigint not null default 0,
  latency_ms real not null,
  idempotency_key text,
  created_at timestamptz not null
);
create index request_log_account on request_log (account_id, mode, id desc);
create index request_log_created on request_log (created_at);

-- A test call's answer and its Idempotency-Key in one statement: the key is claimed and recorded done at once
-- (nothing runs in between), or the recorded answer is replayed, or the key is refused as reserve_call refuses
-- it. A 200's body gets usage as capture_hold writes it, with 0 credits. Outcomes: ok, replay, in_use, reused.
-- test_answer: its current text is core/wallet/sql/test_answer.sql
`)
  }
}
