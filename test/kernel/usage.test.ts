// GET /v1/usage: the caller's ledger (free), newest first with a cursor, filters, and daily totals per
// endpoint. Every response is checked against the published OpenAPI document.
import t from 'tap'
import { Ajv2020 } from 'ajv/dist/2020.js'
import addFormatsModule from 'ajv-formats'
import { startTestApp, testCapability } from '../helpers/app.ts'

const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default
const app = await startTestApp(t, {
  capabilities: [testCapability({ name: 'alpha', price: 3 }), testCapability({ name: 'beta', price: 7 })],
})
const doc = (await app.call('/v1/openapi.json')).body
const ajv = new Ajv2020({ strict: false })
addFormats(ajv)
ajv.addSchema({ ...doc, $id: 'doc' })
const op = 'doc#/paths/~1v1~1usage/get/responses'
const checks: Record<string, ReturnType<typeof ajv.compile>> = {
  200: ajv.compile({ $ref: `${op}/200/content/application~1json/schema` }),
  400: ajv.compile({ $ref: `${op}/400/content/application~1json/schema` }),
  401: ajv.compile({ $ref: `${op}/401/content/application~1json/schema` }),
}
async function usage(key: string, query = '') {
  const res = await app.call(`/v1/usage${query}`, { key })
  const check = checks[res.status]
  t.ok(check, `status ${res.status} is documented`)
  t.ok(check?.(res.body), `the ${res.status} response matches the published schema ${JSON.stringify(check?.errors ?? [])}`)
  return res
}

const a = await app.customer(100)
const b = await app.customer(50)
const { createKey } = await import('../../core/accounts/keys.ts')
const other = await createKey(app.services.db, a.accountId, { name: 'other' })
for (let i = 0; i < 3; i++) await app.call('/v1/alpha', { key: a.key, body: { text: `a${i}` } })
await app.call('/v1/beta', { key: other.key, body: { text: 'b' } })
await app.call('/v1/alpha', { key: b.key, body: { text: 'not mine' } })

t.test('the ledger newest first, with charges, the funding grant, daily totals; free of charge', async (t) => {
  const before = (await app.ledger(a.accountId)).balance
  const res = await usage(a.key)
  t.equal(res.status, 200)
  t.same(
    res.body.entries.map((e: any) => [e.kind, e.amount, e.endpoint ?? null]),
    [
      ['charge', -7, 'beta'],
      ['charge', -3, 'alpha'],
      ['charge', -3, 'alpha'],
      ['charge', -3, 'alpha'],
      ['adjustment', 100, null],
    ],
  )
  t.equal(res.body.entries[0].balanceAfter, 100 - 16)
  t.equal(res.body.entries[0].keyId, other.id)
  t.match(res.body.entries[1], { requestId: String, keyId: a.keyId })
  t.equal(res.body.entries[4].reference, 'test funding')
  t.notOk('nextCursor' in res.body, 'one page: no cursor')
  const today = new Date().toISOString().slice(0, 10)
  t.same(res.body.daily, [
    { date: today, endpoint: 'alpha', calls: 3, credits: 9 },
    { date: today, endpoint: 'beta', calls: 1, credits: 7 },
  ])
  t.equal((await app.ledger(a.accountId)).balance, before, 'reading usage costs nothing')
})

t.test('cursor pagination walks every entry once', async (t) => {
  const seen: string[] = []
  let cursor: string | undefined
  let pages = 0
  do {
    const res = await usage(a.key, `?limit=2${cursor ? `&cursor=${cursor}` : ''}`)
    seen.push(...res.body.entries.map((e: any) => e.id))
    cursor = res.body.nextCursor
    pages++
  } while (cursor)
  t.equal(pages, 3)
  t.equal(seen.length, 5)
  t.equal(new Set(seen).size, 5)
})

t.test('filters: endpoint, key, time window', async (t) => {
  t.same(
    (await usage(a.key, '?endpoint=beta')).body.entries.map((e: any) => e.endpoint),
    ['beta'],
  )
  const byKey = (await usage(a.key, `?keyId=${a.keyId}`)).body
  t.equal(byKey.entries.length, 3)
  t.same(
    byKey.daily.map((d: any) => d.endpoint),
    ['alpha'],
  )
  const future = new Date(Date.now() + 3600_000).toISOString()
  t.same((await usage(a.key, `?from=${encodeURIComponent(future)}`)).body, { entries: [], daily: [] })
  t.equal((await usage(a.key, `?to=${encodeURIComponent(future)}`)).body.entries.length, 5)
})

t.test('another account’s key or entries never show', async (t) => {
  const res = await usage(b.key, `?keyId=${a.keyId}`)
  t.same(res.body, { entries: [], daily: [] })
  const own = await usage(b.key)
  t.equal(own.body.entries.length, 2)
  t.notOk(JSON.stringify(own.body).includes(a.keyId))
})

t.test('bad input is a 400 with details; no key is a 401', async (t) => {
  for (const q of [
    '?limit=0',
    '?limit=201',
    '?limit=x',
    '?from=yesterday',
    '?keyId=nope',
    '?cursor=bm9wZQ',
    '?colour=red',
    '?endpoint=A%20B',
  ]) {
    const res = await usage(a.key, q)
    t.equal(res.status, 400, q)
    t.equal(res.body.error.code, 'invalid_request', q)
    t.ok(res.body.error.requestId)
  }
  const res = await app.call('/v1/usage')
  t.equal(res.status, 401)
  t.ok(checks[401]!(res.body))
})
