// OpenTelemetry traces: a span per HTTP request, per model attempt, per money statement and per job, the job
// linked to the request that accepted it. On only when an OTLP endpoint is configured by the standard variables
// (OTEL_EXPORTER_OTLP_ENDPOINT or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT; OTEL_SDK_DISABLED=true or
// OTEL_TRACES_EXPORTER=none turn it off). Off, the SDK is never imported and every helper here calls straight
// through: one null check per call. The exporter is OTLP/HTTP (JSON) and reads its OTEL_EXPORTER_OTLP_* settings,
// the batch processor its OTEL_BSP_*, the sampler OTEL_TRACES_SAMPLER, the resource OTEL_SERVICE_NAME and
// OTEL_RESOURCE_ATTRIBUTES. Nothing secret is recorded: no keys, bodies, prompts or SQL.
import {
  context,
  propagation,
  ROOT_CONTEXT,
  SpanKind,
  SpanStatusCode,
  trace,
  type Attributes,
  type Span,
  type Tracer,
} from '@opentelemetry/api'
import type { LanguageModelV4, LanguageModelV4CallOptions } from '@ai-sdk/provider'
import type { TaskList } from 'graphile-worker'
import type { Middleware } from 'koa'
import type { Query } from '../query.ts'

let tracer: Tracer | null = null

export function tracingConfigured(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED === 'true' || (env.OTEL_TRACES_EXPORTER ?? 'otlp') !== 'otlp') return false
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT)
}

/** Starts the SDK when configured; returns the function that flushes and stops it, or null when tracing is off. */
export async function startTracing(role: string): Promise<(() => Promise<void>) | null> {
  if (!tracingConfigured(process.env)) return null
  const [{ NodeTracerProvider, BatchSpanProcessor }, { OTLPTraceExporter }, resources] = await Promise.all([
    import('@opentelemetry/sdk-trace-node'),
    import('@opentelemetry/exporter-trace-otlp-http'),
    import('@opentelemetry/resources'),
  ])
  const resource = resources
    .defaultResource()
    .merge(resources.resourceFromAttributes({ 'service.name': 'capapi', 'capapi.role': role }))
    .merge(resources.detectResources({ detectors: [resources.envDetector] }))
  const provider = new NodeTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] })
  provider.register() // AsyncLocalStorage context, W3C traceparent propagation
  tracer = trace.getTracer('capapi')
  return async () => {
    tracer = null
    await provider.shutdown()
  }
}

/** Runs fn in a child span of the active one; the span ends with fn and records its failure. */
function inSpan<T>(name: string, attributes: Attributes, fn: () => Promise<T>, after?: (span: Span, result: T) => void): Promise<T> {
  return tracer!.startActiveSpan(name, { attributes }, async (span) => {
    try {
      const result = await fn()
      after?.(span, result)
      return result
    } catch (e) {
      span.recordException(e as Error)
      span.setStatus({ code: SpanStatusCode.ERROR })
      throw e
    } finally {
      span.end()
    }
  })
}

/** Koa middleware: the server span of a request, continuing the caller's traceparent if it sent one. */
export const requestSpans: Middleware = (ctx, next) => {
  if (!tracer) return next()
  const parent = propagation.extract(ROOT_CONTEXT, ctx.headers)
  return tracer.startActiveSpan(
    ctx.method,
    { kind: SpanKind.SERVER, attributes: { 'http.request.method': ctx.method } },
    parent,
    async (span) => {
      try {
        await next()
      } finally {
        const route = (ctx as { _matchedRoute?: string })._matchedRoute
        if (route) span.updateName(`${ctx.method} ${route}`)
        span.setAttributes({
          'http.route': route ?? 'unmatched',
          'http.response.status_code': ctx.status,
          'capapi.request_id': (ctx.state as { requestId?: string }).requestId ?? '',
        })
        if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR })
        span.end()
      }
    },
  )
}

/**
 * The language model with a span around each doGenerate (one model attempt: a corrective retry is a second one),
 * recording provider, model and the tokens it reported. Off, the model itself.
 */
export function tracedModel(model: LanguageModelV4): LanguageModelV4 {
  if (!tracer) return model
  const attributes = { 'gen_ai.provider.name': model.provider, 'gen_ai.request.model': model.modelId }
  const doGenerate = (options: LanguageModelV4CallOptions) =>
    inSpan(
      `model ${model.modelId}`,
      attributes,
      async () => model.doGenerate(options),
      (span, result) => {
        const { inputTokens, outputTokens } = result.usage
        if (inputTokens.total !== undefined) span.setAttribute('gen_ai.usage.input_tokens', inputTokens.total)
        if (outputTokens.total !== undefined) span.setAttribute('gen_ai.usage.output_tokens', outputTokens.total)
      },
    )
  return new Proxy(model, {
    get: (target, prop) => (prop === 'doGenerate' ? doGenerate : (Reflect.get(target, prop) as unknown)),
  })
}

/** A query handle whose statements (the money path's: each is one transaction in PostgreSQL) get a span each. */
export function money(q: Query): Query {
  if (!tracer) return q
  return {
    sql: (text, params) => {
      const operation = /\b(reserve_call|accept_job|capture_hold|release_hold|credit_account|end_jobs)\(/.exec(text)?.[1] ?? 'statement'
      return inSpan(`money ${operation}`, { 'db.system.name': 'postgresql', 'db.operation.name': operation }, () => q.sql(text, params))
    },
  }
}

/** The active span as a W3C traceparent, stored with a queued job so its run links back; null when off. */
export function traceparent(): string | null {
  if (!tracer) return null
  const carrier: Record<string, string> = {}
  propagation.inject(context.active(), carrier)
  return carrier.traceparent ?? null
}

/** Wraps each graphile-worker task in a span per job, linked to the request whose traceparent the payload carries. */
export function jobSpans(tasks: TaskList): TaskList {
  if (!tracer) return tasks
  const wrapped: TaskList = {}
  for (const [name, task] of Object.entries(tasks)) {
    if (!task) continue
    wrapped[name] = (payload, helpers) => {
      const p = (payload ?? {}) as { jobId?: string; deliveryId?: string; traceparent?: string }
      const accepted = p.traceparent ? trace.getSpanContext(propagation.extract(ROOT_CONTEXT, { traceparent: p.traceparent })) : undefined
      const attributes: Attributes = { 'capapi.task': name, 'capapi.worker_job_id': helpers.job.id }
      if (p.jobId) attributes['capapi.job_id'] = p.jobId
      if (p.deliveryId) attributes['capapi.delivery_id'] = p.deliveryId
      return tracer!.startActiveSpan(
        `job ${name}`,
        { kind: SpanKind.CONSUMER, attributes, links: accepted ? [{ context: accepted }] : [] },
        ROOT_CONTEXT,
        async (span) => {
          try {
            await task(payload, helpers)
          } catch (e) {
            span.recordException(e as Error)
            span.setStatus({ code: SpanStatusCode.ERROR })
            throw e
          } finally {
            span.end()
          }
        },
      )
    }
  }
  return wrapped
}
