// `npx tsx scripts/bench/acceptance.ts [calls] [concurrency…]`: issue 33's measurement. Async calls with a
// distinct Idempotency-Key each (/v1/parse and /v1/invoice alternately, `async: true`) from N concurrent clients
// on one account and one key, against `node core/server.ts` (API and worker in one process, as `npm start`) on a
// fresh database of the embedded (or DATABASE_URL) server, with the fake model over HTTP. Prints the answers by
// status and the acceptance latency p50 / p99 per concurrency. Defaults: 80 calls at 8 and 32.
import { spawn, type ChildProcess } from 'node:child_process'
import { benchAccount, benchDatabase } from './setup.ts'
import { firstLine, freePort } from './children.ts'

const [callsArg, ...levels] = process.argv.slice(2).map(Number)
const CALLS = callsArg || 80
const CONCURRENCY = levels.length ? levels : [8, 32]

const children: ChildProcess[] = []
process.on('exit', () => children.forEach((c) => c.kill()))
for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => process.exit(1))
async function start(args: string[], env: Record<string, string>, ready: (line: string) => boolean): Promise<string> {
  const c = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  children.push(c)
  return firstLine(c, ready)
}
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

const server = await benchDatabase('accept')
const { url, db } = server
const { key } = await benchAccount(db, 'accept', 1_000_000_000)

const modelURL = await start(['--import', 'tsx', 'scripts/bench/model.ts'], {}, () => true)
const port = await freePort()
await start(
  ['--max-old-space-size=1024', 'core/server.ts'],
  {
    DATABASE_URL: url,
    PORT: String(port),
    MAIL_TO_LOG: 'true', // no SMTP server here; sign-in emails are never sent by a bench
    OPENAI_BASE_URL: modelURL,
    OPENAI_API_KEY: 'bench',
    AI_WIRE_API: 'chat',
    RATE_LIMITS: JSON.stringify({ parse: 1e9, invoice: 1e9 }),
  },
  (line) => line.includes('Worker running'),
)
const text = 'Northwind Office Supply LLC\nInvoice NW-2024-0117, 2024-03-04\nChair | 4 | 249.50 | 998.00\nTotal 998.00 USD'

for (const concurrency of CONCURRENCY) {
  const latencies: number[] = []
  const statuses: Record<string, number> = {}
  let next = 0
  const t0 = performance.now()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < CALLS) {
        const i = next++
        const started = performance.now()
        const res = await fetch(`http://127.0.0.1:${port}/v1/${i % 2 ? 'invoice' : 'parse'}`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'idempotency-key': `c${concurrency}-${i}` },
          body: JSON.stringify({ text, async: true }),
        })
        const body = (await res.json()) as { error?: { code: string } }
        latencies.push(performance.now() - started)
        const kind = `${res.status}${body.error ? ` ${body.error.code}` : ''}`
        statuses[kind] = (statuses[kind] ?? 0) + 1
      }
    }),
  )
  const wall = performance.now() - t0
  latencies.sort((a, b) => a - b)
  console.log(
    JSON.stringify({
      calls: CALLS,
      concurrency,
      statuses,
      wallMs: Math.round(wall),
      p50Ms: Math.round(percentile(latencies, 50)),
      p99Ms: Math.round(percentile(latencies, 99)),
      maxMs: Math.round(latencies.at(-1)!),
    }),
  )
}
const [dl] = await db.sql<{ deadlocks: string }>(`select deadlocks from pg_stat_database where datname = current_database()`)
console.log(JSON.stringify({ deadlocksReportedSoFar: Number(dl!.deadlocks) }))
await db.close()
for (const c of children) c.kill()
process.exit(0)
