// Issue 32: every instance caches keys by hash (core/accounts/accounts.ts, KeyCache) and LISTENs here, so a
// revocation from any instance, the admin CLI or plain SQL reaches every cache at once, not when its entry expires.
import { Migration } from '@mikro-orm/migrations'

export class Migration0013KeyRevocations extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create function notify_api_key_revoked() returns trigger
language plpgsql as $$
begin
  perform pg_notify('api_key_revoked', old.id::text);
  return null;
end $$;
-- "of revoked_at": the money statements update api_keys (held, month_spend) on every call and must not fire it.
create trigger api_key_revoked after update of revoked_at on api_keys
  for each row when (old.revoked_at is distinct from new.revoked_at) execute function notify_api_key_revoked();
create trigger api_key_deleted after delete on api_keys
  for each row execute function notify_api_key_revoked();
`)
  }
}
