// Compiled by types.test.ts with tsc --strict (never run): what the generated SDK types accept and refuse.
// Every `@ts-expect-error` must meet an error, so a type that grows too loose (e.g. `unknown`) fails the test.
import {
  Client,
  ApiError,
  type AcceptedJob,
  type ApiErrorCode,
  type DryRun,
  type InvoiceResponse,
  type Job,
  type JobsPage,
  type ParseRequest,
  type ParseResponse,
  type RequestsPage,
  type ResponseInfo,
  type UsagePage,
} from '../../sdk/dist/index.js'

declare const api: Client
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false
/** isExactly<T>()(value, true) compiles only when the value's type is exactly T. */
const isExactly =
  <Expected>() =>
  <Actual>(_value: Actual, _check: Equal<Expected, Actual>) =>
    undefined

// Document inputs: exactly one of file, fileUrl, text.
export const ok: ParseRequest[] = [
  { text: 'Invoice 1' },
  { fileUrl: 'https://example.com/a.pdf', docType: 'invoice' },
  { file: { data: 'JVBERi0=', mimeType: 'application/pdf' } },
]
// @ts-expect-error no document at all
export const none: ParseRequest = { docType: 'invoice' }
// @ts-expect-error two documents
export const two: ParseRequest = { text: 'a', fileUrl: 'https://example.com/a.pdf' }
// @ts-expect-error a field the endpoint does not have
await api.invoice({ totally: 'wrong' })
// @ts-expect-error a known field with the wrong type
await api.invoice({ text: 42 })
// @ts-expect-error an inline file needs its mimeType
await api.receipt({ file: { data: 'AAAA' } })
// @ts-expect-error compare's a and b are documents too
await api.compare({ a: { text: 'v1' }, b: {} })
// @ts-expect-error classify needs its labels
await api.classify({ text: 'I was charged twice' })

// memory: one shape per op.
await api.memory({ op: 'store', content: 'likes tea' })
await api.memory({ op: 'search', query: 'tea', limit: 5 })
// @ts-expect-error store takes no query
await api.memory({ op: 'store', content: 'x', query: 'y' })
// @ts-expect-error an unknown op
await api.memory({ op: 'update', content: 'x' })

// An open object takes any keys: structure's `schema` is a caller's JSON Schema.
await api.structure({
  input: 'Jane, 34, Berlin',
  schema: { type: 'object', properties: { name: { type: 'string' }, age: { type: 'integer' } }, required: ['name'] },
})
// @ts-expect-error but it is an object, not a string
await api.structure({ input: 'x', schema: '{"type":"object"}' })

// What a call returns: the result, the accepted job (typed with its result), or the DryRun report.
isExactly<InvoiceResponse>()(await api.invoice({ text: 'Invoice 1' }), true)
const accepted = await api.invoice({ fileUrl: 'https://example.com/a.pdf', async: true, callbackUrl: 'https://example.com/hook' })
isExactly<AcceptedJob<InvoiceResponse>>()(accepted, true)
isExactly<DryRun>()(await api.invoice({ text: 'Invoice 1', async: true }, { dryRun: true }), true)
declare const maybe: boolean
isExactly<ParseResponse | AcceptedJob<ParseResponse>>()(await api.parse({ text: 'x', async: maybe }), true)
// @ts-expect-error a sync result has no jobId
void (await api.invoice({ text: 'Invoice 1' })).jobId
// async and callbackUrl exist only on the endpoints that run as jobs.
// @ts-expect-error classify does not run asynchronously
await api.classify({ text: 'x', labels: ['a', 'b'], async: true })
// @ts-expect-error nor take a callbackUrl
await api.classify({ text: 'x', labels: ['a', 'b'], callbackUrl: 'https://example.com/hook' })

// A job's result is the result of the endpoint that created it, without a cast.
const done = await api.waitForJob(accepted, { intervalMs: 500 })
isExactly<InvoiceResponse | undefined>()(done.result, true)
isExactly<number | undefined>()(done.result?.total, true)
// By id alone, the result is any endpoint's (usage known, the rest unknown).
isExactly<Job['result']>()((await api.waitForJob('0b7e4c52-3f0a-4a43-9d0e-5b8f1c7a2e10')).result, true)

// Lists: integers are numbers; awaited, the first page; iterated, every item.
isExactly<UsagePage>()(await api.usage({ limit: 3 }), true)
// @ts-expect-error a limit is a number, not a string
await api.usage({ limit: '3' })
// @ts-expect-error a parameter the route does not have
await api.jobs({ page: 2 })
isExactly<JobsPage>()(await api.jobs({ status: 'failed', limit: 100 }), true)
for await (const job of api.jobs({ status: 'failed' })) isExactly<JobsPage['jobs'][number]>()(job, true)
for await (const request of api.requests({ status: '4xx' })) isExactly<RequestsPage['requests'][number]>()(request, true)
for await (const page of api.usage().pages()) isExactly<UsagePage>()(page, true)

// Per-call options and what the service said besides the body.
await api.classify(
  { text: 'x', labels: ['a', 'b'] },
  {
    headers: { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01' },
    idempotencyKey: 'order-1182',
    testOutcome: 'rate_limited',
  },
)
// @ts-expect-error not an outcome a test key can ask for
await api.classify({ text: 'x', labels: ['a', 'b'] }, { testOutcome: 'teapot' })
// @ts-expect-error a read has no dry run
await api.account({ dryRun: true })
isExactly<ResponseInfo | null>()(api.lastResponse, true)
isExactly<boolean | undefined>()(api.lastResponse?.replayed, true)

// Errors: a closed set of codes.
try {
  await api.account()
} catch (e) {
  if (e instanceof ApiError) {
    isExactly<ApiErrorCode>()(e.code, true)
    // @ts-expect-error not a code the service or the SDK ever sends
    if (e.code === 'insufficient_funds') throw e
  }
}
