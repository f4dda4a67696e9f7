// Standard Webhooks signing (issue 14): after a rotation the previous secret keeps signing, next to the new
// one, for 24 hours, so receivers can switch without losing deliveries.
import { Migration } from '@mikro-orm/migrations'

export class Migration0004WebhookSigning extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
alter table accounts
  add column previous_webhook_secret text,
  add column webhook_secret_rotated_at timestamptz;
`)
  }
}
