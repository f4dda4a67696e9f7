// The database handle's round-trip counter, which `npm run bench` reports per live call (MikroORM 7 counts
// through its logger: every statement, BEGIN and COMMIT included), and the migrations: the kernel's and those a
// capability folder owns, found at migrate time and applied in one numbered order.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import t from 'tap'
import { allMigrations, MigrationError } from '../../core/db/capability-migrations.ts'
import { openDatabase } from '../../core/db/database.ts'
import { createTestDatabase } from '../../devkit/database.ts'

const database = await createTestDatabase()
const db = await openDatabase(database.url, 2)
t.teardown(async () => {
  await db.close()
  await database.drop()
})

t.test('one round trip per statement; a transaction adds BEGIN and COMMIT', async (t) => {
  await db.sql('select 1') // the first statement also opens the connection
  let before = db.roundTrips()
  t.same(await db.sql('select ?::int as n', [1]), [{ n: 1 }])
  t.equal(db.roundTrips() - before, 1, 'a plain statement')
  before = db.roundTrips()
  await db.tx(async (q) => {
    await q.sql('select 1')
    await q.sql('select 2')
  })
  t.equal(db.roundTrips() - before, 4, 'BEGIN, two statements, COMMIT')
})

t.test("memory's migration lives in its folder, keeps its recorded name and runs in number order", async (t) => {
  const names = (await allMigrations()).map((m) => m.name)
  t.ok(names.includes('0002-memory'), 'found in capabilities/memory/migrations/')
  t.same(names, [...names].sort(), 'in number order')
  const applied = await db.sql<{ name: string }>('select name from schema_migrations order by id')
  t.same(
    applied.map((r) => r.name),
    names,
    'every migration applied once, in that order',
  )
  t.same(await db.sql(`select to_regclass('memories')::text as t`), [{ t: 'memories' }])
})

const facade = path.resolve('core/capability.ts')
const migrationSource = (table: string) =>
  `import { Migration } from '${facade}'\nexport default class extends Migration {\n  override async up() { this.addSql('create table ${table} ()') }\n}\n`

/** A capabilities directory with the given files: { 'demo/migrations/0003-demo.ts': source }. */
async function capabilitiesWith(files: Record<string, string>): Promise<string> {
  // Inside the project so that the files resolve the project's node_modules.
  await mkdir(path.resolve('.tap'), { recursive: true })
  const dir = await mkdtemp(path.resolve('.tap/migrations-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  for (const [name, source] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true })
    await writeFile(path.join(dir, name), source)
  }
  return dir
}

t.test("a folder's migrations join the kernel's by number; folders without any add nothing", async (t) => {
  const dir = await capabilitiesWith({
    'demo/migrations/0003-demo.ts': migrationSource('demo'),
    'demo/migrations/0007-demo-more.ts': migrationSource('demo_more'),
    'plain/manifest.ts': '',
  })
  const names = (await allMigrations(dir)).map((m) => m.name)
  t.same(
    names.filter((n) => n.includes('demo')),
    ['0003-demo', '0007-demo-more'],
  )
  t.ok(names.indexOf('0003-demo') > names.indexOf('0001-kernel') && names.indexOf('0003-demo') < names.indexOf('0004-webhook-signing'))
  t.notOk(names.includes('0002-memory'), 'only the folders of that directory')
})

for (const [what, files, message] of [
  [
    'a file name without a number',
    { 'demo/migrations/demo.ts': migrationSource('demo') },
    /capabilities\/demo\/migrations\/demo\.ts: a migration is named NNNN-words\.ts/,
  ],
  ['a file that is not TypeScript', { 'demo/migrations/0003-demo.sql': 'create table demo ()' }, /0003-demo\.sql: a migration is named/],
  [
    'no default export',
    { 'demo/migrations/0003-demo.ts': 'export const up = 1\n' },
    /0003-demo\.ts: the default export must be a class that extends Migration/,
  ],
  [
    'a number the kernel already uses',
    { 'demo/migrations/0001-demo.ts': migrationSource('demo') },
    /capabilities\/demo\/migrations\/0001-demo\.ts: number 0001 is already taken by core\/db\/migrations\/0001-kernel\.ts/,
  ],
  [
    'one number in two folders',
    { 'a/migrations/0003-a.ts': migrationSource('a'), 'b/migrations/0003-b.ts': migrationSource('b') },
    /capabilities\/b\/migrations\/0003-b\.ts: number 0003 is already taken by capabilities\/a\/migrations\/0003-a\.ts/,
  ],
] as const) {
  t.test(`refuses to migrate (so to boot) with ${what}, naming the file in one line`, async (t) => {
    const dir = await capabilitiesWith(files)
    const error = await allMigrations(dir).then(
      () => null,
      (e: unknown) => e,
    )
    t.type(error, MigrationError)
    t.match((error as Error).message, message)
    t.notMatch((error as Error).message, /\n/)
  })
}
