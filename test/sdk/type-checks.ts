// Compiled by types.test.ts with tsc --strict (never run): what the generated SDK types accept and refuse.
// Every `@ts-expect-error` must meet an error, so a type that grows too loose (e.g. `unknown`) fails the test.
import {
  Client,
  ApiError,
  type ApiErrorCode,
  type DryRun,
  type InvoiceResponse,
  type JobAccepted,
  type ParseRequest,
  type ParseResponse,
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

// What a call returns: the result, the accepted job, or the DryRun report.
isExactly<InvoiceResponse>()(await api.invoice({ text: 'Invoice 1' }), true)
isExactly<JobAccepted>()(await api.invoice({ fileUrl: 'https://example.com/a.pdf', async: true }), true)
isExactly<DryRun>()(await api.invoice({ text: 'Invoice 1', async: true }, { dryRun: true }), true)
declare const maybe: boolean
isExactly<ParseResponse | JobAccepted>()(await api.parse({ text: 'x', async: maybe }), true)
// @ts-expect-error a sync result has no jobId
void (await api.invoice({ text: 'Invoice 1' })).jobId

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
