// `npm run eval`: field-level accuracy of every capability, through the real app (HTTP, auth, holds, the
// capability, the configured model provider). Each capabilities/<name>/eval.ts holds that folder's cases (at
// least 3; see devkit/eval-kit.ts): requests (a known document in both input forms, `text` and the PDF of
// devkit/fixtures/pdf/ as an inline file: `inBothForms`), scored by code: `expected` field by field, and
// `checks` (no PII left, labels in the taxonomy, citations resolve, values in range). A new capability adds its
// own eval.ts; nothing here changes.
//
//   npm run eval                                     all capabilities (or --capability invoice,receipt)
//   npm run eval -- --capability all --fake          against the in-process fake OpenAI server: checks that the
//                                                    harness runs and scores; its answers are schema-minimal, so
//                                                    the scores mean nothing
//   options: --async (run each call as a job)  --verbose (every mismatch)
//            --json (the summary as JSON on stdout)  --out DIR (reports, default eval-report/)
//            --min-accuracy 0.9 (exit 1 below it)  --in-place (see below)
//
// Reports: DIR/eval-<time>.json and DIR/eval-<time>.md: accuracy per field and per capability, failures,
// credits, latency.
//
// Provider: OPENAI_BASE_URL / OPENAI_API_KEY / AI_WIRE_API / AI_MODEL as for the server (C11). Database: the
// server of DATABASE_URL, or the embedded PostgreSQL; the run migrates a throwaway database there
// (capapi_eval_…) and drops it at the end, so an eval never writes to a real one. --in-place uses the
// configured database itself instead (needs no CREATEDB right). Either way it funds a throwaway account
// ("eval-…@eval.invalid") with exactly the credits it needs and revokes its key at the end.
// Exit code 1 when a call fails.
import { createLogger } from '../core/observability/log.ts'
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { addCredits, createAccount } from '../core/accounts/accounts.ts'
import { createKey, revokeKey } from '../core/accounts/keys.ts'
import { buildApp } from '../core/app.ts'
import { boot } from '../core/boot.ts'
import { loadConfig, type Config } from '../core/config.ts'
import { ensureDatabaseExists, resolveDatabaseUrl } from '../core/db/database.ts'
import { normalizeDate, toAmount } from '../core/documents/checks.ts'
import { startWorker } from '../core/worker.ts'
import { checkManifest, type Capability } from '../core/run/registry.ts'
import { CAPABILITIES_ROOT, capabilityFolders } from '../core/capability-folders.ts'
import type { CapabilityManifest } from '../core/capability.ts'
import { type EvalCase } from '../devkit/eval-kit.ts'
import { withDatabase } from '../devkit/database.ts'
import { startFakeOpenAI, type FakeOpenAI } from '../devkit/fake-openai.ts'

// ---- the cases: one eval.ts per capability folder ------------------------------------------------------------

type Form = 'text' | 'pdf' | 'image' | 'audio'

export interface EvalEntry {
  cases: EvalCase[]
  /** Per array path ("changes", "experience"): align expected and actual elements on a key, or 'set' for arrays of scalars. */
  align?: Record<string, string>
  /** Per field path ("changes[].before"): 'contains' scores a normalised substring as a match. */
  compare?: Record<string, 'contains'>
}

export const EVALS: Record<string, EvalEntry> = {}
for (const name of capabilityFolders(CAPABILITIES_ROOT)) {
  const file = pathToFileURL(path.join(CAPABILITIES_ROOT, name, 'eval.ts'))
  if (!existsSync(file)) continue
  const { evalCases, align, compare } = (await import(file.href)) as { evalCases?: EvalCase[] } & Omit<EvalEntry, 'cases'>
  if (evalCases?.length) EVALS[name] = { cases: evalCases, align, compare }
}

/** What a ready request sends, for the report: a PDF, an image, a recording, or text. */
export function formOf(request: unknown): Form {
  const json = JSON.stringify(request)
  if (json.includes('"application/pdf"')) return 'pdf'
  if (/"image\/|"imageUrl"|"image":\{/.test(json)) return 'image'
  if (/"audio\/|"audio":\{|"audioUrl"/.test(json)) return 'audio'
  return 'text'
}

// ---- scoring -----------------------------------------------------------------------------------------------

type Outcome = 'exact' | 'normalised' | 'wrong' | 'missing'
export interface Mismatch {
  path: string
  expected: unknown
  actual: unknown
  outcome: Outcome
}

const norm = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const absent = (v: unknown) => v === undefined || v === null

function scalar(expected: unknown, actual: unknown, mode: 'contains' | undefined): Outcome {
  if (absent(expected)) return absent(actual) ? 'exact' : 'wrong'
  if (absent(actual)) return 'missing'
  if (typeof expected === 'number') {
    if (typeof actual === 'number') return Math.abs(actual - expected) <= 0.01 ? 'exact' : 'wrong'
    const n = toAmount(actual)
    return n !== null && Math.abs(n - expected) <= 0.01 ? 'normalised' : 'wrong'
  }
  if (typeof expected === 'string') {
    if (actual === expected) return 'exact'
    if (typeof actual === 'number') return norm(String(actual)) === norm(expected) ? 'normalised' : 'wrong'
    if (typeof actual !== 'string') return 'wrong'
    if (norm(actual) === norm(expected)) return 'normalised'
    const d = normalizeDate(expected)
    if (d && normalizeDate(actual) === d) return 'normalised'
    if (mode === 'contains' && norm(actual).includes(norm(expected))) return 'normalised'
    return 'wrong'
  }
  return actual === expected ? 'exact' : 'wrong'
}

/** A case's `expected` fields and `checks`, one outcome each. */
export function scoreCase(c: EvalCase, actual: unknown, request: unknown, entry: EvalEntry): Mismatch[] {
  const out = c.expected ? score(c.expected, actual, entry) : []
  for (const [name, check] of Object.entries(c.checks ?? {})) {
    let pass: boolean
    try {
      pass = check(actual, request)
    } catch {
      pass = false
    }
    out.push({ path: `check: ${name}`, expected: true, actual: pass, outcome: pass ? 'exact' : 'wrong' })
  }
  return out
}

/** Scores `actual` against `expected`, one outcome per leaf field, keyed by its generic path ("lineItems[].amount"). */
function score(expected: unknown, actual: unknown, entry: EvalEntry, path = '', out: Mismatch[] = []): Mismatch[] {
  const push = (p: string, e: unknown, a: unknown, outcome: Outcome) => out.push({ path: p, expected: e, actual: a, outcome })
  if (Array.isArray(expected)) {
    const list: unknown[] = Array.isArray(actual) ? actual : []
    push(
      `${path}.length`,
      expected.length,
      Array.isArray(actual) ? list.length : actual,
      Array.isArray(actual) ? (list.length === expected.length ? 'exact' : 'wrong') : 'missing',
    )
    const key = entry.align?.[path]
    if (key === 'set' || expected.every((e) => !isObject(e))) {
      for (const e of expected) {
        const outcomes = list.map((a) => scalar(e, a, entry.compare?.[`${path}[]`]))
        const best = outcomes.includes('exact') ? 'exact' : outcomes.includes('normalised') ? 'normalised' : 'missing'
        push(`${path}[]`, e, undefined, best)
      }
      return out
    }
    const unused = [...list]
    expected.forEach((e, i) => {
      let a: unknown = list[i]
      if (key && isObject(e)) {
        const at = unused.findIndex((x) => isObject(x) && typeof x[key] === 'string' && norm(x[key]) === norm(String(e[key])))
        a = at >= 0 ? unused.splice(at, 1)[0] : undefined
      }
      score(e, a, entry, `${path}[]`, out)
    })
    return out
  }
  if (isObject(expected)) {
    for (const [k, e] of Object.entries(expected)) score(e, isObject(actual) ? actual[k] : undefined, entry, path ? `${path}.${k}` : k, out)
    return out
  }
  push(path, expected, actual, scalar(expected, actual, entry.compare?.[path]))
  return out
}

// ---- running -----------------------------------------------------------------------------------------------

interface CallResult {
  capability: string
  case: string
  form: Form
  status: number | string
  ms: number
  credits?: number
  error?: string
  warnings?: string[]
  outcomes: Mismatch[]
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** The parts of a response body the report reads (the published document fixes the rest). */
interface ResponseBody {
  jobId?: string
  usage?: { credits?: number }
  warnings?: string[]
  error?: { code?: string; message?: string }
}
interface JobBody {
  status: string
  result?: ResponseBody
  errorCode?: string
  error?: string
}

async function call(
  base: string,
  key: string,
  capability: string,
  body: Record<string, unknown>,
  asJob: boolean,
): Promise<{ status: number | string; body: ResponseBody | undefined }> {
  const headers = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
  for (let attempt = 0; ; attempt++) {
    const res = await fetch(`${base}/v1/${capability}`, {
      method: 'POST',
      headers,
      body: JSON.stringify(asJob ? { ...body, async: true } : body),
    })
    const json = (await res.json().catch(() => undefined)) as ResponseBody | undefined
    if (res.status === 429 && attempt < 5) {
      await sleep(1000 * Number(res.headers.get('retry-after') ?? 1))
      continue
    }
    if (!asJob || res.status !== 202) return { status: res.status, body: json }
    const deadline = Date.now() + 11 * 60_000 // the async model timeout is 10 min (C11)
    while (Date.now() < deadline) {
      await sleep(250)
      const job = (await (await fetch(`${base}/v1/jobs/${json!.jobId}`, { headers })).json()) as JobBody
      if (job.status === 'succeeded') return { status: 200, body: job.result }
      if (job.status === 'failed') return { status: `job failed`, body: { error: { code: job.errorCode, message: job.error } } }
    }
    return { status: 'job timed out', body: undefined }
  }
}

async function loadCapability(name: string): Promise<Capability | null> {
  const file = path.join(CAPABILITIES_ROOT, name, 'manifest.ts')
  if (!existsSync(file)) return null
  const { default: manifest } = (await import(pathToFileURL(file).href)) as { default?: CapabilityManifest }
  return checkManifest(manifest, name, `capabilities/${name}`)
}

function pct(n: number, of: number) {
  return of === 0 ? '   -  ' : `${((100 * n) / of).toFixed(1).padStart(5)}%`
}

async function main() {
  const { values } = parseArgs({
    options: {
      capability: { type: 'string', default: 'all' },
      fake: { type: 'boolean', default: false },
      async: { type: 'boolean', default: false },
      verbose: { type: 'boolean', default: false },
      json: { type: 'boolean', default: false },
      'min-accuracy': { type: 'string' },
      'in-place': { type: 'boolean', default: false },
      out: { type: 'string', default: 'eval-report' },
    },
  })
  const wanted = values.capability === 'all' ? Object.keys(EVALS) : values.capability.split(',').map((s) => s.trim())
  for (const name of wanted) if (!EVALS[name]) throw new Error(`No eval for "${name}". Known: ${Object.keys(EVALS).join(', ')}.`)
  const say = values.json ? (_: string) => {} : (m: string) => console.log(m)

  const capabilities: Capability[] = []
  for (const name of wanted) {
    const cap = await loadCapability(name)
    if (cap) capabilities.push(cap)
    else say(`(skipped ${name}: capabilities/${name} does not exist yet)`)
  }
  if (capabilities.length === 0) throw new Error('Nothing to evaluate.')

  let fake: FakeOpenAI | null = null
  const config = loadConfig()
  if (values.fake) {
    fake = await startFakeOpenAI()
    config.ai = { ...config.ai, apiKey: 'fake', baseURL: fake.baseURL }
  }
  const { dbServer, dropDatabase } = await evalDatabase(config, values['in-place'])
  const booted = await boot(config, {
    capabilities: new Map(capabilities.map((c) => [c.name, c])),
    log: values.verbose ? (m) => console.error(m) : () => {},
    logger: createLogger({ level: values.verbose ? 'info' : 'silent' }),
  }).catch(async (e) => {
    await dropDatabase()
    await dbServer.stop()
    throw e
  })
  const { services } = booted
  let server: Server | null = null
  let worker: Awaited<ReturnType<typeof startWorker>> | null = null
  let keyId: string | null = null
  const results: CallResult[] = []
  let cleaned: Promise<void> | null = null
  const cleanup = () =>
    (cleaned ??= (async () => {
      if (keyId) await revokeKey(services.db, keyId, services.keys, services.now()).catch(() => {})
      if (server) {
        server.closeAllConnections()
        await new Promise((r) => server!.close(r))
      }
      await worker?.stop()
      await booted.close()
      await dropDatabase().catch((e) => console.error(`eval: could not drop the throwaway database: ${(e as Error).message}`))
      await dbServer.stop()
      await fake?.close()
    })())
  // Ctrl-C or a closed output pipe (| head) must not leave the throwaway database behind.
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.once(signal, () => void cleanup().finally(() => process.exit(130)))
  process.stdout.on('error', () => {})
  try {
    if (!services.provider.configured)
      throw new Error('No model provider configured: set OPENAI_API_KEY and/or OPENAI_BASE_URL, or pass --fake.')
    const srv = buildApp(services).listen(0, '127.0.0.1')
    server = srv
    await new Promise((r) => srv.once('listening', r))
    const base = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`
    if (values.async) worker = await startWorker(services, { concurrency: 2, gracefulShutdownMs: 5000 })

    const credits = capabilities.reduce((n, c) => n + c.price * EVALS[c.name]!.cases.length, 0)
    const account = await createAccount(services.db, { email: `eval-${Date.now()}-${process.pid}@eval.invalid` }, services.now())
    await addCredits(services.db, account.id, { credits, reason: 'eval run' }, services.now())
    const key = await createKey(services.db, account.id, { name: 'eval' })
    keyId = key.id
    say(
      `eval: ${capabilities.map((c) => c.name).join(', ')} · ${values.async ? 'async' : 'sync'} · provider ${
        fake ? 'fake (scores meaningless)' : `${config.ai.baseURL ?? 'OpenAI'} ${config.ai.wireApi} ${config.ai.models.text}`
      } · account ${account.id} funded with ${credits} credits\n`,
    )

    results.push(...(await runCases(base, key.key, capabilities, { async: values.async, verbose: values.verbose }, say)))
  } finally {
    await cleanup()
  }

  const summary = summarize(capabilities, results, say)
  const report: Report = {
    at: new Date().toISOString(),
    provider: fake ? 'fake' : `${config.ai.baseURL ?? 'OpenAI'} ${config.ai.wireApi} ${config.ai.models.text}`,
    fake: Boolean(fake),
    async: values.async,
    summary,
    calls: results,
  }
  writeReport(report, values, say)
}

/** A throwaway database on the configured server (the embedded one when DATABASE_URL is unset), or with `inPlace` the configured one. */
async function evalDatabase(config: Config, inPlace: boolean) {
  const dbServer = await resolveDatabaseUrl(config.databaseUrl)
  let dropDatabase = async () => {}
  if (!inPlace) {
    const name = `capapi_eval_${Date.now()}_${process.pid}`
    const admin = withDatabase(dbServer.url, 'postgres')
    try {
      await ensureDatabaseExists(admin, name)
    } catch (e) {
      await dbServer.stop()
      throw new Error(`cannot create a throwaway database (${(e as Error).message}); pass --in-place to use the configured one`, {
        cause: e,
      })
    }
    config.databaseUrl = withDatabase(dbServer.url, name)
    dropDatabase = async () => {
      const client = new pg.Client({ connectionString: admin })
      await client.connect()
      await client.query(`drop database if exists "${name}" with (force)`).finally(() => client.end())
    }
  } else config.databaseUrl = dbServer.url
  return { dbServer, dropDatabase }
}

/** Every case of each capability, called and scored, one line each. */
async function runCases(
  base: string,
  key: string,
  capabilities: Capability[],
  values: { async: boolean; verbose: boolean },
  say: (m: string) => void,
): Promise<CallResult[]> {
  const results: CallResult[] = []
  for (const cap of capabilities) {
    const entry = EVALS[cap.name]!
    for (const c of entry.cases) {
      const form = formOf(c.request)
      const started = Date.now()
      const res = await call(base, key, cap.name, c.request, values.async)
      const ok = res.status === 200
      const result: CallResult = {
        capability: cap.name,
        case: c.name,
        form,
        status: res.status,
        ms: Date.now() - started,
        outcomes: ok ? scoreCase(c, res.body, c.request, entry) : [],
        ...(ok
          ? { credits: res.body?.usage?.credits, warnings: res.body?.warnings ?? [] }
          : { error: `${res.body?.error?.code ?? ''} ${res.body?.error?.message ?? ''}`.trim() }),
      }
      results.push(result)
      const right = result.outcomes.filter((o) => o.outcome === 'exact' || o.outcome === 'normalised').length
      say(
        `  ${cap.name} ${c.name} [${form}] ${res.status} ${(result.ms / 1000).toFixed(1)}s` +
          (ok
            ? ` · ${right}/${result.outcomes.length} fields · ${result.credits} credits${result.warnings!.length ? ` · ${result.warnings!.length} warnings` : ''}`
            : ` · ${result.error}`),
      )
      if (values.verbose) {
        for (const w of result.warnings ?? []) say(`      warning: ${w}`)
        for (const o of result.outcomes.filter((x) => x.outcome === 'wrong' || x.outcome === 'missing')) {
          say(`      ${o.outcome.padEnd(7)} ${o.path}: expected ${JSON.stringify(o.expected)}, got ${JSON.stringify(o.actual)}`)
        }
      }
    }
  }
  return results
}

/** Each capability's calls by field and outcome, printed as a table. */
function summarize(capabilities: Capability[], results: CallResult[], say: (m: string) => void): Record<string, Summary> {
  const summary: Record<string, Summary> = {}
  for (const cap of capabilities) {
    const mine = results.filter((r) => r.capability === cap.name)
    const fields: Record<string, Record<Outcome, number>> = {}
    for (const o of mine.flatMap((r) => r.outcomes)) {
      fields[o.path] ??= { exact: 0, normalised: 0, wrong: 0, missing: 0 }
      fields[o.path]![o.outcome]++
    }
    const all = Object.values(fields).reduce((n, f) => n + f.exact + f.normalised + f.wrong + f.missing, 0)
    const right = Object.values(fields).reduce((n, f) => n + f.exact + f.normalised, 0)
    const ms = mine.map((r) => r.ms).sort((a, b) => a - b)
    summary[cap.name] = {
      calls: mine.length,
      failed: mine.filter((r) => r.status !== 200).length,
      accuracy: all ? right / all : null,
      credits: mine.reduce((n, r) => n + (r.credits ?? 0), 0),
      latencyMs: { median: ms[Math.floor((ms.length - 1) / 2)] ?? 0, max: ms.at(-1) ?? 0 },
      fields,
    }

    say(`\n${cap.name}: ${mine.length} calls, ${summary[cap.name]!.failed} failed`)
    say(`  ${'field'.padEnd(34)} exact  norm wrong  miss  accuracy`)
    for (const [path, f] of Object.entries(fields)) {
      const n = f.exact + f.normalised + f.wrong + f.missing
      say(
        `  ${path.padEnd(34)} ${[f.exact, f.normalised, f.wrong, f.missing].map((x) => String(x).padStart(5)).join(' ')}   ${pct(f.exact + f.normalised, n)}`,
      )
    }
    say(`  ${'all fields'.padEnd(34)} ${' '.repeat(23)}   ${pct(right, all)}`)
  }
  return summary
}

/** The report as JSON and Markdown under --out; the exit code says whether a call failed or a score is under --min-accuracy. */
function writeReport(
  report: Report,
  values: { json: boolean; out: string; 'min-accuracy'?: string | undefined },
  say: (m: string) => void,
) {
  const { summary, calls: results } = report
  if (values.json) console.log(JSON.stringify(report, null, 2))
  const stamp = report.at.replace(/[:.]/g, '-')
  mkdirSync(values.out, { recursive: true })
  writeFileSync(`${values.out}/eval-${stamp}.json`, JSON.stringify(report, null, 2))
  writeFileSync(`${values.out}/eval-${stamp}.md`, markdown(report))
  say(`\nreports: ${values.out}/eval-${stamp}.json, ${values.out}/eval-${stamp}.md`)

  const failed = results.some((r) => r.status !== 200)
  const floor = values['min-accuracy'] !== undefined ? Number(values['min-accuracy']) : null
  const below = floor !== null && Object.values(summary).some((s) => s.accuracy !== null && s.accuracy < floor)
  if (failed) say('\nSome calls failed (see above).')
  if (below)
    say(
      `\nAccuracy below ${floor} for: ${Object.entries(summary)
        .filter(([, s]) => s.accuracy !== null && s.accuracy < floor)
        .map(([n]) => n)
        .join(', ')}`,
    )
  process.exitCode = failed || below ? 1 : 0
}

interface Summary {
  calls: number
  failed: number
  accuracy: number | null
  credits: number
  latencyMs: { median: number; max: number }
  fields: Record<string, Record<Outcome, number>>
}

/** The Markdown report: per capability, then per field, then every failure and wrong field. */
interface Report {
  at: string
  provider: string
  fake: boolean
  async: boolean
  summary: Record<string, Summary>
  calls: CallResult[]
}

function markdown(r: Report): string {
  const p = (n: number | null) => (n === null ? '–' : `${(100 * n).toFixed(1)} %`)
  const lines = [
    `# Eval ${r.at}`,
    '',
    `Provider: ${r.provider}${r.fake ? ' (the fake answers schema-minimal objects: these scores say nothing about quality, only that the harness runs and scores)' : ''}.`,
    '',
    '| capability | calls | failed | accuracy | credits | median latency | max latency |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...Object.entries(r.summary).map(
      ([n, s]) =>
        `| ${n} | ${s.calls} | ${s.failed} | ${p(s.accuracy)} | ${s.credits} | ${s.latencyMs.median} ms | ${s.latencyMs.max} ms |`,
    ),
    '',
    '## Accuracy per field',
  ]
  for (const [n, s] of Object.entries(r.summary)) {
    if (!Object.keys(s.fields).length) continue
    lines.push('', `### ${n}`, '', '| field | exact | normalised | wrong | missing | accuracy |', '|---|---:|---:|---:|---:|---:|')
    for (const [path, f] of Object.entries(s.fields)) {
      const all = f.exact + f.normalised + f.wrong + f.missing
      lines.push(
        `| ${path.replace(/\|/g, '\\|')} | ${f.exact} | ${f.normalised} | ${f.wrong} | ${f.missing} | ${p(all ? (f.exact + f.normalised) / all : null)} |`,
      )
    }
  }
  lines.push('', '## Failures', '')
  const failures = r.calls.filter((c) => c.status !== 200 || c.outcomes.some((o) => o.outcome === 'wrong' || o.outcome === 'missing'))
  if (!failures.length) lines.push('None.')
  for (const c of failures) {
    lines.push(`- **${c.capability}** ${c.case} [${c.form}]: ${c.status === 200 ? 'wrong fields' : `${c.status} ${c.error ?? ''}`}`)
    for (const o of c.outcomes.filter((x) => x.outcome === 'wrong' || x.outcome === 'missing').slice(0, 20)) {
      lines.push(
        `  - ${o.outcome} \`${o.path}\`: expected ${JSON.stringify(o.expected)?.slice(0, 120)}, got ${JSON.stringify(o.actual)?.slice(0, 120)}`,
      )
    }
  }
  return lines.join('\n') + '\n'
}

// Run when executed (npm run eval); importing the table or the scorer does not start a run.
if (process.argv[1] && import.meta.url === pathToFileURL(realpathSync(process.argv[1])).href) {
  main().catch((e) => {
    console.error(`eval: ${(e as Error).message ?? e}`)
    process.exit(1)
  })
}
