// The model call alone, A/B: `generateObject` from two checkouts in this process against the bench's fake model
// (scripts/bench/model.ts) in its own; CPU of this process per call, blocks of the two interleaved, medians.
// Steadier than the full bench for a change inside core/models or core/net.
// `npx tsx scripts/bench/model-call.ts <checkout A> <checkout B> [calls per block] [rounds] [responses|chat]`
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import path from 'node:path'
import { Type } from '@sinclair/typebox'
import { median } from './proc.ts'

const [dirA, dirB] = [path.resolve(process.argv[2]!), path.resolve(process.argv[3]!)]
const calls = Number(process.argv[4] ?? 500)
const rounds = Number(process.argv[5] ?? 12)
const wireApi = (process.argv[6] ?? 'responses') as 'responses' | 'chat'
const fake = spawn(process.execPath, ['--import', 'tsx', new URL('./model.ts', import.meta.url).pathname], {
  stdio: ['ignore', 'pipe', 'inherit'],
})
const baseURL = ((await once(fake.stdout, 'data')) as [Buffer])[0].toString().trim()

const labels = ['billing', 'technical']
async function variant(dir: string) {
  const { generateObject } = (await import(`${dir}/core/models/generate.ts`)) as typeof import('../../core/models/generate.ts')
  const { openAIProvider } = (await import(`${dir}/core/models/provider.ts`)) as typeof import('../../core/models/provider.ts')
  const provider = openAIProvider({
    apiKey: 'bench',
    baseURL,
    wireApi,
    models: { text: 'gpt', image: 'i', speech: 's', transcription: 't' },
  })
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
      { system: `You classify text. Allowed labels: ${JSON.stringify(labels)}.`, content: 'My card was charged twice.', schema },
      { signal: new AbortController().signal, timeoutMs: 30_000 },
    )
    if (r.object.label !== 'billing') throw new Error(`unexpected answer ${JSON.stringify(r.object)}`)
  }
}
const runs = { A: await variant(dirA), B: await variant(dirB) }
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
  console.log(`${k} ${k === 'A' ? dirA : dirB}: ${median(perCall[k]).toFixed(3)} ms CPU per call (median of ${rounds} blocks of ${calls})`)
fake.kill()
