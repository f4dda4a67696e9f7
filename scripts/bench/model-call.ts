// The model call alone, A/B: `generateObject` from two checkouts in this process against the bench's fake model
// (scripts/bench/model.ts) in its own; CPU of this process per call, blocks of the two interleaved, medians.
// Steadier than the full bench for a change inside core/models or core/net.
// `npx tsx scripts/bench/model-call.ts <checkout A> <checkout B> [calls per block] [rounds] [responses|chat] [none|a|b|both] [classify]`
// The sixth argument gives that variant a fallback provider (issue 28; a checkout without one ignores it): a chain
// of two with a per-attempt timeout, the primary always answering, every attempt counted by that checkout's metrics.
// `classify`: classify's handler through the capability context instead (its schema built from the labels per call,
// the budget, the meter), as a live call runs it. Run with `node` (not tsx) to time the code as `npm start` runs it:
// esbuild's keepNames wraps every closure the code makes.
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import path from 'node:path'
import { Type } from '@sinclair/typebox'
import type { AttemptRecord } from '../../core/observability/attempt.ts'
import { pino } from 'pino'
import type { Capability } from '../../core/run/registry.ts'
import { median } from './proc.ts'

const [dirA, dirB] = [path.resolve(process.argv[2]!), path.resolve(process.argv[3]!)]
const calls = Number(process.argv[4] ?? 500)
const rounds = Number(process.argv[5] ?? 12)
const wireApi = (process.argv[6] ?? 'responses') as 'responses' | 'chat'
const withFallback = process.argv[7] ?? 'none'
const classify = process.argv[8] === 'classify'
const fake = spawn(process.execPath, ['--import', 'tsx', new URL('./model.ts', import.meta.url).pathname], {
  stdio: ['ignore', 'pipe', 'inherit'],
})
const baseURL = ((await once(fake.stdout, 'data')) as [Buffer])[0].toString().trim()

const labels = ['billing', 'technical']
async function variant(dir: string, fallback: boolean) {
  const { generateObject } = (await import(`${dir}/core/models/generate.ts`)) as typeof import('../../core/models/generate.ts')
  const { openAIProvider } = (await import(`${dir}/core/models/provider.ts`)) as typeof import('../../core/models/provider.ts')
  const { createMetrics } = (await import(`${dir}/core/observability/metrics.ts`)) as typeof import('../../core/observability/metrics.ts')
  const provider = openAIProvider({
    apiKey: 'bench',
    baseURL,
    wireApi,
    models: { text: 'gpt-4.1-mini', image: 'i', speech: 's', transcription: 't' },
    ...(fallback && {
      fallbacks: [{ name: 'fallback', apiKey: 'bench', baseURL, wireApi }],
      attemptTimeoutMs: 20_000,
      prices: { 'gpt-4.1-mini': { inputPerMTok: 0.4, outputPerMTok: 1.6 } },
    }),
  })
  const metrics = createMetrics()
  // A checkout from before issue 28 has neither a meter nor these metrics.
  const meter =
    fallback && 'providerAttempt' in metrics
      ? {
          attempt: (r: AttemptRecord) => metrics.providerAttempt(r),
          fallback: (from: string, to: string) => metrics.providerFallback(from, to),
        }
      : undefined
  if (classify) return classifyCall(dir, provider, metrics)
  const schema = Type.Object(
    {
      label: Type.Unsafe<string>({ type: 'string', enum: labels }),
      confidence: Type.Number({ minimum: 0, maximum: 1 }),
      rationale: Type.String(),
    },
    { additionalProperties: false },
  )
  return async () => {
    const r = await generateObject<{ label: string }>(
      provider,
      {
        system: `You classify text. Allowed labels: ${JSON.stringify(labels)}.`,
        content: 'My card was charged twice.',
        schema,
        maxOutputTokens: 4096,
      },
      { signal: new AbortController().signal, timeoutMs: 30_000, ...(meter && { meter }) },
    )
    if (r.object.label !== 'billing') throw new Error(`unexpected answer ${JSON.stringify(r.object)}`)
  }
}
/** One classify call as the pipeline makes it, after the hold: the capability context, then the handler. */
async function classifyCall(dir: string, provider: unknown, metrics: unknown) {
  const { capabilityContext } = (await import(`${dir}/core/run/context.ts`)) as typeof import('../../core/run/context.ts')
  const capability = ((await import(`${dir}/capabilities/classify/manifest.ts`)) as { default: Capability }).default
  const services = {
    config: { ai: {}, callbacksAllowPrivate: false },
    provider,
    metrics,
    logger: pino({ level: 'silent' }),
    modelRequests: { add() {}, flush: async () => {}, close: async () => {} },
    log() {},
    now: () => new Date(),
  } as unknown as Parameters<typeof capabilityContext>[0]
  return async () => {
    const context = capabilityContext(services, capability, {
      requestId: 'req_bench',
      accountId: 'bench',
      signal: new AbortController().signal,
      timeoutMs: 30_000,
      credits: capability.price,
    })
    const r = (await capability.handler({ text: 'My card was charged twice.', labels }, context)) as { label: string }
    if (r.label !== 'billing') throw new Error(`unexpected answer ${JSON.stringify(r)}`)
  }
}

const fallbackIn = { A: withFallback === 'a' || withFallback === 'both', B: withFallback === 'b' || withFallback === 'both' }
const runs = { A: await variant(dirA, fallbackIn.A), B: await variant(dirB, fallbackIn.B) }
const perCall: Record<'A' | 'B', number[]> = { A: [], B: [] }
for (const k of ['A', 'B'] as const) for (let i = 0; i < 200; i++) await runs[k]() // warm-up
for (let r = 0; r < rounds; r++) {
  const order: Array<'A' | 'B'> = r % 2 ? ['B', 'A'] : ['A', 'B']
  for (const k of order) {
    const t0 = process.cpuUsage()
    for (let i = 0; i < calls; i++) await runs[k]()
    const d = process.cpuUsage(t0)
    perCall[k].push((d.user + d.system) / calls / 1000)
  }
}
for (const k of ['A', 'B'] as const)
  console.log(
    `${k} ${k === 'A' ? dirA : dirB}${fallbackIn[k] ? ' with a fallback' : ''}: ${median(perCall[k]).toFixed(3)} ms CPU per call (median of ${rounds} blocks of ${calls})`,
  )
fake.kill()
