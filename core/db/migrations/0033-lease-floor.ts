// lease_credits takes the floor of a block as an argument (CREDIT_LEASE_MIN_CALLS): the six-argument function it
// replaces goes, or a call would match both. The new text is core/wallet/sql/lease_credits.sql, applied after this.
import { Migration } from '@mikro-orm/migrations'

export class Migration0033LeaseFloor extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
drop function if exists lease_credits(uuid, uuid, text, bigint, interval, timestamptz);
`)
  }
}
