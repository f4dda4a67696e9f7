import http from 'node:http'
import type { AddressInfo } from 'node:net'
import t, { type Test } from 'tap'
import type { Resolver } from '../../core/net/address-guard.ts'
import { FetchError, fetchPublic, postPublic } from '../../core/net/safe-fetch.ts'

interface Hit {
  method: string
  url: string
  headers: http.IncomingHttpHeaders
  body: string
}

// A local server on 127.0.0.1 that records every request it sees.
async function serve(t: Test, handler: (req: http.IncomingMessage, res: http.ServerResponse, port: number) => void) {
  const hits: Hit[] = []
  const server = http.createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => (body += c.toString()))
    req.on('end', () => {
      hits.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body })
      handler(req, res, port)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const port = (server.address() as AddressInfo).port
  t.teardown(() => {
    server.closeAllConnections()
    return new Promise<void>((r) => server.close(() => r()))
  })
  return { port, hits, base: `http://127.0.0.1:${port}` }
}

function mapResolver(map: Record<string, string>): Resolver {
  return async (host) => {
    const address = map[host]
    if (!address) throw new Error(`ENOTFOUND ${host}`)
    return [{ address, family: 4 }]
  }
}

// A port that was just free: nothing listens on it.
async function deadPort(): Promise<number> {
  const server = http.createServer()
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const { port } = server.address() as AddressInfo
  await new Promise<void>((r) => server.close(() => r()))
  return port
}

const dev = { allowPrivate: true }

t.test('fetchPublic', async (t) => {
  t.test('returns the body and content type', async (t) => {
    const s = await serve(t, (_req, res) => {
      res.setHeader('content-type', 'application/pdf')
      res.end('%PDF-hello')
    })
    const got = await fetchPublic(`${s.base}/doc.pdf?x=1`, dev)
    t.equal(got.bytes.toString(), '%PDF-hello')
    t.equal(got.contentType, 'application/pdf')
    t.equal(got.finalUrl, `${s.base}/doc.pdf?x=1`)
    t.equal(s.hits[0]?.url, '/doc.pdf?x=1')
  })

  t.test('byte cap: announced length over the cap', async (t) => {
    const s = await serve(t, (_req, res) => res.end(Buffer.alloc(2000)))
    await t.rejects(fetchPublic(s.base, { ...dev, maxBytes: 1000 }), { name: 'FetchError', kind: 'too_large' })
    t.equal((await fetchPublic(s.base, { ...dev, maxBytes: 2000 })).bytes.length, 2000, 'exactly at the cap is fine')
  })

  t.test('byte cap: streamed body without a length is cut as soon as it exceeds', async (t) => {
    let stillWriting = true
    const s = await serve(t, (_req, res) => {
      res.writeHead(200) // chunked, no content-length
      const timer = setInterval(() => res.write(Buffer.alloc(16 * 1024)), 5)
      res.on('close', () => {
        clearInterval(timer)
        stillWriting = false
      })
    })
    const started = Date.now()
    await t.rejects(fetchPublic(s.base, { ...dev, maxBytes: 100 * 1024, timeoutMs: 5000 }), { name: 'FetchError', kind: 'too_large' })
    t.ok(Date.now() - started < 4000, 'did not wait for the timeout')
    await new Promise((r) => setTimeout(r, 100))
    t.notOk(stillWriting, 'connection was closed')
  })

  t.test('timeout when the server never answers', async (t) => {
    const s = await serve(t, () => {})
    const started = Date.now()
    const err = await fetchPublic(s.base, { ...dev, timeoutMs: 200 }).catch((e: unknown) => e)
    t.ok(err instanceof FetchError)
    t.match(err, { kind: 'timeout' })
    t.ok(Date.now() - started < 2000)
  })

  t.test('timeout while the body trickles', async (t) => {
    const s = await serve(t, (_req, res) => {
      res.writeHead(200, { 'content-length': '1000' })
      res.write('partial')
    })
    await t.rejects(fetchPublic(s.base, { ...dev, timeoutMs: 200 }), { name: 'FetchError', kind: 'timeout' })
  })

  t.test('non-2xx is http_status', async (t) => {
    const s = await serve(t, (_req, res) => {
      res.statusCode = 404
      res.end('nope')
    })
    await t.rejects(fetchPublic(s.base, dev), { name: 'FetchError', kind: 'http_status', status: 404 })
  })

  t.test('redirects: 3 followed, 4 refused', async (t) => {
    // /r/N redirects to /r/N-1 (relative Location); /r/0 answers.
    const s = await serve(t, (req, res) => {
      const n = Number(req.url?.split('/')[2])
      if (n > 0) {
        res.writeHead(302, { location: `/r/${n - 1}` })
        res.end()
      } else res.end('done')
    })
    const got = await fetchPublic(`${s.base}/r/3`, dev)
    t.equal(got.bytes.toString(), 'done')
    t.equal(got.finalUrl, `${s.base}/r/0`)
    t.equal(s.hits.length, 4)

    s.hits.length = 0
    await t.rejects(fetchPublic(`${s.base}/r/4`, dev), { name: 'FetchError', kind: 'too_many_redirects' })
    t.equal(s.hits.length, 4, 'the 4th Location is never requested')
  })

  t.test('refused before any connection when the host resolves to a private address', async (t) => {
    const s = await serve(t, (_req, res) => res.end('secret'))
    const resolver = mapResolver({ 'evil.test': '127.0.0.1' })
    await t.rejects(fetchPublic(`http://evil.test:${s.port}/`, { allowPrivate: false, resolver }), {
      name: 'FetchError',
      kind: 'refused',
    })
    await t.rejects(fetchPublic(`${s.base}/`, { allowPrivate: false }), { name: 'FetchError', kind: 'refused' })
    await t.rejects(fetchPublic(`http://[::ffff:127.0.0.1]:${s.port}/`, { allowPrivate: false }), { name: 'FetchError', kind: 'refused' })
    t.equal(s.hits.length, 0)
  })

  t.test('the guard runs on every redirect hop, before connecting', async (t) => {
    // Any local server is private, so the address rule on a later hop cannot be exercised end to end without a
    // public server. The guard rules that allowPrivate does NOT lift (credentials, non-http schemes) run through
    // the same per-hop check, so they show that each hop is checked before its connection is opened.
    const target = await serve(t, (_req, res) => res.end('should not be reached'))
    const s = await serve(t, (req, res) => {
      const to = req.url === '/creds' ? `http://user:pw@127.0.0.1:${target.port}/` : 'file:///etc/passwd'
      res.writeHead(302, { location: to })
      res.end()
    })
    await t.rejects(fetchPublic(`${s.base}/creds`, dev), { name: 'FetchError', kind: 'refused' })
    await t.rejects(fetchPublic(`${s.base}/file`, dev), { name: 'FetchError', kind: 'refused' })
    t.equal(target.hits.length, 0)
    t.equal(s.hits.length, 2)
  })

  t.test('a caller abort is passed through', async (t) => {
    const s = await serve(t, () => {})
    const ac = new AbortController()
    setTimeout(() => ac.abort(new Error('client went away')), 50)
    await t.rejects(fetchPublic(s.base, { ...dev, signal: ac.signal }), { message: 'client went away' })
  })

  t.test('connection refused is network', async (t) => {
    await t.rejects(fetchPublic(`http://127.0.0.1:${await deadPort()}/`, dev), { name: 'FetchError', kind: 'network' })
  })
})

t.test('postPublic', async (t) => {
  const body = JSON.stringify({ event: 'job.completed' })
  const headers = { 'content-type': 'application/json', 'x-service-signature': 'sha256=abc' }

  t.test('posts the body and headers, returns the status', async (t) => {
    const s = await serve(t, (_req, res) => {
      res.statusCode = 204
      res.end()
    })
    const got = await postPublic(`${s.base}/hook`, { body, headers, allowPrivate: true })
    t.equal(got.status, 204)
    t.type(got.durationMs, 'number')
    t.equal(s.hits[0]?.method, 'POST')
    t.equal(s.hits[0]?.body, body)
    t.equal(s.hits[0]?.headers['x-service-signature'], 'sha256=abc')
    t.equal(s.hits[0]?.headers['content-length'], String(Buffer.byteLength(body)))
  })

  t.test('a 302 is returned as is and its Location is not followed', async (t) => {
    const target = await serve(t, (_req, res) => res.end())
    const s = await serve(t, (_req, res) => {
      res.writeHead(302, { location: `${target.base}/elsewhere` })
      res.end()
    })
    const got = await postPublic(s.base, { body, headers, allowPrivate: true })
    t.equal(got.status, 302)
    t.equal(target.hits.length, 0)
  })

  t.test('a never-answering receiver times out', async (t) => {
    const s = await serve(t, () => {})
    await t.rejects(postPublic(s.base, { body, headers, allowPrivate: true, timeoutMs: 200 }), {
      name: 'FetchError',
      kind: 'timeout',
    })
  })

  t.test('a huge or endless response body does not hold the delivery', async (t) => {
    const s = await serve(t, (_req, res) => {
      res.writeHead(200)
      const timer = setInterval(() => res.write(Buffer.alloc(32 * 1024)), 1)
      res.on('close', () => clearInterval(timer))
    })
    const got = await postPublic(s.base, { body, headers, allowPrivate: true, timeoutMs: 5000 })
    t.equal(got.status, 200)
  })

  t.test('connects to the pinned address and keeps the original Host', async (t) => {
    const s = await serve(t, (_req, res) => res.end())
    let calls = 0
    const resolver: Resolver = async (host) => {
      calls++
      t.equal(host, 'hook.test')
      return [{ address: '127.0.0.1', family: 4 }]
    }
    const got = await postPublic(`http://hook.test:${s.port}/cb`, { body, headers, allowPrivate: true, resolver })
    t.equal(got.status, 200)
    t.equal(calls, 1, 'resolved once; the connection reused the checked address')
    t.equal(s.hits[0]?.headers.host, `hook.test:${s.port}`)
    t.equal(s.hits[0]?.url, '/cb')
  })

  t.test('https only unless allowPrivate; private addresses refused', async (t) => {
    const s = await serve(t, (_req, res) => res.end())
    await t.rejects(postPublic(s.base, { body, headers, allowPrivate: false }), { name: 'FetchError', kind: 'refused' })
    await t.rejects(
      postPublic(`http://hook.test:${s.port}/`, {
        body,
        headers,
        allowPrivate: false,
        resolver: mapResolver({ 'hook.test': '8.8.8.8' }),
      }),
      { name: 'FetchError', kind: 'refused', message: /scheme/ },
    )
    await t.rejects(
      postPublic(`https://hook.test:${s.port}/`, {
        body,
        headers,
        allowPrivate: false,
        resolver: mapResolver({ 'hook.test': '127.0.0.1' }),
      }),
      { name: 'FetchError', kind: 'refused' },
    )
    t.equal(s.hits.length, 0)
  })

  t.test('connection refused is network', async (t) => {
    await t.rejects(postPublic(`http://127.0.0.1:${await deadPort()}/`, { body, headers, allowPrivate: true }), {
      name: 'FetchError',
      kind: 'network',
    })
  })
})
