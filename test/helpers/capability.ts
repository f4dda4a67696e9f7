// The harness every capabilities/<name>/<name>.test.ts stands on: one app serving only that folder, a model
// provider the test can point at the ai SDK mock or at the fake OpenAI-compatible server (the real
// @ai-sdk/openai client on the wire), funded customers, and the two checks every endpoint owes its callers:
// a refused call charges nothing, a successful one charges exactly its price.
//
//   const cap = await capabilityHarness(t, manifest, { funds: 10 })
//   cap.reply({ results: [] })                       // what the mock model answers
//   const { res, ledger } = await cap.call(body)     // POST /v1/<name> as a new customer funded with 10
//   await cap.expectRefused(t, { text: '' }, { why: 'empty text' })
//   const fake = await cap.useFake({ text: () => answer })
//   cap.expectCharged(t, await cap.call(body))
import type { Test } from 'tap'
import type { CapabilityManifest } from '../../core/capability.ts'
import type { ModelProvider } from '../../core/models/provider.ts'
import { checkManifest } from '../../core/run/registry.ts'
import { fakeServerProvider, mockProvider, startTestApp, type Reply, type TestApp, type TestAppOptions } from './app.ts'
import { startFakeOpenAI, type FakeOpenAI, type FakeOpenAIOptions } from '../../devkit/fake-openai.ts'

type Tap = Pick<Test, 'teardown' | 'beforeEach'>
type Assert = Pick<Test, 'equal' | 'same' | 'match'>

/** The two wire APIs of the fake OpenAI-compatible server. */
export type Wire = 'responses' | 'chat'
/** A mock answer: a JSON value (a string is sent as the raw text), or a function of the prompt giving one. */
export type MockAnswer = unknown
export type Customer = Awaited<ReturnType<TestApp['customer']>>
export type Ledger = Awaited<ReturnType<TestApp['ledger']>>

export interface HarnessOptions extends Omit<TestAppOptions, 'provider' | 'capabilities'> {
  /** Where model calls go at the start of every subtest: the ai SDK mock (default) or the fake server. */
  via?: 'mock' | Wire
  /** Parts of the mock provider other than its text model, e.g. `{ configured: false }`. */
  mock?: Partial<ModelProvider>
  /** Credits of the customer `call()` creates when given none (default 100). */
  funds?: number
}

export interface CallOptions {
  /** Credits of the new customer (default: the harness's `funds`). Ignored when `customer` is given. */
  funds?: number
  /** Call as this customer instead of a new one. */
  customer?: Customer
  headers?: Record<string, string>
}

export interface Call {
  res: Reply
  customer: Customer
  /** The customer's account before the call … */
  before: Ledger
  /** … and after it. */
  ledger: Ledger
}

export interface RefusalOptions extends CallOptions {
  status?: number
  code?: string
  /** Names the case in every assertion message (default: the body, shortened). */
  why?: string
  /** Matched against `error.message`. */
  message?: RegExp | string
}

export interface CapabilityHarness {
  app: TestApp
  /** The folder name, e.g. 'outreach'. */
  name: string
  /** `/v1/<name>`. */
  path: string
  /** The manifest's price in credits. */
  price: number
  /** The manifest's example request: a valid body. */
  example: Record<string, unknown>
  /**
   * What the mock text model answers: each model call takes the next answer, the last one repeats. Also
   * empties `prompts`.
   */
  reply(...answers: MockAnswer[]): void
  /** For refusals that must come before any model call: a model call fails the test. */
  forbidModel(t: { fail(message: string): unknown }): void
  /** Every prompt (JSON of the ai SDK prompt) the mock text model got since the last `reply()`. */
  readonly prompts: string[]
  /** Model calls go to the ai SDK mock (the default at the start of every subtest unless `via` says otherwise). */
  useMock(): void
  /**
   * Model calls go to the fake OpenAI-compatible server (started on first use, closed with the test) over
   * `wire` (default 'responses'); the other options are set on the server. Returns the server.
   */
  useFake(options?: Partial<FakeOpenAIOptions> & { wire?: Wire }): Promise<FakeOpenAI>
  /** The fake server; only after `useFake()` (or with `via` a wire). */
  readonly fake: FakeOpenAI
  /** Replaces parts of whichever provider is in use, until the next subtest or `use({})`. */
  use(parts: Partial<ModelProvider>): void
  /** A new customer with `funds` credits (default: the harness's `funds`). */
  customer(funds?: number): Promise<Customer>
  /** POST /v1/<name> as `customer`. */
  post(customer: Customer, body: unknown, headers?: Record<string, string>): Promise<Reply>
  /** POST /v1/<name> as a new funded customer (or `customer`), with the account before and after. */
  call(body: unknown, options?: CallOptions): Promise<Call>
  /** The call fails with `status` and `code` (400 invalid_request by default) and charges nothing. */
  expectRefused(t: Assert, body: unknown, options?: RefusalOptions): Promise<Call>
  /** The call answered 200 and charged exactly `credits` (default: the price), leaving no hold. */
  expectCharged(t: Assert, call: Call, credits?: number): void
  /** Polls GET /v1/jobs/<id> until the job has succeeded or failed, and returns it. */
  job(customer: Customer, jobId: string): Promise<any>
}

export async function capabilityHarness(t: Tap, manifest: unknown, options: HarnessOptions = {}): Promise<CapabilityHarness> {
  const { via = 'mock', mock: mockParts = {}, funds: defaultFunds = 100, ...appOptions } = options
  const m = manifest as CapabilityManifest
  // Checked exactly as the registry checks a folder at boot; only this folder is served, so work in
  // progress elsewhere cannot break the file.
  const capability = checkManifest(m, m.name, `capabilities/${m.name}`)

  let answers: MockAnswer[] = [{}]
  const prompts: string[] = []
  const mock = mockProvider((prompt) => {
    prompts.push(prompt)
    const next = answers.length > 1 ? answers.shift() : answers[0]
    return typeof next === 'function' ? next(prompt) : next
  }, mockParts)

  let fake: FakeOpenAI | null = null
  let wires: Record<Wire, ModelProvider> | null = null
  let current: 'mock' | Wire = 'mock'
  let parts: Partial<ModelProvider> = {}
  const base = (): ModelProvider => (current === 'mock' ? mock : wires![current])
  const pick = <K extends keyof ModelProvider>(key: K): ModelProvider[K] => (key in parts ? parts[key]! : base()[key])
  const provider: ModelProvider = {
    get configured() {
      return pick('configured')
    },
    get acceptsFiles() {
      return pick('acceptsFiles')
    },
    language: () => pick('language')(),
    image: () => pick('image')(),
    speech: () => pick('speech')(),
    transcription: () => pick('transcription')(),
    embedding: () => pick('embedding')(),
    webSearch: () => pick('webSearch')(),
  }

  async function startFake(): Promise<FakeOpenAI> {
    if (fake) return fake
    const server = await startFakeOpenAI()
    t.teardown(() => server.close())
    // An embedding model too, for the capabilities that use one (memory); the others never ask for it.
    wires = {
      responses: fakeServerProvider(server.baseURL, 'responses', 'test-embedding'),
      chat: fakeServerProvider(server.baseURL, 'chat', 'test-embedding'),
    }
    return (fake = server)
  }
  if (via !== 'mock') await startFake()
  const reset = () => {
    current = via
    parts = {}
  }
  reset()
  t.beforeEach(reset)

  const app = await startTestApp(t, { ...appOptions, capabilities: [capability], provider })
  const path = `/v1/${m.name}`
  const untouched = (credits: number): Ledger => ({ balance: credits, reserved: 0, ledgerSum: credits })

  const cap: CapabilityHarness = {
    app,
    name: m.name,
    path,
    price: m.price,
    example: structuredClone(m.example?.request ?? {}),
    reply(...list) {
      answers = list.length ? list : [{}]
      prompts.length = 0
    },
    forbidModel(t) {
      cap.reply(() => {
        t.fail('the model must not be called')
        throw new Error('the model must not be called')
      })
    },
    prompts,
    useMock() {
      current = 'mock'
    },
    async useFake({ wire = 'responses', ...set } = {}) {
      const server = await startFake()
      if (Object.keys(set).length) server.set(set)
      current = wire
      return server
    },
    get fake() {
      if (!fake) throw new Error('the fake OpenAI server is started by useFake() (or the `via` option)')
      return fake
    },
    use(next) {
      parts = next
    },
    customer: (funds = defaultFunds) => app.customer(funds),
    post: (customer, body, headers) => app.call(path, { key: customer.key, body, ...(headers ? { headers } : {}) }),
    async call(body, { funds = defaultFunds, customer, headers } = {}) {
      const who = customer ?? (await app.customer(funds))
      const before = customer ? await app.ledger(who.accountId) : untouched(funds)
      const res = await cap.post(who, body, headers)
      return { res, customer: who, before, ledger: await app.ledger(who.accountId) }
    },
    async expectRefused(
      t,
      body,
      { status = 400, code = 'invalid_request', why = JSON.stringify(body)?.slice(0, 80) ?? String(body), message, ...callOptions } = {},
    ) {
      const call = await cap.call(body, callOptions)
      t.equal(call.res.status, status, `${why}: ${call.res.text.slice(0, 300)}`)
      t.equal(call.res.body?.error?.code, code, why)
      if (message !== undefined) t.match(call.res.body?.error?.message, message, why)
      t.same(call.ledger, call.before, `${why}: nothing charged, no hold left`)
      return call
    },
    expectCharged(t, { res, before, ledger }, credits = m.price) {
      t.equal(res.status, 200, res.text)
      // A size-priced endpoint adds how it measured the input (usage.size); the money is the same check.
      const { size: _size, ...usage } = (res.body?.usage ?? {}) as Record<string, unknown>
      t.same(usage, { credits, balanceRemaining: before.balance - credits, livemode: true }, `usage: ${credits} credits`)
      t.same(
        ledger,
        { balance: before.balance - credits, reserved: 0, ledgerSum: before.ledgerSum - credits },
        `charged ${credits} credits, once`,
      )
    },
    async job(customer, jobId) {
      for (let i = 0; i < 300; i++) {
        const res = await app.call(`/v1/jobs/${jobId}`, { key: customer.key })
        if (res.body?.status === 'succeeded' || res.body?.status === 'failed') return res.body
        await new Promise((r) => setTimeout(r, 50))
      }
      throw new Error(`job ${jobId} did not finish`)
    },
  }
  return cap
}

export { pdfFile } from '../../devkit/fixture-files.ts'

/** A response body without its `usage`, to compare results of calls charged differently. */
export function withoutUsage(body: any): any {
  const { usage: _usage, ...rest } = body
  return rest
}
