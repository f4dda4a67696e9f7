// Model operations (issue 28): every request to a model provider, with its outcome, the tokens the provider
// reported and their cost at the price table, recorded against the call by its request id (the id its usage
// event and its job carry). The operator's cost report (GET /admin/costs) reads it next to usage_events.
import { Migration } from '@mikro-orm/migrations'

export class Migration0009ModelRequests extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
create table model_requests (
  id bigserial primary key,
  request_id text not null,
  account_id uuid not null,
  endpoint text not null,
  provider text not null,
  model text not null,
  outcome text not null check (outcome in ('ok', 'rate_limited', 'server_error', 'timeout', 'connection', 'context_length', 'refused')),
  ms integer not null,
  -- Null on a failed attempt: the provider reported nothing.
  input_tokens integer,
  cached_input_tokens integer,
  output_tokens integer,
  reasoning_tokens integer,
  -- Null when the model has no known price (or nothing was answered): never a silent 0.
  cost_usd numeric(20, 12),
  created_at timestamptz not null
);
create index model_requests_created on model_requests (created_at);
create index model_requests_request on model_requests (request_id);
`)
  }
}
