// A webhook receiver on loopback for the account-event tests (C17): records every POST, checks each body against
// the published document's webhook schema of its type, and verifies signatures with the standardwebhooks package.
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Webhook } from 'standardwebhooks'
import type { PublishedContract } from './contract.ts'

export interface Hit {
  headers: IncomingMessage['headers']
  body: string
  event: { id: string; type: string; livemode: boolean; createdAt: string; data: any }
  at: number
}

interface Tap {
  teardown(fn: () => unknown): void
}

/** `status` answers each hit (200 unless it says otherwise for the hit's number, from 1). */
export async function webhookReceiver(t: Tap, contract: PublishedContract, status: (n: number) => number = () => 200) {
  const hits: Hit[] = []
  /** Bodies the published schemas refused, with why: a test asserts there are none. */
  const invalid: string[] = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => (body += c))
    req.on('end', () => {
      const event = JSON.parse(body)
      const check = contract.webhookSchema(event.type)
      if (!check(event)) invalid.push(`${event.type}: ${JSON.stringify(check.errors)}`)
      hits.push({ headers: req.headers, body, event, at: Date.now() })
      res.writeHead(status(hits.length)).end('ok')
    })
  })
  server.listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  t.teardown(() => {
    server.closeAllConnections()
    server.close()
  })
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`
  return { url, hits, invalid }
}

/** The event the standardwebhooks package verifies with `secret`, or its error message. */
export function verifies(secret: string, hit: Pick<Hit, 'headers' | 'body'>): unknown {
  try {
    return new Webhook(secret).verify(hit.body, {
      'webhook-id': String(hit.headers['webhook-id']),
      'webhook-timestamp': String(hit.headers['webhook-timestamp']),
      'webhook-signature': String(hit.headers['webhook-signature']),
    })
  } catch (e) {
    return (e as Error).message
  }
}

export async function waitFor<T>(read: () => Promise<T> | T, done: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms
  for (;;) {
    const v = await read()
    if (done(v) || Date.now() > end) return v
    await new Promise((r) => setTimeout(r, 50))
  }
}
