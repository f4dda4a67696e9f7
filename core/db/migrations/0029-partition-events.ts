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
// The deliveries' writer, queue_event_deliveries, fills event_created_at: its text is core/events/sql/
// queue_event_deliveries.sql, applied after this migration.
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
`

export class Migration0029PartitionEvents extends Migration {
  override async up(): Promise<void> {
    this.addSql(PARTITION_EVENTS)
  }
}
