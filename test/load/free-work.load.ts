// No work that grows with a caller's input runs super-linearly or for long on the API's event loop, and work no
// call pays for is bounded per account. To every endpoint of the registry, as a dry run from an account with no
// credits and as a test key's call, the input shapes that once froze the server, at the schema's limits: repeated
// characters, CJK, form feeds, 250,000 pages, a text file of a million pages, a PDF whose streams never end, a
// nested schema. Each is answered (a dry-run report, a test answer) or refused 4xx, and the CPU the event loop
// runs between two of its turns while it is served stays under 100 ms (a time over it is measured once more).
// The heavier variants (the limits of each field with random CJK, ten calls at once, the bigger files) are in
// `npm run bench:free-work`.
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { stopCoverage, takeCoverage } from 'node:v8'
import t from 'tap'
import { CAPABILITIES_ROOT, capabilityFolders } from '../../core/capability-folders.ts'
import { createKey } from '../../core/accounts/keys.ts'
import type { Capability } from '../../core/run/registry.ts'
import { startTestApp } from '../helpers/app.ts'
import { nestedAnyOf, unterminatedStreams } from '../../devkit/fixtures/hostile.ts'

t.setTimeout(900_000)
const ONLY = process.env.FUZZ_ONLY?.split(',')
const MAX_DELAY_MS = 100
const names = capabilityFolders(CAPABILITIES_ROOT)
// Limits and pauses answer before the work this test is about; lifted.
const app = await startTestApp(t, {
  config: {
    rateLimits: Object.fromEntries(names.map((n) => [n, 1e9])),
    paused: Object.fromEntries(names.map((n) => [n, false] as const)),
  },
})
app.contract.compileAll() // the client's checks of the answers compiled before the clock starts
// The bound is the server's, not that of code instrumented for coverage (npm test's full run counts every block,
// which makes the same work several times slower): what the app's start covered is written, then counting stops.
if (process.env.NODE_V8_COVERAGE) {
  takeCoverage()
  stopCoverage()
}
const free = await app.customer(0)
const testKey = (await createKey(app.services.db, free.accountId, { name: 'fuzz', mode: 'test' })).key

type Schema = { type?: string; maxLength?: number; properties?: Record<string, Schema> }
const isDoc = (s: Schema | undefined) => !!s?.properties && 'fileUrl' in s.properties

/** The hostile values of a text field of at most `max` characters. */
function texts(max: number): Array<[string, string]> {
  return [
    ['repeated "b"', 'b'.repeat(max)],
    ['repeated CJK', '中'.repeat(max)],
    ['form feeds', 'x\f'.repeat(max >> 1)],
  ]
}

const slowPdf = unterminatedStreams(300, 2_000_000).toString('base64') // the bench sends the 4 MB one
const docs: Array<[string, Record<string, unknown>]> = [
  ['250,000 text pages, all selected', { text: 'x\f'.repeat(250_000), pages: '1-250000' }],
  [
    'a text file of 1,000,000 pages',
    { file: { data: Buffer.from('x\f'.repeat(1_000_000)).toString('base64'), mimeType: 'text/plain' }, pages: '1-999999' },
  ],
  ['a 2 MB PDF of 300 streams that never end', { file: { data: slowPdf, mimeType: 'application/pdf' } }],
]

/** Bodies of `cap`: its example with each long text field, each Doc and the caller's schema replaced by a hostile value. */
function bodies(cap: Capability): Array<[string, string]> {
  const example = cap.example.request as Record<string, unknown>
  const props = (cap.request as Schema).properties ?? {}
  const out: Array<[string, string]> = []
  // A document endpoint's body is the Doc itself; compare's has two.
  const root = isDoc(cap.request as Schema)
  const rest = root ? Object.fromEntries(Object.entries(example).filter(([k]) => !DOC_FIELDS.includes(k))) : example
  const put = (field: string | null, value: unknown) =>
    JSON.stringify(field ? { ...example, [field]: value } : { ...rest, ...(value as object) })
  if (root) for (const [why, doc] of docs) out.push([why, put(null, doc)])
  for (const [field, schema] of Object.entries(props)) {
    if (isDoc(schema)) for (const [why, doc] of docs) out.push([`${field}: ${why}`, put(field, doc)])
    if (schema.type !== 'string' || (schema.maxLength ?? 0) < 20_000) continue
    for (const [why, text] of texts(schema.maxLength!))
      out.push([`${field}: ${why}`, root && field === 'text' ? put(null, { text }) : put(field, text)])
  }
  if (cap.name === 'structure') out.push(['a 65 KB nested-anyOf schema', put('schema', nestedAnyOf(2, 20, 'fuzz'))])
  if (cap.name === 'classify') out.push(['text: 100,000 CJK characters of 20,000 kinds', put('text', manyCjk(100_000))])
  return out
}
const DOC_FIELDS = ['file', 'fileUrl', 'text', 'pages']
const manyCjk = (n: number) => Array.from({ length: n }, (_, i) => String.fromCharCode(0x4e00 + ((i * 7919) % 20_000))).join('')

/**
 * The answer; the event loop's longest delay while it was served (perf_hooks, wall time), and the longest CPU time
 * this thread spent between two turns of a 5 ms timer: the same delay less the time the machine gave this
 * process no core, which on a shared machine with 2 cores is most of a delay.
 */
async function served(endpoint: string, key: string, raw: string, dryRun: boolean) {
  const delay = monitorEventLoopDelay({ resolution: 5 })
  const cpu = () => {
    const used = process.threadCpuUsage()
    return (used.user + used.system) / 1000
  }
  let last = cpu()
  let blockedMs = 0
  const tick = setInterval(() => {
    const now = cpu()
    blockedMs = Math.max(blockedMs, now - last)
    last = now
  }, 5)
  delay.enable()
  const res = await app.call(`/v1/${endpoint}`, { key, raw, headers: dryRun ? { 'service-dry-run': '1' } : {} })
  delay.disable()
  clearInterval(tick)
  return { res, delayMs: delay.max / 1e6, blockedMs: Math.max(blockedMs, cpu() - last) }
}

const caps = [...app.services.capabilities.values()]
t.ok(caps.length >= 39, 'every endpoint of the registry')
for (const cap of caps.filter((c) => !ONLY || ONLY.includes(c.name))) {
  t.test(`/v1/${cap.name}`, async (t) => {
    for (const [why, raw] of bodies(cap)) {
      for (const [mode, key, dryRun] of [
        ['dry run, 0 credits', free.key, true],
        ['test key', testKey, false],
      ] as const) {
        let { res, delayMs, blockedMs } = await served(cap.name, key, raw, dryRun)
        // Over the bound once: measured once more (a collection of this process's large heap — the test's own
        // bodies and fixtures — can land between two turns); work that is itself too long is over it again.
        if (blockedMs >= MAX_DELAY_MS) ({ res, delayMs, blockedMs } = await served(cap.name, key, raw, dryRun))
        t.ok(res.status < 500, `${why}, ${mode}: answered or refused 4xx (${res.status} ${res.body?.error?.code ?? ''})`)
        if (dryRun && res.status === 200)
          t.ok(res.body.liveStatus < 500 || res.body.liveStatus === 503, `${why}: the live call would not fail`)
        t.ok(
          blockedMs < MAX_DELAY_MS,
          `${why}, ${mode}: the event loop ran at most ${blockedMs.toFixed(0)} ms of CPU between two turns (its longest delay ${delayMs.toFixed(0)} ms)`,
        )
      }
    }
  })
}

t.test('unpaid work is bounded per account: once its budget is spent, its dry runs are refused 429', async (t) => {
  const spender = await app.customer(0)
  const other = await app.customer(0)
  // A live call of this account read documents for an hour's worth of decoder time and was not charged.
  app.services.sandbox.drawUnpaid({ accountId: spender.accountId, unpaid: false, decoderMs: 3_600_000 })
  const body = { text: 'x\f'.repeat(20_000), labels: ['a', 'b'] }
  const res = await app.call('/v1/classify', {
    key: spender.key,
    body: { ...body, text: 'b '.repeat(40_000) },
    headers: { 'service-dry-run': '1' },
  })
  t.equal(res.status, 429, res.text)
  t.equal(res.body.error.code, 'free_decoding_exhausted')
  t.ok(Number(res.headers.get('retry-after')) > 0, 'with Retry-After')
  const small = await app.call('/v1/classify', {
    key: spender.key,
    body: { text: 'short', labels: ['a', 'b'] },
    headers: { 'service-dry-run': '1' },
  })
  t.equal(small.status, 200, 'work that needs no decoder is not refused')
  const others = await app.call('/v1/classify', {
    key: other.key,
    body: { ...body, text: 'b '.repeat(40_000) },
    headers: { 'service-dry-run': '1' },
  })
  t.equal(others.status, 200, "another account's dry run is served")
})
