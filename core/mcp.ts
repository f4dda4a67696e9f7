// POST /mcp: the API as an MCP server (Streamable HTTP, stateless). Every capability is a tool, plus get_job
// and account. A tool call is not a side door: it is dispatched as an ordinary HTTP request through the app's
// own middleware chain (request id, error handler, router, the C1 stages), with the caller's bearer key, so
// auth, throttle, paused, validation, holds, charges, idempotency and error codes are the HTTP ones.
import type { Context } from 'koa'
import type { Middleware } from 'koa'
import { inject } from 'light-my-request'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import { CallToolRequestSchema, ListToolsRequestSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js'
import type { Capability } from './registry.ts'
import type { Config } from './config.ts'
import { ApiError, errorBody } from './errors.ts'
import { authenticate } from './pipeline/auth.ts'
import { pausedReason } from './pipeline/paused.ts'
import { makeBodyReader } from './pipeline/request.ts'
import type { Services } from './services.ts'

type Dispatch = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void
type Schema = Record<string, unknown>

/** Options a tool call adds to the capability's own request fields; stripped before dispatch. */
const CALL_OPTIONS = {
  dryRun: {
    type: 'boolean',
    description: 'Quote the call (Service-Dry-Run): runs auth, throttle, validation and the balance check; charges nothing.',
  },
  idempotencyKey: {
    type: 'string',
    pattern: '^[!-~]{1,128}$',
    description: 'Idempotency-Key: a retry with the same key and body is replayed, never charged twice.',
  },
} as const

/** Messages in one JSON-RPC batch: each tool call is an internal request, so a batch must not fan out unbounded. */
export const MCP_MAX_BATCH = 20
/** Tool calls per key and minute (`RATE_LIMITS` key `mcp`), free tools included; paid ones also count against
 * their endpoint's own limit, as over HTTP. */
export const MCP_CALLS_PER_MINUTE = 600

/** What the tools read of an operation of the published document. */
interface Operation {
  responses: Record<string, { content: { 'application/json': { schema: unknown } } }>
}

interface ToolRoute {
  tool: Tool
  request: (args: Record<string, unknown>) => { method: 'GET' | 'POST'; url: string; body?: unknown; headers: Record<string, string> }
}

export function mcpTools(
  capabilities: Capability[],
  config: Config,
  openapi: { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } },
): Map<string, ToolRoute> {
  const resolve = (schema: unknown): Schema => inlineRefs(schema, openapi.components.schemas) as Schema
  const published = (path: string, status: string, method = 'get') =>
    resolve((openapi.paths[path]![method] as Operation).responses[status]!.content['application/json'].schema)
  const accepted = resolve({ $ref: '#/components/schemas/JobAccepted' })
  const routes = new Map<string, ToolRoute>()

  for (const cap of capabilities) {
    const request = cap.requestSchema as unknown as Schema & { properties: Schema }
    for (const option of Object.keys(CALL_OPTIONS)) {
      if (option in request.properties)
        throw new Error(`${cap.path}: request field "${option}" collides with the MCP call option of that name.`)
    }
    const reason = pausedReason(config, cap)
    const price = `Price: ${cap.price} credit${cap.price === 1 ? '' : 's'} per call, charged only on success.`
    const asyncNote = cap.async ? ' Pass async: true to run it as a job (returns the job; read it with get_job).' : ''
    routes.set(cap.name, {
      tool: {
        name: cap.name,
        title: cap.summary,
        description: `${reason ? `PAUSED (${reason}); calls answer inference_unavailable and are free. ` : ''}${cap.summary} ${price}${asyncNote}`,
        inputSchema: { ...request, type: 'object', properties: { ...request.properties, ...CALL_OPTIONS } },
        // The published 200 (the result with usage, or the DryRun report), and the accepted job for async calls.
        outputSchema: { type: 'object', anyOf: [published(`/v1/${cap.name}`, '200', 'post'), ...(cap.async ? [accepted] : [])] },
        annotations: { readOnlyHint: false, idempotentHint: false, openWorldHint: true },
      },
      request: ({ dryRun, idempotencyKey, ...body }) => ({
        method: 'POST',
        url: `/v1/${cap.name}`,
        body,
        headers: {
          ...(dryRun === true ? { 'service-dry-run': '1' } : {}),
          ...(typeof idempotencyKey === 'string' ? { 'idempotency-key': idempotencyKey } : {}),
        },
      }),
    })
  }
  routes.set('get_job', {
    tool: {
      name: 'get_job',
      description: 'Reads an async job by id: its status, and the result (with usage) or the error when it has ended. Free.',
      inputSchema: {
        type: 'object',
        properties: { jobId: { type: 'string', format: 'uuid' } },
        required: ['jobId'],
        additionalProperties: false,
      },
      outputSchema: { type: 'object', ...published('/v1/jobs/{id}', '200') },
      annotations: { readOnlyHint: true },
    },
    request: ({ jobId }) => ({ method: 'GET', url: `/v1/jobs/${encodeURIComponent(String(jobId))}`, headers: {} }),
  })
  routes.set('account', {
    tool: {
      name: 'account',
      description: "The caller's account: balance, reserved and available credits, and plan. Free.",
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      outputSchema: { type: 'object', ...published('/v1/account', '200') },
      annotations: { readOnlyHint: true },
    },
    request: () => ({ method: 'GET', url: '/v1/account', headers: {} }),
  })
  return routes
}

/** The Koa handler of /mcp. `dispatch` is the app's own request listener (app.callback()). */
export function mcpEndpoint(services: Services, tools: Map<string, ToolRoute>, dispatch: () => Dispatch): Middleware {
  const list = [...tools.values()].map((r) => r.tool)
  const readBody = makeBodyReader(services.config.bodyLimitBytes)
  return async (ctx: Context) => {
    const caller = await authenticate(ctx, services.keys) // the same bearer key as HTTP; tool calls forward it
    if (!ctx.is('application/json'))
      throw new ApiError('unsupported_media_type', 'Send JSON-RPC messages as JSON with "Content-Type: application/json".')
    await readBody(ctx) // the body limit and JSON syntax of every other route
    const messages: unknown = ctx.request.body
    if (Array.isArray(messages) && messages.length > MCP_MAX_BATCH)
      throw new ApiError('invalid_request', `A JSON-RPC batch holds at most ${MCP_MAX_BATCH} messages; send the rest in another request.`, [
        { path: '/', message: `${messages.length} messages` },
      ])
    const perMinute = services.config.rateLimits.mcp ?? MCP_CALLS_PER_MINUTE
    const authorization = ctx.get('Authorization')
    const server = new Server({ name: 'metered-capability-api', version: '1.0.0' }, { capabilities: { tools: {} } })
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: list }))
    server.setRequestHandler(CallToolRequestSchema, async (req): Promise<CallToolResult> => {
      const limit = await services.limiter.consume('mcp', caller.keyId, perMinute)
      if (!limit.allowed) {
        const message = `Rate limit of ${limit.limit} MCP tool calls per minute reached for this key; retry in ${limit.resetSeconds} s.`
        const text = JSON.stringify(errorBody('rate_limited', message, ctx.state.requestId as string))
        return { isError: true, content: [{ type: 'text', text }] }
      }
      const route = tools.get(req.params.name)
      if (!route) return { isError: true, content: [{ type: 'text', text: `Unknown tool "${req.params.name}".` }] }
      const call = route.request(req.params.arguments ?? {})
      const res = await inject(dispatch(), {
        method: call.method,
        url: call.url,
        remoteAddress: ctx.ip,
        headers: { authorization, ...(call.body !== undefined ? { 'content-type': 'application/json' } : {}), ...call.headers },
        ...(call.body !== undefined ? { payload: JSON.stringify(call.body) } : {}),
      })
      const text = res.payload
      if (res.statusCode >= 400) return { isError: true, content: [{ type: 'text', text }] }
      return { content: [{ type: 'text', text }], structuredContent: JSON.parse(text) as Record<string, unknown> }
    })
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true })
    ctx.res.on('close', () => {
      void transport.close()
      void server.close()
    })
    await server.connect(transport)
    ctx.respond = false // the transport writes the response itself
    await transport.handleRequest(ctx.req, ctx.res, ctx.request.body)
  }
}

/** MCP clients compile each output schema on its own, so `#/components/schemas/…` references are inlined. */
function inlineRefs(schema: unknown, components: Record<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inlineRefs(s, components))
  if (!schema || typeof schema !== 'object') return schema
  const ref = (schema as { $ref?: string }).$ref
  if (ref?.startsWith('#/components/schemas/')) return inlineRefs(components[ref.slice('#/components/schemas/'.length)], components)
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inlineRefs(v, components)]))
}
