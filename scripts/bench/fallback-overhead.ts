// What the fallback machinery (issue 28) costs a call its first provider answers, without the network and the
// SDK around it: `tryLinks` over a chain of one (no fallback configured) and of two (a per-attempt timer), with
// and without the meter that counts each attempt in the metrics. CPU per call, interleaved blocks, medians.
// `npx tsx scripts/bench/fallback-overhead.ts [calls per block] [rounds]`
import type { LanguageModelV4Usage } from '@ai-sdk/provider'
import { Breaker, tryLinks, type ModelLink, type ModelMeter } from '../../core/models/fallback.ts'
import { createMetrics } from '../../core/observability/metrics.ts'
import { median } from './proc.ts'

const calls = Number(process.argv[2] ?? 20_000)
const rounds = Number(process.argv[3] ?? 12)
const link = (provider: string): ModelLink => ({
  provider,
  model: 'gpt-4.1-mini',
  language: 'unused',
  breaker: new Breaker(),
  price: { inputPerMTok: 0.4, outputPerMTok: 1.6 },
})
const usage: LanguageModelV4Usage = {
  inputTokens: { total: 120, noCache: 120, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 30, text: 30, reasoning: 0 },
}
const answer = { usage }
const metrics = createMetrics()
const meter: ModelMeter = { attempt: (r) => metrics.providerAttempt(r), fallback: (from, to) => metrics.providerFallback(from, to) }
const signal = new AbortController().signal
const one = [link('primary')]
const two = [link('primary'), link('fallback')]
const variants: Record<string, () => Promise<unknown>> = {
  'the model call itself (an awaited answer)': async () => answer,
  'chain of one, no meter': () => tryLinks(one, undefined, signal, undefined, async () => answer),
  'chain of one, metered': () => tryLinks(one, undefined, signal, meter, async () => answer),
  'chain of two (attempt timer), metered': () => tryLinks(two, 20_000, signal, meter, async () => answer),
}
const perCall: Record<string, number[]> = {}
for (const run of Object.values(variants)) for (let i = 0; i < 2000; i++) await run()
for (let r = 0; r < rounds; r++) {
  const order = Object.entries(variants)
  if (r % 2) order.reverse()
  for (const [name, run] of order) {
    const t0 = process.cpuUsage()
    for (let i = 0; i < calls; i++) await run()
    const d = process.cpuUsage(t0)
    ;(perCall[name] ??= []).push(((d.user + d.system) / calls) * 1000)
  }
}
for (const [name, xs] of Object.entries(perCall)) console.log(`${median(xs).toFixed(0).padStart(6)} ns CPU per call  ${name}`)
