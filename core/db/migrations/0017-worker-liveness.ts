// Worker liveness. graphile-worker marks a job it hands to a process with that process's pool id (locked_by)
// and frees the locks of a crashed process only after 4 hours. Every worker process therefore registers under its
// pool id and heartbeats here (core/jobs/liveness.ts); a worker whose heartbeat is older than the bound it declared
// is dead, and whoever notices (every live worker on its timer, the maintenance pass) returns its jobs to the
// queue at once. Times are the database's clock, the one graphile-worker's locked_at uses, so workers on
// machines with skewed clocks still agree on who is alive.
//
// The functions are plpgsql: their bodies name graphile-worker's tables, which its own migrations create after ours
// on a fresh database (core/db/database.ts), and plpgsql bodies are resolved when they run, not when created.
import { Migration } from '@mikro-orm/migrations'

export class Migration0017WorkerLiveness extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
-- One row per running worker process, under graphile-worker's pool id (what it writes to _private_jobs.locked_by).
create table workers (
  id text primary key,
  host text not null,
  pid int not null,
  concurrency int not null,
  prefetch int not null,
  started_at timestamptz not null default now(),
  heartbeat_at timestamptz not null default now(),
  -- the worker's own bound: without a heartbeat for this long it is dead (workers of different settings agree)
  dead_after interval not null
);

-- Each dead worker whose jobs were returned, for /admin and the recovery counters of /metrics.
create table worker_recoveries (
  id bigint generated always as identity primary key,
  worker_id text not null,
  -- false: a lock holder that never registered (died between its first fetch and its registration)
  registered boolean not null,
  last_heartbeat_at timestamptz,
  jobs_returned int not null,
  recovered_by text not null,
  recovered_at timestamptz not null default now()
);
create index worker_recoveries_at on worker_recoveries (recovered_at);

-- Who holds graphile-worker locks without being alive: registered workers past their bound, and holders that never
-- registered whose locks are over a minute old (a process registers a few milliseconds after its first fetch).
create function dead_lock_holders() returns table (worker_id text, registered boolean, last_heartbeat_at timestamptz)
language plpgsql stable as $$
begin
  return query
    select w.id, true, w.heartbeat_at from workers w where w.heartbeat_at < now() - w.dead_after
    union all
    select distinct j.locked_by, false, null::timestamptz from graphile_worker._private_jobs j
     where j.locked_by is not null and j.locked_at < now() - interval '1 minute'
       and not exists (select from workers w where w.id = j.locked_by);
end $$;

-- Returns every job these workers hold (running, or waiting in their local queue) to the queue the way
-- graphile-worker returns a local queue at shutdown: unlocked, with the attempt its fetch counted given back.
-- graphile-worker's force_unlock_workers() keeps that attempt, which leaves a job of max_attempts 1 (all of ours)
-- never to run again. Jobs locked in id order; the waiting workers are told at once (their jobs:insert channel).
create function release_worker_jobs(p_workers text[]) returns int
language plpgsql as $$
declare
  v_returned int;
begin
  update graphile_worker._private_jobs j
     set locked_by = null, locked_at = null, attempts = greatest(0, j.attempts - 1)
    from (select id from graphile_worker._private_jobs where locked_by = any(p_workers) order by id for update) l
   where j.id = l.id;
  get diagnostics v_returned = row_count;
  update graphile_worker._private_job_queues set locked_by = null, locked_at = null where locked_by = any(p_workers);
  if v_returned > 0 then
    perform pg_notify('jobs:insert', '{"r":' || random()::text || ',"count":' || v_returned || '}');
  end if;
  return v_returned;
end $$;

-- Deregisters every dead worker and returns its jobs; one row per worker recovered. Safe to run from many
-- processes at once: a worker is claimed by one of them (skip locked), and a heartbeat that lands first wins.
create function recover_dead_workers(p_by text)
returns table (worker_id text, registered boolean, last_heartbeat_at timestamptz, jobs_returned int)
language plpgsql as $$
declare
  v_dead record;
  v_returned int;
begin
  for v_dead in select * from dead_lock_holders() d order by d.worker_id loop
    if v_dead.registered then
      perform from workers w where w.id = v_dead.worker_id and w.heartbeat_at < now() - w.dead_after for update skip locked;
      if not found then
        continue;
      end if;
      delete from workers w where w.id = v_dead.worker_id;
    end if;
    v_returned := release_worker_jobs(array[v_dead.worker_id]);
    if v_dead.registered or v_returned > 0 then
      insert into worker_recoveries (worker_id, registered, last_heartbeat_at, jobs_returned, recovered_by)
      values (v_dead.worker_id, v_dead.registered, v_dead.last_heartbeat_at, v_returned, p_by);
      return query select v_dead.worker_id, v_dead.registered, v_dead.last_heartbeat_at, v_returned;
    end if;
  end loop;
end $$;
`)
  }
}
