// A fake Stripe API on loopback for the official `stripe` client (STRIPE_API_URL points at it): Checkout
// Sessions with a hosted "pay" page, PaymentIntents (off-session confirm, declines on demand), subscription
// cancel, and signed event delivery to the app's /stripe/webhook exactly as Stripe signs it.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Stripe from 'stripe'

export interface FakeStripe {
  url: string
  webhookSecret: string
  /** The app's webhook URL; set once the app listens. */
  webhookUrl: string
  sessions: Map<string, any>
  paymentIntents: any[]
  /** Off-session charges are declined while this is true. */
  decline: boolean
  /** Pays a session as the hosted page would: delivers checkout.session.completed; returns the delivery. */
  complete(sessionId: string): Promise<{ status: number; event: any }>
  /** Builds a signed event and posts it (again, when given the same event). */
  deliver(event: any, signature?: string): Promise<{ status: number; text: string }>
  event(type: string, object: any): any
  renew(subscriptionId: string): Promise<{ status: number; event: any }>
  close(): Promise<void>
}

let seq = 0
const id = (prefix: string) => `${prefix}_${Date.now().toString(36)}${(++seq).toString(36)}`

/** Stripe's form encoding (a[b][0][c]=v) back into objects. */
function parseForm(body: string): any {
  const out: any = {}
  for (const [key, value] of new URLSearchParams(body)) {
    const path = key.replace(/\]/g, '').split('[')
    let node = out
    path.forEach((p, i) => {
      if (i === path.length - 1) node[p] = value
      else node = node[p] ??= /^\d+$/.test(path[i + 1]!) ? [] : {}
    })
  }
  return out
}

async function read(req: IncomingMessage): Promise<string> {
  let s = ''
  for await (const c of req) s += c
  return s
}

export async function startFakeStripe(t: { teardown(fn: () => unknown): void }): Promise<FakeStripe> {
  const signer = new Stripe('sk_test_fake')
  const fake: FakeStripe = {
    url: '',
    webhookSecret: 'whsec_fake_' + Math.random().toString(36).slice(2),
    webhookUrl: '',
    sessions: new Map(),
    paymentIntents: [],
    decline: false,
    event(type, object) {
      return {
        id: id('evt'),
        object: 'event',
        api_version: '2025-01-01',
        created: Math.floor(Date.now() / 1000),
        livemode: false,
        type,
        data: { object },
      }
    },
    async deliver(event, signature) {
      const payload = JSON.stringify(event)
      const header = signature ?? signer.webhooks.generateTestHeaderString({ payload, secret: fake.webhookSecret })
      const res = await fetch(fake.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': header },
        body: payload,
      })
      return { status: res.status, text: await res.text() }
    },
    async complete(sessionId) {
      const s = fake.sessions.get(sessionId)
      if (!s) throw new Error(`no session ${sessionId}`)
      s.customer ??= id('cus')
      s.status = 'complete'
      s.payment_status = 'paid'
      if (s.mode === 'payment') {
        const pi = {
          id: id('pi'),
          object: 'payment_intent',
          amount: s.amount_total,
          currency: 'usd',
          customer: s.customer,
          payment_method: id('pm'),
          status: 'succeeded',
          metadata: s.payment_intent_data?.metadata ?? {},
        }
        fake.paymentIntents.push(pi)
        s.payment_intent = pi.id
      } else {
        s.subscription = id('sub')
      }
      const event = fake.event('checkout.session.completed', publicSession(s))
      const { status } = await fake.deliver(event)
      return { status, event }
    },
    async renew(subscriptionId) {
      const session = [...fake.sessions.values()].find((s) => s.subscription === subscriptionId)
      const invoice = {
        id: id('in'),
        object: 'invoice',
        billing_reason: 'subscription_cycle',
        status: 'paid',
        amount_paid: session?.amount_total ?? 0,
        currency: 'usd',
        parent: { type: 'subscription_details', subscription_details: { subscription: subscriptionId } },
      }
      const event = fake.event('invoice.paid', invoice)
      const { status } = await fake.deliver(event)
      return { status, event }
    },
    close: async () => {},
  }

  function publicSession(s: any) {
    const { line_items: _l, payment_intent_data: _p, subscription_data: _s, ...rest } = s
    return rest
  }

  const serve = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url!, 'http://x')
    const body = await read(req)
    const json = (status: number, value: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json', 'request-id': id('req') })
      res.end(JSON.stringify(value))
    }
    let m: RegExpExecArray | null
    if (req.method === 'POST' && url.pathname === '/sign') {
      // For tests: the header Stripe would send with this body.
      res.writeHead(204, { 'stripe-signature': signer.webhooks.generateTestHeaderString({ payload: body, secret: fake.webhookSecret }) })
      return res.end()
    }
    if (req.method === 'POST' && url.pathname === '/v1/checkout/sessions') {
      const p = parseForm(body)
      const sid = id('cs_test')
      const amount = Number(p.line_items?.[0]?.price_data?.unit_amount ?? 0) * Number(p.line_items?.[0]?.quantity ?? 1)
      const s = {
        id: sid,
        object: 'checkout.session',
        url: `${fake.url}/pay/${sid}`,
        status: 'open',
        payment_status: 'unpaid',
        amount_total: amount,
        currency: 'usd',
        ...p,
        customer: p.customer ?? null,
      }
      fake.sessions.set(sid, s)
      return json(200, publicSession(s))
    }
    if ((m = /^\/pay\/([\w]+)$/.exec(url.pathname))) {
      const s = fake.sessions.get(m[1]!)
      if (!s) return json(404, { error: { type: 'invalid_request_error', message: 'No such session' } })
      if (req.method === 'GET') {
        res.writeHead(200, { 'content-type': 'text/html' })
        return res.end(
          `<!doctype html><title>Fake Checkout</title><h1>Fake Stripe Checkout</h1><p>${s.line_items?.[0]?.price_data?.product_data?.name ?? ''}</p><p>Total: $${(s.amount_total / 100).toFixed(2)}</p><form method="post"><button id="pay">Pay</button></form>`,
        )
      }
      await fake.complete(s.id)
      res.writeHead(303, { location: s.success_url })
      return res.end()
    }
    if (req.method === 'GET' && (m = /^\/v1\/payment_intents\/(\w+)$/.exec(url.pathname))) {
      const pi = fake.paymentIntents.find((p) => p.id === m![1])
      return pi ? json(200, pi) : json(404, { error: { type: 'invalid_request_error', message: 'No such payment_intent' } })
    }
    if (req.method === 'POST' && url.pathname === '/v1/payment_intents') {
      const p = parseForm(body)
      const key = req.headers['idempotency-key']
      const replay = key && fake.paymentIntents.find((x) => x.idempotencyKey === key)
      if (replay) return json(200, replay)
      if (fake.decline) {
        return json(402, {
          error: { type: 'card_error', code: 'card_declined', decline_code: 'insufficient_funds', message: 'Your card was declined.' },
        })
      }
      const pi = {
        id: id('pi'),
        object: 'payment_intent',
        amount: Number(p.amount),
        currency: p.currency,
        customer: p.customer,
        payment_method: p.payment_method,
        off_session: p.off_session === 'true',
        confirm: p.confirm === 'true',
        status: 'succeeded',
        metadata: p.metadata ?? {},
        idempotencyKey: key,
      }
      fake.paymentIntents.push(pi)
      return json(200, pi)
    }
    if (req.method === 'DELETE' && (m = /^\/v1\/subscriptions\/(\w+)$/.exec(url.pathname))) {
      const sub = { id: m[1], object: 'subscription', status: 'canceled' }
      json(200, sub)
      await fake.deliver(fake.event('customer.subscription.deleted', sub))
      return
    }
    json(404, { error: { type: 'invalid_request_error', message: `fake stripe: no route ${req.method} ${url.pathname}` } })
  }
  const server: Server = createServer((req, res) => void serve(req, res))
  server.listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  fake.close = async () => {
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
  }
  t.teardown(() => fake.close())
  return fake
}
