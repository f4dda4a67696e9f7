// Issue 28 against two real OpenAI-compatible servers on loopback, over both wires: a primary failing the ways
// real providers fail (500, 429 + Retry-After, a hang, the context-length error, a refused connection) and a
// healthy fallback. Every call is served by the second and charged once; the tokens and cost recorded are the
// fallback's reported usage × the price table, and /metrics, /admin/costs and `npm run admin -- costs` agree.
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { runAdmin } from '../../scripts/admin.ts'
import { loadConfig } from '../../core/config.ts'
import { startWorker } from '../../core/worker.ts'
import { outputCap } from '../../core/models/chunks.ts'
import { openAIProvider, providerFor } from '../../core/models/provider.ts'
import { loadCapabilities } from '../../core/run/registry.ts'
import { CAPABILITIES_ROOT } from '../../core/capability-folders.ts'
import { startTestApp, testCapability, type TestApp } from '../helpers/app.ts'
import { closedBaseURL, startFakeOpenAI, type FakeOpenAI, type FakeOpenAIOptions } from '../../devkit/fake-openai.ts'

const MODEL = 'gpt-4.1-mini' // priced by config/prices.json
const table = loadConfig({}).ai.prices![MODEL]!
const answerSchema = Type.Object({ answer: Type.String({ maxLength: 100 }) }, { additionalProperties: false })
const capability = (name: string, price = 3, async = false) =>
  testCapability({
    name,
    price,
    async,
    ratePerMinute: 10_000,
    response: answerSchema,
    handler: async (input: any, ctx) => ctx.ai.object({ system: 'Answer.', content: input.text }),
  })
const asks = capability('asks')

/** Every fake provider of this file: the last test reads what each received. */
const everyFake: FakeOpenAI[] = []
async function fakes(t: Tap, primaryOptions: FakeOpenAIOptions = {}): Promise<{ primary: FakeOpenAI; fallback: FakeOpenAI }> {
  const primary = await startFakeOpenAI({ text: () => ({ answer: 'from the primary' }), ...primaryOptions })
  const fallback = await startFakeOpenAI({ text: () => ({ answer: 'from the fallback' }) })
  everyFake.push(primary, fallback)
  t.teardown(() => Promise.all([primary.close(), fallback.close()]))
  return { primary, fallback }
}
interface Tap {
  teardown(fn: () => unknown): void
}

/** The app with the real provider built from the environment an operator would set. */
async function appWith(t: Tap, env: NodeJS.ProcessEnv, capabilities = [asks]): Promise<TestApp> {
  const full = { OPENAI_API_KEY: 'test', AI_FALLBACK_API_KEY: 'test', AI_MODEL: MODEL, ...env }
  return startTestApp(t, {
    env: full,
    capabilities,
    provider: openAIProvider(loadConfig(full).ai),
    config: { adminToken: 'admin-secret-for-tests-0123456789', metricsToken: 'metrics-secret-for-tests-0123456789' },
  })
}

const metric = (text: string, name: string, labels: Record<string, string>): number => {
  const want = Object.entries(labels).map(([k, v]) => `${k}="${v}"`)
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && want.every((w) => l.includes(w)))
  return line ? Number(line.split(' ').at(-1)) : 0
}

const FAILURES: Array<{ name: string; primary: (fake: FakeOpenAI) => void; closed?: true; outcome: string }> = [
  { name: '500', primary: (f) => f.set({ failure: 'server_error' }), outcome: 'server_error' },
  { name: '429 with Retry-After', primary: (f) => f.set({ failure: 'rate_limited', retryAfterSeconds: 30 }), outcome: 'rate_limited' },
  { name: 'a hang', primary: (f) => f.set({ failure: 'hang' }), outcome: 'timeout' },
  { name: 'the context-length error', primary: (f) => f.set({ failure: 'context_length' }), outcome: 'context_length' },
  { name: 'a refused connection', primary: () => {}, closed: true, outcome: 'connection' },
]

for (const wire of ['responses', 'chat'] as const) {
  t.test(`${wire} wire`, async (t) => {
    for (const failure of FAILURES) {
      t.test(`primary failing with ${failure.name}: 20 of 20 served by the fallback, each charged once`, async (t) => {
        const { primary, fallback } = await fakes(t)
        failure.primary(primary)
        const app = await appWith(t, {
          AI_WIRE_API: wire,
          OPENAI_BASE_URL: failure.closed ? await closedBaseURL() : primary.baseURL,
          AI_FALLBACK_BASE_URL: fallback.baseURL,
          AI_ATTEMPT_TIMEOUT_MS: '1500',
        })
        const c = await app.customer(20 * 3)
        const calls = await Promise.all(
          Array.from({ length: 20 }, async (_, i) => {
            const started = performance.now()
            const res = await app.call('/v1/asks', { body: { text: `question ${i}` }, key: c.key })
            return { res, ms: performance.now() - started }
          }),
        )
        t.same(
          calls.map((x) => x.res.status),
          Array(20).fill(200),
          '20/20 served',
        )
        t.ok(
          calls.every((x) => x.res.body.answer === 'from the fallback'),
          'by the fallback',
        )
        if (failure.outcome === 'timeout') {
          const slowest = Math.max(...calls.map((x) => x.ms))
          t.ok(slowest < 3000, `on a hang each call answers in < 3 s (slowest ${Math.round(slowest)} ms)`)
        }
        await app.expectLedger(t, c.accountId, 0)
        const [events] = await app.services.db.sql(
          'select count(*)::int as n, count(distinct request_id)::int as calls from usage_events where account_id = ?',
          [c.accountId],
        )
        t.same(events, { n: 20, calls: 20 }, 'one usage event per call')
        t.equal(fallback.usage.length, 20, 'the fallback answered each call once')

        // Tokens and cost: the fallback's reported usage × the table's prices.
        const reported = fallback.usage.reduce((s, u) => ({ in: s.in + u.inputTokens, out: s.out + u.outputTokens }), { in: 0, out: 0 })
        const expectedUsd = (reported.in * table.inputPerMTok + reported.out * table.outputPerMTok) / 1e6
        await app.services.modelRequests.flush() // written in batches (250 ms); /admin/costs flushes by itself
        const [answered] = await app.services.db.sql(
          `select count(*)::int as n, sum(input_tokens)::int as tin, sum(output_tokens)::int as tout, sum(cost_usd)::float8 as usd
             from model_requests where provider = 'fallback' and outcome = 'ok' and model = ?`,
          [MODEL],
        )
        t.same(answered, { n: 20, tin: reported.in, tout: reported.out, usd: answered!.usd }, 'tokens recorded = tokens reported')
        t.ok(Math.abs(answered!.usd - expectedUsd) < 1e-12, `cost recorded ${answered!.usd} = Σ tokens × price ${expectedUsd}`)
        const [failed] = await app.services.db.sql(
          `select count(*)::int as n, count(*) filter (where outcome = ?)::int as kind from model_requests where provider = 'primary'`,
          [failure.outcome],
        )
        t.equal(failed!.n, failed!.kind, `every primary attempt recorded as ${failure.outcome}`)
        t.ok(failed!.n >= 1, 'the primary was tried')

        const metrics = (await app.call('/metrics', { headers: { authorization: 'Bearer metrics-secret-for-tests-0123456789' } })).text
        const metricUsd = metric(metrics, 'ai_provider_cost_usd_total', { provider: 'fallback', model: MODEL })
        t.ok(Math.abs(metricUsd - expectedUsd) < 1e-9, `ai_provider_cost_usd_total ${metricUsd} = ${expectedUsd}`)
        t.equal(metric(metrics, 'ai_provider_tokens_total', { provider: 'fallback', model: MODEL, kind: 'input' }), reported.in)
        t.equal(metric(metrics, 'ai_provider_tokens_total', { provider: 'fallback', model: MODEL, kind: 'output' }), reported.out)
        t.equal(metric(metrics, 'ai_provider_requests_total', { provider: 'fallback', model: MODEL, outcome: 'ok' }), 20)
        t.equal(metric(metrics, 'ai_provider_requests_total', { provider: 'primary', model: MODEL, outcome: failure.outcome }), failed!.n)
        t.equal(metric(metrics, 'ai_provider_fallbacks_total', { from: 'primary', to: 'fallback' }), 20, 'each call moved once')
        t.equal(
          metric(metrics, 'ai_provider_breaker_open', { provider: 'primary' }),
          failure.outcome === 'rate_limited' ? 1 : 0,
          'the breaker is open only after a Retry-After',
        )
        t.match(metrics, /ai_provider_attempt_duration_seconds_bucket\{/)

        const report = (await app.call('/admin/costs', { headers: { authorization: 'Bearer admin-secret-for-tests-0123456789' } })).body
        t.match(report.total, {
          calls: 20,
          credits: 60,
          revenueUsd: 0.6,
          tokensIn: reported.in,
          tokensOut: reported.out,
          unpricedRequests: 0,
        })
        t.ok(Math.abs(report.total.providerCostUsd - metricUsd) < 0.000001, '/admin/costs and /metrics agree (to the micro-dollar)')
        t.ok(Math.abs(report.total.marginUsd - (0.6 - expectedUsd)) < 0.000001, 'margin = revenue - provider cost')
        t.match(
          report.models.find((m: any) => m.provider === 'fallback'),
          { model: MODEL, calls: 20, credits: 60, tokensIn: reported.in },
        )
        if (failure.outcome === 'rate_limited') {
          const asked = primary.requests.length
          await app.topUp(c.accountId, 3)
          t.equal((await app.call('/v1/asks', { body: { text: 'later' }, key: c.key })).status, 200)
          t.equal(primary.requests.length, asked, 'the primary is left alone until its Retry-After')
          const after = (await app.call('/metrics', { headers: { authorization: 'Bearer metrics-secret-for-tests-0123456789' } })).text
          t.equal(
            metric(after, 'ai_provider_fallbacks_total', { from: 'primary', to: 'fallback' }),
            21,
            'passing over a waiting provider counts as a move',
          )
        }
      })
    }

    t.test('one provider dropping a kept-alive connection: one fresh attempt serves the call; a second drop is 502, free', async (t) => {
      const { primary } = await fakes(t)
      const app = await appWith(t, { AI_WIRE_API: wire, OPENAI_BASE_URL: primary.baseURL })
      const c = await app.customer(6)
      primary.set({ resets: 1 })
      const served = await app.call('/v1/asks', { body: { text: 'q' }, key: c.key })
      t.equal(served.status, 200, 'served after the reset')
      t.equal(served.body.answer, 'from the primary')
      t.equal(primary.requests.length, 2, 'the reset attempt and the fresh one')
      primary.set({ resets: 2 })
      const failed = await app.call('/v1/asks', { body: { text: 'q' }, key: c.key })
      t.equal(failed.status, 502, 'a provider that drops the retry too is failing: no third attempt')
      t.equal(primary.requests.length, 4)
      await app.expectLedger(t, c.accountId, 3)
      await app.services.modelRequests.flush()
      const outcomes = await app.services.db.sql('select outcome, count(*)::int as n from model_requests group by outcome order by outcome')
      t.same(
        outcomes,
        [
          { outcome: 'connection', n: 3 },
          { outcome: 'ok', n: 1 },
        ],
        'each attempt recorded',
      )
    })

    t.test('a 400 that would fail everywhere is not sent to the fallback: 502, free', async (t) => {
      const { primary, fallback } = await fakes(t, { text: () => ({ $status: 400 }) })
      const app = await appWith(t, { AI_WIRE_API: wire, OPENAI_BASE_URL: primary.baseURL, AI_FALLBACK_BASE_URL: fallback.baseURL })
      const c = await app.customer(3)
      const res = await app.call('/v1/asks', { body: { text: 'q' }, key: c.key })
      t.equal(res.status, 502)
      t.equal(fallback.requests.length, 0, 'the fallback was not asked')
      await app.expectLedger(t, c.accountId, 3)
    })

    t.test('every provider asking to wait: 502 with the soonest Retry-After, without asking them again', async (t) => {
      const { primary, fallback } = await fakes(t, { failure: 'rate_limited', retryAfterSeconds: 40 })
      fallback.set({ failure: 'rate_limited', retryAfterSeconds: 20 })
      const app = await appWith(t, { AI_WIRE_API: wire, OPENAI_BASE_URL: primary.baseURL, AI_FALLBACK_BASE_URL: fallback.baseURL })
      const c = await app.customer(6)
      const first = await app.call('/v1/asks', { body: { text: 'q' }, key: c.key })
      t.equal(first.status, 502)
      t.equal(first.headers.get('retry-after'), '20', "the last provider's own Retry-After")
      const asked = primary.requests.length + fallback.requests.length
      const second = await app.call('/v1/asks', { body: { text: 'q' }, key: c.key })
      t.equal(second.status, 502)
      t.match(second.headers.get('retry-after'), /^(19|20)$/)
      t.equal(primary.requests.length + fallback.requests.length, asked, 'neither provider asked again')
      await app.expectLedger(t, c.accountId, 6)
    })
  })
}

t.test('AI_ROUTES={"summarize":"m2"} sends summarize to m2 and every other capability to AI_MODEL', async (t) => {
  const env = { OPENAI_BASE_URL: 'http://127.0.0.1:9/v1', AI_ROUTES: '{"summarize":"m2"}', AI_MODEL: 'm1' }
  const provider = openAIProvider(loadConfig(env).ai)
  const all = await loadCapabilities(CAPABILITIES_ROOT)
  const text = all.filter((c) => c.model === 'text' || c.model === 'vision')
  t.ok(text.some((c) => c.name === 'summarize'))
  for (const c of text)
    t.equal(providerFor(provider, c.name, c.model).language()[0]!.model, c.name === 'summarize' ? 'm2' : 'm1', `${c.name} → its model`)

  // On the wire, with an AI_PRICES price for m1 and none for m2 (its cost is null and counted, never 0).
  const { primary } = await fakes(t)
  const app = await appWith(
    t,
    {
      OPENAI_BASE_URL: primary.baseURL,
      AI_MODEL: 'm1',
      AI_ROUTES: '{"summarize":"m2"}',
      AI_PRICES: '{"m1": {"inputPerMTok": 1000, "outputPerMTok": 3000}}',
      // A price this high makes every call a loss; the cost guard (issue 27) would refuse them.
      AI_COST_GUARD_FACTOR: '100000',
    },
    [capability('summarize', 5), capability('classify', 2)],
  )
  const c = await app.customer(100)
  for (const name of ['summarize', 'classify', 'summarize'])
    t.equal((await app.call(`/v1/${name}`, { body: { text: 'q' }, key: c.key })).status, 200)
  t.same(
    primary.usage.map((u) => u.model),
    ['m2', 'm1', 'm2'],
  )
  const m1 = primary.usage[1]!
  const report = (await app.call('/admin/costs', { headers: { authorization: 'Bearer admin-secret-for-tests-0123456789' } })).body
  const line = (name: string) => report.capabilities.find((l: any) => l.capability === name)
  t.match(line('summarize'), { calls: 2, credits: 10, revenueUsd: 0.1, providerCostUsd: 0, unpricedRequests: 2, requests: 2 })
  const m1Usd = Math.round(((m1.inputTokens * 1000 + m1.outputTokens * 3000) / 1e6) * 1e6) / 1e6
  t.match(line('classify'), { calls: 1, credits: 2, revenueUsd: 0.02, providerCostUsd: m1Usd, unpricedRequests: 0 })
  t.equal(line('classify').marginUsd, Math.round((0.02 - m1Usd) * 1e6) / 1e6)
  t.match(report.models, [
    { provider: 'primary', model: 'm1', calls: 1, providerCostUsd: m1Usd },
    { provider: 'primary', model: 'm2', calls: 2, unpricedRequests: 2 },
  ])
  const metrics = (await app.call('/metrics', { headers: { authorization: 'Bearer metrics-secret-for-tests-0123456789' } })).text
  t.equal(metric(metrics, 'ai_provider_unpriced_requests_total', { provider: 'primary', model: 'm2' }), 2, 'unknown price counted')
  t.equal(metric(metrics, 'ai_provider_cost_usd_total', { model: 'm2' }), 0, 'and never costed as 0 in the cost metric')
  t.notMatch(metrics, /ai_provider_cost_usd_total\{[^}]*model="m2"/)

  // The same report from the command line, and the period's bounds.
  const prev = process.env.DATABASE_URL
  process.env.DATABASE_URL = app.services.db.url
  t.teardown(() => {
    process.env.DATABASE_URL = prev
  })
  const out: any[] = []
  t.equal(await runAdmin(['costs'], (j) => out.push(j)), 0)
  t.same(out[0], report, 'npm run admin -- costs prints the same report')
  t.equal(await runAdmin(['costs', '--from', '2001-01-01', '--to', '2001-02-01'], (j) => out.push(j)), 0)
  t.match(out[1], { from: '2001-01-01T00:00:00.000Z', to: '2001-02-01T00:00:00.000Z', total: { calls: 0, providerCostUsd: 0 } })
  const bad = await app.call('/admin/costs?from=yesterday', { headers: { authorization: 'Bearer admin-secret-for-tests-0123456789' } })
  t.equal(bad.status, 400)
  t.equal(bad.body.error.code, 'invalid_request')
  const backwards = await app.call('/admin/costs?from=2026-02-01&to=2026-01-01', {
    headers: { authorization: 'Bearer admin-secret-for-tests-0123456789' },
  })
  t.equal(backwards.status, 400)

  // The account owner sees no provider cost anywhere it can look.
  for (const path of ['/v1/account', '/v1/usage']) {
    const seen = await app.call(path, { key: c.key })
    t.equal(seen.status, 200)
    t.notMatch(seen.text, /cost|token/i, `${path} says nothing of provider cost`)
  }
  t.equal((await app.call('/admin/costs', { key: c.key })).status, 401, 'an API key does not open /admin/costs')
})

t.test("an async job's provider requests are recorded against the job and its usage event, served by the fallback", async (t) => {
  const { primary, fallback } = await fakes(t, { failure: 'server_error' })
  const full = { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: primary.baseURL, AI_FALLBACK_BASE_URL: fallback.baseURL, AI_MODEL: MODEL }
  const app = await startTestApp(t, {
    env: full,
    capabilities: [capability('later', 3, true)],
    provider: openAIProvider(loadConfig(full).ai),
    worker: true,
  })
  const c = await app.customer(3)
  const accepted = await app.call('/v1/later', { body: { text: 'q', async: true }, key: c.key })
  t.equal(accepted.status, 202)
  let job: any
  for (let i = 0; i < 150 && job?.status !== 'succeeded' && job?.status !== 'failed'; i++) {
    await new Promise((r) => setTimeout(r, 100))
    job = (await app.call(`/v1/jobs/${accepted.body.jobId}`, { key: c.key })).body
  }
  t.equal(job.status, 'succeeded')
  await app.expectLedger(t, c.accountId, 0)
  await app.services.modelRequests.flush()
  const rows = await app.services.db.sql(
    `select m.provider, m.outcome, m.input_tokens, m.output_tokens, m.cost_usd::float8 as usd
       from model_requests m join jobs j on j.request_id = m.request_id join usage_events u on u.request_id = j.request_id
      where j.id = ? order by m.id`,
    [accepted.body.jobId],
  )
  const [served] = fallback.usage
  t.match(rows, [
    { provider: 'primary', outcome: 'server_error', input_tokens: null, usd: null },
    { provider: 'fallback', outcome: 'ok', input_tokens: served!.inputTokens, output_tokens: served!.outputTokens },
  ])
  t.ok(Math.abs(rows[1]!.usd - (served!.inputTokens * table.inputPerMTok + served!.outputTokens * table.outputPerMTok) / 1e6) < 1e-12)
})

t.test('a provider that asked to wait is tried again once its Retry-After has passed', async (t) => {
  const { primary, fallback } = await fakes(t, { failure: 'rate_limited', retryAfterSeconds: 1 })
  const app = await appWith(t, { OPENAI_BASE_URL: primary.baseURL, AI_FALLBACK_BASE_URL: fallback.baseURL })
  const c = await app.customer(9)
  const ask = async () => (await app.call('/v1/asks', { body: { text: 'q' }, key: c.key })).body.answer
  t.equal(await ask(), 'from the fallback')
  t.equal(await ask(), 'from the fallback')
  t.equal(primary.requests.length, 1, 'skipped while it said to wait')
  primary.set({ failure: undefined })
  await new Promise((r) => setTimeout(r, 1100))
  t.equal(await ask(), 'from the primary', 'and asked first again after it')
  await app.expectLedger(t, c.accountId, 0)
})

t.test('the configuration refuses what it cannot use, in one line', async (t) => {
  t.throws(() => loadConfig({ AI_ROUTES: '["summarize"]' }), { name: 'Error', message: /AI_ROUTES must be a JSON object/ })
  t.throws(() => loadConfig({ AI_ROUTES: '{"summarize": 3}' }), { message: /AI_ROUTES/ })
  t.throws(() => loadConfig({ AI_PRICES: '{"m": {"inputPerMTok": 1}}' }), { message: /AI_PRICES must be/ })
  t.throws(() => loadConfig({ AI_PRICES: '{"m": {"inputPerMTok": -1, "outputPerMTok": 1}}' }), { message: /AI_PRICES/ })
  t.throws(() => loadConfig({ AI_FALLBACK_BASE_URL: 'http://x/v1', AI_FALLBACK_WIRE_API: 'grpc' }), { message: /AI_FALLBACK_WIRE_API/ })
  t.throws(() => loadConfig({ AI_ATTEMPT_TIMEOUT_MS: '1.5s' }), { message: /AI_ATTEMPT_TIMEOUT_MS/ })
  const ai = loadConfig({
    AI_PRICES: '{"gpt-4.1-mini": {"inputPerMTok": 9, "outputPerMTok": 9}, "m9": {"inputPerMTok": 1, "outputPerMTok": 2}}',
  }).ai
  t.same(ai.prices!['gpt-4.1-mini'], { inputPerMTok: 9, outputPerMTok: 9 }, 'AI_PRICES overrides the table')
  t.same(ai.prices!['m9'], { inputPerMTok: 1, outputPerMTok: 2 })
  t.same(ai.prices!['gpt-4o'], loadConfig({}).ai.prices!['gpt-4o'], 'the rest of the table stays')
  t.same(loadConfig({}).ai.fallbacks, [], 'no fallback unless configured')
  t.match(loadConfig({ AI_FALLBACK_BASE_URL: 'http://x/v1', AI_FALLBACK_MODEL: 'other' }).ai.fallbacks, [
    { name: 'fallback', baseURL: 'http://x/v1', model: 'other', wireApi: 'responses' },
  ])
})

t.test('an account whose calls keep failing at the provider is slowed (429) before it costs the operator more', async (t) => {
  const { primary } = await fakes(t)
  primary.set({ text: () => ({ answer: 'x'.repeat(200) }) }) // over maxLength, again after the corrective retry: a free 502
  // An allowance smaller than one failed call: the first one spends it.
  const app = await appWith(t, { OPENAI_BASE_URL: primary.baseURL, AI_UNPAID_USD_PER_HOUR: '0.000001' })
  const c = await app.customer(30)
  const statuses: number[] = []
  let slowed: any
  for (let i = 0; i < 10; i++) {
    const res = await app.call('/v1/asks', { body: { text: `question ${i}` }, key: c.key })
    statuses.push(res.status)
    if (res.status === 429) slowed = res
  }
  t.same(statuses, [502, ...Array(9).fill(429)], 'one failed call, then refused before any model request')
  t.equal(slowed.body.error.code, 'free_inference_exhausted')
  t.ok(Number(slowed.headers.get('retry-after')) > 60, `Retry-After: ${slowed.headers.get('retry-after')} s (the hour's window)`)
  t.equal(primary.requests.length, 2, 'the provider got the failed call and its corrective retry, nothing more (20 before)')
  await app.expectLedger(t, c.accountId, 30)

  primary.set({ text: () => ({ answer: 'fine' }) })
  const other = await app.customer(3)
  const served = await app.call('/v1/asks', { body: { text: 'q' }, key: other.key })
  t.equal(served.status, 200, "another account's calls are not slowed")
  t.equal((await app.call('/v1/asks', { body: { text: 'q' }, key: c.key })).status, 429, 'the failing account stays slowed for the hour')
})

t.test('a worker refuses the jobs of an account whose failed calls spent the allowance, before any model request', async (t) => {
  const { primary } = await fakes(t)
  primary.set({ text: () => ({ answer: 'x'.repeat(200) }) })
  const env = { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: primary.baseURL, AI_MODEL: MODEL, AI_UNPAID_USD_PER_HOUR: '0.000001' }
  const app = await startTestApp(t, { env, capabilities: [capability('later', 3, true)], provider: openAIProvider(loadConfig(env).ai) })
  const c = await app.customer(6)
  // Accepted while the account still had its allowance; then a failed call spends it; then a worker starts.
  const accepted = await app.call('/v1/later', { body: { text: 'q', async: true }, key: c.key })
  t.equal(accepted.status, 202)
  t.equal((await app.call('/v1/later', { body: { text: 'q' }, key: c.key })).status, 502)
  t.equal((await app.call('/v1/later', { body: { text: 'q', async: true }, key: c.key })).status, 429, 'no new job is accepted')
  const worker = await startWorker(app.services, { concurrency: 1, gracefulShutdownMs: 2000 })
  t.teardown(() => worker.stop())
  let job: any
  for (let i = 0; i < 150 && job?.status !== 'failed' && job?.status !== 'succeeded'; i++) {
    await new Promise((r) => setTimeout(r, 100))
    job = (await app.call(`/v1/jobs/${accepted.body.jobId}`, { key: c.key })).body
  }
  t.match(job, { status: 'failed', errorCode: 'free_inference_exhausted' })
  t.equal(primary.requests.length, 2, 'the job made no provider request')
  await app.expectLedger(t, c.accountId, 6)
})

t.test('every provider request of this file carried an output-token cap derived from the answer schema', async (t) => {
  const cap = outputCap(answerSchema, loadConfig({}).ai.context!.outputReserveTokens)
  const text = everyFake
    .flatMap((f) => f.requests)
    .filter((r) => /\/(responses|chat\/completions)$/.test(r.path) && typeof r.body === 'object')
  const caps = text.map((r) => r.body.max_output_tokens ?? r.body.max_completion_tokens ?? r.body.max_tokens)
  t.ok(text.length >= 100, `${text.length} provider requests`)
  t.same(
    caps.filter((c) => c !== cap),
    [],
    `${caps.filter((c) => c === cap).length} of ${text.length} carry max output tokens = ${cap}`,
  )
  t.ok(cap < 4096, 'the schema bounds the answer below AI_OUTPUT_RESERVE_TOKENS')
})
