// Issue 15: answers a real model can give. A provider with constrained decoding answers every structured-output
// request with *some* JSON valid under the exact schema it was sent. Here the fake OpenAI-compatible server does
// that with seeded random instances of each request's schema, 30 calls per capability, in three modes:
// non-strict (responses API), strict on the responses API and strict on chat completions. Each capability must
// serve at least 95 % of them with exactly its price charged; every other call must be a free 502 refused by a
// rule JSON Schema cannot state (the answer check, after the corrective retry), named in the capability's README.
// CONFORMANCE_TABLE=path writes the table (kept in BENCHMARKS.md).
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import t from 'tap'
import type { ModelProvider } from '../../core/models/provider.ts'
import { fakeServerProvider, startTestApp } from '../helpers/app.ts'
import { callToEnd, loadManifests, pool, requestOf } from '../helpers/examples.ts'
import { CAPABILITIES_ROOT, capabilityFolders } from '../../core/capability-folders.ts'
import { startFakeOpenAI } from '../../devkit/fake-openai.ts'
import { seededAnswers } from '../../devkit/schema-instance.ts'

const CALLS = 30
// 3 modes × every capability × CALLS calls: about three minutes on a quiet 2-core machine, beyond tap's default.
t.setTimeout(600_000)
// Capabilities that do not yet reach the 95 % bar (issue 15 stays open for them). They are held to everything
// else: the exact charge, and every refusal a free 502 or 422 with its stable code. An entry must stay true: the
// last test fails when a listed capability reaches the bar in every mode, so the list cannot go stale.
const NOT_YET: Record<string, string> = {}
const PARALLEL = 10
const folders = capabilityFolders(CAPABILITIES_ROOT)
const manifests = await loadManifests()

const fake = await startFakeOpenAI({
  webSearch: [
    { url: 'https://example.com/a', title: 'A' },
    { url: 'https://example.com/b', title: 'B' },
  ],
})
t.teardown(() => fake.close())
const answers = seededAnswers()
let retries = 0
fake.set({
  text: (req) => {
    const messages = req.api === 'responses' ? req.body.input : req.body.messages
    if (req.jsonSchema && messages.some((m: any) => m.role === 'assistant' || m.type === 'message')) retries++
    return answers.answer(req)
  },
})

const app = await startTestApp(t, {
  worker: true,
  // transcribe ships paused (C10); unpaused here so every capability is measured. One account sends PARALLEL calls
  // at once: a queue of documents twice that keeps its image calls from the busy decoders' 503 (an account may
  // fill half the queue), which this test does not measure.
  env: {
    PAUSED_ENDPOINTS: '{"transcribe": false}',
    DOCUMENT_QUEUE: String(2 * PARALLEL),
    RATE_LIMITS: JSON.stringify(Object.fromEntries(folders.map((f) => [f, 100_000]))),
  },
})
const services = app.services as { provider: ModelProvider }

interface Row {
  mode: string
  name: string
  served: number
  retried: number
  failed: number
  unavailable: number
  reasons: string[]
}
const rows: Row[] = []

const modes: Array<{ mode: string; provider: ModelProvider }> = [
  { mode: 'responses', provider: { ...fakeServerProvider(fake.baseURL, 'responses', 'test-embedding'), strictSchemas: false } },
  { mode: 'responses strict', provider: fakeServerProvider(fake.baseURL, 'responses', 'test-embedding') },
  { mode: 'chat strict', provider: fakeServerProvider(fake.baseURL, 'chat', 'test-embedding') },
]

for (const { mode, provider } of modes) {
  t.test(mode, async (t) => {
    services.provider = provider
    answers.clear()
    for (const m of manifests) {
      const readme = new URL(`../../capabilities/${m.name}/README.md`, import.meta.url)
      const rules = existsSync(readme) ? readFileSync(readme, 'utf8') : ''
      const customer = await app.customer(m.price * CALLS)
      retries = 0
      const outcomes = await pool(CALLS, PARALLEL, () => callToEnd(app, m.name, customer.key, requestOf(m)))
      const served = outcomes.filter((o) => o.status === 200).length
      const unavailable = outcomes.filter((o) => o.status === 503).length
      const failures = outcomes.filter((o) => o.status !== 200 && o.status !== 503)
      const reasons = [...new Set(failures.map((f) => `${f.status} ${f.code ?? ''} ${f.message}`.slice(0, 160)))]
      rows.push({ mode, name: m.name, served, retried: retries, failed: failures.length, unavailable, reasons })
      const ledger = await app.ledger(customer.accountId)
      t.same(
        ledger,
        { balance: m.price * (CALLS - served), reserved: 0, ledgerSum: m.price * (CALLS - served) },
        `${m.name}: exactly ${m.price} charged per served call`,
      )
      if (unavailable === CALLS) continue // web search capabilities on chat completions: 503, free, by design
      for (const f of failures) {
        t.ok([502, 422].includes(f.status), `${m.name}: a refused answer is a free 502 or 422 (${f.status} ${f.message})`)
        t.ok(f.code === (f.status === 502 ? 'inference_failed' : 'unprocessable'), `${m.name}: with its stable code (${f.code})`)
      }
      if (NOT_YET[m.name]) continue
      t.ok(served >= CALLS * 0.95, `${m.name}: ${served}/${CALLS} served (${reasons.join(' | ')})`)
      for (const f of failures) {
        t.match(f.message, /broke a rule/, `${m.name}: refused by an answer rule, not by the schema (${f.status} ${f.code} ${f.message})`)
        t.match(rules, /## Rules/, `${m.name}: its README names the rules that refuse answers`)
      }
    }
  })
}

t.test('every capability listed as not yet at the bar is still below it in some mode (else remove it)', async (t) => {
  for (const [name, why] of Object.entries(NOT_YET)) {
    const below = rows.filter((r) => r.name === name && r.unavailable < CALLS && r.served < CALLS * 0.95)
    t.ok(below.length > 0, `${name} (${why}): below the bar in ${below.map((r) => r.mode).join(', ') || 'no mode'}`)
  }
})

t.teardown(() => {
  const lines = ['| capability | ' + modes.map((m) => m.mode).join(' | ') + ' |', '|---|' + modes.map(() => '---|').join('')]
  for (const name of folders) {
    const cells = modes.map(({ mode }) => {
      const r = rows.find((x) => x.mode === mode && x.name === name)
      return !r ? '–' : r.unavailable === CALLS ? 'n/a (503)' : `${r.served} / ${r.retried} / ${r.failed}`
    })
    lines.push(`| ${name} | ${cells.join(' | ')} |`)
  }
  const table = lines.join('\n')
  console.log(`served / corrective retries / failed, of ${CALLS} calls\n${table}`)
  for (const r of rows) if (r.reasons.length) console.log(`${r.mode} ${r.name}: ${r.reasons.join(' | ')}`)
  if (process.env.CONFORMANCE_TABLE) writeFileSync(process.env.CONFORMANCE_TABLE, table + '\n')
})
