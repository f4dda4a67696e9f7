// The model check: an OpenAI-compatible server that does not serve the configured model (the README's vLLM /
// Ollama line without AI_MODEL) is found at boot from its own GET /models, said in one boot line and in /readyz,
// and quoted by the dry run; a live call is a free 503 inference_unavailable that names the model and the
// setting, before any model request. A provider that does not list its models and answers 404 for the model is
// the same 503 (not a 502, not a server error), and the next dry run knows it. Through the real @ai-sdk/openai
// client against a fake server on loopback.
import t from 'tap'
import { loadConfig } from '../../core/config.ts'
import { openAIProvider } from '../../core/models/provider.ts'
import { startTestApp } from '../helpers/app.ts'
import { startFakeOpenAI } from '../../devkit/fake-openai.ts'
import classify from '../../capabilities/classify/manifest.ts'
import type { CapabilityManifest } from '../../core/capability.ts'
import { checkManifest } from '../../core/run/registry.ts'

const capability = checkManifest(classify as unknown as CapabilityManifest, 'classify', 'capabilities/classify')
const body = { text: 'I was charged twice', labels: ['billing', 'technical'] }
const answer = { label: 'billing', confidence: 0.9, rationale: 'A duplicate charge is a billing problem.' }

/** The README's line: OPENAI_BASE_URL and AI_WIRE_API=chat, and whatever AI_MODEL the test gives. */
async function serverWith(t: Tap, env: NodeJS.ProcessEnv, models?: string[]) {
  const fake = await startFakeOpenAI({ text: () => answer, ...(models ? { models } : {}) })
  t.teardown(() => fake.close())
  const config = loadConfig({ OPENAI_BASE_URL: fake.baseURL, AI_WIRE_API: 'chat', ...env })
  const lines: string[] = []
  const app = await startTestApp(t, { provider: openAIProvider(config.ai), capabilities: [capability], log: (m) => lines.push(m) })
  return { fake, app, lines, customer: await app.customer(10) }
}
type Tap = Parameters<typeof startTestApp>[0]

const textRequests = (fake: { requests: Array<{ path: string }> }) => fake.requests.filter((r) => /chat|responses/.test(r.path)).length

t.test('a server that does not list the configured model: one boot line, /readyz, the dry run and the call say so', async (t) => {
  const { fake, app, lines, customer } = await serverWith(t, {}, ['llama3:latest', 'qwen2'])
  const said = lines.filter((l) => l.includes('MODEL CHECK'))
  t.equal(said.length, 1, 'one boot line')
  t.match(said[0], /does not list "gpt-4\.1-mini" \(AI_MODEL\)/, 'it names the model and its setting')
  const ready = await app.call('/readyz')
  t.equal(ready.status, 200, 'still ready: the calls that need no model are served')
  t.match(ready.body, { status: 'ready', models: { missing: [{ provider: 'primary', model: 'gpt-4.1-mini', setting: 'AI_MODEL' }] } })

  const dry = await app.call('/v1/classify', { key: customer.key, body, headers: { 'service-dry-run': '1' } })
  t.match(dry.body, { liveStatus: 503, wouldCharge: 0, error: { code: 'inference_unavailable', message: /"gpt-4\.1-mini" \(AI_MODEL\)/ } })
  const live = await app.call('/v1/classify', { key: customer.key, body })
  t.equal(live.status, 503)
  t.match(live.body.error, {
    code: 'inference_unavailable',
    message: /does not serve the model "gpt-4\.1-mini" \(AI_MODEL\).*nothing was charged/,
  })
  t.equal(textRequests(fake), 0, 'no model request was made')
  await app.expectLedger(t, customer.accountId, 10)
})

t.test('AI_MODEL names a model it lists (Ollama spells it with :latest): served, nothing said about the text model', async (t) => {
  const { app, lines, customer } = await serverWith(t, { AI_MODEL: 'llama3' }, ['llama3:latest'])
  t.notOk(
    lines.some((l) => l.includes('(AI_MODEL)')),
    'the text model is listed',
  )
  t.match(
    lines.find((l) => l.includes('MODEL CHECK')),
    /"gpt-image-1" \(AI_IMAGE_MODEL\)/,
    'the roles it lacks are named',
  )
  const dry = await app.call('/v1/classify', { key: customer.key, body, headers: { 'service-dry-run': '1' } })
  t.match(dry.body, { liveStatus: 200, wouldCharge: 2 })
  const live = await app.call('/v1/classify', { key: customer.key, body })
  t.equal(live.status, 200, live.text)
  await app.expectLedger(t, customer.accountId, 8)
})

t.test('a server that does not list its models and answers 404 for the model: 503 with the reason, not a server error', async (t) => {
  const { fake, app, lines, customer } = await serverWith(t, { AI_MODEL: 'gone-model' })
  t.match(lines.join('\n'), /Model check skipped .*answered 404/, 'the boot says the check could not be made')
  fake.set({ models: ['other-model'] }) // from now on it refuses gone-model (and lists, but the boot check is over)
  const first = await app.call('/v1/classify', { key: customer.key, body })
  t.equal(first.status, 503, first.text)
  t.match(first.body.error, { code: 'inference_unavailable', message: /does not serve the model "gone-model" \(it answered 404\)/ })
  const metrics = await app.services.metrics.registry.metrics()
  t.match(metrics, /ai_provider_requests_total\{[^}]*outcome="model_not_found"[^}]*\} 1/, 'counted as model_not_found')
  t.notMatch(metrics, /ai_provider_requests_total\{[^}]*outcome="server_error"/, 'not as a server error')
  await app.services.modelRequests.flush()
  const [row] = await app.services.db.sql(`select outcome from model_requests order by created_at desc limit 1`)
  t.equal(row?.outcome, 'model_not_found', 'and recorded so')
  const requestsBefore = textRequests(fake)
  const dry = await app.call('/v1/classify', { key: customer.key, body, headers: { 'service-dry-run': '1' } })
  t.match(dry.body, { liveStatus: 503, error: { code: 'inference_unavailable' } }, 'the dry run now knows')
  const again = await app.call('/v1/classify', { key: customer.key, body })
  t.equal(again.status, 503)
  t.equal(textRequests(fake), requestsBefore, 'and the next call asks no model')
  await app.expectLedger(t, customer.accountId, 10)
})
