// `npm run bench:long-documents`: a 300-page PDF (pdf-lib, about 45 lines and 3,800 characters a page, 1.1 M
// characters in all) on sync /v1/parse against a real API process (`npm run start:api`'s flags), the fake model
// over HTTP answering every request in BENCH_MODEL_DELAY_MS (default 1000), the embedded PostgreSQL (or
// DATABASE_URL). For each configuration: the wall time of the call (median of 3 after one warm-up), the model
// requests it made (model_requests rows of its request id) and the credits charged. The target: ≤ 5 s.
import { spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readFileSync } from 'node:fs'
import { PDFDocument, StandardFonts } from 'pdf-lib'
import { benchAccount, benchDatabase } from './setup.ts'
import { firstLine, freePort } from './children.ts'
import { median } from './proc.ts'

const DELAY_MS = Number(process.env.BENCH_MODEL_DELAY_MS ?? 1000)
const CONFIGS: Array<{ name: string; env: Record<string, string> }> = [
  { name: 'defaults (128,000 tokens, 4 parts at once), unpriced model', env: { AI_MODEL: 'bench-model' } },
  { name: 'AI_CONTEXT_TOKENS=32000, 4 parts at once', env: { AI_MODEL: 'bench-model', AI_CONTEXT_TOKENS: '32000' } },
  {
    name: 'AI_CONTEXT_TOKENS=32000, AI_CHUNK_CONCURRENCY=16',
    env: { AI_MODEL: 'bench-model', AI_CONTEXT_TOKENS: '32000', AI_CHUNK_CONCURRENCY: '16' },
  },
  {
    name: 'gpt-4.1-mini (its tokenizer), 32000, 16 at once, AI_COST_GUARD_FACTOR=10',
    env: { AI_MODEL: 'gpt-4.1-mini', AI_CONTEXT_TOKENS: '32000', AI_CHUNK_CONCURRENCY: '16', AI_COST_GUARD_FACTOR: '10' },
  },
]
const children: ChildProcess[] = []
function child(file: string, args: string[], env: Record<string, string>, nodeArgs: string[]): ChildProcess {
  const c = spawn(process.execPath, [...nodeArgs, file, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] })
  children.push(c)
  return c
}

const server = await benchDatabase('long')
const { url, db } = server
const { accountId, key } = await benchAccount(db, 'long', 1_000_000)
const balance = async () => Number((await db.sql(`select balance from accounts where id = ?`, [accountId]))[0]!.balance)

const model = child('scripts/bench/model.ts', [], { BENCH_MODEL_DELAY_MS: String(DELAY_MS) }, ['--import', 'tsx'])
const modelURL = await firstLine(model)
const startFlags = (JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }).scripts['start:api']!
const nodeFlags = startFlags.split(/\s+/).slice(1, startFlags.split(/\s+/).indexOf('core/server.ts'))

async function pages(n: number): Promise<Buffer> {
  const doc = await PDFDocument.create()
  const font = await doc.embedFont(StandardFonts.Helvetica)
  for (let p = 1; p <= n; p++) {
    const page = doc.addPage([612, 792])
    for (let l = 0; l < 45; l++)
      page.drawText(`${p}.${l + 1} The supplier shall deliver lot ${p * 45 + l} within ${(l % 30) + 1} days; amounts in USD, net 30.`, {
        x: 40,
        y: 750 - l * 15,
        size: 9,
        font,
      })
  }
  return Buffer.from(await doc.save())
}
const pdf = await pages(300)
const body = JSON.stringify({ file: { data: pdf.toString('base64'), mimeType: 'application/pdf' } })
const small = JSON.stringify({ file: { data: (await pages(1)).toString('base64'), mimeType: 'application/pdf' } })

const rows: string[] = []
for (const config of CONFIGS) {
  const port = await freePort()
  const api = child(
    'core/server.ts',
    ['--api'],
    {
      DATABASE_URL: url,
      PORT: String(port),
      MAIL_TO_LOG: 'true',
      OPENAI_BASE_URL: modelURL,
      OPENAI_API_KEY: 'bench',
      AI_WIRE_API: 'chat',
      RATE_LIMITS: JSON.stringify({ parse: 1e9 }),
      ...config.env,
    },
    nodeFlags,
  )
  await firstLine(api, (l) => l.includes('"API listening'))
  const parse = async (payload: string) => {
    const before = await balance()
    const t = performance.now()
    const res = await fetch(`http://127.0.0.1:${port}/v1/parse`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: payload,
    })
    const text = await res.text()
    const ms = performance.now() - t
    const requestId = res.headers.get('x-request-id')!
    await new Promise((r) => setTimeout(r, 400)) // the usage rows are written in batches (250 ms)
    const [{ n }] = (await db.sql(`select count(*)::int as n from model_requests where request_id = ?`, [requestId])) as [{ n: number }]
    return { status: res.status, text, ms, requests: n, charged: before - (await balance()) }
  }
  await parse(small)
  await parse(body) // warm: decoders, JIT, tokenizer
  const runs = [await parse(body), await parse(body), await parse(body)]
  const bad = runs.find((r) => r.status !== 200)
  if (bad) console.log(`${config.name}: ${bad.status} ${bad.text.slice(0, 300)}`)
  rows.push(
    `| ${config.name} | ${runs.map((r) => r.status).join(', ')} | ${runs[0]!.requests} | ${(median(runs.map((r) => r.ms)) / 1000).toFixed(2)} s | ${runs.map((r) => r.charged).join(', ')} |`,
  )
  api.kill('SIGTERM')
  await once(api, 'exit')
  children.splice(children.indexOf(api), 1)
}

console.log(
  `\n## long-documents bench (${new Date().toISOString()}, load average ${readFileSync('/proc/loadavg', 'utf8').split(' ')[0]}); ` +
    `300 pages, ${Math.round(pdf.length / 1024)} KiB; model answers in ${DELAY_MS} ms\n`,
)
console.log('| configuration | statuses | model requests | wall, median of 3 | credits charged |')
console.log('|---|---|---:|---:|---|')
for (const r of rows) console.log(r)

for (const c of children.reverse()) {
  c.kill('SIGTERM')
  await once(c, 'exit')
}
await db.close()
await server.stop()
