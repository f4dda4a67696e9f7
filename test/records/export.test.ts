// GET /v1/usage/export: the ledger's charges of a window, oldest first, as CSV (loaded here with COPY
// into a fresh table, whose sums must equal the ledger's) or JSON lines, with the standard or the FOCUS columns.
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { credit } from '../../core/wallet/wallet.ts'
import { startTestApp, testCapability } from '../helpers/app.ts'

const app = await startTestApp(t, {
  capabilities: [testCapability({ name: 'alpha', price: 3 }), testCapability({ name: 'beta', price: 2 })],
})

t.test('the CSV loads with COPY and its sums equal the ledger’s; JSON lines and FOCUS columns say the same', async (t) => {
  const c = await app.customer(1000)
  const from = new Date(Date.now() - 60_000)
  for (let i = 0; i < 7; i++) await app.call(i % 2 ? '/v1/alpha' : '/v1/beta', { key: c.key, body: { text: `call ${i}` } })
  // Credits given (an adjustment) are not usage: not exported.
  await credit(app.services.db, c.accountId, 'adjustment', 5, 'goodwill', new Date())
  const to = new Date(Date.now() + 60_000)
  const window = `from=${from.toISOString()}&to=${to.toISOString()}`

  const csv = await app.call(`/v1/usage/export?${window}&format=csv`, { key: c.key })
  t.equal(csv.status, 200)
  t.match(csv.headers.get('content-type'), /^text\/csv/)
  const lines = csv.text.trimEnd().split('\r\n')
  t.equal(lines[0], '"createdAt","requestId","endpoint","keyId","credits","usd","livemode"')
  t.equal(lines.length, 1 + 7, 'seven charges, nothing else')

  const dir = mkdtempSync(join(tmpdir(), 'usage-export-'))
  chmodSync(dir, 0o755)
  const file = join(dir, 'export.csv')
  writeFileSync(file, csv.text, { mode: 0o644 })
  const db = app.services.db
  await db.sql(
    `create table loaded (created_at timestamptz, request_id text, endpoint text, key_id uuid, credits bigint, usd numeric, livemode boolean)`,
  )
  await db.sql(`copy loaded from '${file}' with (format csv, header true)`)
  const [loaded] = await db.sql<{ credits: string; usd: string; n: number; ordered: boolean }>(
    `select sum(credits)::text as credits, sum(usd)::text as usd, count(*)::int as n,
            bool_and(created_at >= coalesce(prev, created_at)) as ordered
       from (select *, lag(created_at) over () as prev from loaded) l`,
  )
  const [ledger] = await db.sql<{ credits: string }>(
    `select (-sum(amount))::text as credits from ledger where account_id = ? and kind = 'charge' and created_at >= ? and created_at < ?`,
    [c.accountId, from, to],
  )
  t.equal(loaded!.credits, ledger!.credits, 'the credits loaded equal the ledger’s')
  t.equal(Number(loaded!.credits), 4 * 2 + 3 * 3, 'four betas, three alphas')
  t.equal(Number(loaded!.usd), Number(loaded!.credits) / 100, 'usd is credits at a cent each')
  t.ok(loaded!.ordered, 'oldest first')

  const jsonl = await app.call(`/v1/usage/export?${window}&format=jsonl`, { key: c.key })
  const records = jsonl.text
    .trimEnd()
    .split('\n')
    .map((l: string) => JSON.parse(l))
  t.equal(records.length, 7)
  t.match(records[0], { endpoint: 'beta', keyId: c.keyId, credits: 2, usd: '0.02', livemode: true, requestId: /^req_/ })
  t.match(records.at(-1), { endpoint: 'beta', credits: 2 })

  const focus = await app.call(`/v1/usage/export?${window}&format=jsonl&columns=focus`, { key: c.key })
  const rows = focus.text
    .trimEnd()
    .split('\n')
    .map((l: string) => JSON.parse(l))
  t.same(Object.keys(rows[0]), [
    'ChargePeriodStart',
    'ChargePeriodEnd',
    'BilledCost',
    'BillingCurrency',
    'ServiceName',
    'SkuId',
    'ResourceId',
    'ChargeType',
  ])
  t.equal(
    rows.reduce((s: number, r: { BilledCost: string }) => s + Math.round(Number(r.BilledCost) * 100), 0),
    Number(ledger!.credits),
    'BilledCost × 100 sums to the ledger’s credits',
  )
  t.match(rows[0], {
    BillingCurrency: 'USD',
    ServiceName: 'beta',
    SkuId: 'beta',
    ResourceId: /^req_/,
    ChargeType: 'Usage',
    BilledCost: '0.02',
  })
})

t.test('an export longer than one page streams every row once, in order; a bad window is a 400', async (t) => {
  const c = await app.customer(0)
  const from = new Date(Date.now() - 86400_000)
  // 2,500 charges written straight to the ledger (the export's pages are 1,000 rows; some rows share an instant).
  await app.services.db.sql(
    `insert into ledger (account_id, kind, amount, balance_after, reference, key_id, created_at)
     select ?, 'charge', -1, 0, 'alpha req_bulk' || g, ?, ?::timestamptz + make_interval(secs => g / 3) from generate_series(1, 2500) g`,
    [c.accountId, c.keyId, from],
  )
  const res = await app.call(`/v1/usage/export?from=${from.toISOString()}&to=${new Date().toISOString()}&format=jsonl`, { key: c.key })
  const ids = res.text
    .trimEnd()
    .split('\n')
    .map((l: string) => Number(JSON.parse(l).requestId.slice('req_bulk'.length)))
  t.equal(ids.length, 2500)
  t.equal(new Set(ids).size, 2500, 'no row twice')
  const firstOutOfOrder = ids.findIndex((id, i) => i > 0 && id < ids[i - 1]!)
  t.equal(firstOutOfOrder, -1, `in time order ${ids.slice(Math.max(0, firstOutOfOrder - 3), firstOutOfOrder + 3).join(' ')}`)

  const bad = await app.call(`/v1/usage/export?from=${new Date().toISOString()}&to=${from.toISOString()}&format=csv`, { key: c.key })
  t.equal(bad.status, 400)
  const noFormat = await app.call(`/v1/usage/export?from=${from.toISOString()}&to=${new Date().toISOString()}`, { key: c.key })
  t.equal(noFormat.status, 400)
})

t.test('a client that stops reading stops the export’s reads of the ledger; it resumes where it stopped', async (t) => {
  const c = await app.customer(0)
  const from = new Date(Date.now() - 86400_000)
  const rows = 200_000 // 20 MiB of CSV: several times what the socket buffers between the server and a waiting client hold
  await app.services.db.sql(
    `insert into ledger (account_id, kind, amount, balance_after, reference, key_id, created_at)
     select ?, 'charge', -1, 0, 'alpha req_slow' || g, ?, ?::timestamptz + make_interval(secs => g * 0.2) from generate_series(1, ?) g`,
    [c.accountId, c.keyId, from, rows],
  )
  const db = app.services.db
  const sql = db.sql.bind(db)
  let pages = 0
  db.sql = (text: string, params?: unknown[]) => {
    if (text.includes('from ledger') && text.includes("kind = 'charge'") && params?.[0] === c.accountId) pages++
    return sql(text, params)
  }
  t.teardown(() => {
    db.sql = sql
  })
  const res = await fetch(`${app.url}/v1/usage/export?from=${from.toISOString()}&to=${new Date().toISOString()}&format=csv`, {
    headers: { authorization: `Bearer ${c.key}` },
  })
  const reader = res.body!.getReader()
  let bytes = (await reader.read()).value!.length
  await new Promise((r) => setTimeout(r, 1500)) // the client waits: the server fills the socket, then waits too
  const whileWaiting = pages
  t.ok(whileWaiting < rows / 1000 / 2, `${whileWaiting} of ${rows / 1000} pages read while the client waits`)
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    bytes += value.length
  }
  t.equal(pages, rows / 1000 + 1, 'every page read once when the client reads on (the last one empty)')
  t.ok(bytes > rows * 90, 'every row arrived')
})
