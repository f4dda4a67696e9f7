// The MCP endpoint, driven by the MCP SDK's own client over Streamable HTTP: every capability is a tool, and a
// tool call charges and refuses exactly like the HTTP call (C1, C3, C4): same key, same codes, same ledger.
import t from 'tap'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { discoverOAuthProtectedResourceMetadata, extractResourceMetadataUrl } from '@modelcontextprotocol/sdk/client/auth.js'
import { ErrorCode, McpError } from '@modelcontextprotocol/sdk/types.js'
import { MCP_INSTRUCTIONS } from '../../core/mcp.ts'
import { openAiToolProblems } from '../helpers/openai-tool-schema.ts'
import { startTestApp, mockProvider, type TestApp } from '../helpers/app.ts'
import { CAPABILITIES_ROOT, capabilityFolders } from '../../core/capability-folders.ts'
import { jobCapability } from '../helpers/job-capabilities.ts'

const classifyAnswer = { label: 'billing', confidence: 0.9, rationale: 'A duplicate charge is a billing question.' }
// The public origin MCP hosts are told about is DASHBOARD_URL, never the request's Host.
const origin = 'https://api.example.com'
const app = await startTestApp(t, { provider: mockProvider(() => classifyAnswer), env: { DASHBOARD_URL: origin } })
const classify = { text: 'I was charged twice', labels: ['billing', 'technical'] }

async function connect(a: TestApp, key: string): Promise<Client> {
  const client = new Client({ name: 'mcp-test', version: '1.0.0' })
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${a.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${key}` } } }),
  )
  t.teardown(() => client.close())
  return client
}

t.test('every capability is a tool with its price, input and output schema, plus get_job and account', async (t) => {
  const c = await app.customer(10)
  const { tools } = await (await connect(app, c.key)).listTools()
  const capabilities = [...app.services.capabilities.values()]
  const capabilityTools = tools.filter((tool) => app.services.capabilities.has(tool.name))
  t.equal(capabilityTools.length, capabilityFolders(CAPABILITIES_ROOT).length, 'a tool per capability folder')
  t.same(
    tools
      .map((tool) => tool.name)
      .filter((n) => !app.services.capabilities.has(n))
      .sort(),
    ['account', 'get_job'],
  )
  for (const cap of capabilities) {
    const tool = tools.find((x) => x.name === cap.name)!
    t.match(tool.description, `${cap.price} credit`, `${cap.name}: the price is in the description`)
    t.ok(tool.description!.includes(cap.summary), `${cap.name}: the summary is in the description`)
    // async and callbackUrl (kernel fields of every request) only where the capability runs as a job.
    const fields = Object.keys(cap.requestSchema.properties).filter((k) => cap.async || (k !== 'async' && k !== 'callbackUrl'))
    t.same(Object.keys(tool.inputSchema.properties ?? {}).sort(), [...fields, 'dryRun', 'idempotencyKey'].sort())
  }
  const paths = (await app.call('/v1/openapi.json')).body.paths
  for (const cap of capabilities) {
    const op = paths[`/v1/${cap.name}`].post
    const description = tools.find((x) => x.name === cap.name)!.description!
    t.equal(description.startsWith('PAUSED'), op['x-paused'], `${cap.name}: paused as in OpenAPI`)
    t.equal(/^(PAUSED|UNAVAILABLE) /.test(description), !op['x-available'], `${cap.name}: unavailable as in OpenAPI`)
    if (!op['x-available']) t.ok(description.includes(op['x-paused-reason'] ?? op['x-unavailable-reason']), `${cap.name}: with the reason`)
  }
})

t.test('a tool the server cannot serve (web search on a provider without it) is marked so, here and in OpenAPI', async (t) => {
  const c = await app.customer(100)
  const client = await connect(app, c.key)
  const { tools } = await client.listTools()
  const paths = (await app.call('/v1/openapi.json')).body.paths
  for (const name of ['research', 'screen']) {
    const op = paths[`/v1/${name}`].post
    t.match(
      op,
      { 'x-paused': false, 'x-available': false, 'x-unavailable-reason': /needs a provider with web search/ },
      `${name} in OpenAPI`,
    )
    t.match(
      tools.find((x) => x.name === name)!.description,
      /^UNAVAILABLE \(\/v1\/\w+ needs a provider with web search \(AI_WIRE_API=responses\)\); calls answer inference_unavailable and are free\./,
    )
    const r = await client.callTool({ name, arguments: paths[`/v1/${name}`].post.requestBody.content['application/json'].example })
    t.ok(r.isError)
    t.equal(
      JSON.parse((r.content as Array<{ text: string }>)[0]!.text).error.code,
      'inference_unavailable',
      `${name}: calling it says why, free`,
    )
  }
  t.equal(paths['/v1/classify'].post['x-available'], true, 'a capability the provider serves is available')
  t.notOk(tools.find((x) => x.name === 'classify')!.description!.startsWith('UNAVAILABLE'))
  await app.expectLedger(t, c.accountId, 100)
  // With a provider that has web search, the same capabilities are available.
  const searching = await startTestApp(t, { provider: mockProvider(() => ({}), { webSearch: () => ({}) as never }) })
  const available = (await searching.call('/v1/openapi.json')).body.paths['/v1/research'].post
  t.match(available, { 'x-available': true })
  t.notOk('x-unavailable-reason' in available)
})

t.test('initialize carries instructions: what the tools cost and how to quote, retry and follow jobs', async (t) => {
  const c = await app.customer(0)
  const instructions = (await connect(app, c.key)).getInstructions()
  t.equal(instructions, MCP_INSTRUCTIONS)
  for (const word of ['credit', 'dryRun', 'idempotencyKey', 'get_job', 'account', 'UNAVAILABLE']) t.match(instructions, word)
})

t.test('JSON-RPC errors as the MCP specification lists them: -32602 for an unknown tool or arguments that are no object', async (t) => {
  const c = await app.customer(10)
  const client = await connect(app, c.key)
  const unknown = await client.callTool({ name: 'no-such-tool', arguments: {} }).catch((e: unknown) => e)
  t.ok(unknown instanceof McpError, 'the official client receives a JSON-RPC error, not a tool result')
  t.equal((unknown as McpError).code, ErrorCode.InvalidParams)
  t.match((unknown as McpError).message, 'Unknown tool: "no-such-tool"')

  const headers = { accept: 'application/json, text/event-stream' }
  const rpc = (id: number, params: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params })
  const bad: Array<[unknown, RegExp]> = [
    [
      { name: 'classify', arguments: JSON.stringify(classify) },
      /^Invalid params: "arguments" must be a JSON object of the tool's input fields, not a string\.$/,
    ],
    [{ name: 'classify', arguments: [classify] }, /not an array/],
    [{ name: 'classify', arguments: null }, /not null/],
    [{ name: 42, arguments: {} }, /"name" must be a tool name/],
    [{ arguments: {} }, /"name" must be a tool name/],
    [undefined, /^Invalid params: give \{"name", "arguments"\}\.$/],
    [{ name: 'x'.repeat(5000) }, /^Unknown tool: "x{100}"\./],
  ]
  for (const [params, message] of bad) {
    const res = await app.call('/mcp', { body: rpc(7, params), key: c.key, headers })
    t.equal(res.status, 200, `${String(JSON.stringify(params)).slice(0, 60)}: a JSON-RPC answer`)
    t.equal(res.body.error.code, -32602)
    t.match(res.body.error.message, message)
    t.ok(res.body.error.message.length < 200, 'one short line, no schema dump')
    t.equal(res.body.id, 7)
  }
  // In a batch, each message gets its own answer: the bad one its error, the good one its result.
  const batch = await app.call('/mcp', {
    body: [rpc(1, { name: 'classify', arguments: 'x' }), rpc(2, { name: 'classify', arguments: classify })],
    key: c.key,
    headers,
  })
  const byId = new Map((batch.body as Array<{ id: number }>).map((m) => [m.id, m as any]))
  t.equal(byId.get(1).error.code, -32602)
  t.same(byId.get(2).result.structuredContent, { ...classifyAnswer, usage: { credits: 2, balanceRemaining: 8, livemode: true } })
  await app.expectLedger(t, c.accountId, 8)
})

t.test('tools/list is what LLM tool-calling APIs accept: no top-level combinator, OpenAI subset, at most 40 KB', async (t) => {
  const c = await app.customer(0)
  const res = await app.call('/mcp', {
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
    key: c.key,
    headers: { accept: 'application/json, text/event-stream' },
  })
  t.equal(res.status, 200)
  const bytes = Buffer.byteLength(res.text)
  t.ok(bytes <= 40 * 1024, `tools/list is ${bytes} bytes (at most 40 KB)`)
  const tools = res.body.result.tools as Array<{ name: string; description?: string; inputSchema: Record<string, unknown> }>
  t.equal(tools.length, capabilityFolders(CAPABILITIES_ROOT).length + 2, 'a tool per capability, get_job and account')
  for (const tool of tools) {
    t.same(
      ['oneOf', 'anyOf', 'allOf'].filter((k) => k in tool.inputSchema),
      [],
      `${tool.name}: no top-level combinator`,
    )
    t.same(openAiToolProblems(tool), [], `${tool.name}: within OpenAI's function-calling schema subset`)
  }
  // The check can fail: the published request schema of parse, as it was the tool's input schema, is refused.
  const parse = (await app.call('/v1/openapi.json')).body.paths['/v1/parse'].post.requestBody.content['application/json'].schema
  t.match(openAiToolProblems({ name: 'parse', inputSchema: parse }), [/the root has "oneOf"/], 'a top-level oneOf is refused')
  // Rules the schema no longer carries are in the description.
  t.match(tools.find((x) => x.name === 'parse')!.description, 'Exactly one of file, fileUrl, text.')
  t.match(tools.find((x) => x.name === 'memory')!.description, 'op=store: requires content; no query')
})

t.test('the official client calls every tool; the flattened rules are still enforced by the server', async (t) => {
  const c = await app.customer(1000)
  const client = await connect(app, c.key)
  const { tools } = await client.listTools()
  for (const cap of app.services.capabilities.values()) {
    // A dry run of the published example: the same validation as the live call, nothing charged.
    const r = await client.callTool({ name: cap.name, arguments: { ...(cap.example.request as object), dryRun: true } })
    t.notOk(r.isError, `${cap.name}: its example is accepted`)
    t.match(r.structuredContent, { dryRun: true, endpoint: `/v1/${cap.name}`, price: cap.price }, `${cap.name}: quoted`)
  }
  t.ok(tools.length > app.services.capabilities.size)
  t.notOk((await client.callTool({ name: 'account', arguments: {} })).isError)
  const job = await client.callTool({ name: 'get_job', arguments: { jobId: '00000000-0000-4000-8000-000000000000' } })
  t.equal(JSON.parse((job.content as any)[0].text).error.code, 'not_found', 'get_job answers a missing job as 404')
  const refused = async (name: string, args: Record<string, unknown>) => {
    const r = await client.callTool({ name, arguments: args }) // refused at validation, before any hold
    t.ok(r.isError, `${name} ${JSON.stringify(args)} is refused`)
    return JSON.parse((r.content as any)[0].text).error.code
  }
  t.equal(await refused('parse', { text: 'a', fileUrl: 'https://example.com/a.pdf' }), 'invalid_request', 'two documents')
  t.equal(await refused('parse', {}), 'invalid_request', 'no document')
  t.equal(await refused('memory', { op: 'store', content: 'x', query: 'y' }), 'invalid_request', 'a field of another op')
  t.equal(await refused('classify', { text: 'x', labels: ['a', 'b'], async: true }), 'invalid_request', 'async on a sync tool')
  await app.expectLedger(t, c.accountId, 1000)
})

t.test('without a valid key the endpoint is 401, like every other route (C9)', async (t) => {
  const res = await app.call('/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' }, key: 'ksk_live_nope' })
  t.equal(res.status, 401)
  t.equal(res.body.error.code, 'unauthorized')
  t.equal(
    res.headers.get('www-authenticate'),
    `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp", error="invalid_token"`,
  )
  const anonymous = await app.call('/mcp', { body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })
  t.equal(anonymous.headers.get('www-authenticate'), `Bearer resource_metadata="${origin}/.well-known/oauth-protected-resource/mcp"`)
  const client = new Client({ name: 'mcp-test', version: '1.0.0' })
  await t.rejects(
    client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`))),
    'the MCP client cannot connect without a key',
  )
})

t.test('a tool call is charged exactly the price and returns the HTTP body with usage', async (t) => {
  const c = await app.customer(10)
  const client = await connect(app, c.key)
  const r = await client.callTool({ name: 'classify', arguments: classify })
  t.notOk(r.isError)
  t.same(r.structuredContent, { ...classifyAnswer, usage: { credits: 2, balanceRemaining: 8, livemode: true } })
  t.same(JSON.parse((r.content as any)[0].text), r.structuredContent, 'the text content is the same JSON')
  await app.expectLedger(t, c.accountId, 8)
  const [usage] = await app.services.db.sql(`select count(*)::int as n from usage_events where account_id = ? and endpoint = 'classify'`, [
    c.accountId,
  ])
  t.equal(usage!.n, 1, 'one usage row, like an HTTP call')
})

t.test('idempotencyKey replays instead of charging twice (C5)', async (t) => {
  const c = await app.customer(10)
  const client = await connect(app, c.key)
  const first = await client.callTool({ name: 'classify', arguments: { ...classify, idempotencyKey: 'mcp-1' } })
  const again = await client.callTool({ name: 'classify', arguments: { ...classify, idempotencyKey: 'mcp-1' } })
  t.same(again.structuredContent, first.structuredContent)
  await app.expectLedger(t, c.accountId, 8)
  const reused = await client.callTool({ name: 'classify', arguments: { ...classify, text: 'other', idempotencyKey: 'mcp-1' } })
  t.ok(reused.isError)
  t.equal(JSON.parse((reused.content as any)[0].text).error.code, 'idempotency_key_reused')
})

t.test('too few credits: the tool answers the 402 insufficient_credits error and nothing is charged (C4)', async (t) => {
  const c = await app.customer(1)
  const client = await connect(app, c.key)
  const r = await client.callTool({ name: 'classify', arguments: classify })
  t.ok(r.isError)
  const body = JSON.parse((r.content as any)[0].text)
  t.equal(body.error.code, 'insufficient_credits')
  t.match(body.error.requestId, /^req_/)
  await app.expectLedger(t, c.accountId, 1)
})

t.test('invalid arguments: invalid_request with details, nothing charged (C1 stage 4)', async (t) => {
  const c = await app.customer(10)
  const r = await (await connect(app, c.key)).callTool({ name: 'classify', arguments: { text: 'x' } })
  t.ok(r.isError)
  const body = JSON.parse((r.content as any)[0].text)
  t.equal(body.error.code, 'invalid_request')
  t.ok(body.error.details.some((d: any) => d.path === '/labels'))
  await app.expectLedger(t, c.accountId, 10)
})

t.test('dryRun quotes the call and charges nothing (C3)', async (t) => {
  const c = await app.customer(10)
  const r = await (await connect(app, c.key)).callTool({ name: 'classify', arguments: { ...classify, dryRun: true } })
  t.notOk(r.isError)
  t.same(r.structuredContent, { dryRun: true, endpoint: '/v1/classify', liveStatus: 200, wouldCharge: 2, price: 2, balance: 10 })
  await app.expectLedger(t, c.accountId, 10)
})

t.test('account tool reads the account the key belongs to', async (t) => {
  const c = await app.customer(10)
  const r = await (await connect(app, c.key)).callTool({ name: 'account', arguments: {} })
  t.notOk(r.isError)
  t.same(r.structuredContent, (await app.call('/v1/account', { key: c.key })).body)
})

t.test('an async capability returns the job; get_job reads it until it ends, charged once (C7)', async (t) => {
  const jobs = await startTestApp(t, { capabilities: [jobCapability], worker: true })
  const c = await jobs.customer(20)
  const client = await connect(jobs, c.key)
  const accepted = await client.callTool({ name: 'jobdoc', arguments: { text: 'hello', async: true } })
  t.notOk(accepted.isError)
  const { jobId, status } = accepted.structuredContent as { jobId: string; status: string }
  t.equal(status, 'queued')
  let job: any
  for (let i = 0; i < 100; i++) {
    job = (await client.callTool({ name: 'get_job', arguments: { jobId } })).structuredContent
    if (job.status === 'succeeded' || job.status === 'failed') break
    await new Promise((r) => setTimeout(r, 100))
  }
  t.equal(job.status, 'succeeded')
  t.same(job.result, { echo: 'hello', usage: { credits: 7, balanceRemaining: 13, livemode: true } })
  await jobs.expectLedger(t, c.accountId, 13)
  const other = await jobs.customer(0)
  const foreign = await (await connect(jobs, other.key)).callTool({ name: 'get_job', arguments: { jobId } })
  t.ok(foreign.isError, "another account's key cannot read the job")
  t.equal(JSON.parse((foreign.content as any)[0].text).error.code, 'not_found')
})

t.test('OAuth protected-resource metadata (RFC 9728) names the resource and the dashboard as where a key comes from', async (t) => {
  const unauthorized = await fetch(`${app.url}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
  const metadataUrl = extractResourceMetadataUrl(unauthorized)
  t.equal(metadataUrl?.href, `${origin}/.well-known/oauth-protected-resource/mcp`, "the MCP SDK reads the 401's challenge")
  // The public origin is this test server.
  const local: typeof fetch = (url, init) => fetch((url instanceof Request ? url.url : url.toString()).replace(origin, app.url), init)
  for (const options of [{ resourceMetadataUrl: metadataUrl }, {}]) {
    // The SDK's own discovery: from the challenge, and from the server URL alone (the path-aware well-known URL).
    const metadata = await discoverOAuthProtectedResourceMetadata(`${origin}/mcp`, options, local)
    t.same(metadata, {
      resource: `${origin}/mcp`,
      resource_name: 'Metered AI Capability API (MCP)',
      bearer_methods_supported: ['header'],
      resource_documentation: `${origin}/dashboard/keys`,
    })
  }
  const root = await app.call('/.well-known/oauth-protected-resource')
  t.equal(root.status, 200, 'the root form too')
  t.equal(root.body.resource, `${origin}/mcp`)
})

t.test('the MCP endpoint refuses what every route refuses: no JSON, bad JSON, GET', async (t) => {
  const c = await app.customer(0)
  const text = await app.call('/mcp', { raw: 'hello', key: c.key, headers: { 'content-type': 'text/plain' } })
  t.same([text.status, text.body.error.code], [415, 'unsupported_media_type'])
  const broken = await app.call('/mcp', { raw: '{"jsonrpc":', key: c.key })
  t.same([broken.status, broken.body.error.code], [400, 'invalid_json'])
  const get = await app.call('/mcp', { key: c.key })
  t.same([get.status, get.body.error.code], [405, 'method_not_allowed'])
})

t.test('finding 8: a JSON-RPC batch over 20 messages is refused before any tool runs', async (t) => {
  const c = await app.customer(1000)
  const call = (i: number) => ({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'classify', arguments: classify } })
  const headers = { accept: 'application/json, text/event-stream' }
  const big = await app.call('/mcp', { body: Array.from({ length: 100 }, (_, i) => call(i)), key: c.key, headers })
  t.equal(big.status, 400)
  t.equal(big.body.error.code, 'invalid_request')
  t.match(big.body.error.message, /at most 20 messages/)
  t.equal((await app.ledger(c.accountId)).balance, 1000, 'not one of the 100 calls ran')
  const fits = await app.call('/mcp', { body: Array.from({ length: 20 }, (_, i) => call(i)), key: c.key, headers })
  t.equal(fits.status, 200, '20 are fine')
  t.equal(fits.body.length, 20)
})

t.test('finding 8: every tool, free ones too, is rate limited per key', async (t) => {
  const limited = await startTestApp(t, { provider: mockProvider(() => classifyAnswer), config: { rateLimits: { mcp: 3 } } })
  const c = await limited.customer(100)
  const other = await limited.customer(100)
  const client = await connect(limited, c.key)
  const results = []
  for (const [name, args] of [
    ['account', {}],
    ['get_job', { jobId: '00000000-0000-4000-8000-000000000000' }],
    ['account', {}],
    ['account', {}],
    ['get_job', { jobId: '00000000-0000-4000-8000-000000000000' }],
    ['classify', classify],
  ] as const)
    results.push(await client.callTool({ name, arguments: args }))
  t.same(
    results.map((r) => r.isError === true),
    [false, true, false, true, true, true],
    'three calls (get_job of an unknown job is a refusal of its own), then refused',
  )
  for (const refused of results.slice(3)) {
    const body = JSON.parse((refused.content as Array<{ text: string }>)[0]!.text)
    t.equal(body.error.code, 'rate_limited')
    t.ok(body.error.requestId)
  }
  t.equal((await limited.ledger(c.accountId)).balance, 100, 'the refused paid call charged nothing')
  const otherClient = await connect(limited, other.key)
  t.notOk((await otherClient.callTool({ name: 'account', arguments: {} })).isError, 'another key has its own budget')
})
