// Scoped keys (C18): permissions all | call | read and a capability allowlist, checked before anything is read,
// held or charged; a refusal is 403 permission_denied naming what was missing, free and in the request log; a
// changed scope applies to the key's next call; the MCP server lists only the tools a key may call.
import t from 'tap'
import { startTestApp, testCapability } from '../helpers/app.ts'

const app = await startTestApp(t, {
  capabilities: [testCapability({ name: 'classify', price: 2 }), testCapability({ name: 'summarize', price: 3 })],
})
const owner = await app.customer(1000)
const keyWith = async (body: object) => {
  const res = await app.call('/v1/keys', { key: owner.key, body })
  t.equal(res.status, 201, `created ${JSON.stringify(body)}`)
  return res.body as { id: string; key: string; prefix: string }
}
const holds = async () =>
  Number((await app.services.db.sql(`select count(*) as n from holds where account_id = ?`, [owner.accountId]))[0]!.n)

t.test('a read key calling a capability: 403 permission_denied, nothing held or charged, listed in the request log', async (t) => {
  const read = await keyWith({ name: 'dashboard', permissions: 'read' })
  const before = await holds()
  const res = await app.call('/v1/classify', { key: read.key, body: { text: 'hello' } })
  t.equal(res.status, 403)
  t.equal(res.body.error.code, 'permission_denied')
  t.match(res.body.error.message, /may not call capabilities/, 'names what was missing')
  t.ok(res.body.error.requestId)
  t.equal(await holds(), before, 'no hold was placed')
  await app.expectLedger(t, owner.accountId, 1000)
  // A dry run is refused the same way (it would report what the call would do).
  t.equal((await app.call('/v1/classify', { key: read.key, body: { text: 'hello' }, headers: { 'service-dry-run': '1' } })).status, 403)
  t.equal((await app.call('/v1/account', { key: read.key })).status, 200, 'it reads the balance')
  t.equal((await app.call('/v1/usage', { key: read.key })).status, 200, 'and the usage')
  const manage = await app.call('/v1/keys', { key: read.key })
  t.equal(manage.status, 403, 'but not the keys')
  await app.services.requestLog.flush()
  const [row] = await app.services.db.sql(`select status, error_code, credits from request_log where request_id = ?`, [
    res.body.error.requestId,
  ])
  t.match(row, { status: 403, error_code: 'permission_denied' }, 'the refusal is in the request log')
  t.equal(Number(row!.credits), 0, 'free')
})

t.test('a key limited to classify calling summarize: 403 naming its list; classify itself is charged', async (t) => {
  const only = await keyWith({ name: 'ci', permissions: 'call', capabilities: ['classify'] })
  const refused = await app.call('/v1/summarize', { key: only.key, body: { text: 'hello' } })
  t.equal(refused.status, 403)
  t.equal(refused.body.error.code, 'permission_denied')
  t.match(refused.body.error.message, /only classify; "summarize" is not on its list/)
  await app.expectLedger(t, owner.accountId, 1000)
  const ok = await app.call('/v1/classify', { key: only.key, body: { text: 'hello' } })
  t.equal(ok.status, 200)
  await app.expectLedger(t, owner.accountId, 998)
  t.equal((await app.call('/v1/keys', { key: only.key })).status, 403, 'a call key does not manage the account')
})

t.test('a changed scope applies to the key’s next call (the cached key is forgotten)', async (t) => {
  const k = await keyWith({ name: 'changing', permissions: 'call' })
  t.equal((await app.call('/v1/summarize', { key: k.key, body: { text: 'a' } })).status, 200, 'allowed, and now cached')
  const patched = await app.call(`/v1/keys/${k.id}`, { key: owner.key, method: 'PATCH', body: { capabilities: ['classify'] } })
  t.equal(patched.status, 200)
  t.same(patched.body.capabilities, ['classify'])
  let status = 0
  for (let i = 0; i < 50 && status !== 403; i++) {
    status = (await app.call('/v1/summarize', { key: k.key, body: { text: 'a' } })).status
    if (status !== 403) await new Promise((r) => setTimeout(r, 20))
  }
  t.equal(status, 403, 'refused once the change is known (within the revocation bound)')
  const unknown = await app.call(`/v1/keys/${k.id}`, { key: owner.key, method: 'PATCH', body: { capabilities: ['no-such-thing'] } })
  t.equal(unknown.status, 400, 'an allowlist names real capabilities')
  t.equal(unknown.body.error.details[0].path, '/capabilities/0')
})

t.test('a test key may not manage the account, whatever its permissions', async (t) => {
  const test = await keyWith({ name: 'sandbox', mode: 'test' })
  const res = await app.call('/v1/members', { key: test.key })
  t.equal(res.status, 403)
  t.match(res.body.error.message, /test key may not manage/)
})

t.test('MCP lists only the tools a key may call, and a refused tool call is the same 403', async (t) => {
  const list = async (key: string) => {
    const res = await app.call('/mcp', {
      key,
      body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
      headers: { accept: 'application/json, text/event-stream' },
    })
    return (res.body.result.tools as Array<{ name: string }>).map((x) => x.name).sort()
  }
  t.same(await list(owner.key), ['account', 'classify', 'get_job', 'summarize'], 'an all key: every tool')
  const read = await keyWith({ permissions: 'read' })
  t.same(await list(read.key), ['account', 'get_job'], 'a read key: the free reads only')
  const only = await keyWith({ permissions: 'call', capabilities: ['summarize'] })
  t.same(await list(only.key), ['account', 'get_job', 'summarize'], 'an allowlist: its capabilities')
  const call = await app.call('/mcp', {
    key: only.key,
    body: { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'classify', arguments: { text: 'x' } } },
    headers: { accept: 'application/json, text/event-stream' },
  })
  t.equal(call.body.result.isError, true)
  t.equal(JSON.parse(call.body.result.content[0].text).error.code, 'permission_denied')
})
