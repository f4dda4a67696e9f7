-- The deliveries of an event: one per enabled endpoint of the account subscribed to its type (or only
-- p_endpoint, enabled or not, for a test ping or a resend to one endpoint), each a graphile-worker job in the
-- caller's transaction; none subscribed, one skipped delivery that says so.
-- Each delivery carries its event's time (its partition key), and so does its job: deliver_event finds its
-- delivery in one partition.
create or replace function queue_event_deliveries(p_event text, p_endpoint text, p_now timestamptz) returns integer
language plpgsql as $$
declare
  v_event events%rowtype;
  v_count integer;
begin
  select * into v_event from events where id = p_event;
  with d as (
    insert into event_deliveries (event_id, event_created_at, endpoint_id, url, status, created_at, updated_at)
    select v_event.id, v_event.created_at, e.id, e.url, 'pending', p_now, p_now from webhook_endpoints e
     where e.account_id = v_event.account_id
       and (case when p_endpoint is null
              then e.enabled and (e.events is null or exists (
                select from unnest(e.events) p where p = v_event.type or (p like '%.*' and v_event.type like left(p, -1) || '%')))
              else e.id = p_endpoint end)
    returning id
  )
  select count(*), count(graphile_worker.add_job('deliver_event',
                           json_build_object('deliveryId', d.id, 'eventCreatedAt', v_event.created_at, 'attempt', 1), max_attempts => 1))
    into v_count from d;
  if v_count = 0 then
    insert into event_deliveries (event_id, event_created_at, status, reason, created_at, updated_at)
    values (v_event.id, v_event.created_at, 'skipped', 'No enabled webhook endpoint of the account subscribes to ' || v_event.type || '.',
            p_now, p_now);
  end if;
  return v_count;
end $$;
