// Human review (C21): an account's review settings, and the reviews of extracted results whose values code could
// not verify. A review keeps the result as answered, the flagged fields, the document's page text (the reviewer
// reads the page, not the caller's input) and the call's other options (for evaluation fixtures), and after
// completion the reviewed result and who reviewed what. An async call's job row keeps the reviewed result beside
// its own.
import { Migration } from '@mikro-orm/migrations'

export class Migration0027Reviews extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table review_settings (
  account_id uuid primary key references accounts (id) on delete cascade,
  mode text not null check (mode in ('off', 'ungrounded', 'below')),
  threshold numeric check (threshold between 0 and 1),
  endpoints text[],
  eval_consent boolean not null default false,
  updated_at timestamptz not null
);
create table reviews (
  id text primary key,
  account_id uuid not null references accounts (id) on delete cascade,
  livemode boolean not null,
  endpoint text not null,
  request_id text not null,
  job_id uuid,
  status text not null default 'pending' check (status in ('pending', 'completed')),
  fields jsonb not null,
  request jsonb not null,
  result jsonb not null,
  pages jsonb not null,
  reviewed_result jsonb,
  decisions jsonb,
  reviewer jsonb,
  created_at timestamptz not null,
  completed_at timestamptz
);
create index reviews_queue on reviews (account_id, livemode, created_at desc, id desc);
create index reviews_completed_at on reviews (completed_at) where completed_at is not null;
alter table jobs add column reviewed_result text;
`)
  }
}
