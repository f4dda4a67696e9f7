// The fetch the model provider's SDK calls: node:http(s) through one keep-alive agent per protocol with a cap
// on open connections per host, so a burst of slow model calls waits for a connection (within the call's own
// deadline) instead of opening a socket each: 10,000 calls at once would need 10,000 file descriptors on top
// of their 10,000 client connections. The answer is read whole before its Response is made, which skips the
// web streams the global fetch builds around every response body as it arrives (BENCHMARKS.md has what that bought).
import http from 'node:http'
import https from 'node:https'
import { urlToHttpOptions } from 'node:url'

export function modelFetch(maxConnectionsPerHost: number): typeof fetch {
  const options = { keepAlive: true, maxSockets: maxConnectionsPerHost }
  const agents = { 'http:': new http.Agent(options), 'https:': new https.Agent(options) }
  // A provider's few URLs, parsed once each instead of per request.
  const targets = new Map<string, { protocol: 'http:' | 'https:'; options: http.RequestOptions }>()
  const targetOf = (url: string | URL) => {
    const href = String(url)
    let target = targets.get(href)
    if (!target) {
      const parsed = new URL(href)
      target = { protocol: parsed.protocol === 'https:' ? 'https:' : 'http:', options: urlToHttpOptions(parsed) }
      if (targets.size >= 64) targets.clear()
      targets.set(href, target)
    }
    return target
  }
  const call = async (url: string | URL, init: RequestInit = {}): Promise<Response> => {
    const { protocol, options } = targetOf(url)
    const [headers, body] = await requestOf(init)
    return new Promise((resolve, reject) => {
      const req = (protocol === 'https:' ? https : http).request(
        { ...options, method: init.method ?? 'GET', headers, agent: agents[protocol], signal: init.signal ?? undefined },
        (res) => {
          const chunks: Buffer[] = []
          res.on('data', (chunk: Buffer) => chunks.push(chunk))
          res.on('error', reject)
          res.on('end', () => {
            const responseHeaders = new Headers()
            for (let i = 0; i < res.rawHeaders.length; i += 2) responseHeaders.append(res.rawHeaders[i]!, res.rawHeaders[i + 1]!)
            const status = res.statusCode ?? 502
            resolve(
              new Response(NULL_BODY.has(status) ? null : bodyOf(chunks), {
                status,
                statusText: res.statusMessage ?? '',
                headers: responseHeaders,
              }),
            )
          })
        },
      )
      req.on('error', reject)
      req.end(body)
    })
  }
  return call as typeof fetch
}

const NULL_BODY = new Set([101, 204, 205, 304])

/** The chunks as a finished stream: a Response made from a buffer copies it and builds a stream around the copy. */
const bodyOf = (chunks: Buffer[]) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk)
      controller.close()
    },
  })

/**
 * The request's headers and body. The SDK sends JSON as a string with its headers as a plain object of
 * lower-case names (provider-utils' withUserAgentSuffix), which node:http takes as they are; other headers go
 * through `Headers`, and form data (transcriptions) and blobs are encoded the way fetch would.
 */
async function requestOf(init: RequestInit): Promise<[http.OutgoingHttpHeaders, string | Uint8Array | undefined]> {
  const { body } = init
  const plain = typeof body === 'string' || body === undefined || body === null || body instanceof Uint8Array
  if (plain && isPlainHeaders(init.headers)) return [init.headers, body ?? undefined]
  const headers = new Headers(init.headers)
  if (plain) return [Object.fromEntries(headers), body ?? undefined]
  const encoded = new Response(body)
  const type = encoded.headers.get('content-type')
  if (type && !headers.has('content-type')) headers.set('content-type', type)
  return [Object.fromEntries(headers), new Uint8Array(await encoded.arrayBuffer())]
}

/** A record of lower-case names to strings, as the SDK builds them: nothing for `Headers` to normalize. */
function isPlainHeaders(headers: RequestInit['headers']): headers is Record<string, string> {
  if (!headers || Object.getPrototypeOf(headers) !== Object.prototype) return false
  return Object.entries(headers).every(([name, value]) => typeof value === 'string' && name === name.toLowerCase())
}
