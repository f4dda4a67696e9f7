// The fetch the model provider's SDK calls: node:http(s) through one keep-alive agent per protocol with a cap
// on open connections per host, so a burst of slow model calls waits for a connection (within the call's own
// deadline) instead of opening a socket each: 10,000 calls at once would need 10,000 file descriptors on top
// of their 10,000 client connections. The answer is read whole before its Response is made, which skips the
// web streams the global fetch builds around every response body as it arrives (BENCHMARKS.md has what that bought).
import http from 'node:http'
import https from 'node:https'

export function modelFetch(maxConnectionsPerHost: number): typeof fetch {
  const options = { keepAlive: true, maxSockets: maxConnectionsPerHost }
  const agents = { 'http:': new http.Agent(options), 'https:': new https.Agent(options) }
  const call = async (url: string | URL, init: RequestInit = {}): Promise<Response> => {
    const target = new URL(url)
    const protocol = target.protocol === 'https:' ? 'https:' : 'http:'
    const headers = new Headers(init.headers)
    const body = await requestBody(init.body, headers)
    return new Promise((resolve, reject) => {
      const req = (protocol === 'https:' ? https : http).request(
        target,
        { method: init.method ?? 'GET', headers: Object.fromEntries(headers), agent: agents[protocol], signal: init.signal ?? undefined },
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

/** The SDK sends JSON as a string; form data (transcriptions) and blobs are encoded the way fetch would. */
async function requestBody(body: RequestInit['body'], headers: Headers): Promise<string | Uint8Array | undefined> {
  if (body === undefined || body === null) return undefined
  if (typeof body === 'string' || body instanceof Uint8Array) return body
  const encoded = new Response(body)
  const type = encoded.headers.get('content-type')
  if (type && !headers.has('content-type')) headers.set('content-type', type)
  return new Uint8Array(await encoded.arrayBuffer())
}
