// The result cache's calls in flight (C20): the row of a key that a call is computing carries no result yet, but
// the hold of the call that leads (its hold id) and the leader id of its process (a session advisory lock its
// process keeps, core/cache/flights.ts), written by the hold's own statement and cleared by the capture that
// stores the result (or deleted by the leader's release); `followed` once an identical call waits for it (then
// that capture or release notifies). The claim is now folded into the hold
// (core/cache/sql/result_cache_hold.sql), so the separate claim function goes.
import { Migration } from '@mikro-orm/migrations'

export class Migration0032ResultCacheFlights extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table result_cache alter column result drop not null, add column hold_id uuid, add column leader integer,
  add column followed boolean;
drop function if exists result_cache_claim(uuid, boolean, bytea, integer, timestamptz);
`)
  }
}
