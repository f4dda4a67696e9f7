// Human review (C21): the PDF a review was opened on, so a reviewer sees its pages as images (rendered in the
// decoder pool when asked, never stored): `pages` are the page numbers a reviewer may see (every page, or those the
// call selected), `document` its bytes as base64, sealed with the service's key (core/secrets.ts), as the
// result cache's results are; the row goes with its review (the 30-day prune of completed reviews).
import { Migration } from '@mikro-orm/migrations'

export class Migration0034ReviewDocuments extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table review_documents (
  review_id text primary key references reviews (id) on delete cascade,
  pages integer[] not null,
  document text not null
);
`)
  }
}
