// `npm run bench:free-work`: what a caller who pays nothing can make the server do. Each case is sent to a real
// API process (`node core/server.ts --api` as `npm run start:api` runs it, default limits) from an account with
// 0 credits, as a dry run or with a test key, while /healthz is polled every 10 ms: the time of each request and
// the longest /healthz wait beside it (the API's event loop), and the API's CPU over the case.
// A request not answered within BENCH_FREE_CAP_S (default 60) is recorded as over the cap; the API and its
// decoders are then killed and started again for the next case.
// BENCH_API_DIR: the checkout whose server runs (default: this one), to measure an older commit with this script:
//   git archive <commit> | tar -x -C /tmp/old && ln -s "$PWD/node_modules" /tmp/old/ && BENCH_API_DIR=/tmp/old npm run bench:free-work
// BENCH_ONLY=pages,tokens,pdf,flood,schema runs a subset.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import path from 'node:path'
import { createKey } from '../../core/accounts/keys.ts'
import { nestedAnyOf, plainPdf, unterminatedStreams } from '../../devkit/fixtures/hostile.ts'
import { firstLine, freePort } from './children.ts'
import { cpuMs, median } from './proc.ts'
import { benchAccount, benchDatabase } from './setup.ts'

const CAP_MS = Number(process.env.BENCH_FREE_CAP_S ?? 60) * 1000
const API_DIR = path.resolve(process.env.BENCH_API_DIR ?? '.')
const ONLY = process.env.BENCH_ONLY ? new Set(process.env.BENCH_ONLY.split(',')) : null

const server = await benchDatabase('free')
const { db } = server
const free = await benchAccount(db, 'free', 0)
const freeTest = (await createKey(db, free.accountId, { name: 'bench test', mode: 'test' })).key
const paying = await benchAccount(db, 'paying', 1_000_000)

const model = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench/model.ts'], { stdio: ['ignore', 'pipe', 'inherit'] })
const modelURL = await firstLine(model)

// ---------- the API, restartable (its own process group: its decoders die with it) ----------
let api: ChildProcess
let apiUrl = ''
async function startApi(): Promise<void> {
  const scripts = (JSON.parse(readFileSync(path.join(API_DIR, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
  const words = scripts['start:api']!.split(/\s+/)
  const port = await freePort()
  api = spawn(process.execPath, [...words.slice(1, words.indexOf('core/server.ts')), 'core/server.ts', '--api'], {
    cwd: API_DIR,
    detached: true,
    env: {
      ...process.env,
      DATABASE_URL: server.url,
      PORT: String(port),
      MAIL_TO_LOG: 'true',
      SECRET_ENCRYPTION_KEY: process.env.SECRET_ENCRYPTION_KEY ?? 'b'.repeat(64), // a database of its own, used by no other process
      OPENAI_BASE_URL: modelURL,
      OPENAI_API_KEY: 'bench',
      AI_WIRE_API: 'chat',
      RATE_LIMITS: JSON.stringify({ parse: 1e9, classify: 1e9, structure: 1e9 }),
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  await firstLine(api, (l) => l.includes('"API listening') || l.includes('API listening'))
  apiUrl = `http://127.0.0.1:${port}`
}
async function killApi(): Promise<void> {
  if (api.exitCode !== null || api.signalCode !== null) return
  const exited = once(api, 'exit')
  process.kill(-api.pid!, 'SIGKILL')
  await exited
}
await startApi()

// ---------- requests ----------
interface Answer {
  status: number | 'timeout'
  code?: string
  ms: number
  liveStatus?: number
}
async function call(endpoint: string, key: string, body: string, dryRun: boolean): Promise<Answer> {
  const t = performance.now()
  try {
    const res = await fetch(`${apiUrl}/v1/${endpoint}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', ...(dryRun ? { 'service-dry-run': '1' } : {}) },
      body,
      signal: AbortSignal.timeout(CAP_MS),
    })
    const json = (await res.json()) as { error?: { code: string }; liveStatus?: number }
    return {
      status: res.status,
      ...(json.error ? { code: json.error.code } : {}),
      ...(json.liveStatus ? { liveStatus: json.liveStatus } : {}),
      ms: performance.now() - t,
    }
  } catch {
    return { status: 'timeout', ms: performance.now() - t }
  }
}

/** Polls /healthz every 10 ms until stopped; the longest wait in ms (a probe still waiting counts as it stands). */
function healthzWatch() {
  let running = true
  let worst = 0
  const loop = (async () => {
    while (running) {
      const t = performance.now()
      const probe = fetch(`${apiUrl}/healthz`, { signal: AbortSignal.timeout(CAP_MS) }).then((r) => r.arrayBuffer())
      const tick = setInterval(() => (worst = Math.max(worst, performance.now() - t)), 50)
      await probe.catch(() => {})
      clearInterval(tick)
      worst = Math.max(worst, performance.now() - t)
      await new Promise((r) => setTimeout(r, 10))
    }
  })()
  return async () => {
    running = false
    await Promise.race([loop, new Promise((r) => setTimeout(r, 100))])
    return worst
  }
}

interface Row {
  group: string
  name: string
  answers: Answer[]
  healthzMs: number
  apiCpuMs: number
  note?: string
}
const rows: Row[] = []
async function measure(group: string, name: string, run: () => Promise<Answer[] | { answers: Answer[]; note: string }>): Promise<void> {
  if (ONLY && !ONLY.has(group)) return
  const cpu0 = cpuMs(api.pid!)
  const healthz = healthzWatch()
  const out = await run()
  const { answers, note } = Array.isArray(out) ? { answers: out, note: undefined } : out
  const row: Row = { group, name, answers, healthzMs: await healthz(), apiCpuMs: cpuMs(api.pid!) - cpu0, ...(note ? { note } : {}) }
  rows.push(row)
  console.error(`${name}: ${summary(row)}`)
  if (answers.some((a) => a.status === 'timeout')) {
    await killApi()
    await startApi()
  }
  await new Promise((r) => setTimeout(r, 500))
}

const dry = (endpoint: string, body: object) => () => call(endpoint, free.key, JSON.stringify(body), true).then((a) => [a])
const file = (text: string, mimeType: string) => ({ data: Buffer.from(text).toString('base64'), mimeType })
const randomCjk = (n: number) => Array.from({ length: n }, () => String.fromCharCode(0x4e00 + Math.floor(Math.random() * 20_000))).join('')

// 1. pages on text documents
await measure(
  'pages',
  'parse dry run: text "x\\f" × 100,000, pages 1-100000',
  dry('parse', { text: 'x\f'.repeat(100_000), pages: '1-100000' }),
)
await measure(
  'pages',
  'parse dry run: text "x\\f" × 250,000, pages 1-250000',
  dry('parse', { text: 'x\f'.repeat(250_000), pages: '1-250000' }),
)
await measure(
  'pages',
  'parse dry run: text/plain file of 5,000,000 pages, pages 1-999999',
  dry('parse', { file: file('x\f'.repeat(5_000_000), 'text/plain'), pages: '1-999999' }),
)

// 2. token counts for the price
await measure('tokens', 'classify dry run: "b" × 150,000', dry('classify', { text: 'b'.repeat(150_000), labels: ['a', 'b'] }))
await measure('tokens', 'classify dry run: "中" × 40,000', dry('classify', { text: '中'.repeat(40_000), labels: ['a', 'b'] }))
await measure('tokens', 'classify dry run: "b" × 500,000 (the limit)', dry('classify', { text: 'b'.repeat(500_000), labels: ['a', 'b'] }))
await measure(
  'tokens',
  'classify dry run: 500,000 random CJK characters',
  dry('classify', { text: randomCjk(500_000), labels: ['a', 'b'] }),
)

// 6. the PDF scan and the decoders
const slowPdf = unterminatedStreams(500, 4_000_000)
const slowBody = JSON.stringify({ file: { data: slowPdf.toString('base64'), mimeType: 'application/pdf' } })
await measure('pdf', `parse dry run: ${(slowPdf.length / 1e6).toFixed(1)} MB PDF of 500 unterminated streams`, () =>
  call('parse', free.key, slowBody, true).then((a) => [a]),
)
await measure('flood', '10 such dry runs at once (0 credits) + another account paying for a 2-page parse every second', async () => {
  const flood = Promise.all(Array.from({ length: 10 }, () => call('parse', free.key, slowBody, true)))
  const normal = JSON.stringify({ file: { data: plainPdf('Invoice 42', 'Total 10.00').toString('base64'), mimeType: 'application/pdf' } })
  let flooding = true
  void flood.then(() => (flooding = false))
  const paid: Answer[] = []
  await new Promise((r) => setTimeout(r, 300))
  while (flooding && paid.length < 60) {
    const started = performance.now()
    paid.push(await call('parse', paying.key, normal, false))
    await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (performance.now() - started))))
  }
  const floodAnswers = await flood
  const ok = paid.filter((a) => a.status === 200)
  return {
    answers: floodAnswers,
    note: `the paying account: ${ok.length}/${paid.length} parses served (${statuses(paid)}), slowest ${Math.round(Math.max(...paid.map((a) => a.ms)))} ms`,
  }
})

// 9. caller schemas on /v1/structure, with a test key
const schema = nestedAnyOf(2, 20, 'bench')
const schemaKb = (JSON.stringify(schema).length / 1000).toFixed(0)
await measure('schema', `structure, test key: 10 calls at once with one ${schemaKb} KB nested-anyOf schema`, () =>
  Promise.all(Array.from({ length: 10 }, () => call('structure', freeTest, JSON.stringify({ input: 'x', schema }), false))),
)
await measure('schema', `structure, test key: 10 calls at once, each its own ${schemaKb} KB nested-anyOf schema`, () =>
  Promise.all(
    Array.from({ length: 10 }, (_, i) =>
      call('structure', freeTest, JSON.stringify({ input: 'x', schema: nestedAnyOf(2, 20, `v${i}bnch`) }), false),
    ),
  ),
)

// ---------- report ----------
function statuses(answers: Answer[]): string {
  const counts = new Map<string, number>()
  for (const a of answers) {
    const key =
      a.status === 'timeout'
        ? `> ${CAP_MS / 1000} s`
        : `${a.status}${a.code ? ` ${a.code}` : ''}${a.liveStatus ? ` (live ${a.liveStatus})` : ''}`
    counts.set(key, (counts.get(key) ?? 0) + 1)
  }
  return [...counts].map(([k, n]) => (n > 1 ? `${n}× ${k}` : k)).join(', ')
}
function summary(r: Row): string {
  const ms = r.answers.map((a) => a.ms)
  const time =
    r.answers.length === 1 ? `${Math.round(ms[0]!)} ms` : `median ${Math.round(median(ms))} ms, max ${Math.round(Math.max(...ms))} ms`
  return `${statuses(r.answers)}; ${time}; /healthz ${Math.round(r.healthzMs)} ms; API CPU ${Math.round(r.apiCpuMs)} ms${r.note ? `; ${r.note}` : ''}`
}
const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ')
console.log(`\n## free-work bench (${new Date().toISOString()}, API from ${API_DIR}, load average ${load}, cap ${CAP_MS / 1000} s)\n`)
console.log('| case | answers | time per request | longest /healthz wait | API CPU |')
console.log('|---|---|---|---|---|')
for (const r of rows) {
  const ms = r.answers.map((a) => a.ms)
  const time =
    r.answers.length === 1 ? `${Math.round(ms[0]!)} ms` : `median ${Math.round(median(ms))} ms, max ${Math.round(Math.max(...ms))} ms`
  const name = r.note ? `${r.name} (${r.note})` : r.name
  console.log(`| ${name} | ${statuses(r.answers)} | ${time} | ${Math.round(r.healthzMs)} ms | ${Math.round(r.apiCpuMs)} ms |`)
}
await killApi()
model.kill()
await db.close()
await server.stop()
