// The path of one capability: POST /v1/<name>, its request body and 200 result as the capability publishes
// them (run/result.ts) with `usage`, a 202 when it runs async, and every error status.
import { contextConfig, type Config } from '../config.ts'
import { MAX_MEDIA_BYTES } from '../documents/media.ts'
import { contextBudget } from '../models/chunks.ts'
import type { ModelProvider } from '../models/provider.ts'
import { pausedReason } from '../pipeline/paused.ts'
import { priceRule } from '../pipeline/price.ts'
import { unavailableReason } from '../pipeline/provider.ts'
import type { Capability } from '../run/registry.ts'
import { carriesEvidence } from '../reviews/rule.ts'
import type { JsonSchema } from '../run/result.ts'
import { ERROR_STATUSES, RATE_LIMIT, REQUEST_ID, errorResponse, header, json, ref } from './responses.ts'

export function capabilityPath(cap: Capability, config: Config, provider: ModelProvider) {
  const reason = pausedReason(config, cap)
  // Paused by the operator, or not servable by this server's model provider: a live call is 503 either way.
  const unavailable = reason ? `paused: ${reason}` : unavailableReason(cap, provider)
  const success = {
    ...REQUEST_ID,
    ...RATE_LIMIT,
    'Idempotent-Replayed': header('Idempotent-Replayed'),
    ...(cap.cache ? { 'Service-Cache': header('Service-Cache') } : {}),
  }
  return {
    post: {
      operationId: cap.name,
      summary: cap.summary,
      tags: ['capabilities'],
      'x-price': cap.price,
      // Price by size (issue 27): x-price covers `included` units; the dry run quotes the exact price of an input.
      ...(cap.size ? { 'x-price-size': cap.size } : {}),
      'x-async': cap.async,
      // C20: identical calls are answered from the account's result cache at RESULT_CACHE_PRICE_PERCENT of the price.
      'x-cache': cap.cache === true,
      ...(cap.cache ? { 'x-cache-price-percent': config.resultCache.pricePercent } : {}),
      'x-rate-limit': config.rateLimits[cap.name] ?? cap.ratePerMinute,
      'x-paused': reason !== null,
      ...(reason ? { 'x-paused-reason': reason } : {}),
      'x-available': unavailable === null,
      ...(unavailable ? { 'x-unavailable-reason': unavailable } : {}),
      'x-limits': limitsOf(cap, config),
      security: [{ bearer: [] }],
      parameters: [
        { $ref: '#/components/parameters/DryRun' },
        { $ref: '#/components/parameters/IdempotencyKey' },
        { $ref: '#/components/parameters/TestOutcome' },
        ...(cap.cache ? [{ $ref: '#/components/parameters/Cache' }] : []),
      ],
      requestBody: { required: true, content: { 'application/json': { schema: publishedRequest(cap), example: cap.example.request } } },
      responses: {
        '200': {
          description: `The result with usage (${priceRule(cap)} charged), or a DryRun report when Service-Dry-Run is sent`,
          headers: success,
          content: {
            'application/json': {
              schema: { anyOf: [withUsage(cap), ref('DryRun')] },
              example: { ...(cap.example.response as object), usage: { credits: cap.price, balanceRemaining: 990, livemode: true } },
            },
          },
        },
        ...(cap.async
          ? { '202': json(ref('JobAccepted'), 'Accepted as an async job (`async: true`); poll GET /v1/jobs/{id}', success) }
          : {}),
        ...Object.fromEntries(ERROR_STATUSES.map((s) => [String(s), errorResponse(s, true)])),
      },
    },
  }
}

/**
 * What one call may hold (issue 27): the context budget of one model request and what happens over it, for a
 * capability that asks a text or vision model; the decoding limits of a document capability.
 */
function limitsOf(cap: Capability, config: Config) {
  const context = config.ai.context ?? contextConfig({})
  const model = config.ai.routes?.[cap.name] ?? config.ai.models.text
  const models = [model, ...(config.ai.fallbacks ?? []).flatMap((f) => (f.model ? [f.model] : []))]
  const documents = JSON.stringify(cap.request).includes('"fileUrl"')
  return {
    ...(cap.model === 'text' || cap.model === 'vision'
      ? {
          contextTokens: contextBudget(models, context.tokens, context.windows),
          outputReserveTokens: context.outputReserveTokens,
          overContext: cap.chunking ?? 'refuse',
        }
      : {}),
    ...(documents
      ? { maxPages: config.documents.maxPages, maxFileBytes: MAX_MEDIA_BYTES, maxCharacters: config.documents.maxCharacters }
      : {}),
  }
}

/**
 * The request body as published: `async` and `callbackUrl` only where the capability runs as a job. The server
 * refuses `async: true` elsewhere (and ignores a callbackUrl without it), so clients generated from the document
 * offer neither there.
 */
function publishedRequest(cap: Capability) {
  if (cap.async) return cap.requestSchema
  const { async: _async, callbackUrl: _callbackUrl, ...properties } = cap.requestSchema.properties
  return { ...cap.requestSchema, properties }
}

/**
 * The published result with `usage` merged in, so one schema (not allOf) validates the body as sent; an extracting
 * capability's result may carry `review` (C21).
 */
function withUsage(cap: Capability): JsonSchema {
  const result = cap.responseSchema
  if (!result.properties) throw new Error('a capability response must be an object schema with properties')
  const review: Record<string, JsonSchema> = carriesEvidence(cap) ? { review: ref('ReviewMark') } : {}
  return {
    ...result,
    properties: { ...result.properties, ...review, usage: ref('Usage') },
    required: [...(result.required ?? []), 'usage'],
  }
}
