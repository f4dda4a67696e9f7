// POST /mcp: the API as an MCP server (Streamable HTTP, stateless). Every capability is a tool, plus get_job
// and account. A tool call is not a side door: it is dispatched as an ordinary HTTP request through the app's
// own middleware chain (request id, error handler, router, the C1 stages), with the caller's bearer key, so
// auth, throttle, paused, validation, holds, charges, idempotency and error codes are the HTTP ones.
// Tool input schemas are the request schemas in the JSON Schema subset LLM tool-calling APIs accept (no
// combinator at the top, no oneOf/allOf anywhere): a rule they cannot carry is said in the description and
// enforced by the HTTP validation the call goes through.
// A tool the server cannot serve (paused, or beyond its model provider) is listed, marked as the OpenAPI
// document marks it (x-available), and answers inference_unavailable for free. JSON-RPC errors are the ones
// the MCP specification lists: a tools/call naming no known tool, or whose arguments are not an object, is
// -32602 with a one-line message.
import type Router from '@koa/router'
import type { Context } from 'koa'
import type { Middleware } from 'koa'
import { inject } from 'light-my-request'
import { Server } from '@modelcontextprotocol/sdk/server/index.js'
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js'
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  type CallToolResult,
  type JSONRPCMessage,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js'
import type { Caller } from './http/caller.ts'
import type { Capability } from './run/registry.ts'
import { publicOrigin, type Config } from './config.ts'
import { ApiError, errorBody } from './errors.ts'
import { authenticate } from './http/auth.ts'
import { requireAccess, requireCapability, type AccessGuard } from './http/permissions.ts'
import { priceRule } from './pipeline/price.ts'
import { makeBodyReader } from './http/body.ts'
import { strictRouter } from './http/routing.ts'
import type { Services } from './services.ts'

type Dispatch = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void
type Schema = Record<string, unknown>

/** Options a tool call adds to the capability's own request fields; stripped before dispatch. */
const CALL_OPTIONS = {
  dryRun: {
    type: 'boolean',
    description: 'Quote only: free.',
  },
  idempotencyKey: {
    type: 'string',
    pattern: '^[!-~]{1,128}$',
    description: 'A retry with it is never charged twice.',
  },
} as const

/** Messages in one JSON-RPC batch: each tool call is an internal request, so a batch must not fan out unbounded. */
export const MCP_MAX_BATCH = 20
/** Tool calls per key and minute (`RATE_LIMITS` key `mcp`), free tools included; paid ones also count against
 * their endpoint's own limit, as over HTTP. */
export const MCP_CALLS_PER_MINUTE = 600

/** Told to the MCP host in `initialize`: what the tools are and how a paid call behaves. */
export const MCP_INSTRUCTIONS =
  'Tools of the Metered AI Capability API, paid from the prepaid credit wallet of the key you connected with (1 credit = 0.01 USD). ' +
  'Each tool description states its price; a call is charged only when it succeeds, and a refusal costs nothing. ' +
  'Before a costly call, pass dryRun: true for a free quote of its price and of the answer a live call would get. ' +
  'Pass an idempotencyKey to retry safely: a call repeated with the same key and arguments replays the first answer and is never charged twice. ' +
  '`account` reads the balance. Document tools accept async: true and return a job; `get_job` reads it until it has succeeded or failed. ' +
  'A refused call returns {"error": {"code", "message", "requestId"}} with a stable code (insufficient_credits, rate_limited, invalid_request, inference_unavailable …). ' +
  'Tools marked PAUSED or UNAVAILABLE cannot run on this server now: they answer inference_unavailable and are free.'

/** What the tools read of an operation of the published document. */
interface Operation {
  requestBody: { content: { 'application/json': { schema: Schema & { properties: Schema } } } }
  responses: Record<string, { content: { 'application/json': { schema: unknown } } }>
  'x-paused-reason'?: string
  'x-unavailable-reason'?: string
}

interface ToolRoute {
  tool: Tool
  request: (args: Record<string, unknown>) => { method: 'GET' | 'POST'; url: string; body?: unknown; headers: Record<string, string> }
}

export function mcpTools(
  capabilities: Capability[],
  openapi: { paths: Record<string, Record<string, unknown>>; components: { schemas: Record<string, unknown> } },
): Map<string, ToolRoute> {
  const resolve = (schema: unknown): Schema => inlineRefs(schema, openapi.components.schemas) as Schema
  const published = (path: string) => resolve((openapi.paths[path]!.get as Operation).responses['200']!.content['application/json'].schema)
  const routes = new Map<string, ToolRoute>()

  for (const cap of capabilities) {
    const operation = openapi.paths[`/v1/${cap.name}`]!.post as Operation
    // The body as published: `async` and `callbackUrl` only where the capability runs as a job.
    const request = operation.requestBody.content['application/json'].schema
    for (const option of Object.keys(CALL_OPTIONS)) {
      if (option in request.properties)
        throw new Error(`${cap.path}: request field "${option}" collides with the MCP call option of that name.`)
    }
    // As the document says it: paused by the operator, or beyond this server's model provider.
    const paused = operation['x-paused-reason']
    const unavailable = paused
      ? `PAUSED (${paused})`
      : operation['x-unavailable-reason'] && `UNAVAILABLE (${operation['x-unavailable-reason']})`
    const price = `${priceRule(cap)} on success.`
    const { description: rule, ...input } = agentSchema(request)
    routes.set(cap.name, {
      tool: {
        name: cap.name,
        // The result is the body of POST /v1/{name} (with usage), published in /v1/openapi.json; output schemas
        // and titles are left out of tools/list, which would otherwise be 170 KB for 39 tools.
        description: [
          ...(unavailable ? [`${unavailable}; calls answer inference_unavailable and are free.`] : []),
          `${cap.summary}.`,
          ...(rule ? [(rule as string).replace(/([^.])$/, '$1.')] : []),
          price,
          ...(cap.async ? ['async: true runs a job (get_job reads it; callbackUrl gets a webhook).'] : []),
        ].join(' '),
        inputSchema: { ...input, type: 'object', properties: { ...(input.properties as Schema), ...CALL_OPTIONS } },
        annotations: { destructiveHint: false },
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
      outputSchema: { ...shapeOf(agentSchema(published('/v1/jobs/{id}'))), type: 'object' },
      annotations: { readOnlyHint: true },
    },
    request: ({ jobId }) => ({ method: 'GET', url: `/v1/jobs/${encodeURIComponent(String(jobId))}`, headers: {} }),
  })
  routes.set('account', {
    tool: {
      name: 'account',
      description: "The caller's account: balance, reserved and available credits, and plan. Free.",
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      outputSchema: { ...shapeOf(agentSchema(published('/v1/account'))), type: 'object' },
      annotations: { readOnlyHint: true },
    },
    request: () => ({ method: 'GET', url: '/v1/account', headers: {} }),
  })
  return routes
}

/** Where RFC 9728 puts the metadata of the resource `<origin>/mcp` (MCP hosts also try the root form). */
export const RESOURCE_METADATA_PATHS = ['/.well-known/oauth-protected-resource/mcp', '/.well-known/oauth-protected-resource']

/**
 * OAuth 2.0 Protected Resource Metadata (RFC 9728) of /mcp: a bearer key in the Authorization header, and the
 * dashboard's keys page as where to get one. There is no authorization server: keys are made in the dashboard
 * (or by the operator), so `authorization_servers` is absent and an OAuth-only host says what to do instead.
 */
export function resourceMetadata(config: Config): Middleware {
  const origin = publicOrigin(config)
  const body = {
    resource: `${origin}/mcp`,
    resource_name: 'Metered AI Capability API (MCP)',
    bearer_methods_supported: ['header'],
    resource_documentation: `${origin}/dashboard/keys`,
  }
  return (ctx) => {
    ctx.set('Cache-Control', 'public, max-age=3600')
    ctx.body = body
  }
}

/** POST /mcp and its resource metadata. The tools dispatch through the app itself (its whole middleware chain), never around it. */
export function mcpRouter(services: Services, tools: Map<string, ToolRoute>, dispatch: () => Dispatch): Router {
  const router = strictRouter()
  router.post('/mcp', mcpEndpoint(services, tools, dispatch))
  for (const path of RESOURCE_METADATA_PATHS) router.get(path, resourceMetadata(services.config))
  return router
}

/** The Koa handler of /mcp. `dispatch` is the app's own request listener (app.callback()). */
export function mcpEndpoint(services: Services, tools: Map<string, ToolRoute>, dispatch: () => Dispatch): AccessGuard {
  const list = [...tools.values()].map((r) => r.tool)
  /** The tools this key may call (C18): a capability needs `call` and its allowlist; get_job and account any key. */
  const allowed = (caller: Caller) =>
    list.filter((tool) => {
      try {
        if (services.capabilities.has(tool.name)) requireCapability(caller, tool.name)
        else requireAccess(caller, 'read')
        return true
      } catch {
        return false
      }
    })
  const readBody = makeBodyReader(services.config.bodyLimitBytes)
  const challenge = `Bearer resource_metadata="${publicOrigin(services.config)}${RESOURCE_METADATA_PATHS[0]}"`
  const endpoint: Middleware = async (ctx: Context) => {
    // The same bearer key as HTTP (tool calls forward it); a 401 tells MCP hosts where the key comes from (RFC 6750, 9728).
    const caller = await authenticate(ctx, services.keys).catch((e: unknown) => {
      if (!(e instanceof ApiError) || e.status !== 401) throw e
      const invalid = ctx.get('Authorization') ? ', error="invalid_token"' : ''
      throw new ApiError(e.code, e.message, e.details, { ...e.headers, 'WWW-Authenticate': `${challenge}${invalid}` })
    })
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
    const server = new Server(
      { name: 'metered-capability-api', version: '1.0.0' },
      { capabilities: { tools: {} }, instructions: MCP_INSTRUCTIONS },
    )
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: allowed(caller) }))
    server.setRequestHandler(CallToolRequestSchema, async (req): Promise<CallToolResult> => {
      const limit = await services.limiter.consume('mcp', caller.keyId, perMinute)
      if (!limit.allowed) {
        const message = `Rate limit of ${limit.limit} MCP tool calls per minute reached for this key; retry in ${limit.resetSeconds} s.`
        const text = JSON.stringify(errorBody('rate_limited', message, ctx.state.requestId as string))
        return { isError: true, content: [{ type: 'text', text }] }
      }
      const call = tools.get(req.params.name)!.request(req.params.arguments ?? {}) // toolCallProblem checked the name
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
    // Between the transport and the server: a tools/call whose params the server would refuse with a schema dump
    // (or answer as a tool result, for an unknown name) is answered -32602 here, in one line.
    const deliver = transport.onmessage!
    transport.onmessage = (message, extra) => {
      const problem = toolCallProblem(message, tools)
      if (problem === null) return deliver(message, extra)
      void transport.send({
        jsonrpc: '2.0',
        id: (message as { id: string | number }).id,
        error: { code: ErrorCode.InvalidParams, message: problem },
      })
    }
    ctx.respond = false // the transport writes the response itself
    await transport.handleRequest(ctx.req, ctx.res, ctx.request.body)
  }
  return Object.assign(endpoint, { access: 'read' as const })
}

/** Why a tools/call request cannot name a call (the JSON-RPC -32602 message), or null when it can or is not one. */
export function toolCallProblem(message: JSONRPCMessage, tools: Map<string, ToolRoute>): string | null {
  const m = message as { method?: unknown; id?: unknown; params?: unknown }
  if (m.method !== 'tools/call' || m.id === undefined) return null
  const kind = (v: unknown) => (v === null ? 'null' : Array.isArray(v) ? 'an array' : `a ${typeof v}`)
  // (params that are there but no object never get here: the transport answers them -32700 itself.)
  if (!m.params || typeof m.params !== 'object' || Array.isArray(m.params)) return 'Invalid params: give {"name", "arguments"}.'
  const { name, arguments: args } = m.params as { name?: unknown; arguments?: unknown }
  if (typeof name !== 'string') return `Invalid params: "name" must be a tool name (tools/list lists them), not ${kind(name)}.`
  if (!tools.has(name)) return `Unknown tool: ${JSON.stringify(name.slice(0, 100))}. tools/list lists the tools of this server.`
  if (args !== undefined && (!args || typeof args !== 'object' || Array.isArray(args)))
    return `Invalid params: "arguments" must be a JSON object of the tool's input fields, not ${kind(args)}.`
  return null
}

/** The JSON Schema keywords OpenAI's function calling documents as supported (Structured Outputs, "Supported schemas"). */
const AGENT_KEYWORDS = new Set([
  ...['type', 'properties', 'required', 'additionalProperties', 'items', 'enum', 'anyOf', 'description', 'title'],
  ...['pattern', 'format', 'minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf', 'minItems', 'maxItems'],
])
const AGENT_FORMATS = new Set(['date-time', 'time', 'date', 'duration', 'email', 'hostname', 'ipv4', 'ipv6', 'uuid'])

/**
 * A request schema in that subset. Object unions become optional fields with the rule in the description
 * (`oneOf` of `required` alternatives: the document's file | fileUrl | text; `allOf` of `if op then`: memory's
 * ops); unions of constants become `enum`; other keywords (lengths, counts, `default`, unsupported formats) are
 * left to the server, which validates every call against the full published schema.
 */
export function agentSchema(schema: Schema): Schema {
  const rules: string[] = []
  const out: Schema = {}
  // A union of unions is one union: [[string, number], array] as [string, number, array].
  const alternatives = ((schema.oneOf ?? schema.anyOf) as Schema[] | undefined)?.flatMap((a) =>
    Object.keys(a).join() === 'anyOf' ? (a.anyOf as Schema[]) : [a],
  )
  if (alternatives?.every((a) => Object.keys(a).every((k) => k === 'required'))) {
    const names = alternatives.flatMap((a) => a.required as string[])
    rules.push(`${schema.oneOf ? 'Exactly' : 'At least'} one of ${names.join(', ')}.`)
  } else if (alternatives?.every((a) => 'const' in a)) {
    out.enum = alternatives.map((a) => a.const)
    const types = [...new Set(alternatives.map((a) => a.type))]
    if (types.length === 1 && types[0]) out.type = types[0]
  } else if (alternatives?.every((a) => Object.keys(a).join() === 'type' && typeof a.type === 'string')) {
    out.type = alternatives.map((a) => a.type) // {"anyOf": [{"type": "string"}, {"type": "null"}]} as ["string", "null"]
  } else if (alternatives) out.anyOf = alternatives.map(agentSchema)
  for (const rule of (schema.allOf ?? []) as Schema[]) {
    const when = rule.if as { properties?: Record<string, { const?: unknown }> } | undefined
    const then = rule.then as { required?: string[]; properties?: Record<string, unknown> } | undefined
    const [field, value] = Object.entries(when?.properties ?? {}).map(([k, v]) => [k, v.const] as const)[0] ?? []
    if (!field || !then) throw new Error(`MCP: cannot state this allOf rule in a description: ${JSON.stringify(rule).slice(0, 120)}`)
    const forbidden = Object.entries(then.properties ?? {}).filter(([, v]) => v === false)
    rules.push(
      `${field}=${String(value)}: ${[
        ...(then.required?.length ? [`requires ${then.required.join(', ')}`] : []),
        ...(forbidden.length ? [`no ${forbidden.map(([k]) => k).join(', ')}`] : []),
      ].join('; ')}.`,
    )
  }
  for (const [k, v] of Object.entries(schema)) {
    if (!AGENT_KEYWORDS.has(k) || k === 'anyOf' || k === 'description') continue
    if (k === 'format' && !AGENT_FORMATS.has(v as string)) continue
    if (k === 'properties' && !Object.keys(v as Schema).length && schema.additionalProperties !== false) continue // an open map
    if (k === 'properties')
      out.properties = Object.fromEntries(Object.entries(v as Schema).map(([p, ps]) => [p, agentSchema(ps as Schema)]))
    else if (k === 'items' || (k === 'additionalProperties' && typeof v === 'object')) out[k] = agentSchema(v as Schema)
    else out[k] = v
  }
  if ('const' in schema) out.enum = [schema.const]
  const description = [schema.description as string | undefined, ...rules].filter(Boolean).join(' ')
  return description ? { ...out, description } : out
}

/**
 * An output schema as a client checks structuredContent by it: the shape without descriptions (the published
 * document has them), so that tools/list stays within what tool-calling APIs accept as capabilities are added.
 */
function shapeOf(schema: Schema): Schema {
  const out = { ...schema }
  delete out.description
  if (out.properties)
    out.properties = Object.fromEntries(Object.entries(out.properties as Schema).map(([p, s]) => [p, shapeOf(s as Schema)]))
  for (const k of ['items', 'additionalProperties'] as const) if (out[k] && typeof out[k] === 'object') out[k] = shapeOf(out[k] as Schema)
  if (out.anyOf) out.anyOf = (out.anyOf as Schema[]).map(shapeOf)
  return out
}

/** MCP clients compile each output schema on its own, so `#/components/schemas/…` references are inlined. */
function inlineRefs(schema: unknown, components: Record<string, unknown>): unknown {
  if (Array.isArray(schema)) return schema.map((s) => inlineRefs(s, components))
  if (!schema || typeof schema !== 'object') return schema
  const ref = (schema as { $ref?: string }).$ref
  if (ref?.startsWith('#/components/schemas/')) return inlineRefs(components[ref.slice('#/components/schemas/'.length)], components)
  return Object.fromEntries(Object.entries(schema).map(([k, v]) => [k, inlineRefs(v, components)]))
}
