// GET /v1/openapi.json (C14), built once at boot from the registry.
import { ERROR_STATUS } from './errors.ts'
import type { Capability } from './registry.ts'
import type { Config } from './config.ts'
import { pausedReason } from './pipeline/paused.ts'
import { usageOperation } from './usage/routes.ts'

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` })
const json = (schema: unknown, description: string) => ({ description, content: { 'application/json': { schema } } })

export function buildOpenApi(capabilities: Capability[], config: Config) {
  const errorResponses = Object.fromEntries(
    [...new Set(Object.values(ERROR_STATUS))].map((status) => [String(status), json(ref('Error'), `Error (${codesFor(status).join(', ')})`)]),
  )
  const paths: Record<string, unknown> = {}
  for (const cap of capabilities) {
    const reason = pausedReason(config, cap)
    paths[`/v1/${cap.name}`] = {
      post: {
        operationId: cap.name,
        summary: cap.summary,
        'x-price': cap.price,
        'x-async': cap.async,
        'x-rate-limit': config.rateLimits[cap.name] ?? cap.ratePerMinute,
        'x-paused': reason !== null,
        ...(reason ? { 'x-paused-reason': reason } : {}),
        security: [{ bearer: [] }],
        parameters: [
          { name: 'Service-Dry-Run', in: 'header', required: false, schema: { type: 'string', enum: ['1', 'true'] } },
          { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', pattern: '^[!-~]{1,128}$' } },
        ],
        requestBody: {
          required: true,
          content: { 'application/json': { schema: cap.requestSchema, ...(cap.example ? { example: cap.example.request } : {}) } },
        },
        responses: {
          '200': {
            description: 'The result with usage, or a DryRun report when Service-Dry-Run is sent',
            content: {
              'application/json': {
                schema: { oneOf: [withUsage(cap.response), ref('DryRun')] },
                ...(cap.example ? { example: { ...(cap.example.response as object), usage: { credits: cap.price, balanceRemaining: 990 } } } : {}),
              },
            },
          },
          ...(cap.async ? { '202': json(ref('JobAccepted'), 'Accepted as an async job') } : {}),
          ...errorResponses,
        },
      },
    }
  }
  paths['/v1/jobs/{id}'] = {
    get: {
      operationId: 'getJob',
      security: [{ bearer: [] }],
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
      responses: { '200': json(ref('Job'), 'The job'), '401': json(ref('Error'), 'unauthorized'), '404': json(ref('Error'), 'not_found') },
    },
  }
  paths['/v1/account'] = {
    get: { operationId: 'getAccount', security: [{ bearer: [] }], responses: { '200': json(ref('Account'), 'Balance and plan'), '401': json(ref('Error'), 'unauthorized') } },
  }
  paths['/v1/usage'] = usageOperation
  return {
    openapi: '3.1.0',
    info: { title: 'Metered AI Capability API', version: '1.0.0' },
    paths,
    webhooks: {
      jobFinished: {
        post: {
          summary: 'Sent to callbackUrl when an async job ends; signed with X-Service-Signature: sha256=<hex HMAC-SHA256 of the body>',
          requestBody: { content: { 'application/json': { schema: ref('WebhookPayload') } } },
          responses: { '200': { description: 'Any 2xx acknowledges the delivery' } },
        },
      },
    },
    components: {
      securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'ksk_live_… API key' } },
      schemas: {
        Usage: obj({ credits: { type: 'integer' }, balanceRemaining: { type: 'integer' } }),
        Error: obj({
          error: obj(
            {
              code: { type: 'string', enum: Object.keys(ERROR_STATUS) },
              message: { type: 'string' },
              requestId: { type: 'string' },
              details: { type: 'array', items: obj({ path: { type: 'string' }, message: { type: 'string' } }) },
            },
            ['code', 'message', 'requestId'],
          ),
        }),
        DryRun: obj(
          {
            dryRun: { const: true },
            endpoint: { type: 'string' },
            liveStatus: { type: 'integer' },
            wouldCharge: { type: 'integer' },
            price: { type: 'integer' },
            balance: { type: 'integer' },
            error: { type: 'object' },
          },
          ['dryRun', 'endpoint', 'liveStatus', 'wouldCharge', 'price', 'balance'],
        ),
        JobAccepted: obj({ jobId: { type: 'string', format: 'uuid' }, status: { const: 'queued' }, requestId: { type: 'string' } }),
        Job: obj(
          {
            jobId: { type: 'string', format: 'uuid' },
            endpoint: { type: 'string' },
            status: { enum: ['queued', 'running', 'succeeded', 'failed'] },
            createdAt: { type: 'string', format: 'date-time' },
            updatedAt: { type: 'string', format: 'date-time' },
            startedAt: { type: 'string', format: 'date-time' },
            finishedAt: { type: 'string', format: 'date-time' },
            requestId: { type: 'string' },
            result: { type: 'object', description: 'The body the synchronous call returns, usage included' },
            error: obj({ code: { type: 'string' }, message: { type: 'string' } }),
          },
          ['jobId', 'endpoint', 'status', 'createdAt', 'updatedAt', 'requestId'],
        ),
        Account: obj({ balance: { type: 'integer' }, reserved: { type: 'integer' }, available: { type: 'integer' }, balanceUsd: { type: 'string' }, plan: { type: 'string' } }),
        WebhookPayload: obj({
          deliveryId: { type: 'string' },
          event: { enum: ['job.completed', 'job.failed'] },
          createdAt: { type: 'string', format: 'date-time' },
          job: ref('Job'),
        }),
      },
    },
  }
}

function obj(properties: Record<string, unknown>, required = Object.keys(properties)) {
  return { type: 'object', properties, required }
}

function withUsage(response: unknown) {
  return { allOf: [response, { type: 'object', properties: { usage: ref('Usage') }, required: ['usage'] }] }
}

function codesFor(status: number): string[] {
  return Object.entries(ERROR_STATUS)
    .filter(([, s]) => s === status)
    .map(([c]) => c)
}
