// Operability: one structured access line per request, errors logged without secrets or SQL values, and
// GET /metrics (Prometheus text) behind METRICS_TOKEN.
import t from 'tap'
import { ApiError } from '../../core/errors.ts'
import { createLogger } from '../../core/observability/log.ts'
import { mockProvider, startTestApp, testCapability } from '../helpers/app.ts'

const lines: Array<Record<string, any>> = []
const logger = createLogger({ level: 'info' }, { write: (s: string) => void lines.push(JSON.parse(s)) })

const echo = testCapability({ name: 'echo', ratePerMinute: 2 })
const asks = testCapability({
  name: 'asks',
  handler: async (input: any, ctx) => ({ echo: (await ctx.ai.object<{ echo: string }>({ system: 's', content: input.text })).echo }),
})
const failingModel = testCapability({
  name: 'failing-model',
  handler: async (_input, ctx) =>
    ctx.ai.run('model', async () => {
      throw new Error('provider down')
    }),
})
const broken = testCapability({
  name: 'broken',
  handler: async () => {
    // What a driver error looks like: the statement with its values in the message.
    throw Object.assign(new Error("insert into secrets values ('sk-live-123') - duplicate key value"), { sqlState: '23505' })
  },
})
const refusing = testCapability({
  name: 'refusing',
  handler: async () => {
    throw new ApiError('unprocessable', 'Empty.')
  },
})

const app = await startTestApp(t, {
  capabilities: [echo, asks, failingModel, broken, refusing],
  provider: mockProvider(() => ({ echo: 'from the model' })),
  config: { metricsToken: 'metrics-secret-for-tests-0123456789' },
  logger,
})

const accessLines = () => lines.filter((l) => l.msg === 'request')
const lineOf = (reqId: string | null) => accessLines().find((l) => l.reqId === reqId)

t.test('one access line per request: method, route, status, ms, request id, account, key prefix, credits', async (t) => {
  const c = await app.customer(100)
  const res = await app.call('/v1/echo', { body: { text: 'hi' }, key: c.key })
  t.equal(res.status, 200)
  const line = lineOf(res.headers.get('x-request-id'))!
  t.match(line, {
    level: 30,
    method: 'POST',
    route: '/v1/echo',
    status: 200,
    account: c.accountId,
    keyPrefix: c.key.slice(0, 12),
    credits: 5,
  })
  t.type(line.ms, 'number')
  t.match(line.time, /^\d{4}-\d\d-\d\dT/, 'ISO time')
  t.equal(accessLines().filter((l) => l.reqId === line.reqId).length, 1, 'exactly one line')

  const job = await app.call(`/v1/jobs/${'0'.repeat(8)}-0000-0000-0000-000000000000`, { key: c.key })
  t.match(
    lineOf(job.headers.get('x-request-id')),
    { route: '/v1/jobs/:id', status: job.status, credits: 0 },
    'the route pattern, not the path',
  )

  const refused = await app.call('/v1/refusing', { body: { text: 'hi' }, key: c.key })
  t.match(lineOf(refused.headers.get('x-request-id')), { status: 422, code: 'unprocessable', credits: 0 })
})

t.test('no key, no body, no SQL values in any line; an unexpected error is logged with its code and request id', async (t) => {
  const c = await app.customer(100)
  const res = await app.call('/v1/broken', { body: { text: 'my private text' }, key: c.key })
  t.equal(res.status, 500)
  const reqId = res.headers.get('x-request-id')
  const error = lines.find((l) => l.msg === 'unexpected error' && l.reqId === reqId)!
  t.match(error, { level: 50, code: 'internal_error', err: { type: 'Error', sqlState: '23505' } })
  t.match(error.err.stack, /broken|observability\.test/, 'stack frames kept')
  const all = JSON.stringify(lines)
  t.notMatch(all, c.key, 'no API key')
  t.notMatch(all, 'sk-live-123', 'no SQL value')
  t.notMatch(all, 'my private text', 'no request body')
  t.notMatch(all, 'metrics-secret-for-tests-0123456789', 'no token')
})

t.test('GET /metrics: 401 without the token, 404 when METRICS_TOKEN is unset', async (t) => {
  t.equal((await app.call('/metrics')).status, 401)
  t.equal((await app.call('/metrics', { headers: { authorization: 'Bearer wrong' } })).status, 401)
  const off = await startTestApp(t, { capabilities: [echo] })
  const res = await off.call('/metrics', { headers: { authorization: 'Bearer metrics-secret-for-tests-0123456789' } })
  t.equal(res.status, 404)
  t.equal(res.body.error.code, 'not_found')
})

async function scrape(): Promise<string> {
  const res = await app.call('/metrics', { headers: { authorization: 'Bearer metrics-secret-for-tests-0123456789' } })
  t.equal(res.status, 200)
  t.match(res.headers.get('content-type'), /^text\/plain; version=0\.0\.4/)
  return res.text
}
/** The value of one sample, e.g. value(text, 'capapi_holds_open') or with labels '{endpoint="asks"}'. */
function value(text: string, name: string, labels = ''): number {
  const escaped = (name + labels).replace(/[{}\\[\]().*+?^$|]/g, '\\$&')
  const m = new RegExp(`^${escaped} (\\S+)$`, 'm').exec(text)
  return m ? Number(m[1]) : 0
}

t.test('metrics move after calls: requests, latency, credits, model calls, refusals', async (t) => {
  const before = await scrape()
  const c = await app.customer(100)
  t.equal((await app.call('/v1/asks', { body: { text: 'q' }, key: c.key })).status, 200)
  t.equal((await app.call('/v1/failing-model', { body: { text: 'q' }, key: c.key })).status, 502)
  for (let i = 0; i < 3; i++) await app.call('/v1/echo', { body: { text: 'x' }, key: c.key }) // limit 2 per minute
  const after = await scrape()

  const ok = '{method="POST",route="/v1/asks",status="200"}'
  t.equal(value(after, 'capapi_http_requests_total', ok) - value(before, 'capapi_http_requests_total', ok), 1, 'request counted')
  t.equal(
    value(after, 'capapi_http_request_duration_seconds_count', ok) - value(before, 'capapi_http_request_duration_seconds_count', ok),
    1,
    'latency observed',
  )
  t.equal(
    value(after, 'capapi_credits_charged_total', '{endpoint="asks"}') - value(before, 'capapi_credits_charged_total', '{endpoint="asks"}'),
    5,
    'credits charged',
  )
  t.equal(value(after, 'capapi_model_call_duration_seconds_count', '{endpoint="asks",kind="text",outcome="ok"}'), 1, 'model latency')
  t.equal(value(after, 'capapi_model_call_failures_total', '{endpoint="failing-model",kind="model"}'), 1, 'model failure')
  t.ok(value(after, 'capapi_rate_limit_refusals_total', '{route="/v1/echo"}') >= 1, 'rate-limit refusal')
  t.equal(value(after, 'capapi_holds_open'), 0, 'no hold left open')
  t.match(after, /^capapi_jobs\{state="queued"\} 0$/m, 'jobs by state')
  t.match(after, /^capapi_webhook_attempts_total\{outcome="failed"\} 0$/m, 'webhook attempts')
})
