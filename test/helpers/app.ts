// Boots the real app in-process on a fresh database (and, when asked, a worker), and closes everything
// when the test ends — the fastify-demo pattern: buildApp() without listen() plus a harness.
import type { AddressInfo } from 'node:net'
import type { Server } from 'node:http'
import type { Runner } from 'graphile-worker'
import type { Test } from 'tap'
import { buildApp, httpServer } from '../../core/app.ts'
import { boot } from '../../core/boot.ts'
import { loadConfig, type Config } from '../../core/config.ts'
import { createAccount, addCredits, type Plan } from '../../core/accounts/accounts.ts'
import { createKey } from '../../core/accounts/keys.ts'
import { startWorker } from '../../core/worker.ts'
import { openAIProvider, type ModelProvider } from '../../core/models/provider.ts'
import type { Services } from '../../core/services.ts'
import type { Capability } from '../../core/run/registry.ts'
import type { Resolver } from '../../core/net/address-guard.ts'
import { PublishedContract } from './contract.ts'
import { createTestDatabase } from '../../devkit/database.ts'
import { createLogger, type Logger } from '../../core/observability/log.ts'
import { mockProvider } from '../../devkit/fake-model.ts'
import { settleLeases } from '../../core/wallet/lease.ts'

// Tests import the fakes from here with the app; benches from devkit/ (scripts/ never import test/).
export { mockLanguageModel, mockProvider } from '../../devkit/fake-model.ts'
export { testCapability } from '../../devkit/test-capability.ts'

interface Tap {
  teardown(fn: () => unknown): void
}

export interface TestAppOptions {
  config?: Partial<Config>
  env?: NodeJS.ProcessEnv
  provider?: ModelProvider
  now?: () => Date
  resolver?: Resolver
  worker?: boolean
  /** Serve these capabilities instead of the folders (kernel tests use synthetic ones). */
  capabilities?: Capability[]
  /** Where structured log lines go (silent unless a test reads them). */
  logger?: Logger
  /** Where the plain message lines go (boot, worker; silent unless a test reads them). */
  log?: (message: string) => void
  /** A migrated database of the test's own (a server it kills); by default a fresh copy of the template. */
  databaseUrl?: string
  /**
   * Let call() use the result cache (test/cache). By default each capability call sends `Service-Cache: no-store`
   * (unless the test sends the header itself), so a test that repeats a call with another model answer gets it
   * (README.md: why this stays the default).
   */
  resultCache?: boolean
}

export interface Reply {
  status: number
  headers: Headers
  text: string
  body: any
}

export interface TestApp {
  url: string
  services: Services
  /** The document the app publishes, fetched at start; every 200/202 of call() is checked against it. */
  contract: PublishedContract
  call(
    path: string,
    init?: { method?: string; body?: unknown; raw?: string; key?: string; headers?: Record<string, string> },
  ): Promise<Reply>
  /** A new account with `credits` (an adjustment) and one key. */
  customer(credits: number, opts?: { plan?: Plan; monthlySpendCap?: number }): Promise<{ accountId: string; keyId: string; key: string }>
  topUp(accountId: string, credits: number): Promise<void>
  ledger(accountId: string): Promise<{ balance: number; reserved: number; ledgerSum: number }>
  /** The money checks every entry point (HTTP, SDK, MCP) shares: this balance, no hold open, balance == sum(ledger). */
  expectLedger(t: Test, accountId: string, balance: number): Promise<void>
}

let accounts = 0
/** The databases of this test process's apps: two apps on one database are two API processes of one deployment. */
const running = new Set<Services['db']>()

export async function startTestApp(t: Tap, opts: TestAppOptions = {}): Promise<TestApp> {
  const database = opts.databaseUrl ? { url: opts.databaseUrl, drop: async () => {} } : await createTestDatabase()
  const config: Config = {
    // The lease settings from the environment: the money tests run in both modes (`npm run test:lease`).
    ...loadConfig({
      PAUSED_ENDPOINTS: undefined,
      SECRET_ENCRYPTION_KEY: process.env.SECRET_ENCRYPTION_KEY,
      CREDIT_LEASE: process.env.CREDIT_LEASE,
      CREDIT_LEASE_BUSY_CALLS: process.env.CREDIT_LEASE_BUSY_CALLS,
      CREDIT_LEASE_MIN_CALLS: process.env.CREDIT_LEASE_MIN_CALLS,
      ...opts.env,
    }),
    databaseUrl: database.url,
    ...opts.config,
  }
  const booted = await boot(config, {
    provider: opts.provider ?? mockProvider(),
    log: opts.log ?? (() => {}),
    logger: opts.logger ?? createLogger({ level: 'silent' }),
    ...(opts.now ? { now: opts.now } : {}),
    ...(opts.resolver ? { resolver: opts.resolver } : {}),
    ...(opts.capabilities ? { capabilities: new Map(opts.capabilities.map((c) => [c.name, c])) } : {}),
  })
  const { services } = booted
  const server: Server = httpServer(buildApp(services), config).listen(0, '127.0.0.1')
  await new Promise((r) => server.once('listening', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  const worker: Runner | null = opts.worker ? await startWorker(services, { concurrency: 2, gracefulShutdownMs: 2000 }) : null
  running.add(services.db)
  t.teardown(async () => {
    running.delete(services.db)
    server.closeAllConnections()
    await new Promise((r) => server.close(r))
    await worker?.stop()
    await booted.close()
    await database.drop()
  })

  // Fetched before the test runs, so checking an answer never delays the next call.
  const contract = await PublishedContract.fetch(url)
  const app: TestApp = {
    url,
    services,
    contract,
    async call(path, init = {}) {
      const headers: Record<string, string> = { ...init.headers }
      if (init.key) headers.authorization = `Bearer ${init.key}`
      if (!opts.resultCache && !Object.keys(headers).some((h) => h.toLowerCase() === 'service-cache')) headers['service-cache'] = 'no-store'
      if ((init.body !== undefined || init.raw !== undefined) && !Object.keys(headers).some((h) => h.toLowerCase() === 'content-type')) {
        headers['content-type'] = 'application/json'
      }
      const method = init.method ?? (init.body !== undefined || init.raw !== undefined ? 'POST' : 'GET')
      const res = await fetch(url + path, {
        method,
        headers,
        body: init.raw ?? (init.body !== undefined ? JSON.stringify(init.body) : undefined),
      })
      const text = await res.text()
      contract.check(method, path, res.status, res.headers, text)
      let body: any
      try {
        body = JSON.parse(text)
      } catch {
        body = undefined
      }
      return { status: res.status, headers: res.headers, text, body }
    },
    async customer(credits, o = {}) {
      const account = await createAccount(
        services.db,
        { email: `c${++accounts}-${process.pid}@example.test`, plan: o.plan ?? 'none' },
        services.now(),
      )
      if (credits > 0) await addCredits(services.db, account.id, { credits, reason: 'test funding' }, services.now())
      const key = await createKey(services.db, account.id, { name: 'test', monthlySpendCap: o.monthlySpendCap ?? null })
      return { accountId: account.id, keyId: key.id, key: key.key }
    },
    async topUp(accountId, credits) {
      await addCredits(services.db, accountId, { credits, reason: 'test top-up' }, services.now())
    },
    async ledger(accountId) {
      // A leased call reaches the ledger when its block settles: the checks read it once every app's blocks are.
      await Promise.all([...running].map(settleLeases))
      const [row] = await services.db.sql(
        `select a.balance, a.reserved, (select coalesce(sum(amount), 0) from ledger l where l.account_id = a.id) as sum from accounts a where a.id = ?`,
        [accountId],
      )
      return { balance: Number(row!.balance), reserved: Number(row!.reserved), ledgerSum: Number(row!.sum) }
    },
    async expectLedger(t, accountId, balance) {
      const l = await app.ledger(accountId)
      t.equal(l.balance, balance, `balance is ${balance}`)
      t.equal(l.reserved, 0, 'no hold left open')
      t.equal(l.balance, l.ledgerSum, 'balance == sum(ledger)')
    },
  }
  return app
}

/** The real @ai-sdk/openai provider pointed at a fake server on loopback. */
export function fakeServerProvider(baseURL: string, wireApi: 'responses' | 'chat' = 'responses', embedding?: string): ModelProvider {
  return openAIProvider({
    apiKey: 'test',
    baseURL,
    wireApi,
    models: {
      text: 'test-model',
      image: 'test-image',
      speech: 'test-speech',
      transcription: 'test-transcribe',
      ...(embedding ? { embedding } : {}),
    },
  })
}
