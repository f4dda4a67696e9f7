-- The body of a charged call: p_result (the JSON object of the result without usage) with its usage appended, so
-- that a stored replay is byte-identical to what was sent. "livemode":true: only a live key is ever charged.
create or replace function charged_body(p_result text, p_credits bigint, p_available bigint, p_size jsonb) returns text
language sql immutable as $$
  select case when p_result = '{}' then '{' else left(p_result, -1) || ',' end
    || '"usage":{"credits":' || p_credits || ',"balanceRemaining":' || p_available
    || coalesce(',"size":' || p_size::text, '') || ',"livemode":true}}'
$$;
