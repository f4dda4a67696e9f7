// The large logs become tables partitioned by time (PARTITION BY RANGE on their timestamp), so retention drops whole
// partitions instead of DELETE-ing rows (which bloats the table and its indexes and competes with the money
// statements for I/O). partition_by_range() turns one table into a partitioned one in place; a later migration
// partitions another table with one call of it (then one entry in core/records/tables.ts keeps it maintained).
//
// Each table keeps its rows without a rewrite: under one ACCESS EXCLUSIVE lock it is renamed <table>_legacy, a
// partitioned parent of the same name and columns takes its place, and the old table is attached as the partition
// of everything before the next period (a CHECK constraint, validated first, spares ATTACH its scan). The one
// build under the lock is the unique index on (id, time) the primary key now needs; on a large table an operator
// builds it beforehand, `create unique index concurrently <table>_legacy_pkey on <table> (id, <time>)`, and this
// migration takes it as it is. A <table>_default partition catches rows outside every period (maintenance moves
// them into their partition when it creates it), so a late maintenance pass never fails a write.
import { Migration } from '@mikro-orm/migrations'

// The partitioning as one SQL text (kept out of up() so that it reads as SQL).
const TIME_PARTITIONS = `
create function partition_by_range(p_table text, p_column text, p_width text) returns void
language plpgsql as $$
declare
  v_legacy text := p_table || '_legacy';
  v_bound timestamptz := date_trunc(p_width, now()) + ('1 ' || p_width)::interval;
  v_indexes text[];
  v_foreign_keys text[];
  v_triggers text[];
  v_sequences text[];
  v_statement text;
  v_next bigint;
  r record;
begin
  if p_width not in ('day', 'month') then
    raise exception 'partition width must be day or month, not %', p_width;
  end if;
  execute format('lock table %I in access exclusive mode', p_table);

  -- What the parent must carry again: its indexes (the primary key becomes (id, time)), foreign keys, triggers.
  select coalesce(array_agg(pg_get_indexdef(i.indexrelid)), '{}') into v_indexes
    from pg_index i join pg_class c on c.oid = i.indexrelid
    where i.indrelid = p_table::regclass and not i.indisprimary and c.relname <> v_legacy || '_pkey';
  select coalesce(array_agg(format('alter table %I add constraint %I %s', p_table, c.conname, pg_get_constraintdef(c.oid))), '{}')
    into v_foreign_keys from pg_constraint c where c.conrelid = p_table::regclass and c.contype = 'f';
  select coalesce(array_agg(pg_get_triggerdef(t.oid)), '{}') into v_triggers
    from pg_trigger t where t.tgrelid = p_table::regclass and not t.tgisinternal;

  -- An identity column cannot be on a partitioned table in PostgreSQL 15: it becomes a sequence default, continuing.
  for r in select a.attname from pg_attribute a where a.attrelid = p_table::regclass and a.attidentity <> '' loop
    execute format('select coalesce(max(%I), 0) + 1 from %I', r.attname, p_table) into v_next;
    execute format('alter table %I alter column %I drop identity', p_table, r.attname);
    execute format('create sequence %I', p_table || '_' || r.attname || '_seq');
    perform setval(p_table || '_' || r.attname || '_seq', v_next, false);
    execute format('alter table %I alter column %I set default nextval(%L)', p_table, r.attname, p_table || '_' || r.attname || '_seq');
  end loop;
  -- A sequence owned by the old table's column would go when that partition is dropped.
  select coalesce(array_agg(s.seq), '{}') into v_sequences
    from (select coalesce(pg_get_serial_sequence(p_table, a.attname), p_table || '_' || a.attname || '_seq') as seq
          from pg_attribute a where a.attrelid = p_table::regclass and a.attname = 'id') s
    where to_regclass(s.seq) is not null;
  foreach v_statement in array v_sequences loop
    execute format('alter sequence %s owned by none', v_statement);
  end loop;

  foreach v_statement in array v_triggers loop
    execute format('drop trigger %I on %I', substring(v_statement from 'TRIGGER (\\S+) '), p_table);
  end loop;
  for r in select c.relname from pg_index i join pg_class c on c.oid = i.indexrelid
           where i.indrelid = p_table::regclass and not i.indisprimary and c.relname <> v_legacy || '_pkey' loop
    execute format('alter index %I rename to %I', r.relname, r.relname || '_legacy');
  end loop;
  execute format('alter table %I rename to %I', p_table, v_legacy);
  for r in select conname from pg_constraint where conrelid = v_legacy::regclass and contype = 'p' loop
    execute format('alter table %I drop constraint %I', v_legacy, r.conname);
  end loop;
  execute format('create unique index if not exists %I on %I (id, %I)', v_legacy || '_pkey', v_legacy, p_column);
  -- A constraint's index (not a plain unique one) is what the parent's primary key takes over instead of building.
  execute format('alter table %I add constraint %I primary key using index %I', v_legacy, v_legacy || '_pkey', v_legacy || '_pkey');

  execute format('create table %I (like %I including defaults including constraints including storage including comments) partition by range (%I)',
    p_table, v_legacy, p_column);
  execute format('alter table %I add constraint %I check (%I < %L) not valid', v_legacy, v_legacy || '_range', p_column, v_bound);
  execute format('alter table %I validate constraint %I', v_legacy, v_legacy || '_range');
  execute format('alter table %I attach partition %I for values from (minvalue) to (%L)', p_table, v_legacy, v_bound);
  execute format('alter table %I drop constraint %I', v_legacy, v_legacy || '_range');
  execute format('create table %I partition of %I default', p_table || '_default', p_table);

  -- On the parent, each index attaches the old table's equal one (no build) and is created on every new partition.
  execute format('alter table %I add constraint %I primary key (id, %I)', p_table, p_table || '_pkey', p_column);
  foreach v_statement in array v_indexes loop
    execute v_statement;
  end loop;
  foreach v_statement in array v_foreign_keys loop
    execute v_statement;
  end loop;
  foreach v_statement in array v_triggers loop
    execute v_statement;
  end loop;
  foreach v_statement in array v_sequences loop
    execute format('alter sequence %s owned by %I.id', v_statement, p_table);
  end loop;
end $$;

-- One period's partition (maintenance creates them ahead). Rows that landed in the default partition for lack of it
-- move into it in the same transaction; a table's statement triggers (the audit log's TRUNCATE refusal), which
-- partitions do not inherit, are copied; an append-only table's partition grants no UPDATE or TRUNCATE.
create function create_time_partition(p_table text, p_column text, p_from timestamptz, p_to timestamptz, p_name text,
  p_append_only boolean) returns void
language plpgsql as $$
declare
  v_default text := p_table || '_default';
  v_strays boolean;
  r record;
begin
  perform set_config('lock_timeout', '5s', true);
  -- Two maintenance passes at once: the second finds the partition made.
  perform pg_advisory_xact_lock(hashtext('create_time_partition'), hashtext(p_table));
  if to_regclass(p_name) is not null then
    return;
  end if;
  -- The new partition's foreign keys lock the tables they reference (accounts, api_keys) after the parent, while a
  -- charge locks its account first and writes the log after: take the referenced tables first, accounts before
  -- keys as the money statements do, so that a partition made under traffic waits its turn and never deadlocks.
  for r in select referenced from (select distinct c.confrelid::regclass::text as referenced from pg_constraint c
                                     where c.conrelid = p_table::regclass and c.contype = 'f') f
            order by referenced <> 'accounts', referenced loop
    execute format('lock table %s in share row exclusive mode', r.referenced);
  end loop;
  execute format('select exists (select 1 from %I where %I >= %L and %I < %L)', v_default, p_column, p_from, p_column, p_to)
    into v_strays;
  if v_strays then
    execute format('create temp table records_moving (like %I) on commit drop', p_table);
    -- Moving an entry into its partition is not deleting it: the append-only guard stands aside for this statement.
    execute format('alter table %I disable trigger user', v_default);
    execute format('with moved as (delete from %I where %I >= %L and %I < %L returning *) insert into records_moving select * from moved',
      v_default, p_column, p_from, p_column, p_to);
    execute format('alter table %I enable trigger user', v_default);
  end if;
  execute format('create table %I partition of %I for values from (%L) to (%L)', p_name, p_table, p_from, p_to);
  if v_strays then
    execute format('insert into %I select * from records_moving', p_table);
    drop table records_moving;
  end if;
  for r in select pg_get_triggerdef(t.oid) as def from pg_trigger t
           where t.tgrelid = p_table::regclass and not t.tgisinternal and (t.tgtype & 1) = 0 loop
    execute replace(r.def, ' ON public.' || quote_ident(p_table) || ' ', ' ON public.' || quote_ident(p_name) || ' ');
  end loop;
  if p_append_only then
    execute format('revoke update, truncate on %I from public', p_name);
    execute format('revoke update, truncate on %I from current_user', p_name);
  end if;
end $$;

-- Retention: a whole partition goes; waiting at most 5 s for the lock, so a long read never queues the writes behind it.
create function drop_time_partition(p_name text) returns void
language plpgsql as $$
begin
  perform set_config('lock_timeout', '5s', true);
  execute format('drop table if exists %I', p_name);
end $$;

select partition_by_range('request_log', 'created_at', 'day');
select partition_by_range('usage_events', 'created_at', 'day');
select partition_by_range('model_requests', 'created_at', 'day');
select partition_by_range('audit_entries', 'at', 'month');

-- The audit log stays append-only: row triggers on a partitioned table reach every partition, a TRUNCATE trigger
-- does not, so each partition carries its own (maintenance adds it to new ones), and no one holds UPDATE or TRUNCATE.
create trigger audit_entries_no_truncate before truncate on audit_entries_legacy
  for each statement execute function refuse_audit_change();
create trigger audit_entries_no_truncate before truncate on audit_entries_default
  for each statement execute function refuse_audit_change();
revoke update, truncate on audit_entries, audit_entries_legacy, audit_entries_default from public;
revoke update, truncate on audit_entries, audit_entries_legacy, audit_entries_default from current_user;

-- Usage rollups (GET /v1/usage/summary, the dashboard's overview): per account, mode, UTC hour, endpoint and key,
-- the calls, errors, credits and a latency histogram, kept current by statement triggers on the logs (one upsert per
-- batch written, not per row) instead of scanning them. Element i + 1 of the histogram counts latencies in
-- [latency_bounds()[i], latency_bounds()[i + 1]) ms (width_bucket's numbering: bucket 0 under 1 ms, the last from
-- about 110 s); bounds grow by 25%, so a percentile read from it is off by one bucket at most.
create function latency_bounds() returns real[] language sql immutable as $$ select '{1,2,3,4,5,6,7,9,12,15,18,23,28,36,44,56,69,87,108,136,169,212,265,331,414,517,646,808,1010,1262,1578,1972,2465,3081,3852,4815,6019,7523,9404,11755,14694,18367,22959,28699,35873,44842,56052,70065,87581,109476}'::real[] $$;
create function add_histograms(a bigint[], b bigint[]) returns bigint[] language sql immutable as $$
  select array_agg(coalesce(x, 0) + coalesce(y, 0) order by i) from unnest(a, b) with ordinality as u(x, y, i)
$$;
-- The histogram of (bucket, count) pairs.
create function histogram_of(p_buckets int[], p_counts bigint[]) returns bigint[] language sql immutable as $$
  select array_agg(coalesce((select sum(c) from unnest(p_buckets, p_counts) as u(b, c) where b = i), 0)::bigint order by i)
    from generate_series(0, cardinality(latency_bounds())) as i
$$;

create table usage_rollups (
  account_id uuid not null,
  livemode boolean not null,
  hour timestamptz not null,
  endpoint text not null,
  key_id uuid not null,
  calls bigint not null default 0,
  errors bigint not null default 0,
  credits bigint not null default 0,
  latency bigint[] not null default '{}',
  -- The request log's rows (calls, errors, latency) and the charges' (credits) are kept apart, so that a charge,
  -- which runs under its account's lock, never waits for a request-log flush on the same row; readers sum both.
  charged boolean not null default false,
  primary key (account_id, livemode, hour, endpoint, key_id, charged)
);
-- By each Service-Metadata tag a call sent: its calls, errors, latency and the credits the call itself charged.
create table usage_tag_rollups (
  account_id uuid not null,
  livemode boolean not null,
  hour timestamptz not null,
  tag text not null,
  value text not null,
  calls bigint not null default 0,
  errors bigint not null default 0,
  credits bigint not null default 0,
  latency bigint[] not null default '{}',
  primary key (account_id, livemode, tag, hour, value)
);

create function roll_up_requests() returns trigger language plpgsql as $$
begin
  insert into usage_rollups as r (account_id, livemode, hour, endpoint, key_id, calls, errors, latency)
  select account_id, livemode, hour, endpoint, key_id, sum(n), sum(e), histogram_of(array_agg(bucket), array_agg(n))
    from (select account_id, mode = 'live' as livemode, date_trunc('hour', created_at, 'UTC') as hour, endpoint, key_id,
                 width_bucket(latency_ms, latency_bounds()) as bucket, count(*) as n, count(*) filter (where status >= 400) as e
            from new_rows group by 1, 2, 3, 4, 5, 6) b
   group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
  on conflict (account_id, livemode, hour, endpoint, key_id, charged) do update
    set calls = r.calls + excluded.calls, errors = r.errors + excluded.errors, latency = add_histograms(r.latency, excluded.latency);

  insert into usage_tag_rollups as r (account_id, livemode, hour, tag, value, calls, errors, credits, latency)
  select account_id, livemode, hour, tag, value, sum(n), sum(e), sum(c), histogram_of(array_agg(bucket), array_agg(n))
    from (select account_id, mode = 'live' as livemode, date_trunc('hour', created_at, 'UTC') as hour, t.key as tag, t.value,
                 width_bucket(latency_ms, latency_bounds()) as bucket, count(*) as n, count(*) filter (where status >= 400) as e,
                 sum(credits) as c
            from new_rows, jsonb_each_text(metadata) as t where metadata is not null group by 1, 2, 3, 4, 5, 6) b
   group by 1, 2, 3, 4, 5 order by 1, 2, 4, 3, 5
  on conflict (account_id, livemode, tag, hour, value) do update
    set calls = r.calls + excluded.calls, errors = r.errors + excluded.errors, credits = r.credits + excluded.credits,
        latency = add_histograms(r.latency, excluded.latency);
  return null;
end $$;
create trigger request_log_rollup after insert on request_log referencing new table as new_rows
  for each statement execute function roll_up_requests();

-- Credits come from the charges (usage events, which name the capability: its route is /v1/<name>), so an async
-- job counts when it is charged, not when accepted.
create function roll_up_charges() returns trigger language plpgsql as $$
begin
  insert into usage_rollups as r (account_id, livemode, hour, endpoint, key_id, charged, credits)
  select account_id, true, date_trunc('hour', created_at, 'UTC'), '/v1/' || endpoint, key_id, true, sum(credits)
    from new_rows group by 1, 2, 3, 4, 5 order by 1, 2, 3, 4, 5
  on conflict (account_id, livemode, hour, endpoint, key_id, charged) do update set credits = r.credits + excluded.credits;
  return null;
end $$;
create trigger usage_events_rollup after insert on usage_events referencing new table as new_rows
  for each statement execute function roll_up_charges();

-- GET /v1/usage/export reads an account's charges in time order from a keyset cursor. On a large ledger an operator
-- builds it beforehand (create index concurrently, the same name) and this statement finds it there.
create index if not exists ledger_account_time on ledger (account_id, created_at, id);

-- What the logs held before: rolled up once, here.
insert into usage_rollups (account_id, livemode, hour, endpoint, key_id, calls, errors, latency)
select account_id, livemode, hour, endpoint, key_id, sum(n), sum(e), histogram_of(array_agg(bucket), array_agg(n))
  from (select account_id, mode = 'live' as livemode, date_trunc('hour', created_at, 'UTC') as hour, endpoint, key_id,
               width_bucket(latency_ms, latency_bounds()) as bucket, count(*) as n, count(*) filter (where status >= 400) as e
          from request_log group by 1, 2, 3, 4, 5, 6) b
 group by 1, 2, 3, 4, 5;
insert into usage_rollups (account_id, livemode, hour, endpoint, key_id, charged, credits)
select account_id, true, date_trunc('hour', created_at, 'UTC'), '/v1/' || endpoint, key_id, true, sum(credits) from usage_events group by 1, 2, 3, 4, 5;
insert into usage_tag_rollups (account_id, livemode, hour, tag, value, calls, errors, credits, latency)
select account_id, livemode, hour, tag, value, sum(n), sum(e), sum(c), histogram_of(array_agg(bucket), array_agg(n))
  from (select account_id, mode = 'live' as livemode, date_trunc('hour', created_at, 'UTC') as hour, t.key as tag, t.value,
               width_bucket(latency_ms, latency_bounds()) as bucket, count(*) as n, count(*) filter (where status >= 400) as e,
               sum(credits) as c
          from request_log, jsonb_each_text(metadata) as t where metadata is not null group by 1, 2, 3, 4, 5, 6) b
 group by 1, 2, 3, 4, 5;
`

export class Migration0028TimePartitions extends Migration {
  override async up(): Promise<void> {
    this.addSql(TIME_PARTITIONS)
  }
}
