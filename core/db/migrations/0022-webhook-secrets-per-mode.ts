// A test key's deliveries are signed with a secret of their own, so a test event never verifies as a live one:
// the account holds a live and a test signing secret, each rotated with a 24-hour overlap. A delivery that is
// not sent (skipped) keeps why, for the API to say.
import { Migration } from '@mikro-orm/migrations'

export class Migration0022WebhookSecretsPerMode extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table accounts
  add column test_webhook_secret text,
  add column previous_test_webhook_secret text,
  add column test_webhook_secret_rotated_at timestamptz;
alter table webhook_deliveries add column reason text;
`)
  }
}
