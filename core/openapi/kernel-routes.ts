// The kernel's routes, one entry each; core/openapi.ts publishes each one as core/openapi/kernel-path.ts builds it.
import { AccountSummary } from '../accounts/accounts.ts'
import { JobView } from '../jobs/view.ts'
import { JobsPage, jobsParameters } from '../jobs/list.ts'
import { RequestLogEntry } from '../requests/list.ts'
import { RequestsPage, requestsParameters } from '../requests/routes.ts'
import {
  CacheEmptied,
  UsageResponse,
  UsageSummaryResponse,
  usageExportParameters,
  usageParameters,
  usageSummaryParameters,
} from '../usage/routes.ts'
import { JobDeliveries } from '../webhooks/webhooks.ts'
import type { KernelRoute } from './kernel-route.ts'
import { EVENT_ROUTES } from './event-routes.ts'
import { REVIEW_ROUTES } from './review-routes.ts'
import { TEAM_ROUTES } from './team-routes.ts'
import { BATCH_ROUTES } from '../batches/openapi.ts'

export const KERNEL_ROUTES: KernelRoute[] = [
  {
    method: 'get',
    path: '/v1/jobs',
    operationId: 'listJobs',
    summary: 'List the account’s jobs',
    description:
      'Newest first, with a cursor; each job without its result (GET /v1/jobs/{id} has it). A test key lists the jobs of test keys, a live key those of live keys. Free.',
    tag: 'jobs',
    authenticated: true,
    parameters: jobsParameters,
    response: {
      name: 'JobsPage',
      schema: JobsPage,
      description: 'One page of jobs, newest first',
      example: {
        jobs: [
          {
            jobId: '0b7e4c52-3f0a-4a43-9d0e-5b8f1c7a2e10',
            endpoint: '/v1/parse',
            status: 'succeeded',
            createdAt: '2026-03-01T10:00:00.000Z',
            updatedAt: '2026-03-01T10:00:04.120Z',
            startedAt: '2026-03-01T10:00:00.310Z',
            finishedAt: '2026-03-01T10:00:04.120Z',
            requestId: 'req_01JNMQ6ZK3V7T5W8X9Y0A1B2C3',
            livemode: true,
          },
        ],
      },
    },
    errors: [400],
  },
  {
    method: 'get',
    path: '/v1/jobs/{id}',
    operationId: 'getJob',
    summary: 'Get an async job',
    description: 'Not billed and not throttled by the capability limits. A job of another account is 404 like an unknown one.',
    tag: 'jobs',
    authenticated: true,
    parameters: [
      { name: 'id', in: 'path', required: true, description: 'the jobId of the 202 answer', schema: { type: 'string', format: 'uuid' } },
    ],
    response: { name: 'Job', schema: JobView, description: 'The job; `result` when succeeded, `error` and `errorCode` when failed' },
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/jobs/{id}/deliveries',
    operationId: 'listJobDeliveries',
    summary: 'List the webhook deliveries of an async job',
    description:
      'The callbacks of a job with a callbackUrl, oldest first: status (pending, delivered, failed, skipped), every attempt (time, status code or error, duration), and for a skipped one the `reason` nothing was sent (e.g. no signing secret of the job’s mode). Free; a job of another account or key mode is 404 like an unknown one.',
    tag: 'jobs',
    authenticated: true,
    parameters: [
      { name: 'id', in: 'path', required: true, description: 'the jobId of the 202 answer', schema: { type: 'string', format: 'uuid' } },
    ],
    response: {
      name: 'JobDeliveries',
      schema: JobDeliveries,
      description: 'The deliveries of the job (empty without a callbackUrl)',
      example: {
        deliveries: [
          {
            deliveryId: 'dlv_01JNMQ7A2B3C4D5E6F7G8H9J0K',
            event: 'job.completed',
            url: 'https://example.com/hooks/jobs',
            status: 'delivered',
            attempts: [{ attempt: 1, at: '2026-03-01T10:00:04.300Z', statusCode: 200, error: null, durationMs: 84 }],
          },
        ],
      },
    },
    errors: [404],
  },
  {
    method: 'get',
    path: '/v1/account',
    operationId: 'getAccount',
    summary: 'Get the balance and plan',
    tag: 'account',
    authenticated: true,
    response: { name: 'Account', schema: AccountSummary, description: 'Balance, holds and plan' },
  },
  {
    method: 'get',
    path: '/v1/usage',
    operationId: 'getUsage',
    summary: 'List ledger entries and daily totals',
    description:
      'Ledger entries (charges, purchases, plan grants and renewals, adjustments), newest first, with a cursor, and daily totals per endpoint. Free.',
    tag: 'account',
    authenticated: true,
    parameters: usageParameters,
    items: 'entries',
    response: { name: 'UsagePage', schema: UsageResponse, description: 'One page of the ledger, newest first' },
    errors: [400],
  },
  {
    method: 'get',
    path: '/v1/usage/summary',
    operationId: 'getUsageSummary',
    summary: 'Summarize calls, credits, errors and latency per day, endpoint, key or tag',
    description:
      'Over a window of whole UTC hours (from inclusive, to exclusive, at most 400 days): per group, the calls, the credits charged, the errors (status 400 and above) and the p50 and p95 latency. ' +
      'groupBy: day (UTC), endpoint, key, or metadata.<tag> (the values of a Service-Metadata tag; credits there are those the call itself charged). ' +
      'Answered from hourly rollups kept as calls are logged. A live key reads live calls, a test key test calls. Free.',
    tag: 'account',
    authenticated: true,
    parameters: usageSummaryParameters,
    response: { name: 'UsageSummary', schema: UsageSummaryResponse, description: 'The groups, ordered by key, and their total' },
    errors: [400],
  },
  {
    method: 'get',
    path: '/v1/usage/export',
    operationId: 'exportUsage',
    summary: 'Export the charges of a window as CSV or JSON lines',
    description:
      'One row per charge of the ledger with createdAt in [from, to), oldest first, streamed: createdAt, requestId, endpoint, keyId, credits, usd, livemode (a failed call is never charged, so there is nothing to refund; purchases, plan grants and adjustments are not usage). ' +
      'columns=focus gives FOCUS names instead: ChargePeriodStart, ChargePeriodEnd, BilledCost (USD), BillingCurrency, ServiceName, SkuId, ResourceId, ChargeType (Usage). ' +
      'The sum of credits (or BilledCost × 100) equals the ledger’s over the same window. A test key’s export has no rows. Free.',
    tag: 'account',
    authenticated: true,
    parameters: usageExportParameters,
    response: {
      name: 'UsageExport',
      schema: { type: 'string' },
      description: 'CSV with a header line, or JSON lines',
      csv: true,
      jsonLines: true,
    },
    errors: [400],
  },
  {
    method: 'get',
    path: '/v1/requests',
    operationId: 'listRequests',
    summary: 'List the account’s requests, served or refused',
    description:
      'Every request of the account’s keys, served or refused (404 and 405 included; a request with an unknown key excepted), newest first, with a cursor: request id, route, status, error code and message, credits, latency, Idempotency-Key, key prefix, mode, ' +
      'whether it was a dry run (and the status it quoted) or an idempotent replay, the job a 202 accepted, and the tags sent in Service-Metadata. ' +
      'Filters: endpoint, status, keyId, from, to, requestId, idempotencyKey, and metadata.<tag>=<value> (any number, all must match). ' +
      'A live key reads live calls (mode=test: the test ones), a test key test calls only. Kept for REQUEST_LOG_RETENTION_DAYS (default 30). Reading the log is free and not itself listed.',
    tag: 'account',
    authenticated: true,
    parameters: requestsParameters,
    response: {
      name: 'RequestsPage',
      schema: RequestsPage,
      description: 'One page of the request log, newest first',
      example: {
        requests: [
          {
            requestId: 'req_01JNMQ6ZK3V7T5W8X9Y0A1B2C4',
            createdAt: '2026-03-01T10:00:01.000Z',
            method: 'POST',
            endpoint: '/v1/classify',
            status: 200,
            credits: 2,
            latencyMs: 812.4,
            idempotencyKey: 'order-1182',
            keyId: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b',
            keyPrefix: 'ksk_live_AbC',
            mode: 'live',
            livemode: true,
            dryRun: false,
            replayed: false,
            metadata: { order: '1182' },
          },
          {
            requestId: 'req_01JNMQ6YFQ2R3S4T5U6V7W8X9Y',
            createdAt: '2026-03-01T10:00:00.000Z',
            method: 'POST',
            endpoint: '/v1/classify',
            status: 400,
            errorCode: 'invalid_request',
            errorMessage: 'The body does not match the schema of this endpoint.',
            credits: 0,
            latencyMs: 3.1,
            keyId: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b',
            keyPrefix: 'ksk_live_AbC',
            mode: 'live',
            livemode: true,
            dryRun: false,
            replayed: false,
          },
        ],
        nextCursor: 'cjoxMjM0',
      },
    },
    errors: [400],
  },
  {
    method: 'get',
    path: '/v1/requests/{requestId}',
    operationId: 'getRequest',
    summary: 'Get one request of the log by its request id',
    description:
      'The request-log row of the X-Request-Id (every answer and every error body carries it). A live key finds the account’s live and test requests, a test key test ones only. Free, not itself listed.',
    tag: 'account',
    authenticated: true,
    parameters: [
      {
        name: 'requestId',
        in: 'path',
        required: true,
        description: 'the X-Request-Id of the call (req_…)',
        schema: { type: 'string', maxLength: 64 },
      },
    ],
    response: { name: 'RequestLogEntry', schema: RequestLogEntry, description: 'The request as the log keeps it' },
    errors: [404],
  },
  ...BATCH_ROUTES,
  {
    method: 'delete',
    path: '/v1/cache',
    operationId: 'emptyCache',
    summary: 'Empty the account’s result cache',
    description:
      'Removes every result the cache keeps for the account in the key’s mode (C20): the next identical calls run again and are charged their full price. A live key with permissions "all"; one audit entry (cache.emptied). Free.',
    tag: 'account',
    authenticated: true,
    response: {
      name: 'CacheEmptied',
      schema: CacheEmptied,
      description: 'How many results were removed',
      example: { results: 12, livemode: true },
    },
    errors: [403],
  },
  ...TEAM_ROUTES,
  ...EVENT_ROUTES,
  ...REVIEW_ROUTES,
]
