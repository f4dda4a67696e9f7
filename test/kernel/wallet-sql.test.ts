// The wallet owns every money statement (core/wallet/README.md): each money function's text is written once, in
// core/wallet/sql/<name>.sql, only the wallet's TypeScript calls them, and the migration runner installs the files'
// current text on a new database and on one whose functions the numbered migrations installed. The other repeatable
// folders (core/cache/sql/, core/events/sql/) are held to the same one-file rule.
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import pg from 'pg'
import t, { type Test } from 'tap'
import { addCredits, createAccount } from '../../core/accounts/accounts.ts'
import { createKey } from '../../core/accounts/keys.ts'
import { migrate, openDatabase } from '../../core/db/database.ts'
import { applyRepeatables, repeatableSteps } from '../../core/db/repeatable.ts'
import { capture, monthSpends, reserve } from '../../core/wallet/wallet.ts'
import { createTestDatabase } from '../../devkit/database.ts'

const SQL_DIR = 'core/wallet/sql'
const files = readdirSync(SQL_DIR).filter((f) => f.endsWith('.sql'))
const MONEY_FUNCTIONS = files.map((f) => path.basename(f, '.sql'))
const GENERATED = new Set(['core/db/schema.sql'])
const THIS_FILE = 'test/kernel/wallet-sql.test.ts'
// A statement that writes a row of the money's tables: a function that has one is a money function.
const WRITES_MONEY = /\b(insert\s+into|update|delete\s+from)\s+(accounts|api_keys|holds|ledger|usage_events|idempotency_records)\b/i

/** The repository's source files under `dirs` (node_modules and dot folders left out). */
function sources(dirs: string[], ext: RegExp): string[] {
  return dirs.flatMap((dir) =>
    readdirSync(dir, { recursive: true, encoding: 'utf8' })
      .filter((f) => ext.test(f) && !f.split(path.sep).some((part) => part === 'node_modules' || part.startsWith('.')))
      .map((f) => path.join(dir, f)),
  )
}

/** A line of code, not a comment: a mention in prose is not a call. */
const isCode = (line: string) => !/^\s*(\/\/|\*|\/\*|--)/.test(line)

t.test('each function and trigger of a repeatable folder is defined once, in its own file', async (t) => {
  const steps = repeatableSteps()
  t.ok(MONEY_FUNCTIONS.length >= 11, `the wallet's functions: ${MONEY_FUNCTIONS.join(', ')}`)
  t.ok(
    ['core/events/sql/emit_event.sql', 'core/events/sql/balance_alerts.sql'].every((f) => steps.some((s) => s.file === f)),
    'the events folder is applied',
  )
  const everywhere = sources(['core', 'capabilities', 'scripts', 'test', 'docs'], /\.(ts|sql|md)$/)
    .filter((f) => !GENERATED.has(f) && f !== THIS_FILE) // this file writes an old trigger on purpose (the upgrade test)
    .map((f) => ({ f, text: readFileSync(f, 'utf8') }))
  for (const step of steps) {
    const name = path.basename(step.file, '.sql')
    const triggers = [...step.text.matchAll(/\bcreate\s+or\s+replace\s+trigger\s+(\w+)/gi)].map((m) => m[1]!)
    for (const [kind, object] of [['function', name], ...triggers.map((tr) => ['trigger', tr])] as const) {
      const definition = new RegExp(`\\bcreate\\s+(or\\s+replace\\s+)?${kind}\\s+(public\\.)?${object}\\b`, 'gi')
      const definedIn = everywhere.flatMap(({ f, text }) => (text.match(definition) ?? []).map(() => f))
      t.same(definedIn, [step.file], `${kind} ${object}: one definition, in ${step.file}`)
    }
  }
})

t.test('no money function is called from outside core/wallet/', async (t) => {
  const call = new RegExp(`\\b(${MONEY_FUNCTIONS.join('|')})\\s*\\(`, 'i')
  const offending = sources(['core', 'capabilities', 'scripts'], /\.ts$/)
    .filter((f) => !f.startsWith(`core${path.sep}wallet${path.sep}`))
    .flatMap((f) =>
      readFileSync(f, 'utf8')
        .split('\n')
        .map((line, i) => ({ line, at: `${f}:${i + 1}` }))
        // A numbered migration may drop an old signature (core/wallet/README.md, "Changing a money function").
        .filter(({ line }) => isCode(line) && call.test(line) && !/^\s*drop\s+function\s+if\s+exists\b/i.test(line))
        .map(({ at, line }) => `${at}: ${line.trim()}`),
    )
  t.same(offending, [], "money statements are the wallet's: call its TypeScript functions instead")
})

/** Every function and trigger of the public schema, as PostgreSQL would recreate it. */
async function definitions(client: pg.Client): Promise<string[]> {
  const functions = await client.query<{ def: string }>(
    `select pg_get_functiondef(p.oid) as def from pg_proc p where p.pronamespace = 'public'::regnamespace
      order by p.proname, pg_get_function_identity_arguments(p.oid)`,
  )
  const triggers = await client.query<{ def: string }>(
    `select pg_get_triggerdef(t.oid) as def from pg_trigger t join pg_class c on c.oid = t.tgrelid
      where c.relnamespace = 'public'::regnamespace and not t.tgisinternal order by c.relname, t.tgname`,
  )
  return [...functions.rows, ...triggers.rows].map((r) => r.def)
}

async function migratedDatabase(t: Test) {
  const database = await createTestDatabase()
  const client = new pg.Client({ connectionString: database.url })
  await client.connect()
  t.teardown(async () => {
    await client.end()
    await database.drop()
  })
  return { url: database.url, client }
}

t.test('a function that writes money rows is one of the wallet files', async (t) => {
  const { client } = await migratedDatabase(t)
  const { rows } = await client.query<{ name: string; src: string }>(
    `select proname as name, prosrc as src from pg_proc where pronamespace = 'public'::regnamespace`,
  )
  const writers = rows.filter((r) => WRITES_MONEY.test(r.src)).map((r) => r.name)
  t.ok(writers.includes('reserve_call') && writers.includes('capture_hold'), 'the pattern finds the money functions')
  t.same(
    writers.filter((name) => !MONEY_FUNCTIONS.includes(name)),
    [],
    'each lives in core/wallet/sql/',
  )
  const installed = new Set(rows.map((r) => r.name))
  t.same(
    MONEY_FUNCTIONS.filter((name) => !installed.has(name)),
    [],
    'every file installed its function',
  )
})

t.test('a migrated database records each file; migrating again applies nothing', async (t) => {
  const { url, client } = await migratedDatabase(t)
  const steps = repeatableSteps()
  const { rows } = await client.query<{ file: string; checksum: string }>('select file, checksum from schema_repeatables order by file')
  t.same(
    rows,
    steps.map((s) => ({ file: s.file, checksum: s.checksum })).sort((a, b) => a.file.localeCompare(b.file)),
    'file and checksum of each',
  )
  const before = await client.query<{ applied_at: string }>('select applied_at::text from schema_repeatables order by file')
  await migrate(url)
  const after = await client.query<{ applied_at: string }>('select applied_at::text from schema_repeatables order by file')
  t.same(after.rows, before.rows, 'nothing applied again')
})

t.test('upgrading a database whose functions the numbered migrations installed ends with the files’ text', async (t) => {
  const { url, client } = await migratedDatabase(t)
  const current = await definitions(client)
  // A database of the earlier runner: no bookkeeping, its functions as its migrations left them, which may be
  // older than the files (a database that had not run the latest migration).
  await client.query('drop table schema_repeatables')
  const release = repeatableSteps().find((s) => s.file.endsWith('release_hold.sql'))!
  await client.query(release.text.replace(/\breturn true;/, 'return null;'))
  await client.query(`create or replace trigger accounts_auto_recharge before update of balance on accounts for each row
    execute function queue_auto_recharge()`)
  t.not((await definitions(client)).join('\n'), current.join('\n'), 'the old database differs')
  await migrate(url)
  t.same(await definitions(client), current, 'every function and trigger as on a new database')
  const { rows } = await client.query<{ n: string }>('select count(*) as n from schema_repeatables')
  t.equal(Number(rows[0]!.n), repeatableSteps().length, 'each file recorded')
})

t.test('a changed file is applied again, alone; a failing one changes nothing', async (t) => {
  const { client } = await migratedDatabase(t)
  const steps = repeatableSteps()
  const target = steps.find((s) => s.file.endsWith('key_month_spend.sql'))!
  const changed = target.text.replace(/then k\.month_spend else 0 end/, 'then k.month_spend + 1 else 0 end')
  t.not(changed, target.text, 'the edit applies')
  const edited = steps.map((s) => (s === target ? { ...s, text: changed, checksum: 'edited' } : s))
  t.same(await applyRepeatables(client, edited), [target.file], 'only the changed file')
  const src = async () =>
    (await client.query<{ src: string }>(`select prosrc as src from pg_proc where proname = 'key_month_spend'`)).rows[0]!.src
  t.match(await src(), /month_spend \+ 1/, 'its new text is installed')

  const broken = steps.map((s) => (s === target ? { ...s, text: `${target.text}\nnot sql`, checksum: 'broken' } : s))
  await t.rejects(applyRepeatables(client, broken), new RegExp(target.file.replaceAll('.', '\\.')), 'the error names the file')
  t.match(await src(), /month_spend \+ 1/, 'the function is untouched')
  t.same(await applyRepeatables(client, steps), [target.file], 'the file’s own text back')
  t.notMatch(await src(), /month_spend \+ 1/)
})

t.test("a key's month spend (the dashboard's figure): its charges in the month, none in the next", async (t) => {
  const database = await createTestDatabase()
  const db = await openDatabase(database.url, 2)
  t.teardown(async () => {
    await db.close()
    await database.drop()
  })
  const now = new Date('2026-03-31T23:00:00Z')
  const account = await createAccount(db, { email: 'spend@example.test' }, now)
  await addCredits(db, account.id, { credits: 100, reason: 'test' }, now)
  const spender = (await createKey(db, account.id, { name: 'spender' })).id
  const idle = (await createKey(db, account.id, { name: 'idle' })).id
  for (const price of [7, 5]) {
    const held = await reserve(db, {
      accountId: account.id,
      keyId: spender,
      price,
      endpoint: 'x',
      requestId: `r${price}`,
      holdTtlSeconds: 60,
      now,
    })
    if (held.outcome !== 'ok') throw new Error(held.outcome)
    await capture(db, held, {}, now)
  }
  t.same(Object.fromEntries(await monthSpends(db, account.id, now)), { [spender]: 12, [idle]: 0 }, 'charged this month')
  t.same(
    Object.fromEntries(await monthSpends(db, account.id, new Date('2026-04-01T00:00:00Z'))),
    { [spender]: 0, [idle]: 0 },
    'a new month starts at 0',
  )
})
