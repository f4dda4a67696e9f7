// The event log in day partitions, like the request log (0028): events, their deliveries and the deliveries'
// attempts, each dropped a whole day at a time past EVENTS_RETENTION_DAYS instead of DELETE-d row by row.
//
// A partitioned table's primary key must hold its time column, so no foreign key can point at events(id) or
// event_deliveries(id) alone any more. Deliveries carry their event's created_at instead and are partitioned by it:
// an event and its deliveries (a resend weeks later included) share one day's partitions and go together. Attempts
// are partitioned by their own time (at), which is never before their event's: they go the same day as their event
// or later, never earlier. The two foreign keys that cascaded the deletes are dropped: deliveries are written only
// by queue_event_deliveries and attempts only by deliver_event, each reading the row it points at first
// (test/records/events-partitions.test.ts).
//
// On a database holding events the UPDATE rewrites the deliveries once (a table of thousands of rows a day, not of
// millions); the events and attempts keep their files, attached as <table>_legacy.
import { Migration } from '@mikro-orm/migrations'

const PARTITION_EVENTS = `
alter table event_deliveries drop constraint event_deliveries_event_id_fkey;
alter table event_attempts drop constraint event_attempts_delivery_id_fkey;

alter table event_deliveries add column event_created_at timestamptz;
update event_deliveries d set event_created_at = e.created_at from events e where e.id = d.event_id;
alter table event_deliveries alter column event_created_at set not null;

select partition_by_range('events', 'created_at', 'day');
select partition_by_range('event_deliveries', 'event_created_at', 'day');
select partition_by_range('event_attempts', 'at', 'day');

-- The deliveries carry the event's time, and so does their job: deliver_event finds its delivery in one partition.
create or replace function queue_event_deliveries(p_event text, p_endpoint text, p_now timestamptz) returns integer
language plpgsql as $$
declare
  v_event events%rowtype;
  v_count integer;
begin
  select * into v_event from events where id = p_event;
  with d as (
    insert into event_deliveries (event_id, event_created_at, endpoint_id, url, status, created_at, updated_at)
    select v_event.id, v_event.created_at, e.id, e.url, 'pending', p_now, p_now from webhook_endpoints e
     where e.account_id = v_event.account_id
       and (case when p_endpoint is null
              then e.enabled and (e.events is null or exists (
                select from unnest(e.events) p where p = v_event.type or (p like '%.*' and v_event.type like left(p, -1) || '%')))
              else e.id = p_endpoint end)
    returning id
  )
  select count(*), count(graphile_worker.add_job('deliver_event',
                           json_build_object('deliveryId', d.id, 'eventCreatedAt', v_event.created_at, 'attempt', 1), max_attempts => 1))
    into v_count from d;
  if v_count = 0 then
    insert into event_deliveries (event_id, event_created_at, status, reason, created_at, updated_at)
    values (v_event.id, v_event.created_at, 'skipped', 'No enabled webhook endpoint of the account subscribes to ' || v_event.type || '.',
            p_now, p_now);
  end if;
  return v_count;
end $$;
`

export class Migration0029PartitionEvents extends Migration {
  override async up(): Promise<void> {
    this.addSql(PARTITION_EVENTS)
  }
}
