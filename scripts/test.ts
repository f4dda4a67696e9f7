// `npm test`: a PostgreSQL (DATABASE_URL, or the embedded one in .data/), a migrated template database,
// then tap. The last line is "N passed, M failed", counted from tap's own summary. Debian's chromium, which the
// browser tests need, is installed first when it is missing.
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync } from 'node:fs'
import { BootRefusal } from '../core/config.ts'
import { resolveDatabaseUrl } from '../core/db/database.ts'
import { CHROMIUM_MISSING, CHROMIUM_PATH } from '../test/helpers/browser.ts'
import { prepareTemplate } from '../test/helpers/database.ts'

ensureChromium()
const db = await resolveDatabaseUrl(process.env.DATABASE_URL).catch((e: unknown) => {
  if (!(e instanceof BootRefusal)) throw e
  console.error(`Cannot start the test database: ${e.message}`)
  process.exit(1)
})
await prepareTemplate(db.url)
const child = spawn('npx', ['tap', ...process.argv.slice(2)], {
  // Test processes share one key, as the processes of a deployment must (they may run against your own DATABASE_URL).
  env: { ...process.env, DATABASE_URL: db.url, CAPAPI_TEMPLATE_READY: '1', SECRET_ENCRYPTION_KEY: process.env.SECRET_ENCRYPTION_KEY ?? randomBytes(32).toString('hex') },
  stdio: ['ignore', 'pipe', 'inherit'],
})
let summary = ''
child.stdout.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk)
  summary = (summary + chunk.toString()).slice(-4000)
})
const code: number = await new Promise((resolve) => child.on('close', (c) => resolve(c ?? 1)))
await db.stop()
const last = summary.match(/# \{ total:[^}]*\}/g)?.at(-1)
const field = (name: string) => Number(new RegExp(`${name}: (\\d+)`).exec(last ?? '')?.[1] ?? 0)
const passed = field('pass')
// No summary at all means tap itself failed: count that as a failure, never as a pass.
const failed = last ? field('fail') : 1
console.log(`${passed} passed, ${failed} failed`)
process.exit(code)

/** Browser tests need Debian's chromium (test/helpers/browser.ts); install it when missing, as root. */
function ensureChromium(): void {
  if (existsSync(CHROMIUM_PATH)) return
  const apt = (...args: string[]) =>
    spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } }).status === 0
  if (process.getuid?.() === 0) {
    console.log('Installing chromium for the browser tests: apt-get update && apt-get install -y chromium')
    if (apt('update') && apt('install', '-y', 'chromium') && existsSync(CHROMIUM_PATH)) return
  }
  console.log(`Browser tests will fail: ${CHROMIUM_MISSING}`)
}
