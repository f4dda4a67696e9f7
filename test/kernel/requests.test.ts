// The request log (GET /v1/requests, GET /v1/requests/{id}) and the job list (GET /v1/jobs): every request of
// a known key, served or refused (404 and 405 too), with what a customer needs to find it again and debug it;
// newest first with a cursor; test and live apart; pruned by maintenance after the retention. Every answer is
// checked against the published document.
import t from 'tap'
import { createKey } from '../../core/accounts/keys.ts'
import { runMaintenance } from '../../core/maintenance.ts'
import { startTestApp, testCapability } from '../helpers/app.ts'
import { jobCapability } from '../helpers/job-capabilities.ts'

let clock = Date.now()
const app = await startTestApp(t, {
  capabilities: [testCapability({ name: 'alpha', price: 3 }), testCapability({ name: 'beta', price: 2 }), jobCapability],
  now: () => new Date(clock),
  config: { requestLogRetentionDays: 30 },
})

t.test('a 400 and a 200 made just before are listed, newest first, with their request ids', async (t) => {
  const c = await app.customer(20)
  const bad = await app.call('/v1/alpha', { key: c.key, body: { text: '' } })
  t.equal(bad.status, 400)
  const ok = await app.call('/v1/alpha', { key: c.key, body: { text: 'hi' }, headers: { 'idempotency-key': 'order-1' } })
  t.equal(ok.status, 200)
  const res = await app.call('/v1/requests', { key: c.key })
  t.equal(res.status, 200)
  t.match(res.body.requests, [
    {
      requestId: ok.headers.get('x-request-id'),
      method: 'POST',
      endpoint: '/v1/alpha',
      status: 200,
      credits: 3,
      latencyMs: Number,
      idempotencyKey: 'order-1',
      keyId: c.keyId,
      keyPrefix: c.key.slice(0, 12),
      mode: 'live',
    },
    { requestId: bad.body.error.requestId, endpoint: '/v1/alpha', status: 400, errorCode: 'invalid_request', credits: 0 },
  ])
  t.equal(res.body.requests.length, 2, 'reading the log is not itself listed')
  t.notOk('errorCode' in res.body.requests[0], 'no code on a success')
  t.notOk('nextCursor' in res.body)
})

t.test('refusals of a known key are listed; a call with an unknown key is not anyone’s to list', async (t) => {
  const c = await app.customer(0)
  const broke = await app.call('/v1/alpha', { key: c.key, body: { text: 'hi' } })
  t.equal(broke.status, 402)
  await app.call('/v1/alpha', { key: 'ksk_live_' + 'n'.repeat(32), body: { text: 'hi' } })
  const account = await app.call('/v1/account', { key: c.key })
  const listed = (await app.call('/v1/requests', { key: c.key })).body.requests
  t.match(listed, [
    { requestId: account.headers.get('x-request-id'), method: 'GET', endpoint: '/v1/account', status: 200 },
    { requestId: broke.body.error.requestId, status: 402, errorCode: 'insufficient_credits', credits: 0 },
  ])
  t.equal(listed.length, 2)
  const [row] = await app.services.db.sql(`select count(*)::int as n from request_log where key_prefix = 'ksk_live_nnn'`)
  t.equal(row!.n, 0, 'the unknown key left no row')
})

t.test('filters: endpoint, status, key, time; a cursor pages through', async (t) => {
  const c = await app.customer(100)
  const second = await createKey(app.services.db, c.accountId, { name: 'second' })
  const started = new Date(clock).toISOString()
  for (let i = 0; i < 3; i++) await app.call('/v1/alpha', { key: c.key, body: { text: `a${i}` } })
  await app.call('/v1/beta', { key: second.key, body: { text: 'b' } })
  await app.call('/v1/beta', { key: c.key, body: { nope: 1 } })
  const list = async (query: string) => (await app.call(`/v1/requests${query}`, { key: c.key })).body
  t.equal((await list('?endpoint=alpha')).requests.length, 3)
  t.equal((await list('?endpoint=/v1/beta')).requests.length, 2)
  t.same(
    (await list('?status=4xx')).requests.map((r: any) => r.status),
    [400],
  )
  t.equal((await list('?status=200')).requests.length, 4)
  t.same(
    (await list(`?keyId=${second.id}`)).requests.map((r: any) => r.endpoint),
    ['/v1/beta'],
  )
  t.equal((await list(`?from=${encodeURIComponent(started)}&to=${encodeURIComponent(started)}`)).requests.length, 0, 'to is exclusive')

  const first = await list('?limit=2')
  t.equal(first.requests.length, 2)
  t.type(first.nextCursor, 'string')
  const next = await list(`?limit=2&cursor=${first.nextCursor}`)
  const last = await list(`?limit=2&cursor=${next.nextCursor}`)
  const all = (await list('')).requests.map((r: any) => r.requestId)
  t.same(
    [...first.requests, ...next.requests, ...last.requests].map((r: any) => r.requestId),
    all,
    'the pages are the list, in order',
  )
  t.notOk('nextCursor' in last)

  for (const query of ['?status=99', '?limit=0', '?mode=sandbox', '?cursor=bm9wZQ', '?surprise=1']) {
    const res = await app.call(`/v1/requests${query}`, { key: c.key })
    t.equal(res.status, 400, query)
    t.equal(res.body.error.code, 'invalid_request', query)
  }
})

t.test('test and live calls are apart: a test key reads test calls only', async (t) => {
  const c = await app.customer(10)
  const test = await createKey(app.services.db, c.accountId, { mode: 'test' })
  await app.call('/v1/alpha', { key: c.key, body: { text: 'live' } })
  const sandbox = await app.call('/v1/alpha', { key: test.key, body: { text: 'test' } })
  const asTest = (await app.call('/v1/requests', { key: test.key })).body.requests
  t.match(asTest, [{ requestId: sandbox.headers.get('x-request-id'), mode: 'test', credits: 0, keyPrefix: /^ksk_test_/ }])
  t.equal(asTest.length, 1)
  t.equal((await app.call('/v1/requests?mode=live', { key: test.key })).status, 400, 'a test key cannot read live calls')
  const asLive = (await app.call('/v1/requests', { key: c.key })).body.requests
  t.same(
    asLive.map((r: any) => r.mode),
    ['live'],
  )
  t.equal((await app.call('/v1/requests?mode=test', { key: c.key })).body.requests.length, 1, 'a live key may look at test calls')
})

t.test('maintenance prunes rows older than the retention', async (t) => {
  const c = await app.customer(10)
  await app.call('/v1/alpha', { key: c.key, body: { text: 'old' } })
  await app.services.requestLog.flush()
  clock += 31 * 86400_000
  await app.call('/v1/alpha', { key: c.key, body: { text: 'new' } })
  await app.services.requestLog.flush()
  const report = await runMaintenance(app.services)
  const pruned = report.records['request_log']!
  t.ok(pruned.dropped.length + pruned.rowsDeleted >= 1, 'a partition or rows of the request log went')
  const left = (await app.call('/v1/requests', { key: c.key })).body.requests
  t.same(
    left.map((r: any) => r.status),
    [200],
    'the call of 31 days ago is gone',
  )
})

t.test('GET /v1/jobs lists the account’s jobs newest first, without results, with a cursor', async (t) => {
  const c = await app.customer(100)
  const other = await app.customer(100)
  const ids: string[] = []
  for (let i = 0; i < 3; i++) {
    clock += 1000
    ids.unshift((await app.call('/v1/jobdoc', { key: c.key, body: { text: `j${i}`, async: true } })).body.jobId)
  }
  await app.call('/v1/jobdoc', { key: other.key, body: { text: 'not mine', async: true } })
  const first = await app.call('/v1/jobs?limit=2', { key: c.key })
  t.equal(first.status, 200)
  t.match(first.body.jobs, [
    { jobId: ids[0], endpoint: '/v1/jobdoc', status: 'queued' },
    { jobId: ids[1], endpoint: '/v1/jobdoc', status: 'queued' },
  ])
  const rest = await app.call(`/v1/jobs?limit=2&cursor=${first.body.nextCursor}`, { key: c.key })
  t.same(
    rest.body.jobs.map((j: any) => j.jobId),
    [ids[2]],
  )
  t.notOk('nextCursor' in rest.body)
  t.same((await app.call('/v1/jobs?status=succeeded', { key: c.key })).body.jobs, [])
  t.equal((await app.call('/v1/jobs?endpoint=parse', { key: c.key })).body.jobs.length, 0)
  t.equal((await app.call('/v1/jobs?cursor=xyz', { key: c.key })).status, 400)
})

t.test('the log debugs a call: 404s and 405s of a valid key in any spelling, dry runs, replays, jobs, messages', async (t) => {
  const c = await app.customer(10)
  const id = (res: { headers: Headers }) => res.headers.get('x-request-id')!
  const wrongPath = await app.call('/v1/alhpa', { key: c.key, body: { text: 'hi' } })
  const upper = await app.call('/V1/alpha', { key: c.key, body: { text: 'hi' } })
  const slash = await app.call('/v1/alpha/', { key: c.key, body: { text: 'hi' } })
  const wrongMethod = await app.call('/v1/alpha', { key: c.key, method: 'GET' })
  t.same([wrongPath.status, upper.status, slash.status, wrongMethod.status], [404, 404, 404, 405])
  t.equal(wrongMethod.headers.get('allow'), 'POST')
  const bad = await app.call('/v1/alpha', { key: c.key, body: { text: '' } })
  const paid = await app.call('/v1/alpha', { key: c.key, body: { text: 'hi' }, headers: { 'idempotency-key': 'pay-1' } })
  const replay = await app.call('/v1/alpha', { key: c.key, body: { text: 'hi' }, headers: { 'idempotency-key': 'pay-1' } })
  t.equal(replay.headers.get('idempotent-replayed'), 'true')
  const dry = await app.call('/v1/alpha', { key: c.key, body: { text: 'hi' }, headers: { 'service-dry-run': '1' } }) // 7 left, costs 3
  const broke = await app.customer(0)
  const dryBroke = await app.call('/v1/alpha', { key: broke.key, body: { text: 'hi' }, headers: { 'service-dry-run': 'true' } })
  t.equal(dryBroke.body.liveStatus, 402)
  const job = await app.call('/v1/jobdoc', { key: c.key, body: { text: 'later', async: true } })
  t.equal(job.status, 202)
  t.equal(job.headers.get('location'), `/v1/jobs/${job.body.jobId}`)

  t.same(
    [paid, replay, dry, bad, wrongPath, job].map((r) => r.headers.get('service-credits-charged')),
    ['3', '0', '0', '0', '0', '0'],
    'Service-Credits-Charged: what this answer charged (a job is charged when it succeeds)',
  )

  const row = async (res: { headers: Headers }, key = c.key) => {
    const found = await app.call(`/v1/requests/${id(res)}`, { key })
    t.equal(found.status, 200, `${id(res)} is found by its id`)
    return found.body
  }
  for (const [res, endpoint, status] of [
    [wrongPath, '/v1/alhpa', 404],
    [upper, '/V1/alpha', 404],
    [slash, '/v1/alpha/', 404],
    [wrongMethod, '/v1/alpha', 405],
  ] as const) {
    t.match(await row(res), {
      requestId: id(res),
      endpoint,
      status,
      errorCode: status === 404 ? 'not_found' : 'method_not_allowed',
      livemode: true,
    })
  }
  t.match(await row(bad), { status: 400, errorCode: 'invalid_request', errorMessage: /does not match the schema/, dryRun: false })
  t.match(await row(paid), { status: 200, credits: 3, replayed: false, idempotencyKey: 'pay-1' })
  t.match(await row(replay), { status: 200, credits: 0, replayed: true, idempotencyKey: 'pay-1' })
  const dryRow = await row(dry)
  t.match(dryRow, { status: 200, dryRun: true, liveStatus: 200, credits: 0 })
  t.notOk('errorCode' in dryRow)
  t.match(await row(dryBroke, broke.key), {
    status: 200,
    dryRun: true,
    liveStatus: 402,
    errorCode: 'insufficient_credits',
    errorMessage: /costs 3 credits; 0 are available/,
  })
  t.match(await row(job), { status: 202, jobId: job.body.jobId, credits: 0 })

  const byKey = (await app.call('/v1/requests?idempotencyKey=pay-1', { key: c.key })).body.requests
  t.same(
    byKey.map((r: any) => r.requestId),
    [id(replay), id(paid)],
    'filtered by Idempotency-Key: the call and its replay',
  )
  const byId = (await app.call(`/v1/requests?requestId=${id(bad)}`, { key: c.key })).body.requests
  t.same(
    byId.map((r: any) => r.status),
    [400],
  )
  t.equal((await app.call('/v1/requests/req_01JNMQ6ZK3V7T5W8X9Y0A1B2C3', { key: c.key })).status, 404, 'an id of nobody')
  t.equal((await app.call(`/v1/requests/${id(paid)}`, { key: broke.key })).status, 404, "another account's call")
  t.equal((await app.call('/v1/requests/constructor', { key: c.key })).status, 404)
  const test = await createKey(app.services.db, c.accountId, { mode: 'test' })
  t.equal((await app.call(`/v1/requests/${id(paid)}`, { key: test.key })).status, 404, 'a test key finds test calls only')
})

t.test('Service-Metadata: the caller’s own tags, stored on the row and filterable; malformed or too big is a 400', async (t) => {
  const c = await app.customer(20)
  const tagged = (metadata: string, text = 'hi') =>
    app.call('/v1/alpha', { key: c.key, body: { text }, headers: { 'service-metadata': metadata } })
  const a = await tagged('{"order":"1182","user":"u_7"}')
  const b = await tagged('{"order":"1183","user":"u_7"}')
  const refused = await tagged('{"order":"1184"}', '')
  t.same([a.status, b.status, refused.status], [200, 200, 400])
  await app.call('/v1/alpha', { key: c.key, body: { text: 'untagged' } })
  const list = async (query: string) => (await app.call(`/v1/requests?${query}`, { key: c.key })).body.requests.map((r: any) => r.requestId)
  t.same(await list('metadata.order=1182'), [a.headers.get('x-request-id')])
  t.same(await list('metadata.user=u_7'), [b.headers.get('x-request-id'), a.headers.get('x-request-id')])
  t.same(await list('metadata.user=u_7&metadata.order=1183'), [b.headers.get('x-request-id')], 'every tag given must match')
  t.same(await list('metadata.order=1184'), [refused.headers.get('x-request-id')], 'a refused call keeps its tags too')
  t.same(await list('metadata.user=nobody'), [])
  t.match((await app.call(`/v1/requests/${a.headers.get('x-request-id')}`, { key: c.key })).body, {
    metadata: { order: '1182', user: 'u_7' },
  })
  t.equal((await app.call('/v1/requests?metadata.=x', { key: c.key })).status, 400, 'a filter names a tag')
  t.equal((await app.call('/v1/account', { key: c.key, headers: { 'service-metadata': '{"via":"cron"}' } })).status, 200)

  const tooMany = JSON.stringify(Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`k${i}`, 'v'])))
  for (const [metadata, why] of [
    ['order=1182', /not JSON/],
    ['["a"]', /not a JSON object/],
    ['{"n":1}', /not a string/],
    ['{"bad key":"x"}', /tag name/],
    [tooMany, /more than 10 tags/],
    [JSON.stringify({ long: 'x'.repeat(201) }), /longer than 200 characters/],
    [JSON.stringify({ nul: 'a\u0000b' }), /control character/],
    [`{"x":"${'y'.repeat(3000)}"}`, /longer than 2048 bytes/],
  ] as const) {
    const res = await tagged(metadata)
    t.equal(res.status, 400, metadata.slice(0, 40))
    t.match(res.body.error, { code: 'invalid_request', message: why, details: [{ path: 'header:Service-Metadata' }] })
  }
  const proto = await tagged('{"__proto__":"x"}')
  t.equal(proto.status, 200, 'a tag named __proto__ is a tag')
  t.match((await app.call(`/v1/requests/${proto.headers.get('x-request-id')}`, { key: c.key })).body.metadata, { ['__proto__']: 'x' })
  await app.expectLedger(t, c.accountId, 20 - 3 * 4)
})

t.test('the writer: one statement per group of calls; a read waits only for the rows before it, even under steady traffic', async (t) => {
  const { RequestLog } = await import('../../core/requests/record.ts')
  const statements: number[] = []
  const slowDb = {
    sql: async (_text: string, params: unknown[] = []) => {
      await new Promise((r) => setTimeout(r, 5))
      statements.push((params[0] as unknown[]).length)
      return []
    },
  }
  const log = new RequestLog(slowDb, () => {})
  const row = (i: number) => ({
    accountId: '00000000-0000-4000-8000-000000000000',
    keyId: '00000000-0000-4000-8000-000000000001',
    keyPrefix: 'ksk_live_abc',
    mode: 'live' as const,
    requestId: `req_${i}`,
    method: 'POST',
    endpoint: '/v1/alpha',
    status: 200,
    errorCode: null,
    credits: 3,
    latencyMs: 1,
    idempotencyKey: null,
    at: new Date(),
    dryRun: null,
    replayed: false,
    cache: null,
    errorMessage: null,
    jobId: null,
    metadata: null,
  })
  let i = 0
  for (; i < 50; i++) log.record(row(i))
  await new Promise((r) => setTimeout(r, 150))
  t.same(statements, [50], '50 calls in one statement')
  // Steady traffic: a row every millisecond never lets the writer idle; a read still returns.
  const traffic = setInterval(() => log.record(row(i++)), 1)
  await new Promise((r) => setTimeout(r, 50))
  const before = i
  await log.flush()
  const written = statements.reduce((s, n) => s + n, 0)
  clearInterval(traffic)
  t.ok(written >= before, `the ${before} rows recorded before the read are written (${written})`)
  await log.flush()
  t.equal(
    statements.reduce((s, n) => s + n, 0),
    i,
    'every row, once',
  )
  t.ok(statements.length < i / 5, `grouped: ${statements.length} statements for ${i} rows`)
})
