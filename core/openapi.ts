// GET /v1/openapi.json (C14), built once at boot from the registry and the kernel routes. Every response
// schema is the TypeBox schema the code builds that body with (kernel) or the capability's published result
// schema (run/result.ts) with `usage`; the tests validate every 200/202 they receive against this document.
import type { TSchema } from '@sinclair/typebox'
import { AccountSummary } from './accounts/accounts.ts'
import type { Config } from './config.ts'
import { ERROR_STATUS, ErrorBody } from './errors.ts'
import { JobAccepted, JobView } from './jobs/view.ts'
import { JobsPage, jobsParameters } from './jobs/list.ts'
import { RequestsPage, requestsParameters } from './requests/routes.ts'
import { TEST_OUTCOMES } from './testmode/outcomes.ts'
import { DryRun } from './pipeline/dry-run.ts'
import { pausedReason } from './pipeline/paused.ts'
import { UsageResponse, usageParameters } from './usage/routes.ts'
import type { Capability } from './registry.ts'
import type { JsonSchema } from './run/result.ts'
import { Usage } from './wallet/wallet.ts'
import { WebhookPayload } from './webhooks/webhooks.ts'

/**
 * A route of the kernel: one entry each. `response.schema` is the TypeBox schema its handler's body is typed
 * by; it is published under components.schemas[response.name].
 */
export interface KernelRoute {
  method: 'get' | 'post'
  path: string
  operationId: string
  summary: string
  description?: string
  tag: keyof typeof TAGS
  /** false: no API key (public). */
  authenticated: boolean
  parameters?: object[]
  response: { name: string; schema: TSchema | object; description: string; example?: unknown }
  /** Error statuses besides 401, 429 and 503 (every authenticated route has them: a bad key, a client throttled after failed keys, a database outage). */
  errors?: number[]
}

const TAGS = {
  capabilities: 'The 39 metered endpoints: each call is charged its price on success only',
  jobs: 'Async jobs (C7) of the document capabilities',
  account: 'The wallet of the calling key’s account',
} as const

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
    response: { name: 'UsagePage', schema: UsageResponse, description: 'One page of the ledger, newest first' },
    errors: [400],
  },
  {
    method: 'get',
    path: '/v1/requests',
    operationId: 'listRequests',
    summary: 'List the account’s requests, served or refused',
    description:
      'Every call of the account’s keys (a call with an unknown key excepted), newest first, with a cursor: request id, route, status, error code, credits, latency, Idempotency-Key, key prefix, mode. ' +
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
          },
          {
            requestId: 'req_01JNMQ6YFQ2R3S4T5U6V7W8X9Y',
            createdAt: '2026-03-01T10:00:00.000Z',
            method: 'POST',
            endpoint: '/v1/classify',
            status: 400,
            errorCode: 'invalid_request',
            credits: 0,
            latencyMs: 3.1,
            keyId: '6f1d2c3b-4a5e-4f60-8a7b-9c0d1e2f3a4b',
            keyPrefix: 'ksk_live_AbC',
            mode: 'live',
          },
        ],
        nextCursor: 'cjoxMjM0',
      },
    },
    errors: [400],
  },
]

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const header = (name: string) => ({ $ref: `#/components/headers/${name}` })
const json = (schema: unknown, description: string, headers?: Record<string, unknown>, example?: unknown) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema, ...(example === undefined ? {} : { example }) } },
})

const REQUEST_ID = { 'X-Request-Id': header('X-Request-Id') }
const RATE_LIMIT = {
  'RateLimit-Limit': header('RateLimit-Limit'),
  'RateLimit-Remaining': header('RateLimit-Remaining'),
  'RateLimit-Reset': header('RateLimit-Reset'),
}

export function buildOpenApi(capabilities: Capability[], config: Config) {
  const errorResponse = (status: number, rateLimited: boolean) =>
    json(ref('Error'), `${codesFor(status).join(', ')}`, {
      ...REQUEST_ID,
      ...(rateLimited && status !== 401 ? RATE_LIMIT : {}),
      ...(status === 429 || status === 409 || status === 503 ? { 'Retry-After': header('Retry-After') } : {}),
    })
  const allStatuses = [...new Set(Object.values(ERROR_STATUS))]
  const paths: Record<string, Record<string, unknown>> = {}
  for (const cap of capabilities) {
    const reason = pausedReason(config, cap)
    const success = { ...REQUEST_ID, ...RATE_LIMIT, 'Idempotent-Replayed': header('Idempotent-Replayed') }
    paths[`/v1/${cap.name}`] = {
      post: {
        operationId: cap.name,
        summary: cap.summary,
        tags: ['capabilities'],
        'x-price': cap.price,
        'x-async': cap.async,
        'x-rate-limit': config.rateLimits[cap.name] ?? cap.ratePerMinute,
        'x-paused': reason !== null,
        ...(reason ? { 'x-paused-reason': reason } : {}),
        security: [{ bearer: [] }],
        parameters: [
          { $ref: '#/components/parameters/DryRun' },
          { $ref: '#/components/parameters/IdempotencyKey' },
          { $ref: '#/components/parameters/TestOutcome' },
        ],
        requestBody: { required: true, content: { 'application/json': { schema: cap.requestSchema, example: cap.example.request } } },
        responses: {
          '200': {
            description: `The result with usage (${cap.price} credits charged), or a DryRun report when Service-Dry-Run is sent`,
            headers: success,
            content: {
              'application/json': {
                schema: { anyOf: [withUsage(cap.responseSchema), ref('DryRun')] },
                example: { ...(cap.example.response as object), usage: { credits: cap.price, balanceRemaining: 990 } },
              },
            },
          },
          ...(cap.async
            ? { '202': json(ref('JobAccepted'), 'Accepted as an async job (`async: true`); poll GET /v1/jobs/{id}', success) }
            : {}),
          ...Object.fromEntries(allStatuses.map((s) => [String(s), errorResponse(s, true)])),
        },
      },
    }
  }

  const schemas: Record<string, unknown> = { Usage, Error: ErrorBody, DryRun, JobAccepted, WebhookPayload }
  for (const route of KERNEL_ROUTES) {
    schemas[route.response.name] = route.response.schema
    // An authenticated route reads the database: 503 service_unavailable while it cannot be reached.
    const errors = [
      ...new Set([...(route.authenticated ? [401, 429] : []), ...(route.errors ?? []), ...(route.authenticated ? [503] : [])]),
    ]
    paths[route.path] = {
      ...paths[route.path],
      [route.method]: {
        operationId: route.operationId,
        summary: route.summary,
        ...(route.description ? { description: route.description } : {}),
        tags: [route.tag],
        security: route.authenticated ? [{ bearer: [] }] : [],
        ...(route.parameters ? { parameters: route.parameters } : {}),
        responses: {
          '200': json(ref(route.response.name), route.response.description, REQUEST_ID, route.response.example),
          ...Object.fromEntries(errors.map((s) => [String(s), errorResponse(s, false)])),
        },
      },
    }
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Metered AI Capability API',
      version: '1.0.0',
      description:
        'Capability endpoints paid from one prepaid credit wallet (1 credit = 0.01 USD), with dry runs, idempotency, async jobs and signed webhooks.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: '/', description: 'The server this document is served from' }],
    tags: Object.entries(TAGS).map(([name, description]) => ({ name, description })),
    security: [{ bearer: [] }],
    paths,
    webhooks: {
      jobFinished: {
        post: {
          operationId: 'jobFinished',
          summary: 'An async job ended',
          description:
            'POSTed to callbackUrl when an async job ends. Verify `webhook-signature` with any Standard Webhooks library and the account’s `whsec_…` secret ' +
            '(v1,<base64 HMAC-SHA256 of "webhook-id.webhook-timestamp.body"> keyed with the base64-decoded part after `whsec_`; during the 24 h after a rotation, ' +
            'one signature per secret, space-separated), or `X-Service-Signature: sha256=<hex HMAC-SHA256 of the body keyed with the whole secret string>`. ' +
            'Retries reuse the same webhook-id (= deliveryId).',
          security: [{ webhookSignature: [] }],
          parameters: [
            {
              name: 'webhook-id',
              in: 'header',
              required: true,
              description: 'the delivery id (= body deliveryId), the same on every attempt',
              schema: { type: 'string' },
            },
            {
              name: 'webhook-timestamp',
              in: 'header',
              required: true,
              description: 'Unix seconds of this attempt; reject stale ones',
              schema: { type: 'string', pattern: '^[0-9]+$' },
            },
            {
              name: 'X-Service-Signature',
              in: 'header',
              required: true,
              description: 'sha256=<hex HMAC-SHA256 of the raw body>',
              schema: { type: 'string' },
            },
            { name: 'X-Service-Event', in: 'header', required: true, schema: { type: 'string', enum: ['job.completed', 'job.failed'] } },
            { name: 'X-Service-Job-Id', in: 'header', required: true, schema: { type: 'string', format: 'uuid' } },
            {
              name: 'X-Service-Request-Id',
              in: 'header',
              required: true,
              description: 'the requestId of the call that created the job',
              schema: { type: 'string' },
            },
            { name: 'X-Service-Delivery-Id', in: 'header', required: true, description: '= webhook-id', schema: { type: 'string' } },
          ],
          requestBody: { required: true, content: { 'application/json': { schema: ref('WebhookPayload') } } },
          responses: {
            '200': { description: 'Any 2xx acknowledges the delivery' },
            default: { description: 'Anything but 2xx (redirects included) is a failed attempt, retried up to 5 times' },
          },
        },
      },
    },
    components: {
      securitySchemes: {
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description:
            'Authorization: Bearer ksk_live_… (spends credits) or ksk_test_… (test mode: the example answer, never a charge or a model call)',
        },
        webhookSignature: {
          type: 'apiKey',
          in: 'header',
          name: 'webhook-signature',
          description: 'Standard Webhooks signature made with the account’s webhook secret (see the jobFinished webhook)',
        },
      },
      parameters: {
        DryRun: {
          name: 'Service-Dry-Run',
          in: 'header',
          required: false,
          description:
            'Send 1 (or true) for a quote: authentication, rate limit, pause, validation and the balance check run, and a 200 DryRun report says what the live call would answer. Nothing is charged, no idempotency record, no model call (C3).',
          schema: { type: 'string', enum: ['1', 'true'] },
        },
        TestOutcome: {
          name: 'Service-Test-Outcome',
          in: 'header',
          required: false,
          description:
            'Test keys (ksk_test_…) only: the call answers this error as a live call would (status, body, Retry-After and RateLimit-* headers), at the stage a live call meets it; ' +
            'for an async call, inference_failed, unprocessable and internal_error fail the job after its 202. Nothing is charged. A live key sending it gets 400 invalid_request.',
          schema: { type: 'string', enum: Object.keys(TEST_OUTCOMES) },
        },
        IdempotencyKey: {
          name: 'Idempotency-Key',
          in: 'header',
          required: false,
          description:
            'Any 1–128 printable ASCII characters. For 24 h the same key with the same body replays the first answer byte for byte (Idempotent-Replayed: true) and charges nothing again; with another body it is 409 idempotency_key_reused; while the first call runs, 409 idempotency_key_in_use (C5).',
          schema: { type: 'string', pattern: '^[!-~]{1,128}$' },
        },
      },
      headers: {
        'X-Request-Id': {
          description: 'The id of this request (req_…), also in every error body',
          required: true,
          schema: { type: 'string' },
        },
        'RateLimit-Limit': { description: 'Calls per minute allowed to this key on this endpoint (C6)', schema: { type: 'integer' } },
        'RateLimit-Remaining': { description: 'Calls left in the current window', schema: { type: 'integer' } },
        'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
        'Retry-After': { description: 'Seconds to wait before retrying', schema: { type: 'integer' } },
        'Idempotent-Replayed': {
          description: 'true when this is the recorded answer of an earlier call with the same Idempotency-Key',
          schema: { type: 'string', enum: ['true'] },
        },
      },
      schemas,
    },
  }
}

/** The published result with `usage` merged in, so one schema (not allOf) validates the body as sent. */
function withUsage(result: JsonSchema): JsonSchema {
  if (!result.properties) throw new Error('a capability response must be an object schema with properties')
  return { ...result, properties: { ...result.properties, usage: ref('Usage') }, required: [...(result.required ?? []), 'usage'] }
}

function codesFor(status: number): string[] {
  return Object.entries(ERROR_STATUS)
    .filter(([, s]) => s === status)
    .map(([c]) => c)
}
