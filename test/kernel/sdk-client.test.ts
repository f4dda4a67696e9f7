// Issue 14: the product's official TypeScript client works against this server unmodified. `Client` below is
// written the way that SDK is (global fetch, one method per endpoint, its published types); the test drives the
// server through it and asserts that no field the SDK reads is missing or of another type.
import t from 'tap'
import { mockProvider, startTestApp, testCapability } from '../helpers/app.ts'
import type { PublishedContract } from '../helpers/contract.ts'
import { SDK_RESULTS, type Field } from '../fixtures/sdk-shapes.ts'
import { ApiError } from '../../core/errors.ts'
import { EXPLICIT_NULL } from '../../core/run/result.ts'

interface Account {
  balanceCredits: number
  creditUsd: number
  balanceUsd: number
}
interface Job {
  jobId: string
  status: 'queued' | 'running' | 'succeeded' | 'failed'
  result?: Record<string, unknown>
  error?: string
  errorCode?: string
}

class Client {
  private readonly baseUrl: string
  private readonly apiKey: string
  /** Every answer the client reads is also held to the published document (not part of the SDK). */
  private readonly contract: PublishedContract
  constructor(baseUrl: string, apiKey: string, contract: PublishedContract) {
    this.baseUrl = baseUrl
    this.apiKey = apiKey
    this.contract = contract
  }
  private async request<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await fetch(this.baseUrl + path, {
      method,
      headers: { authorization: `Bearer ${this.apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}) },
      body: body ? JSON.stringify(body) : undefined,
    })
    const text = await res.text()
    this.contract.check(method, path, res.status, res.headers, text)
    const json = JSON.parse(text)
    if (!res.ok) throw Object.assign(new Error(json.error.message), { code: json.error.code, status: res.status })
    return json as T
  }
  account = () => this.request<Account>('GET', '/v1/account')
  getJob = (id: string) => this.request<Job>('GET', `/v1/jobs/${id}`)
  run = <T>(endpoint: string, body: unknown) => this.request<T>('POST', `/v1/${endpoint}`, body)
  async waitForJob(id: string): Promise<Job> {
    for (;;) {
      const job = await this.getJob(id)
      if (job.status === 'succeeded' || job.status === 'failed') return job
      await new Promise((r) => setTimeout(r, 50))
    }
  }
}

const kindOf = (v: unknown) => (Array.isArray(v) ? 'array' : v === null ? 'null' : typeof v)

/** Problems of `value` against an SDK result type: a required field missing, a field null or of another kind. */
function sdkProblems(shape: Record<string, Field>, value: Record<string, unknown>): string[] {
  const problems: string[] = []
  for (const [field, spec] of Object.entries(shape)) {
    const [presence, kind] = spec.split(' ')
    if (!(field in value)) {
      if (presence === 'required') problems.push(`${field} is missing`)
      continue
    }
    const got = kindOf(value[field])
    if (got === 'null') problems.push(`${field} is null`)
    else if (kind !== 'any' && got !== kind) problems.push(`${field} is ${got}, not ${kind}`)
  }
  return problems
}

t.test('account(): balanceCredits, creditUsd and balanceUsd are numbers', async (t) => {
  const app = await startTestApp(t, { capabilities: [] })
  const c = await app.customer(5500)
  const account = await new Client(app.url, c.key, app.contract).account()
  t.same(
    { balanceCredits: account.balanceCredits, creditUsd: account.creditUsd, balanceUsd: account.balanceUsd },
    { balanceCredits: 5500, creditUsd: 0.01, balanceUsd: 55 },
  )
  t.equal(`${account.balanceUsd.toFixed(2)} USD`, '55.00 USD', 'prints as money, not as [object Object] or a string')
})

t.test('getJob() / waitForJob(): a failed job has the message in error (string) and the code in errorCode', async (t) => {
  const job = testCapability({
    name: 'jobby',
    async: true,
    handler: async (input: any) => {
      if (input.text === 'fail') throw new ApiError('unprocessable', 'The document has no pages.')
      return { echo: input.text }
    },
  })
  const app = await startTestApp(t, { capabilities: [job], worker: true })
  const c = await app.customer(50)
  const client = new Client(app.url, c.key, app.contract)
  const failed = await client.waitForJob((await client.run<{ jobId: string }>('jobby', { text: 'fail', async: true })).jobId)
  t.equal(failed.status, 'failed')
  t.equal(typeof failed.error, 'string')
  t.equal(`${failed.error}`, 'The document has no pages.', 'the message prints as itself')
  t.equal(failed.errorCode, 'unprocessable')
  const ok = await client.waitForJob((await client.run<{ jobId: string }>('jobby', { text: 'hi', async: true })).jobId)
  t.same(ok.result, { echo: 'hi', usage: { credits: 5, balanceRemaining: 45, livemode: true } })
  t.notOk('error' in ok || 'errorCode' in ok)
})

t.test('every capability publishes what the SDK reads: required fields required, optional ones never null', async (t) => {
  const app = await startTestApp(t)
  t.same(
    Object.keys(SDK_RESULTS).filter((name) => !app.services.capabilities.has(name)),
    [],
    'every shape the SDK reads is served',
  )
  for (const [name, shape] of Object.entries(SDK_RESULTS)) {
    const schema = app.contract.doc.paths[`/v1/${name}`]?.post.responses['200'].content['application/json'].schema.anyOf[0]
    if (!t.ok(schema, `/v1/${name} is published`)) continue
    const problems: string[] = []
    for (const [field, spec] of Object.entries(shape)) {
      const [presence, kind] = spec.split(' ')
      const prop = schema.properties[field]
      if (!prop) problems.push(`${field} is not published`)
      else if (presence === 'required' && !schema.required.includes(field)) problems.push(`${field} is optional, the SDK needs it`)
      else if (!prop[EXPLICIT_NULL] && (prop.type === 'null' || (prop.anyOf ?? []).some((b: any) => b.type === 'null')))
        problems.push(`${field} may be null`)
      else if (kind !== 'any' && prop.type !== kind) problems.push(`${field} is published as ${prop.type}, not ${kind}`)
    }
    t.same(problems, [], `/v1/${name}`)
  }
})

t.test('every capability answers its published example in the SDK shape (the model answers the example)', async (t) => {
  let answer: unknown = {}
  const app = await startTestApp(t, { provider: mockProvider(() => answer) })
  const c = await app.customer(100_000)
  const client = new Client(app.url, c.key, app.contract)
  const answered: string[] = []
  for (const [name, shape] of Object.entries(SDK_RESULTS)) {
    const op = app.contract.doc.paths[`/v1/${name}`].post
    const example = op.requestBody.content['application/json'].example
    answer = app.services.capabilities.get(name)!.example?.response
    let result: Record<string, unknown>
    try {
      result = await client.run(name, example)
    } catch (e) {
      t.comment(`/v1/${name}: ${(e as Error).message} (needs more than a text model answering its example)`)
      continue
    }
    answered.push(name)
    t.same(sdkProblems(shape, result), [], `/v1/${name}`)
  }
  t.comment(`${answered.length} of ${Object.keys(SDK_RESULTS).length} answered: ${answered.join(', ')}`)
  // Document, media and code-checked capabilities need more than their example echoed by a text model; their
  // published schemas are held to the SDK shapes by the test above. (extract left this list with issue 29: its
  // model now answers quotes that code grounds, not the published result.)
  t.ok(answered.length >= 9, `${answered.length} capabilities answered live`)
})
