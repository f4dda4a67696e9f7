// A database outage is an outage, not a bug. A real PostgreSQL of this test is killed with kill -9
// under 10 clients that call with Idempotency-Keys and retry, and started again 3 s later: every answer is 200,
// 409 idempotency_key_in_use or 503 service_unavailable with Retry-After; no claim or hold is stranded (every
// call is served within 10 s of the restart); each call is charged exactly once. The throwaway cluster runs in a
// mode-700 clone as root too, and a failed initdb says why.
import { spawnSync } from 'node:child_process'
import path from 'node:path'
import t from 'tap'
import { ensureDatabaseExists, migrate } from '../../core/db/database.ts'
import { runnablePostgres } from '../../core/db/embedded.ts'
import { startTestApp, testCapability } from '../helpers/app.ts'
import { initdbFailure, throwawayPostgres } from '../helpers/throwaway-postgres.ts'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

const PRICE = 3
// A model call that takes a while, so that calls are between their hold and their capture when the server dies.
const slowEcho = testCapability({
  name: 'slowecho',
  price: PRICE,
  ratePerMinute: 100_000,
  handler: async (input: any) => {
    await sleep(20 + Math.random() * 60)
    return { echo: input.text }
  },
})

t.test('PostgreSQL killed -9 and restarted after 3 s under 10 clients retrying with keys', async (t) => {
  const server = await throwawayPostgres()
  await ensureDatabaseExists(server.url('postgres'), 'capapi')
  await migrate(server.url('capapi'))
  const app = await startTestApp(t, { capabilities: [slowEcho], databaseUrl: server.url('capapi') })
  t.teardown(() => server.stop()) // after the app's own teardown
  const c = await app.customer(1_000_000)

  interface Call {
    key: string
    servedAt?: number
  }
  const calls: Call[] = []
  const unexpected: string[] = []
  const seen: Record<string, number> = {}
  let issuing = true
  let giveUpAt = Infinity // 12 s after the restart: a call still refused then was stranded
  const client = async (n: number) => {
    for (let i = 0; issuing; i++) {
      const call: Call = { key: `client${n}-call${i}` }
      calls.push(call)
      for (;;) {
        const r = await app.call('/v1/slowecho', { key: c.key, body: { text: call.key }, headers: { 'idempotency-key': call.key } })
        const code = r.body?.error?.code as string | undefined
        const retryAfter = r.headers.get('retry-after')
        const kind = `${r.status}${code ? ` ${code}` : ''}`
        seen[kind] = (seen[kind] ?? 0) + 1
        if (r.status === 200) {
          call.servedAt = Date.now()
          break
        }
        const expected = (r.status === 503 && code === 'service_unavailable') || (r.status === 409 && code === 'idempotency_key_in_use')
        if (!expected || !retryAfter) {
          unexpected.push(`${kind} retry-after=${retryAfter}: ${r.text.slice(0, 200)}`)
          break
        }
        if (Date.now() > giveUpAt) break
        await sleep(Number(retryAfter) * 1000) // as a client honouring Retry-After would
      }
    }
  }

  const clients = Array.from({ length: 10 }, (_, n) => client(n))
  await sleep(1000)
  const killedAt = Date.now()
  await server.kill()
  await sleep(3000)
  await server.start()
  const restartedAt = Date.now()
  giveUpAt = restartedAt + 12_000
  await sleep(1000) // new calls after the restart too
  issuing = false
  await Promise.all(clients)

  t.comment(`answers: ${JSON.stringify(seen)}; ${calls.length} calls; server down ${restartedAt - killedAt} ms`)
  t.same(unexpected, [], 'only 200, 409 idempotency_key_in_use and 503 service_unavailable, each 409/503 with Retry-After')
  t.ok((seen['503 service_unavailable'] ?? 0) > 0, 'the outage was seen by clients')
  const late = calls.filter((call) => call.servedAt === undefined || call.servedAt - restartedAt > 10_000)
  t.same(
    late.map((call) => call.key),
    [],
    'every call served within 10 s of the restart',
  )
  const servedLast = Math.max(...calls.map((call) => call.servedAt ?? Infinity))
  t.comment(`last call served ${servedLast - restartedAt} ms after the restart`)

  await app.expectLedger(t, c.accountId, 1_000_000 - PRICE * calls.length)
  const [charges] = await app.services.db.sql(`select count(*)::int as n from ledger where account_id = ? and kind = 'charge'`, [
    c.accountId,
  ])
  t.equal(charges!.n, calls.length, 'each call charged once')
  const [left] = await app.services.db.sql(
    `select (select count(*) from holds where state = 'open')::int as holds,
            (select count(*) from idempotency_records where state = 'running')::int as claims`,
  )
  t.same(left, { holds: 0, claims: 0 }, 'no hold or claim stranded')
})

t.test('a throwaway cluster whose initdb fails says why, whatever the failure', async (t) => {
  const { binDir, runAs } = await runnablePostgres()
  const badEncoding = spawnSync(path.join(binDir, 'initdb'), ['-D', '/nonexistent/capapi-test', '-E', 'NO-SUCH-ENCODING'], runAs)
  t.match(initdbFailure(badEncoding), /^exit code 1: .*NO-SUCH-ENCODING/, 'its own words')
  const unreachable = spawnSync(path.join(binDir, 'no-such-initdb'), [])
  t.match(initdbFailure(unreachable), /ENOENT/, 'a binary that cannot be run at all')
})
