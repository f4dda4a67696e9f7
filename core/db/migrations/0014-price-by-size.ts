// Price by size (issue 27): a call's price depends on its input (pages, 1,000-token units), so the hold records
// what it was priced at (size: {unit, units, included, perUnit}, null for a flat price), and the capture copies it
// to the ledger row and the usage event and appends it to the result's `usage`. The functions take it as a last
// argument with a default, so every earlier call shape still works.
import { Migration } from '@mikro-orm/migrations'

export class Migration0014PriceBySize extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table holds add column size jsonb;
alter table ledger add column size jsonb;
alter table usage_events add column size jsonb;

drop function if exists accept_job(uuid, uuid, bigint, text, text, text, bytea, interval, timestamptz, uuid, jsonb, text, text, text, text);
drop function if exists reserve_call(uuid, uuid, bigint, text, text, interval, text, bytea, interval, timestamptz);

-- As in 0013 (a refusal for want of credits returns the available credits), the size recorded on the hold.
-- reserve_call: its current text is core/wallet/sql/reserve_call.sql

-- As in 0013 (the job queued with one insert, the available credits on a refusal), passing the size on to the hold.
-- accept_job: its current text is core/wallet/sql/accept_job.sql

-- As in 0011, the hold's size copied to the ledger row and the usage event, and appended to usage.
-- capture_hold: its current text is core/wallet/sql/capture_hold.sql
`)
  }
}
