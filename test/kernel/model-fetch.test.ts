// The provider's fetch (core/net/model-fetch.ts): what the SDK reads from it is what the server sent, calls
// beyond the connection cap wait for a connection instead of opening one, and an abort ends a call.
import { createServer, type ServerResponse } from 'node:http'
import { once } from 'node:events'
import t from 'tap'
import { modelFetch } from '../../core/net/model-fetch.ts'

const waiting: ServerResponse[] = []
let open = 0
let mostOpen = 0
const server = createServer((req, res) => {
  let body = ''
  req.on('data', (c: Buffer) => (body += c.toString()))
  req.on('end', () => {
    if (req.url === '/echo') {
      res.writeHead(201, { 'content-type': 'application/json', 'x-seen-type': req.headers['content-type'] ?? '' })
      res.end(JSON.stringify({ method: req.method, body, auth: req.headers.authorization }))
    } else if (req.url === '/empty') {
      res.writeHead(204).end()
    } else waiting.push(res) // /hold: answered when the test says so
  })
})
server.on('connection', (s) => {
  mostOpen = Math.max(mostOpen, ++open)
  s.on('close', () => open--)
})
server.listen(0, '127.0.0.1')
await once(server, 'listening')
const base = `http://127.0.0.1:${(server.address() as { port: number }).port}`
t.teardown(() => {
  server.closeAllConnections()
  server.close()
})

t.test('status, headers and body arrive as sent', async (t) => {
  const f = modelFetch(4)
  const res = await f(`${base}/echo`, {
    method: 'POST',
    headers: { authorization: 'Bearer sk', 'content-type': 'application/json' },
    body: '{"a":1}',
  })
  t.equal(res.status, 201)
  t.equal(res.headers.get('content-type'), 'application/json')
  t.same(await res.json(), { method: 'POST', body: '{"a":1}', auth: 'Bearer sk' })
  t.equal((await f(`${base}/empty`)).status, 204)
})

t.test('form data goes out encoded, with its multipart content type', async (t) => {
  const form = new FormData()
  form.append('model', 'whisper')
  const res = await modelFetch(4)(`${base}/echo`, { method: 'POST', body: form })
  t.match(res.headers.get('x-seen-type'), /^multipart\/form-data; boundary=/)
  t.match(((await res.json()) as { body: string }).body, /name="model"\r\n\r\nwhisper/)
})

t.test('calls beyond the cap wait for a connection', async (t) => {
  open = mostOpen = 0
  const f = modelFetch(2)
  const calls = Array.from({ length: 5 }, () => f(`${base}/hold`, { method: 'POST', body: '{}' }))
  while (waiting.length < 2) await new Promise((r) => setTimeout(r, 10))
  await new Promise((r) => setTimeout(r, 100))
  t.equal(waiting.length, 2, 'two calls reached the server, three wait')
  let settled = false
  const all = Promise.all(calls).finally(() => (settled = true))
  while (!settled) {
    for (const res of waiting.splice(0)) res.end('{}')
    await new Promise((r) => setTimeout(r, 10))
  }
  t.same(
    (await all).map((r) => r.status),
    [200, 200, 200, 200, 200],
  )
  t.ok(mostOpen <= 2, `at most two connections were open (${mostOpen})`)
})

t.test('an abort ends the call and frees its connection', async (t) => {
  const f = modelFetch(1)
  const aborted = new AbortController()
  const call = f(`${base}/hold`, { method: 'POST', body: '{}', signal: aborted.signal })
  while (!waiting.length) await new Promise((r) => setTimeout(r, 10))
  aborted.abort()
  await t.rejects(call, { name: 'AbortError' })
  waiting.splice(0)
  const res = await f(`${base}/echo`, { method: 'POST', body: 'next' })
  t.equal(res.status, 201, 'the next call gets a connection')
})
