// Credit leases (CREDIT_LEASE=on): an API process takes a block of an account's credits for one key, under the
// account's and the key's locks, and charges its calls of that key against the block with one insert each, which
// takes neither lock. Every lease owns a range of offsets of its own [lo, hi) (hi - lo credits, from a sequence,
// so no two leases share an offset); a charge owns [from, from + price) of it. PostgreSQL itself refuses what no
// process may do: a charge past the block (the check against the lease's bounds, which the foreign key ties to
// the lease row) and a credit charged twice (the exclusion constraint: no two rows' ranges overlap, whatever a
// process believes). Settling fences every uncharged range with a 'fence' row, so a late charge of a settled
// lease overlaps it and is refused too; a settled lease then keeps one fence over its whole block.
import { Migration } from '@mikro-orm/migrations'

export class Migration0031CreditLeases extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create sequence credit_lease_blocks;
create table credit_leases (
  id uuid primary key default gen_random_uuid(),
  node text not null,
  account_id uuid not null references accounts (id),
  key_id uuid not null references api_keys (id),
  lo bigint not null,
  hi bigint not null check (hi > lo and hi - lo <= 1000),
  available_after bigint not null,
  state text not null default 'open' check (state in ('open', 'settled')),
  charged bigint,
  created_at timestamptz not null,
  expires_at timestamptz not null,
  settled_at timestamptz,
  unique (id, lo, hi)
);
create index credit_leases_open on credit_leases (account_id) where state = 'open';
create index credit_leases_expiry on credit_leases (expires_at) where state = 'open';
create table lease_charges (
  id bigint generated always as identity primary key,
  lease_id uuid not null,
  lease_lo bigint not null,
  lease_hi bigint not null,
  kind text not null check (kind in ('charge', 'fence')),
  credits int8range not null check (not isempty(credits)),
  endpoint text,
  request_id text,
  size jsonb,
  created_at timestamptz not null,
  foreign key (lease_id, lease_lo, lease_hi) references credit_leases (id, lo, hi),
  check (lower(credits) >= lease_lo and upper(credits) <= lease_hi),
  check (kind = 'fence' or (endpoint is not null and request_id is not null)),
  exclude using gist (credits with &&)
);
create index lease_charges_lease on lease_charges (lease_id);
`)
  }
}
