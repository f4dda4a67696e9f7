// The result cache (C20): results of the deterministic capabilities kept per account and mode, sealed with the
// service's key; a hit is held and captured like any call, at 0 credits by default, and marked on its usage event
// and request log row. The functions are repeatable files: core/cache/sql/result_cache_claim.sql (who leads a call
// in flight) and core/wallet/sql/capture_cached_hold.sql (a hit's capture).
import { Migration } from '@mikro-orm/migrations'

export class Migration0025ResultCache extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table result_cache (
  account_id uuid not null references accounts(id) on delete cascade,
  livemode boolean not null,
  key bytea not null,
  endpoint text not null,
  result text not null,
  provider_cost_usd numeric not null default 0,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  primary key (account_id, livemode, key)
);
create index result_cache_expiry on result_cache (expires_at);

-- A hit priced at 0 credits holds and captures 0 like any other call: one rule for refusals, replays and usage.
alter table holds drop constraint holds_amount_check, add constraint holds_amount_check check (amount >= 0);
alter table usage_events add column cached boolean not null default false, add column saved_usd numeric;
alter table request_log add column cache text check (cache in ('hit', 'miss', 'bypass'));
`)
  }
}
