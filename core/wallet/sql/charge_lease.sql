-- A live call charged against its process's credit lease: one insert of [p_from, p_from + p_price) of the block,
-- which locks neither the account nor the key (the foreign key takes KEY SHARE on the lease row only), so the
-- charges of one account commit side by side. PostgreSQL refuses a range outside the block (check constraint,
-- 23514) and one that overlaps another charge or a settled lease's fence (exclusion constraint, 23P01): the
-- process then charges the call as a hold would. usage.balanceRemaining is the account's available credits when
-- the lease was taken plus what the block has not handed out yet. The ledger and usage rows are written when the
-- lease settles (settle_lease).
create or replace function charge_lease(
  p_lease uuid, p_lo bigint, p_hi bigint, p_from bigint, p_price bigint, p_endpoint text, p_request_id text,
  p_size jsonb, p_result text, p_now timestamptz
) returns table (body text, available bigint)
language plpgsql as $$
declare
  v_available bigint;
begin
  insert into lease_charges (lease_id, lease_lo, lease_hi, kind, credits, endpoint, request_id, size, created_at)
  values (p_lease, p_lo, p_hi, 'charge', int8range(p_from, p_from + p_price), p_endpoint, p_request_id, p_size, p_now);
  select l.available_after + l.hi - (p_from + p_price) into v_available from credit_leases l where l.id = p_lease;
  return query select charged_body(p_result, p_price, v_available, p_size), v_available;
end $$;
