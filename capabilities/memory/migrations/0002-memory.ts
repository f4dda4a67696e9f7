// /v1/memory: agent memories per account and namespace. Every query of capabilities/memory filters by
// account_id AND namespace. Ranking: full-text (tsv, GIN) without an embedding model; with one, cosine
// similarity over `embedding` computed in SQL (real[]; pgvector is not required).
import { Migration } from '../../../core/capability.ts'

export default class Migration0002Memory extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table memories (
  id uuid primary key default gen_random_uuid(),
  account_id uuid not null references accounts (id) on delete cascade,
  namespace text not null,
  content text not null,
  metadata jsonb not null default '{}'::jsonb,
  -- The vector of the content and the model that made it: vectors of different models never compare.
  embedding real[],
  embedding_model text,
  tsv tsvector generated always as (to_tsvector('english', content)) stored,
  created_at timestamptz not null default now()
);
create index memories_account_namespace on memories (account_id, namespace, created_at);
create index memories_tsv on memories using gin (tsv);
`)
  }
}
