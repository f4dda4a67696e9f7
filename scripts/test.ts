// `npm test`: a PostgreSQL (DATABASE_URL, or the embedded one in .data/), a migrated template database,
// then tap. The last line is "N passed, M failed", counted from tap's own summary.
import { spawn } from 'node:child_process'
import { resolveDatabaseUrl } from '../core/db/database.ts'
import { prepareTemplate } from '../test/helpers/database.ts'

console.log(`# Node.js ${process.version}`)
const db = await resolveDatabaseUrl(process.env.DATABASE_URL)
await prepareTemplate(db.url)
const child = spawn('npx', ['tap', ...process.argv.slice(2)], {
  env: { ...process.env, DATABASE_URL: db.url, CAPAPI_TEMPLATE_READY: '1' },
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
