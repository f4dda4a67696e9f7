// `npm test`: type-check, lint and format check, a PostgreSQL (DATABASE_URL, or the embedded one in .data/), a
// migrated template database, then tap with coverage. Debian's chromium, which the browser tests need, is installed
// first when it is missing and the run has a browser test. `npm test -- <files>` runs only those files, without the
// checks and the coverage (add --coverage for it): one small file in seconds, not minutes.
// While it runs: "# file N of M" per finished test file; at the end the failures, the core/ line coverage
// against its floor (full runs only), and last "N passed, M failed" from tap's summary.
import { spawn, spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, globSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { BootRefusal } from '../core/config.ts'
import { resolveDatabaseUrl } from '../core/db/database.ts'
import { CHROMIUM_MISSING, CHROMIUM_PATH } from '../devkit/browser.ts'
import { prepareTemplate } from '../devkit/database.ts'

/** Lines of core/ the full suite must cover (percent); raise it as tests are added, never lower it quietly. */
const CORE_LINE_COVERAGE_FLOOR = 95

const wantCoverage = process.argv.includes('--coverage')
const args = process.argv.slice(2).filter((a) => a !== '--coverage')
const { include } = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { tap: { include: string[] } }).tap
const fileArgs = args.filter((a) => !a.startsWith('-'))
const total = fileArgs.length || globSync(include).length
const coverage = !fileArgs.length || wantCoverage
console.log(`# Node.js ${process.version}, ${total} test files`)

// The gate of a full run; a run of chosen files skips it (say so, so that nobody mistakes it for `npm test`).
if (fileArgs.length) console.log('# chosen files: no type-check, lint, format check or coverage (npm test runs them all)')
else {
  for (const [what, command] of [
    ['type-check', ['tsc', '--noEmit']],
    ['lint', ['eslint', '.']],
    ['format check', ['prettier', '--check', '.']],
  ] as const) {
    console.log(`# ${what}: ${command.join(' ')}`)
    if (spawnSync('npx', command, { stdio: 'inherit' }).status !== 0) {
      console.log(`${what} failed\n0 passed, 1 failed`) // the count stays the last line (.ci/run)
      process.exit(1)
    }
  }
}

// A browser is installed only for a run that has a browser test in it: `npm test -- <one file>` installs nothing.
if (!fileArgs.length || fileArgs.some(usesBrowser)) ensureChromium()
const db = await resolveDatabaseUrl(process.env.DATABASE_URL).catch((e: unknown) => {
  if (!(e instanceof BootRefusal)) throw e
  console.error(`Cannot start the test database: ${e.message}`)
  process.exit(1)
})
await prepareTemplate(db.url)
const child = spawn('npx', ['tap', ...(coverage ? [] : ['--disable-coverage']), ...args], {
  // Test processes share one key, as the processes of a deployment must (they may run against your own DATABASE_URL).
  env: {
    ...process.env,
    DATABASE_URL: db.url,
    CAPAPI_TEMPLATE_READY: '1',
    SECRET_ENCRYPTION_KEY: process.env.SECRET_ENCRYPTION_KEY ?? randomBytes(32).toString('hex'),
  },
  stdio: ['ignore', 'pipe', 'inherit'],
})
let summary = ''
let pending = ''
let done = 0
let failedInFile: string[] = []
const failures: string[] = []
const fileSeconds: [string, number][] = []
child.stdout.on('data', (chunk: Buffer) => {
  process.stdout.write(chunk)
  summary = (summary + chunk.toString()).slice(-4000)
  pending += chunk.toString()
  const lines = pending.split('\n')
  pending = lines.pop()!
  for (const line of lines) {
    const nested = /^\s+not ok \d+ - (.*?)(?: # time=.*)?$/.exec(line)
    if (nested) failedInFile.push(nested[1]!)
    const file = /^(not )?ok \d+ - (\S+)(?: # time=([\d.]+)ms)?/.exec(line) // a top-level point is one test file
    if (!file) continue
    done++
    fileSeconds.push([file[2]!, Number(file[3] ?? 0) / 1000])
    process.stdout.write(`# file ${done} of ${total}: ${file[1] ? 'FAILED' : 'ok'} ${file[2]}\n`)
    if (file[1]) failures.push(`${file[2]}${failedInFile.length ? `\n    ${failedInFile.join('\n    ')}` : ''}`)
    failedInFile = []
  }
})
const code: number = await new Promise((resolve) => child.on('close', (c) => resolve(c ?? 1)))
await db.stop()

// Where the suite's time goes, so that a run near its half-hour shows which files to look at first.
const slowest = fileSeconds.sort((a, b) => b[1] - a[1]).slice(0, 10)
console.log(`\nSlowest files:\n${slowest.map(([f, s]) => `  ${s.toFixed(0).padStart(4)} s  ${f}`).join('\n')}`)
if (failures.length) console.log(`\nFailed (${failures.length} files):\n  ${failures.join('\n  ')}`)
// The floor holds for the full suite; a run of chosen files reports its coverage without enforcing it.
const coverageFailed = coverage && !(await checkCoverage()) && !fileArgs.length
const last = summary.match(/# \{ total:[^}]*\}/g)?.at(-1)
const field = (name: string) => Number(new RegExp(`${name}: (\\d+)`).exec(last ?? '')?.[1] ?? 0)
const passed = field('pass')
// No summary at all means tap itself failed: count that as a failure, never as a pass.
const failed = (last ? field('fail') : 1) + (coverageFailed ? 1 : 0)
console.log(`${passed} passed, ${failed} failed`)
process.exit(code || (coverageFailed ? 1 : 0))

/**
 * core/ line coverage; false when under the floor. tsx's source maps leave `sourcesContent: [null]`, which c8
 * reads as empty files (every file "1 line, 100%"); so tap writes no report of its own (package.json) and we
 * fill in the sources from disk, then let `tap report` write .tap/report/ (json-summary and a text summary).
 */
async function checkCoverage(): Promise<boolean> {
  for (const name of readdirSync('.tap/coverage')) {
    const file = `.tap/coverage/${name}`
    const raw = JSON.parse(readFileSync(file, 'utf8')) as {
      result: Array<{ url: string }>
      'source-map-cache'?: Record<string, { data?: { sources: string[]; sourcesContent?: (string | null)[] } }>
    }
    // A process a test starts as `node core/server.ts` (Node's own type stripping, no tsx) reports TypeScript files
    // without a source map; merged with the mapped reports of the same files it garbles their counts (a full run
    // read 66 % for a file one test covers at 99 %). Such a process is the test's subject, not its coverage.
    const maps = raw['source-map-cache'] ?? {}
    raw.result = raw.result.filter((script) => !script.url.endsWith('.ts') || script.url in maps)
    for (const entry of Object.values(maps)) {
      const map = entry.data
      if (!map?.sourcesContent) continue
      // A test that runs a copy of the checkout (test/load/new-capability.load.ts) leaves maps of files that are
      // gone and not ours: the report leaves out files outside the checkout anyway.
      map.sourcesContent = map.sourcesContent.map((c, i) => {
        const source = fileURLToPath(map.sources[i]!)
        return c ?? (existsSync(source) ? readFileSync(source, 'utf8') : null)
      })
    }
    writeFileSync(file, JSON.stringify(raw))
  }
  const report$ = spawn('npx', ['tap', 'report', 'json-summary', 'text-summary'], { stdio: ['ignore', 'pipe', 'inherit'] })
  let text = ''
  report$.stdout.on('data', (chunk: Buffer) => (text += chunk.toString()))
  await new Promise((resolve) => report$.on('close', resolve))
  // Only the summary table: `tap report` also prints an empty TAP stream of its own.
  console.log(
    text
      .split('\n')
      .filter((l) => !/^(TAP version|1\.\.0|# )/.test(l))
      .join('\n')
      .trim(),
  )
  let report: Record<string, { lines: { total: number; covered: number } }>
  try {
    report = JSON.parse(readFileSync('.tap/report/coverage-summary.json', 'utf8')) as typeof report
  } catch {
    console.log('core/ coverage: no report (.tap/report/coverage-summary.json)')
    return false
  }
  const core = Object.entries(report).filter(([file]) => file.startsWith(`${process.cwd()}/core/`))
  const lines = core.reduce((s, [, f]) => ({ total: s.total + f.lines.total, covered: s.covered + f.lines.covered }), {
    total: 0,
    covered: 0,
  })
  const pct = lines.total ? (100 * lines.covered) / lines.total : 0
  console.log(
    `core/ line coverage: ${pct.toFixed(1)}% of ${lines.total} lines in ${core.length} files (floor ${CORE_LINE_COVERAGE_FLOOR}%${fileArgs.length ? ', enforced on full runs' : ''}; report: .tap/report/)`,
  )
  return pct >= CORE_LINE_COVERAGE_FLOOR
}

/** A test file that drives a browser: it imports devkit/browser.ts. */
function usesBrowser(file: string): boolean {
  return existsSync(file) && statSync(file).isFile() && /helpers\/browser\.ts['"]/.test(readFileSync(file, 'utf8'))
}

/** Browser tests need Debian's chromium (devkit/browser.ts); install it when missing, as root. */
function ensureChromium(): void {
  if (existsSync(CHROMIUM_PATH)) return
  const apt = (...args: string[]) =>
    spawnSync('apt-get', args, { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } })
      .status === 0
  if (process.getuid?.() === 0) {
    console.log('Installing chromium for the browser tests: apt-get update && apt-get install -y chromium')
    if (apt('update') && apt('install', '-y', 'chromium') && existsSync(CHROMIUM_PATH)) return
  }
  console.log(`Browser tests will fail: ${CHROMIUM_MISSING}`)
}
