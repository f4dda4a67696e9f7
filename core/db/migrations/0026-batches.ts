// Batches (core/batches/): thousands of items of one endpoint accepted at once. Each item is a job of its own
// (the kernel's claim, lease, deadline and ending), with a hold of its own split from the batch's one spend
// check (core/wallet/sql/reserve_batch.sql), so an item is charged or released exactly as an async job is. Items
// wait in the jobs table until the feeder (core/batches/feed.ts) hands them to graphile-worker, a bounded number
// per account at a time.
import { Migration } from '@mikro-orm/migrations'

export class Migration0026Batches extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table batches (
  id uuid primary key,
  account_id uuid not null references accounts(id),
  key_id uuid not null references api_keys(id),
  mode text not null check (mode in ('live', 'test')),
  endpoint text not null,
  batch_window text not null check (batch_window in ('now', '24h')),
  -- queued: items not all ended (shown as running once one has started); the other three once all have ended,
  -- except cancelled, set when the cancel is asked (running items still finish).
  status text not null check (status in ('queued', 'cancelled', 'completed', 'expired')),
  total int not null check (total between 1 and 10000),
  succeeded int not null default 0,
  failed int not null default 0,
  cancelled int not null default 0,
  expired int not null default 0,
  quoted bigint not null,
  charged bigint not null default 0,
  released bigint not null default 0,
  callback_url text,
  request_id text not null,
  idempotency_key text,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  completed_at timestamptz
);
create index batches_account_list on batches (account_id, mode, created_at desc, id desc);
create index batches_open on batches (account_id) where status = 'queued';

alter table jobs
  add column batch_id uuid references batches(id) on delete cascade,
  add column batch_index int,
  add column custom_id text,
  add column dispatched boolean;
create unique index jobs_batch_items on jobs (batch_id, batch_index) where batch_id is not null;
create index jobs_batch_pending on jobs (account_id, created_at, batch_id, batch_index)
  where batch_id is not null and status = 'queued' and not dispatched;
create index jobs_batch_in_flight on jobs (account_id)
  where batch_id is not null and dispatched and status in ('queued', 'running');
create index jobs_batch_running on jobs (batch_id) where batch_id is not null and status = 'running';

-- A batch's callback (its callbackUrl, once every item has ended) is a delivery like a job's.
alter table webhook_deliveries
  alter column job_id drop not null,
  add column batch_id uuid references batches(id) on delete cascade,
  add constraint webhook_deliveries_one_subject check ((job_id is null) <> (batch_id is null));
create index webhook_deliveries_batch on webhook_deliveries (batch_id) where batch_id is not null;

`)
  }
}
