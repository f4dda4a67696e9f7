// The lock order of docs/locking.md, checked where it is taken: in the functions PostgreSQL actually runs (their
// source as installed by the migrations) and in the statements of the kernel's TypeScript. Issue 33's deadlock
// came from a function that locked an account FOR UPDATE after an insert had taken KEY SHARE on it.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import { openDatabase } from '../../core/db/database.ts'
import { createTestDatabase } from '../../devkit/database.ts'

/**
 * The functions that move money or claim keys; each takes the order through lock_money() (reserve_batch through
 * reserve_call, accept_job through reserve_batch, capture_cached_hold through capture_hold, the result cache's
 * through the one they call).
 */
const MONEY_FUNCTIONS = [
  'reserve_call',
  'accept_job',
  'reserve_batch',
  'capture_hold',
  'capture_cached_hold',
  'release_hold',
  'credit_account',
  'end_jobs',
  'lease_credits',
  'settle_lease',
  'result_cache_hold',
  'result_cache_capture',
  'result_cache_release',
]
const TAKES_ORDER_THROUGH: Record<string, string> = {
  accept_job: 'reserve_batch(',
  reserve_batch: 'reserve_call(',
  capture_cached_hold: 'capture_hold(',
  result_cache_hold: 'reserve_call(',
  result_cache_capture: 'capture_hold(',
  result_cache_release: 'release_hold(',
}
// A statement that writes or locks a row of a table the order covers.
const TOUCH =
  /\b(insert\s+into|update|delete\s+from)\s+(idempotency_records|accounts|api_keys|jobs|holds|job_inputs|ledger|usage_events)\b/gi
const ROW_LOCK = /\bfor\s+update\b/gi

t.test('every money function takes lock_money() before it writes or locks a row the order covers', async (t) => {
  const database = await createTestDatabase()
  const db = await openDatabase(database.url, 1)
  t.teardown(async () => {
    await db.close()
    await database.drop()
  })
  const sources = new Map(
    (
      await db.sql<{ proname: string; src: string }>(
        `select proname, prosrc as src from pg_proc where pronamespace = 'public'::regnamespace and proname = any(?)`,
        [[...MONEY_FUNCTIONS, 'lock_money']],
      )
    ).map((r) => [r.proname, r.src]),
  )
  t.same([...sources.keys()].sort(), [...MONEY_FUNCTIONS, 'lock_money'].sort(), 'each function is installed once')

  const lockMoney = sources.get('lock_money')!
  const order = ['idempotency_records', 'accounts', 'api_keys'].map((table) => lockMoney.indexOf(`from ${table}`))
  t.ok(
    order.every((at, i) => at > 0 && (i === 0 || at > order[i - 1]!)),
    'lock_money locks the record, then accounts, then keys',
  )
  t.match(lockMoney, /accounts a where a\.id = any\(p_accounts\) order by a\.id for no key update/, 'accounts in id order, no key update')
  t.match(lockMoney, /api_keys k where k\.id = any\(p_keys\) order by k\.id for no key update/, 'keys in id order, no key update')

  for (const name of MONEY_FUNCTIONS) {
    const src = sources.get(name)!
    const lockedAt = src.indexOf(TAKES_ORDER_THROUGH[name] ?? 'lock_money(')
    t.ok(lockedAt > 0, `${name} calls lock_money`)
    for (const m of [...src.matchAll(TOUCH), ...src.matchAll(ROW_LOCK)]) {
      const claim = name === 'reserve_call' && /^insert\s+into\s+idempotency_records/i.test(m[0])
      // Step 1 is the claim itself: reserve_call inserts the record before it locks accounts and keys.
      if (claim) t.ok(m.index < lockedAt, `${name}: the idempotency claim comes first`)
      else t.ok(m.index > lockedAt, `${name}: "${m[0]}" after lock_money`)
    }
  }
})

t.test('no TypeScript statement locks an account or a key, or moves money, outside the SQL functions', async (t) => {
  const files: string[] = []
  const walk = (dir: string) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = path.join(dir, e.name)
      if (e.isDirectory()) walk(p)
      else if (p.endsWith('.ts') && !p.includes(`${path.sep}migrations${path.sep}`)) files.push(p)
    }
  }
  walk('core')
  walk('capabilities')
  t.ok(files.length > 50, 'the kernel and capability sources are read')
  const offenders: string[] = []
  for (const file of files) {
    const text = readFileSync(file, 'utf8')
    // FOR UPDATE / FOR SHARE on accounts or keys: conflicts with the KEY SHARE of every insert referencing them.
    if (/from\s+(accounts|api_keys)\b[^`]*\bfor\s+(update|share)\b/i.test(text)) offenders.push(`${file}: row lock on accounts or api_keys`)
    if (/update\s+accounts\s+set\s+[^`]*\b(balance|reserved)\s*=/i.test(text)) offenders.push(`${file}: moves an account's credits`)
    if (/update\s+api_keys\s+set\s+[^`]*\b(held|month_spend)\s*=/i.test(text)) offenders.push(`${file}: moves a key's spend`)
    // Several jobs locked by one statement: in id order (claims, maintenance).
    for (const m of text.matchAll(/from\s+jobs\b[^`]*?for\s+update/gi))
      if (!/order\s+by\s+(\w+\.)?id\s+for\s+update/i.test(m[0])) offenders.push(`${file}: jobs locked without "order by id"`)
  }
  t.same(offenders, [])
})
