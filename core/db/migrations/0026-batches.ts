// Batches (core/batches/): thousands of items of one endpoint accepted at once. Each item is a job of its own
// (the kernel's claim, lease, deadline and ending), with a hold of its own split from the batch's one spend
// check, so an item is charged or released exactly as an async job is. Items wait in the jobs table until the
// feeder hands them to graphile-worker, a bounded number per account at a time (feed_batch_items).
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

-- A batch's hold: one spend check (reserve_call: the Idempotency-Key, 402 and the spend cap) for the whole quote,
-- then that hold split into one per item, so each item's ending captures or releases its own price. The
-- Idempotency-Key's record is done with the 202 in the same transaction.
create or replace function reserve_batch(p_account uuid, p_key uuid, p_endpoint text, p_request_id text,
  p_idem_key text, p_fingerprint bytea, p_idem_window interval, p_now timestamptz,
  p_amounts bigint[], p_sizes jsonb[], p_accepted text)
returns table (outcome text, status int, body text, available bigint, hold_ids uuid[])
language plpgsql as $$
declare
  v record;
  v_holds uuid[];
begin
  select * into v from reserve_call(p_account, p_key, (select sum(a) from unnest(p_amounts) a)::bigint, p_endpoint,
    p_request_id, null, p_idem_key, p_fingerprint, p_idem_window, p_now, null) r;
  if v.outcome = 'ok' then
    delete from holds h where h.id = v.hold_id;
    with inserted as (
      insert into holds (account_id, key_id, amount, endpoint, request_id, expires_at, created_at, size)
      select p_account, p_key, i.amount, p_endpoint, p_request_id, null, p_now, i.size
        from unnest(p_amounts, p_sizes) with ordinality as i (amount, size, ord)
       order by i.ord
      returning id
    )
    select array_agg(id) into v_holds from inserted;
    if p_idem_key is not null then
      update idempotency_records r set state = 'done', status = 202, body = p_accepted
       where r.account_id = p_account and r.key = p_idem_key;
    end if;
  end if;
  return query select v.outcome, v.status, v.body, v.available, v_holds;
end $$;

-- Hands waiting batch items to graphile-worker: each account up to p_share in flight (dispatched, not ended),
-- all accounts together up to p_total, one item per account per round (round robin), the oldest batch's items
-- first, in item order. One feeder at a time (the advisory lock), so the shares are exact; rows another
-- transaction holds (a cancel, an ending) are skipped, never waited for.
create or replace function feed_batch_items(p_share int, p_total int, p_task text)
returns int language plpgsql as $$
declare
  v_fed int;
begin
  perform pg_advisory_xact_lock(hashtext('feed_batch_items'));
  -- graphile-worker knows a task once a worker or add_job named it (as add_job does).
  insert into graphile_worker._private_tasks (identifier) values (p_task) on conflict do nothing;
  with open_accounts as (
    select distinct b.account_id from batches b where b.status = 'queued' and b.mode = 'live'
  ), in_flight as (
    select a.account_id,
           (select count(*) from jobs j where j.account_id = a.account_id and j.batch_id is not null and j.dispatched
               and j.status in ('queued', 'running')) as n
      from open_accounts a
  ), candidates as (
    select f.account_id, f.n, c.id, c.priority, row_number() over (partition by f.account_id order by c.created_at, c.batch_id, c.batch_index) as rn
      from in_flight f
      cross join lateral (
        select j.id, j.created_at, j.batch_id, j.batch_index, case when b.batch_window = 'now' then 0 else 10 end as priority
          from jobs j join batches b on b.id = j.batch_id
         where j.account_id = f.account_id and j.batch_id is not null and j.status = 'queued' and not j.dispatched
         order by j.created_at, j.batch_id, j.batch_index
         limit greatest(0, p_share - f.n)
           for update of j skip locked
      ) c
  ), chosen as (
    select id, priority from candidates
     order by n + rn, account_id
     limit greatest(0, p_total - (select count(*) from jobs j where j.batch_id is not null and j.dispatched and j.status in ('queued', 'running')))
  ), marked as (
    update jobs j set dispatched = true from chosen c where j.id = c.id returning j.id, c.priority
  )
  insert into graphile_worker._private_jobs (task_id, payload, max_attempts, priority)
  select t.id, json_build_object('jobId', m.id::text), 1, m.priority
    from marked m cross join graphile_worker._private_tasks t where t.identifier = p_task;
  get diagnostics v_fed = row_count;
  if v_fed > 0 then
    perform pg_notify('jobs:insert', '{"r":' || random()::text || ',"count":' || v_fed || '}');
  end if;
  return v_fed;
end $$;
`)
  }
}
