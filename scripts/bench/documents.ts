// `npm run bench:documents`: untrusted documents against a real API process (`node core/server.ts --api` as
// `npm run start:api` runs it, default limits), the fake model over HTTP, the embedded PostgreSQL (or DATABASE_URL).
//  1. one 2 MiB flate bomb (2 GiB inflated) on sync /v1/parse: time to the 422, peak RSS of the API and its
//     decoders together, the longest /healthz wait meanwhile (polled every 10 ms), the ledger after;
//  2. 8 bombs at once plus 50 normal parses (10 clients; every call retries a 503 after its Retry-After): every
//     normal parse served, the API never restarted, peak RSS;
//  3. a normal 20-page PDF (pdf-lib, text-heavy): pdf.js in this process as before (unpdf's extractText) against the pool
//     (scan + hardened pdf.js in a decoder, over IPC), two paths at a time in a random order.
// BENCH_BOMB_MIB (default 2048) sets the bomb's inflated size, BENCH_ROUNDS (default 60) the runs of each path in 3.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readdirSync, readFileSync } from 'node:fs'
import { PDFDocument, StandardFonts } from 'pdf-lib'
import { extractText, getDocumentProxy } from 'unpdf'
import { benchAccount, benchDatabase } from './setup.ts'
import { loadConfig } from '../../core/config.ts'
import { extractPdfText } from '../../core/documents/pdf.ts'
import { DocumentSandbox } from '../../core/documents/sandbox.ts'
import { scanPdf } from '../../core/documents/scan.ts'
import * as hostile from '../../devkit/fixtures/hostile.ts'
import { firstLine, freePort } from './children.ts'
import { median } from './proc.ts'

const MiB = 1024 * 1024
const BOMB_MIB = Number(process.env.BENCH_BOMB_MIB ?? 2048)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 60)
const children: ChildProcess[] = []

function child(file: string, args: string[], env: Record<string, string>, nodeArgs: string[]): ChildProcess {
  const c = spawn(process.execPath, [...nodeArgs, file, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  children.push(c)
  return c
}

// ---------- memory of the API and its decoders ----------
const kib = (pid: number, field: string) => {
  try {
    return Number(new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0)
  } catch {
    return 0
  }
}
function childrenOf(pid: number): number[] {
  const out: number[] = []
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue
    try {
      const stat = readFileSync(`/proc/${d}/stat`, 'utf8')
      if (Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) === pid) out.push(Number(d))
    } catch {
      // gone between readdir and read
    }
  }
  return out
}
/** Samples the summed RSS of `pid` and its children every 20 ms until stopped; returns the peak in MiB. */
function groupPeak(pid: number) {
  let peak = 0
  let kids = childrenOf(pid)
  let n = 0
  const timer = setInterval(() => {
    if (++n % 10 === 0) kids = childrenOf(pid) // decoders come and go
    const sum = kib(pid, 'VmRSS') + kids.reduce((s, k) => s + kib(k, 'VmRSS'), 0)
    peak = Math.max(peak, sum)
  }, 20)
  return () => {
    clearInterval(timer)
    return peak / 1024
  }
}

/** Polls /healthz every 10 ms until stopped; returns the longest wait in ms. */
function healthzWatch(url: string) {
  let running = true
  let worst = 0
  const loop = (async () => {
    while (running) {
      const t = performance.now()
      await (await fetch(`${url}/healthz`)).arrayBuffer()
      worst = Math.max(worst, performance.now() - t)
      await new Promise((r) => setTimeout(r, 10))
    }
  })()
  return async () => {
    running = false
    await loop
    return worst
  }
}

// ---------- setup ----------
const server = await benchDatabase('docs')
const { url, db } = server
const { accountId, key } = await benchAccount(db, 'docs', 1_000_000)
const balance = async () => Number((await db.sql(`select balance, reserved from accounts where id = ?`, [accountId]))[0]!.balance)

const model = child('scripts/bench/model.ts', [], {}, ['--import', 'tsx'])
const modelURL = await firstLine(model)
const port = await freePort()
const startFlags = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts['start:api']!
const api = child(
  'core/server.ts',
  ['--api'],
  {
    DATABASE_URL: url,
    PORT: String(port),
    MAIL_TO_LOG: 'true', // no SMTP server here; sign-in emails are never sent by a bench
    OPENAI_BASE_URL: modelURL,
    OPENAI_API_KEY: 'bench',
    AI_WIRE_API: 'chat',
    RATE_LIMITS: JSON.stringify({ parse: 1e9 }),
  },
  startFlags.split(/\s+/).slice(1, startFlags.split(/\s+/).indexOf('core/server.ts')),
)
await firstLine(api, (l) => l.includes('"API listening'))
const apiUrl = `http://127.0.0.1:${port}`
const apiPid = api.pid!

const body = (bytes: Buffer) => JSON.stringify({ file: { data: bytes.toString('base64'), mimeType: 'application/pdf' } })
async function parse(payload: string): Promise<{ status: number; code?: string; retryAfter: string | null; ms: number }> {
  const t = performance.now()
  const res = await fetch(`${apiUrl}/v1/parse`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: payload,
  })
  const json = (await res.json()) as { error?: { code: string } }
  return {
    status: res.status,
    ...(json.error ? { code: json.error.code } : {}),
    retryAfter: res.headers.get('retry-after'),
    ms: performance.now() - t,
  }
}

/** A text-heavy 20-page document as a word processor would export it: about 45 lines and 3,500 characters a page. */
async function twentyPages(): Promise<Buffer> {
  const doc = await PDFDocument.create()
  const font = await doc.embedFont(StandardFonts.Helvetica)
  const bold = await doc.embedFont(StandardFonts.HelveticaBold)
  const invoice = (await import('../../devkit/fixtures/documents.ts')).invoice1.toText().split('\n')
  for (let p = 1; p <= 20; p++) {
    const page = doc.addPage([612, 792])
    page.drawText(`Section ${p}: terms, schedules and line items`, { x: 50, y: 750, size: 14, font: bold })
    for (let l = 0; l < 45; l++) {
      const text = `${p}.${l + 1} ${invoice[(p * 7 + l) % invoice.length]} - clause text continues with the agreed amounts and dates.`
      page.drawText(text.slice(0, 95), { x: 50, y: 720 - l * 15, size: 9, font })
    }
  }
  return Buffer.from(await doc.save())
}
const twenty = await twentyPages()
const normal = body(twenty)
for (let i = 0; i < 3; i++) await parse(normal) // warm: decoders spawned, JIT, key cache
const apiBaseMiB = kib(apiPid, 'VmRSS') / 1024

// ---------- 1. one bomb ----------
let t = performance.now()
const bombPdf = hostile.flateBomb(BOMB_MIB * MiB)
const buildMs = performance.now() - t
const bomb = body(bombPdf)
let before = await balance()
let peak = groupPeak(apiPid)
let healthz = healthzWatch(apiUrl)
const one = await parse(bomb)
const one_ = { ...one, peakMiB: peak(), healthzMs: await healthz(), charged: before - (await balance()) }

// ---------- 2. 8 bombs and 50 normal parses ----------
before = await balance()
peak = groupPeak(apiPid)
healthz = healthzWatch(apiUrl)
t = performance.now()
let retries = 0
/** As a client should (the SDK does): a 503 is retried after its Retry-After. */
async function untilServed(payload: string) {
  const started = performance.now()
  for (;;) {
    const r = await parse(payload)
    if (r.status !== 503) return { ...r, ms: performance.now() - started }
    retries++
    await new Promise((res) => setTimeout(res, Number(r.retryAfter ?? 1) * 1000))
  }
}
const normalResults: Array<{ status: number; ms: number }> = []
let next = 0
const client = async () => {
  while (next < 50) {
    next++
    normalResults.push(await untilServed(normal))
  }
}
const [bombs] = await Promise.all([Promise.all(Array.from({ length: 8 }, () => untilServed(bomb))), ...Array.from({ length: 10 }, client)])
const mixMs = performance.now() - t
const mix = {
  bombs: bombs.map((b) => `${b.status} ${b.code ?? ''}`.trim()),
  bombMs: median(bombs.map((b) => b.ms)),
  normalServed: normalResults.filter((r) => r.status === 200).length,
  normalStatuses: [...new Set(normalResults.map((r) => r.status))],
  normalP50: median(normalResults.map((r) => r.ms)),
  retries,
  peakMiB: peak(),
  healthzMs: await healthz(),
  charged: before - (await balance()),
  apiAlive: api.exitCode === null && api.signalCode === null,
}
const apiHwmMiB = kib(apiPid, 'VmHWM') / 1024

// ---------- 3. the pool's latency on a normal 20-page PDF ----------
const limits = loadConfig({}).documents
const pool = new DocumentSandbox(limits)
const tinyPng = hostile.pngDeclaring(1, 1)
const before_ = { isEvalSupported: false, verbosity: 0 } // the options the server used before the pool
const inProcessBefore = async () => {
  const pdf = await getDocumentProxy(new Uint8Array(twenty), before_)
  await extractText(pdf, { mergePages: false })
}
const paths = {
  'pdf.js in the server process (before)': inProcessBefore,
  'scan + hardened pdf.js, in process': () => extractPdfText(twenty, limits),
  'the pool (scan + hardened pdf.js in a decoder, IPC)': () => pool.decode('application/pdf', twenty),
  'the pool round trip alone (a 1×1 PNG header)': () => pool.decode('image/png', tinyPng),
  'the stream scan alone, in process': () => scanPdf(twenty, limits),
}
type Path = keyof typeof paths
const POOL: Path = 'the pool (scan + hardened pdf.js in a decoder, IPC)'
// Each comparison on its own, the two paths in a random order each round with a pause before each run, as
// between requests: a path run straight after another pdf.js run in the same process finds its code and data in
// the CPU's caches, which a document arriving at the server does not (a fixed order of all paths favoured the
// in-process ones, which ran one after the other).
const comparisons: Array<[Path, Path]> = [
  ['pdf.js in the server process (before)', POOL],
  ['scan + hardened pdf.js, in process', POOL],
  ['the pool round trip alone (a 1×1 PNG header)', 'the stream scan alone, in process'],
]
/**
 * On-CPU and run-queue time (ms) of every thread of these processes so far (Linux schedstat, ns resolution; exact
 * for a process that is not running, so used for the decoders: this process's own comes from getrusage).
 */
function schedMs(pids: number[]): { cpu: number; queued: number } {
  let cpu = 0
  let queued = 0
  for (const pid of pids) {
    try {
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const [run, wait] = readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ').map(Number)
        cpu += run! / 1e6
        queued += wait! / 1e6
      }
    } catch {
      // a decoder replaced meanwhile
    }
  }
  return { cpu, queued }
}
const decoderPids = () =>
  childrenOf(process.pid).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('sandbox-child')
    } catch {
      return false
    }
  })
type Run = { ms: number; cpu: number; queued: number; here: number }
let seed = 24
const random = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32 // the same order on every run
async function compare(pair: [Path, Path]): Promise<Map<Path, Run[]>> {
  const times = new Map<Path, Run[]>(pair.map((name) => [name, []]))
  for (let round = 0; round < ROUNDS + 5; round++) {
    const decoders = decoderPids() // the pool's (one is replaced if it stops)
    for (const name of random() < 0.5 ? pair : [pair[1], pair[0]]) {
      await new Promise((r) => setTimeout(r, 10))
      const [d0, q0, u0] = [schedMs(decoders), schedMs([process.pid]).queued, process.cpuUsage()]
      const s = performance.now()
      await paths[name]()
      const ms = performance.now() - s
      const used = process.cpuUsage(u0)
      const [d1, q1] = [schedMs(decoders), schedMs([process.pid]).queued]
      const here = (used.user + used.system) / 1000
      if (round >= 5) times.get(name)!.push({ ms, cpu: here + d1.cpu - d0.cpu, queued: q1 - q0 + d1.queued - d0.queued, here })
    }
  }
  return times
}
const results: Array<Map<Path, Run[]>> = []
for (const pair of comparisons) results.push(await compare(pair))
await pool.close()
const e2e: number[] = []
for (let i = 0; i < 20; i++) e2e.push((await parse(normal)).ms)

// ---------- report ----------
const r = (n: number) => Math.round(n)
console.log(`\n## documents bench (${new Date().toISOString()}, load average ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]})`)
console.log(`API process after warm-up: ${r(apiBaseMiB)} MiB RSS; its own peak (VmHWM) over the whole run: ${r(apiHwmMiB)} MiB`)
console.log(
  `\n1. one flate bomb, ${(bombPdf.length / MiB).toFixed(1)} MiB PDF inflating to ${BOMB_MIB} MiB (built in ${r(buildMs)} ms), sync /v1/parse:`,
)
console.log(
  `   ${one_.status} ${one_.code} in ${r(one_.ms)} ms; API + decoders peak RSS ${r(one_.peakMiB)} MiB; longest /healthz wait ${r(one_.healthzMs)} ms; charged ${one_.charged}`,
)
console.log(`\n2. 8 bombs at once + 50 normal parses (10 clients) in ${r(mixMs)} ms:`)
console.log(`   bombs: ${mix.bombs.join(', ')} (median ${r(mix.bombMs)} ms)`)
console.log(
  `   normal: ${mix.normalServed}/50 served (statuses ${mix.normalStatuses.join(',')}), p50 ${r(mix.normalP50)} ms; ${mix.retries} calls (bombs and normal) were 503 and retried`,
)
console.log(
  `   API + decoders peak RSS ${r(mix.peakMiB)} MiB; longest /healthz wait ${r(mix.healthzMs)} ms; charged ${mix.charged} credits (${mix.normalServed} parses at ${mix.charged / mix.normalServed}: 10 + 1 a page past 10; the bombs free); API process never restarted: ${mix.apiAlive}`,
)
console.log(`\n3. a normal 20-page PDF (${r(twenty.length / 1024)} KiB), ${ROUNDS} runs of each path in each comparison:`)
// On a shared machine a decode's wall time is mostly how long it waited for a core; the CPU time (every thread of
// this process and of the decoders: getrusage and schedstat) is each path's own cost, the wall time what a call meets.
type Stats = ReturnType<typeof stats>
const stats = (xs: Run[]) => ({
  ms: median(xs.map((x) => x.ms)),
  fastest: Math.min(...xs.map((x) => x.ms)),
  cpu: median(xs.map((x) => x.cpu)),
  queued: median(xs.map((x) => x.queued)),
  here: median(xs.map((x) => x.here)),
})
const pct = (m: number, b: number) => `${m >= b ? '+' : ''}${(((m - b) / b) * 100).toFixed(1)} %`
results.forEach((times, i) => {
  const [a, b] = comparisons[i]!.map((name) => [name, stats(times.get(name)!)] as const) as [[Path, Stats], [Path, Stats]]
  console.log(`   ${String.fromCharCode(97 + i)}) two paths in turn:`)
  for (const [name, x] of [a, b]) {
    const here = name.startsWith('the pool') ? ` (${x.here.toFixed(1)} ms of it in this process: sending, watching, receiving)` : ''
    console.log(
      `     ${name}: wall median ${x.ms.toFixed(1)} ms, fastest ${x.fastest.toFixed(1)} ms; CPU median ${x.cpu.toFixed(1)} ms${here}; waiting for a core ${x.queued.toFixed(1)} ms`,
    )
  }
  if (b[0] === POOL)
    console.log(`     the pool: wall ${pct(b[1].ms, a[1].ms)}, fastest ${pct(b[1].fastest, a[1].fastest)}, CPU ${pct(b[1].cpu, a[1].cpu)}`)
})
console.log(`   end to end, sync /v1/parse through the API (fake model): p50 ${median(e2e).toFixed(1)} ms`)

for (const c of children.reverse()) {
  c.kill('SIGTERM')
  await once(c, 'exit')
}
await db.close()
await server.stop()
