// The batch routes as the published document describes them (core/openapi/kernel-routes.ts lists them).
import type { KernelRoute } from '../openapi/kernel-route.ts'
import { batchesParameters, BatchesPage } from './list.ts'
import { BatchAccepted, BatchQuote, BatchRequest, BatchResultLine, BatchView } from './view.ts'

const batchId = {
  name: 'id',
  in: 'path',
  required: true,
  description: 'the batchId of the 202 answer (bat_…)',
  schema: { type: 'string', pattern: '^bat_[0-9a-f]{32}$' },
}

/** A batch as the document shows it (GET /v1/batches/{id}, and the data of a batch.completed event). */
export const exampleBatch = {
  batchId: 'bat_0b7e4c523f0a4a439d0e5b8f1c7a2e10',
  endpoint: '/v1/classify',
  window: '24h',
  status: 'running',
  counts: { total: 3, queued: 1, running: 1, succeeded: 1, failed: 0, cancelled: 0, expired: 0 },
  credits: { held: 4, charged: 2 },
  requestId: 'req_01JNMQ6ZK3V7T5W8X9Y0A1B2C3',
  livemode: true,
  createdAt: '2026-03-01T10:00:00.000Z',
  expiresAt: '2026-03-02T10:00:00.000Z',
}

export const BATCH_ROUTES: KernelRoute[] = [
  {
    method: 'post',
    path: '/v1/batches',
    operationId: 'createBatch',
    summary: 'Run up to 10,000 calls of one endpoint as a batch',
    description:
      'Every item is validated and priced at acceptance as its call would be (documents read, price by size); any invalid item is one 400 naming each `/items/<i>/…`, and nothing is held. ' +
      'Acceptance holds the sum of the items’ prices (402 when the credits available do not cover it; the key’s spend cap counts it); each item is charged its price when it succeeds and costs nothing when it fails, and the hold shrinks as items end. ' +
      'Window `24h` costs BATCH_DISCOUNT_PERCENT (default 20 %) less per item, rounded up to whole credits. Items run as async jobs, a share per account at a time and all accounts’ items at most BATCH_ITEMS_PER_SECOND (default 40) a second, so a batch never holds up live or async calls. ' +
      'At most 10 requests a minute per account by default (RATE_LIMITS key `batches`), dry runs included (429 `rate_limited`). ' +
      'Service-Dry-Run: 1 answers 200 with the quote. Idempotency-Key replays the 202. A test key’s items answer the endpoint’s example at once, free. Items not ended 24 hours after acceptance end `expired`, free.',
    tag: 'batches',
    authenticated: true,
    parameters: [{ $ref: '#/components/parameters/IdempotencyKey' }, { $ref: '#/components/parameters/DryRun' }],
    requestBody: {
      name: 'BatchRequest',
      schema: BatchRequest,
      example: {
        endpoint: 'classify',
        window: '24h',
        items: [
          { customId: 'ticket-1', body: { text: 'I was charged twice', labels: ['billing', 'technical'] } },
          { customId: 'ticket-2', body: { text: 'The app crashes on start', labels: ['billing', 'technical'] } },
        ],
      },
    },
    status: 202,
    response: { name: 'BatchAccepted', schema: BatchAccepted, description: 'Accepted: the items are queued and their prices held' },
    dryRun: {
      name: 'BatchQuote',
      schema: BatchQuote,
      description: 'Service-Dry-Run: what the batch would hold, nothing held',
    },
    errors: [400, 402, 403, 409, 413, 415],
  },
  {
    method: 'get',
    path: '/v1/batches',
    operationId: 'listBatches',
    summary: 'List the account’s batches',
    description: 'Newest first, with a cursor. A test key lists the batches of test keys, a live key those of live keys. Free.',
    tag: 'batches',
    authenticated: true,
    parameters: batchesParameters,
    response: {
      name: 'BatchesPage',
      schema: BatchesPage,
      description: 'One page of batches, newest first',
      example: { batches: [exampleBatch] },
    },
    errors: [400],
  },
  {
    method: 'get',
    path: '/v1/batches/{id}',
    operationId: 'getBatch',
    summary: 'Get a batch: status, counts and credits',
    description: 'Free. A batch of another account or key mode is 404 like an unknown one.',
    tag: 'batches',
    authenticated: true,
    parameters: [batchId],
    response: { name: 'Batch', schema: BatchView, description: 'The batch', example: exampleBatch },
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/batches/{id}/results',
    operationId: 'getBatchResults',
    summary: 'Stream a batch’s results as JSON Lines',
    description:
      'One line per item, in item order: `{customId, status, result? | error?}`; a succeeded item’s `result` is exactly what the call returns (usage included), a failed, cancelled or expired one has `error: {code, message}`; items not ended yet are `queued` or `running`. Streamed; free.',
    tag: 'batches',
    authenticated: true,
    parameters: [batchId],
    response: { name: 'BatchResultLine', schema: BatchResultLine, description: 'JSON Lines', jsonLines: true },
    errors: [404],
  },
  {
    method: 'post',
    path: '/v1/batches/{id}/cancel',
    operationId: 'cancelBatch',
    summary: 'Cancel a batch',
    description: 'Its queued items end `cancelled`, free; running ones finish. A batch whose items have all ended is answered as it is.',
    tag: 'batches',
    authenticated: true,
    parameters: [batchId],
    response: { name: 'Batch', schema: BatchView, description: 'The batch after the cancel' },
    errors: [403, 404],
  },
]
