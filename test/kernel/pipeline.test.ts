// The stages of C1 in their order, the error codes of C2, and the dry runs of C3.
import t from 'tap'
import { ApiError } from '../../core/errors.ts'
import { mockProvider, startTestApp, testCapability } from '../helpers/app.ts'

const echo = testCapability({ name: 'echo', ratePerMinute: 100 })
const limited = testCapability({ name: 'limited', ratePerMinute: 3 })
const slowAsync = testCapability({ name: 'docs', async: true, ratePerMinute: 100 })
const broken = testCapability({
  name: 'broken',
  handler: async () => {
    throw new Error('SELECT secret FROM internals; provider key sk-live-123')
  },
})
const refusing = testCapability({
  name: 'refusing',
  handler: async () => {
    throw new ApiError('unprocessable', 'That document is empty.')
  },
})
const wrongShape = testCapability({ name: 'wrong-shape', handler: async () => ({ echo: 42 }) })
const checked = testCapability({
  name: 'checked',
  check: (input: any) => (input.text.includes('\u0000') ? [{ path: '/text', message: 'must not contain U+0000' }] : []),
})
const capabilities = [echo, limited, slowAsync, broken, refusing, wrongShape, checked]

const app = await startTestApp(t, {
  capabilities,
  config: { paused: { docs: { since: '2026-01-01', reason: 'Maintenance of the test.' } }, bodyLimitBytes: 2048 },
})
// A second app where `docs` is served, for async and dry-run checks.
const served = await startTestApp(t, { capabilities, config: { paused: {} } })

const ok = { text: 'hello' }

function isError(t: any, res: { status: number; body: any; headers: Headers }, status: number, code: string) {
  t.equal(res.status, status, `status ${status}`)
  t.equal(res.body?.error?.code, code, `code ${code}`)
  t.match(res.body?.error?.requestId, /^req_[0-9A-Z]{26}$/, 'error carries the request id')
  t.equal(res.headers.get('x-request-id'), res.body?.error?.requestId, 'X-Request-Id matches the body')
}

t.test('stage 1: authentication (C9)', async (t) => {
  isError(t, await app.call('/v1/echo', { body: ok }), 401, 'unauthorized')
  isError(t, await app.call('/v1/echo', { body: ok, headers: { authorization: 'Basic abc' } }), 401, 'unauthorized')
  isError(t, await app.call('/v1/echo', { body: ok, key: 'ksk_live_' + 'x'.repeat(32) }), 401, 'unauthorized')
  // A bad key with a bad body is 401: authentication comes first.
  isError(t, await app.call('/v1/echo', { raw: '{not json', key: 'nope' }), 401, 'unauthorized')
})

t.test('a revoked key stops working at once on the instance that revoked it (C9)', async (t) => {
  const c = await app.customer(100)
  t.equal((await app.call('/v1/echo', { body: ok, key: c.key })).status, 200)
  const { revokeKey } = await import('../../core/accounts/keys.ts')
  await revokeKey(app.services.db, c.keyId, app.services.keys, app.services.now())
  isError(t, await app.call('/v1/echo', { body: ok, key: c.key }), 401, 'unauthorized')
})

t.test('stage 2: throttle before the body; RateLimit headers on every response (C6)', async (t) => {
  const c = await app.customer(100)
  const first = await app.call('/v1/limited', { body: ok, key: c.key })
  t.equal(first.headers.get('ratelimit-limit'), '3')
  t.equal(first.headers.get('ratelimit-remaining'), '2')
  t.ok(Number(first.headers.get('ratelimit-reset')) >= 1)
  // A dry run counts.
  await app.call('/v1/limited', { body: ok, key: c.key, headers: { 'service-dry-run': '1' } })
  // A bad body still consumes the budget: throttling comes before validation.
  isError(t, await app.call('/v1/limited', { raw: '{bad', key: c.key }), 400, 'invalid_json')
  const throttled = await app.call('/v1/limited', { raw: '{bad', key: c.key })
  isError(t, throttled, 429, 'rate_limited')
  t.ok(Number(throttled.headers.get('retry-after')) >= 1, 'Retry-After in whole seconds')
  t.equal(throttled.headers.get('ratelimit-remaining'), '0')
  // Per key: another key of the same account is not throttled.
  const other = await app.customer(100)
  t.equal((await app.call('/v1/limited', { body: ok, key: other.key })).status, 200)
  t.equal((await app.ledger(c.accountId)).balance, 95, 'only the one live call was charged')
})

t.test('stage 3: a paused endpoint answers 503 before the body is read (C10)', async (t) => {
  const c = await app.customer(0)
  const res = await app.call('/v1/docs', { raw: '{bad', key: c.key })
  isError(t, res, 503, 'inference_unavailable')
  t.match(res.body.error.message, /Maintenance of the test/)
  const dry = await app.call('/v1/docs', { body: ok, key: c.key, headers: { 'service-dry-run': 'true' } })
  t.equal(dry.status, 200)
  t.equal(dry.body.liveStatus, 503)
  t.equal(dry.body.wouldCharge, 0)
})

t.test('stage 4: headers and body (C1, C2, C12)', async (t) => {
  const c = await app.customer(0)
  isError(
    t,
    await app.call('/v1/echo', { raw: 'text=1', key: c.key, headers: { 'content-type': 'text/plain' } }),
    415,
    'unsupported_media_type',
  )
  isError(t, await app.call('/v1/echo', { body: { text: 'x'.repeat(3000) }, key: c.key }), 413, 'payload_too_large')
  isError(t, await app.call('/v1/echo', { raw: '{"text": ', key: c.key }), 400, 'invalid_json')
  const bad = await app.call('/v1/echo', { body: { text: '', extra: 1 }, key: c.key })
  isError(t, bad, 400, 'invalid_request')
  t.same(
    bad.body.error.details.map((d: any) => d.path).sort(),
    ['/extra', '/text'],
    'details point at each offending field with JSON pointers',
  )
  isError(t, await app.call('/v1/echo', { body: ok, key: c.key, headers: { 'idempotency-key': 'has space' } }), 400, 'invalid_request')
  isError(t, await app.call('/v1/echo', { body: ok, key: c.key, headers: { 'idempotency-key': 'k'.repeat(129) } }), 400, 'invalid_request')
  isError(t, await app.call('/v1/echo', { body: ok, key: c.key, headers: { 'service-dry-run': 'yes' } }), 400, 'invalid_request')
  isError(t, await app.call('/v1/echo', { body: ok, key: c.key, headers: { 'service-dry-run': '' } }), 400, 'invalid_request')
  const notAsync = await app.call('/v1/echo', { body: { ...ok, async: true }, key: c.key })
  isError(t, notAsync, 400, 'invalid_request')
  t.equal(notAsync.body.error.details[0].path, '/async')
  // A manifest's own check runs with the schema, before any money moves; dry runs report it.
  const refused = await app.call('/v1/checked', { body: { text: 'a\u0000b' }, key: c.key })
  isError(t, refused, 400, 'invalid_request')
  t.same(refused.body.error.details, [{ path: '/text', message: 'must not contain U+0000' }])
  const dry = await app.call('/v1/checked', { body: { text: 'a\u0000b' }, key: c.key, headers: { 'service-dry-run': '1' } })
  t.equal(dry.body.liveStatus, 400)
  // A bad body with zero balance is 400, not 402: validation comes before the precheck.
  isError(t, await app.call('/v1/echo', { body: {}, key: c.key }), 400, 'invalid_request')
  // callbackUrl without async is ignored (spec 6.4.7), even when it is not https.
  isError(t, await app.call('/v1/echo', { body: { ...ok, callbackUrl: 'http://127.0.0.1/x' }, key: c.key }), 402, 'insufficient_credits')
})

t.test('stage 6: the precheck (C4, C9)', async (t) => {
  const broke = await app.customer(0)
  const res = await app.call('/v1/echo', { body: ok, key: broke.key })
  isError(t, res, 402, 'insufficient_credits')
  const poor = await app.customer(3)
  const short = await app.call('/v1/echo', { body: ok, key: poor.key })
  isError(t, short, 402, 'insufficient_credits')
  t.match(short.body.error.message, 'costs 5 credits; 3 are available', 'the 402 says what the account has')
  const team = await app.customer(100, { plan: 'team', monthlySpendCap: 7 })
  t.equal((await app.call('/v1/echo', { body: ok, key: team.key })).status, 200, 'first call fits the cap of 7')
  const capped = await app.call('/v1/echo', { body: { text: 'again' }, key: team.key })
  isError(t, capped, 402, 'spend_cap_reached')
  // A dry run reports the refusal the live call got, word for word (one rule in SQL, one wording).
  const dryRun = { 'service-dry-run': '1' }
  const dryBroke = await app.call('/v1/echo', { body: ok, key: broke.key, headers: dryRun })
  t.same(dryBroke.body.error, { code: res.body.error.code, message: res.body.error.message })
  t.match(dryBroke.body.error.message, /Nothing was charged\.$/)
  const dryCapped = await app.call('/v1/echo', { body: { text: 'again' }, key: team.key, headers: dryRun })
  t.same([dryCapped.body.liveStatus, dryCapped.body.error], [402, { code: capped.body.error.code, message: capped.body.error.message }])
  const l = await app.ledger(team.accountId)
  t.equal(l.balance, 100 + 2500 - 5, 'plan grant plus funding minus one call')
  t.equal(l.reserved, 0)
})

t.test('stage 7 failures are free and say so honestly (C2, C11)', async (t) => {
  const c = await app.customer(100)
  const internal = await app.call('/v1/broken', { body: ok, key: c.key })
  isError(t, internal, 500, 'internal_error')
  t.notMatch(internal.text, /SELECT|sk-live|internals/, 'no internals leak')
  isError(t, await app.call('/v1/refusing', { body: ok, key: c.key }), 422, 'unprocessable')
  isError(t, await app.call('/v1/wrong-shape', { body: ok, key: c.key }), 502, 'inference_failed')
  t.same(await app.ledger(c.accountId), { balance: 100, reserved: 0, ledgerSum: 100 }, 'nothing charged, every hold released')
})

t.test('no provider configured: model-backed calls are 503 and free; dry runs still work (C11)', async (t) => {
  const bare = await startTestApp(t, { capabilities, provider: { ...mockProvider(), configured: false } })
  const c = await bare.customer(50)
  isError(t, await bare.call('/v1/echo', { body: ok, key: c.key }), 503, 'inference_unavailable')
  t.same(await bare.ledger(c.accountId), { balance: 50, reserved: 0, ledgerSum: 50 })
  const dry = await bare.call('/v1/echo', { body: ok, key: c.key, headers: { 'service-dry-run': '1' } })
  t.equal(dry.body.liveStatus, 503)
  t.equal((await bare.call('/v1/account', { key: c.key })).body.balance, 50)
})

t.test('dry runs (C3)', async (t) => {
  const c = await served.customer(7)
  const dry = (body: unknown, key = c.key) => served.call('/v1/echo', { body, key, headers: { 'service-dry-run': 'TRUE' } })
  let res = await dry(ok)
  t.equal(res.status, 200)
  t.same(res.body, { dryRun: true, endpoint: '/v1/echo', liveStatus: 200, wouldCharge: 5, price: 5, balance: 7 })
  res = await dry({ text: '' })
  t.equal(res.body.liveStatus, 400)
  t.equal(res.body.wouldCharge, 0)
  t.equal(res.body.error.code, 'invalid_request')
  t.equal(res.body.error.details[0].path, '/text')
  res = await served.call('/v1/docs', { body: { ...ok, async: true }, key: c.key, headers: { 'service-dry-run': '1' } })
  t.equal(res.body.liveStatus, 202)
  t.equal(res.body.wouldCharge, 5)
  const broke = await served.customer(0)
  res = await dry(ok, broke.key)
  t.same(res.body, {
    dryRun: true,
    endpoint: '/v1/echo',
    liveStatus: 402,
    wouldCharge: 0,
    price: 5,
    balance: 0,
    error: res.body.error,
  })
  t.equal(res.body.error.code, 'insufficient_credits')
  // The idempotency key's format is checked; nothing else about it (never 409).
  res = await served.call('/v1/echo', { body: ok, key: c.key, headers: { 'service-dry-run': '1', 'idempotency-key': 'bad key' } })
  t.equal(res.body.liveStatus, 400)
  t.same(await served.ledger(c.accountId), { balance: 7, reserved: 0, ledgerSum: 7 }, 'no hold, no charge')
  isError(t, await served.call('/v1/echo', { body: ok, headers: { 'service-dry-run': '1' } }), 401, 'unauthorized')
})

t.test('routes outside the capabilities (C2, C14)', async (t) => {
  const c = await app.customer(3)
  isError(t, await app.call('/v1/nope', { body: ok, key: c.key }), 404, 'not_found')
  isError(t, await app.call('/v1/echo', { key: c.key }), 405, 'method_not_allowed')
  const account = await app.call('/v1/account', { key: c.key })
  // A superset of what the product's official client reads (issue 14 revises C14).
  t.same(account.body, {
    id: c.accountId,
    balanceCredits: 3,
    creditUsd: 0.01,
    balanceUsd: 0.03,
    balance: 3,
    reserved: 0,
    available: 3,
    plan: 'none',
  })
  isError(t, await app.call('/v1/account'), 401, 'unauthorized')
  t.equal((await app.call('/healthz')).status, 200)
  t.same((await app.call('/readyz')).body, { status: 'ready' })
})
