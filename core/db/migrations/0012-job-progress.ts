// Issue 27: a job answered in parts (a long document, core/models/chunks.ts) shows how many of its model
// requests have ended, of how many: {done, total}; null for a job that runs as one request.
import { Migration } from '@mikro-orm/migrations'

export class Migration0012JobProgress extends Migration {
  override async up(): Promise<void> {
    this.addSql(`alter table jobs add column progress jsonb`)
  }
}
