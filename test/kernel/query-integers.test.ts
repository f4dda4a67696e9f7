// Integer query parameters are published as integers (with their bounds) and read as such: `?limit=3` is the
// number 3, anything that is not plain decimal digits within the bounds is 400 invalid_request naming the
// parameter. The parameters come from the published document, so a list route added later is covered too.
import t from 'tap'
import { startTestApp } from '../helpers/app.ts'

const app = await startTestApp(t, { capabilities: [] })
const c = await app.customer(0)

interface Parameter {
  name: string
  in: string
  schema: { type?: string; minimum?: number; maximum?: number }
}

const integers = Object.entries(app.contract.doc.paths as Record<string, Record<string, { parameters?: Parameter[] }>>).flatMap(
  ([path, item]) =>
    (item.get?.parameters ?? []).filter((p) => p.in === 'query' && p.schema.type === 'integer').map((p) => ({ path, ...p })),
)

t.test('every integer query parameter of the document', async (t) => {
  t.ok(integers.length >= 3, `${integers.map((p) => `${p.path}?${p.name}`).join(', ')}`)
  for (const p of integers) {
    const min = p.schema.minimum ?? 0
    for (const value of [String(min), String(min + 2), ...(p.schema.maximum === undefined ? [] : [String(p.schema.maximum)])]) {
      const res = await app.call(`${p.path}?${p.name}=${value}`, { key: c.key })
      t.equal(res.status, 200, `${p.path}?${p.name}=${value}`)
    }
    const wrong = [
      'abc',
      '3.0',
      '1e1',
      '0x10',
      ' 3',
      '',
      String(min - 1),
      ...(p.schema.maximum === undefined ? [] : [String(p.schema.maximum + 1)]),
    ]
    for (const value of [...wrong, '99999999999999999999']) {
      const res = await app.call(`${p.path}?${p.name}=${encodeURIComponent(value)}`, { key: c.key })
      t.equal(res.status, 400, `${p.path}?${p.name}=${JSON.stringify(value)}`)
      t.equal(res.body.error.code, 'invalid_request')
      t.equal(res.body.error.details[0].path, `/${p.name}`, 'names the parameter')
    }
  }
})

t.test('?limit=3 answers three rows and a cursor', async (t) => {
  for (let i = 0; i < 4; i++) await app.call('/v1/account', { key: c.key })
  const res = await app.call('/v1/requests?limit=3', { key: c.key })
  t.equal(res.body.requests.length, 3)
  t.type(res.body.nextCursor, 'string')
})
