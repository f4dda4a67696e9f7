-- A worker's group of job endings in one statement (core/jobs/end.ts), one ending per array position: a success
-- carries p_results[i] (the checked result, without usage), a failure p_errors[i] and the statuses it may end from
-- (p_from[i]), and for a lost worker the time its lease must have run out by (p_lease_expired_by[i]). The money
-- moves by capture_hold / release_hold. Returns the positions that ended, with the job and its new status; a job
-- named twice ends by its first ending only.
create or replace function end_jobs(
  p_ids uuid[], p_results text[], p_errors jsonb[], p_from text[], p_lease_expired_by timestamptz[], p_now timestamptz
) returns table (ord int, job_id uuid, status text)
language plpgsql as $$
declare
  r record;
  v_ended uuid[] := '{}';
  v_results text[] := '{}';
  v_errors jsonb[] := '{}';
  v_statuses text[] := '{}';
  v_body text;
begin
  perform lock_money(null, null,
    (select array_agg(distinct j.account_id) from jobs j where j.id = any(p_ids)),
    (select array_agg(distinct j.key_id) from jobs j where j.id = any(p_ids)));
  perform from jobs j where j.id = any(p_ids) order by j.id for update;
  for r in
    select e.ord::int as ord, j.id, j.hold_id, j.status as was, j.lease_until, e.result, e.error, e.from_, e.expired_by
      from unnest(p_ids, p_results, p_errors, p_from, p_lease_expired_by) with ordinality as e (id, result, error, from_, expired_by, ord)
      join jobs j on j.id = e.id
     order by j.account_id, e.ord
  loop
    continue when r.id = any(v_ended)
      or not r.was = any(string_to_array(r.from_, ','))
      or (r.expired_by is not null and (r.lease_until is null or r.lease_until >= r.expired_by));
    if r.result is not null then
      select c.body into v_body from capture_hold(r.hold_id, r.result, null, p_now) c;
      v_statuses := v_statuses || 'succeeded'::text;
    else
      perform release_hold(r.hold_id, null);
      v_body := null;
      v_statuses := v_statuses || 'failed'::text;
    end if;
    v_ended := v_ended || r.id;
    v_results := v_results || v_body;
    v_errors := v_errors || r.error;
    ord := r.ord;
    job_id := r.id;
    status := v_statuses[array_length(v_statuses, 1)];
    return next;
  end loop;
  update jobs j set status = v.status, result = v.result, error = v.error, finished_at = p_now, updated_at = p_now, lease_until = null
    from unnest(v_ended, v_statuses, v_results, v_errors) as v (id, status, result, error) where j.id = v.id;
  delete from job_inputs i where i.job_id = any(v_ended);
end $$;
