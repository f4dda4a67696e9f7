// The deployment test's model provider and webhook receiver, run in its own container on the compose network
// (node strips the types; no dependencies). OpenAI chat completions: the answer is the smallest instance of the
// requested JSON schema, after DELAY_MS, so calls are in flight when the test kills a replica. Webhooks posted
// to /hooks are kept and listed by GET /hooks; POST /delay sets the answer delay in ms.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'

type Schema = {
  type?: string | string[]
  enum?: unknown[]
  anyOf?: Schema[]
  properties?: Record<string, Schema>
  items?: Schema
  minItems?: number
  minimum?: number
  maximum?: number
}

let delayMs = Number(process.env.DELAY_MS ?? 200)
const hooks: Array<{ headers: Record<string, unknown>; raw: string }> = []
let completions = 0

function instance(s: Schema): unknown {
  if (s.enum) return s.enum[0]
  if (s.anyOf) return s.anyOf.some((a) => a.type === 'null') ? null : instance(s.anyOf[0]!)
  const type = Array.isArray(s.type) ? (s.type.includes('null') ? 'null' : s.type[0]) : s.type
  if (type === 'null') return null
  if (type === 'object') return Object.fromEntries(Object.entries(s.properties ?? {}).map(([k, v]) => [k, instance(v)]))
  if (type === 'array') return Array.from({ length: s.minItems ?? 0 }, () => instance(s.items ?? {}))
  if (type === 'number' || type === 'integer') return Math.min(s.maximum ?? 1, Math.max(s.minimum ?? 0, 1))
  if (type === 'boolean') return false
  return 'fake'
}

const body = async (req: IncomingMessage) => {
  const chunks: Buffer[] = []
  for await (const c of req) chunks.push(c as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
  const text = req.method === 'POST' ? await body(req) : ''
  const json = (status: number, value: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' })
    res.end(JSON.stringify(value))
  }
  if (req.url === '/hooks' && req.method === 'POST') {
    hooks.push({ headers: req.headers, raw: text })
    return json(200, { ok: true })
  }
  if (req.url === '/hooks') return json(200, { hooks, completions })
  if (req.url === '/delay' && req.method === 'POST') {
    delayMs = Number(text)
    return json(200, { delayMs })
  }
  if (req.url === '/v1/chat/completions') {
    const request = JSON.parse(text) as { model: string; response_format?: { json_schema?: { schema?: Schema } } }
    await new Promise((r) => setTimeout(r, delayMs))
    completions++
    const content = JSON.stringify(instance(request.response_format?.json_schema?.schema ?? { type: 'object' }))
    return json(200, {
      id: `chatcmpl-fake${completions}`,
      object: 'chat.completion',
      created: Math.floor(Date.now() / 1000),
      model: request.model,
      choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }],
      usage: { prompt_tokens: Math.ceil(text.length / 4), completion_tokens: Math.ceil(content.length / 4), total_tokens: 0 },
    })
  }
  json(404, { error: { message: `no route ${req.method} ${req.url}` } })
}

const server = createServer((req, res) => void handle(req, res))
// Idle keep-alive connections stay open longer than any client keeps them (Node's default, 5 s, races a client
// reusing a connection the server is closing: a reset the API reports as a 502 it could not help).
server.keepAliveTimeout = 120_000
server.listen(4000, () => console.log('fake model on :4000'))
