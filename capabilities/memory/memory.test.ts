import t from 'tap'
import { fakeServerProvider } from '../../test/helpers/app.ts'
import { capabilityHarness, type Customer } from '../../test/helpers/capability.ts'
import manifest from './manifest.ts'

t.test('memory', async (t) => {
  // Starts with no provider at all (memory needs no model and ranks by full-text); a subtest may move to the
  // fake server's embeddings.
  const cap = await capabilityHarness(t, manifest, { mock: { configured: false }, funds: 200 })
  const app = cap.app
  const store = (c: Customer, content: string, extra: Record<string, unknown> = {}) => cap.post(c, { op: 'store', content, ...extra })
  const search = (c: Customer, query: string, extra: Record<string, unknown> = {}) => cap.post(c, { op: 'search', query, ...extra })
  const a = await cap.customer()
  const b = await cap.customer()

  const s1 = await store(a, 'The user prefers oat milk in coffee', { metadata: { source: 'chat', tags: ['drinks'] } })
  t.equal(s1.status, 200, s1.text)
  t.match(s1.body, { op: 'store', namespace: 'default', id: /^[0-9a-f-]{36}$/ })
  t.same(s1.body.usage, { credits: 2, balanceRemaining: 198, livemode: true })
  await store(a, 'Meeting with the design team every Tuesday')
  await store(a, 'Drinks green tea in the afternoon', { namespace: 'work' })
  const secret = await store(b, 'Account B secret: prefers espresso coffee with milk')

  await t.test('a dry run answers 200 without a provider', async (t) => {
    const r = await cap.post(a, { op: 'search', query: 'x' }, { 'Service-Dry-Run': '1' })
    t.match(r.body, { dryRun: true, liveStatus: 200, wouldCharge: 2 })
  })

  await t.test('search ranks by full-text within the namespace', async (t) => {
    const r = await search(a, 'what milk does the user like in coffee?')
    t.equal(r.status, 200, r.text)
    t.equal(r.body.ranking, 'fulltext')
    t.equal(r.body.results.length, 1)
    t.match(r.body.results[0], { id: s1.body.id, content: /oat milk/, metadata: { source: 'chat', tags: ['drinks'] }, createdAt: /T/ })
    t.ok(r.body.results[0].score > 0 && r.body.results[0].score <= 1)
    t.same(r.body.usage.credits, 2)
  })

  await t.test('another account never sees a memory, even one that matches, in any namespace', async (t) => {
    const r = await search(a, 'espresso secret coffee milk')
    t.notOk(r.body.results.some((m: { id: string }) => m.id === secret.body.id))
    const rb = await search(b, 'oat milk coffee user')
    t.same(
      rb.body.results.map((m: { id: string }) => m.id),
      [secret.body.id],
    )
    const rbWork = await search(b, 'green tea', { namespace: 'work' })
    t.same(rbWork.body.results, [])
  })

  await t.test('namespaces are separate', async (t) => {
    const r = await search(a, 'green tea')
    t.same(r.body.results, [])
    const w = await search(a, 'green tea', { namespace: 'work' })
    t.equal(w.body.results.length, 1)
  })

  await t.test('the text "\\u0000" (not a NUL) is fine', async (t) => {
    const r = await store(a, String.raw`escape \u0000 in JSON`, { namespace: 'code' })
    t.equal(r.status, 200, r.text)
  })

  await t.test('limit, filter and minScore', async (t) => {
    await store(a, 'Coffee order: flat white', { metadata: { source: 'email' } })
    const all = await search(a, 'coffee')
    t.equal(all.body.results.length, 2)
    t.ok(all.body.results[0].score >= all.body.results[1].score)
    const one = await search(a, 'coffee', { limit: 1 })
    t.equal(one.body.results.length, 1)
    const chat = await search(a, 'coffee', { filter: { source: 'email' } })
    t.same(
      chat.body.results.map((m: { content: string }) => m.content),
      ['Coffee order: flat white'],
    )
    const none = await search(a, 'coffee', { minScore: 0.99 })
    t.same(none.body.results, [])
  })

  await t.test("forgetting another account's id deletes nothing", async (t) => {
    const r = await cap.post(a, { op: 'forget', id: secret.body.id })
    t.equal(r.status, 200, r.text)
    t.same({ op: r.body.op, id: r.body.id, deleted: r.body.deleted }, { op: 'forget', id: secret.body.id, deleted: 0 })
    const still = await search(b, 'espresso')
    t.equal(still.body.results.length, 1)
  })

  await t.test('forget by id (in its namespace only) and by namespace', async (t) => {
    const wrongNs = await cap.post(a, { op: 'forget', id: s1.body.id, namespace: 'work' })
    t.equal(wrongNs.body.deleted, 0)
    const byId = await cap.post(a, { op: 'forget', id: s1.body.id })
    t.equal(byId.body.deleted, 1)
    t.same((await search(a, 'oat milk')).body.results, [])
    const wipe = await cap.post(a, { op: 'forget', namespace: 'work' })
    t.same(
      { op: wipe.body.op, namespace: wipe.body.namespace, deleted: wipe.body.deleted },
      { op: 'forget', namespace: 'work', deleted: 1 },
    )
    t.notOk('id' in wipe.body)
    const wipeDefault = await cap.post(a, { op: 'forget' })
    t.equal(wipeDefault.body.deleted, 2)
    // B's memories survive A's wipes.
    t.equal((await search(b, 'espresso')).body.results.length, 1)
  })

  await t.test('bad input is 400 and free', async (t) => {
    const bad = [
      { op: 'store' }, // no content
      { op: 'store', content: '   ' },
      { op: 'store', content: 'x'.repeat(20_001) },
      { op: 'store', content: 'x', query: 'y' }, // a field of another op
      { op: 'search' },
      { op: 'search', query: 'x', limit: 0 },
      { op: 'search', query: 'x', limit: 51 },
      { op: 'search', query: 'x', content: 'y' },
      { op: 'forget', id: 'not-a-uuid' },
      { op: 'forget', query: 'x' },
      { op: 'store', content: 'x', namespace: 'has space' },
      { op: 'store', content: 'x', namespace: 'n'.repeat(65) },
      { op: 'store', content: 'x', metadata: Object.fromEntries(Array.from({ length: 33 }, (_, i) => [`k${i}`, i])) },
      { op: 'store', content: 'x', metadata: { nested: { a: 1 } } },
      { op: 'store', content: 'x', metadata: { big: 'x'.repeat(1001) } },
      {
        op: 'store',
        content: 'x',
        metadata: Object.fromEntries(Array.from({ length: 32 }, (_, i) => [`k${i}`, Array(32).fill('y'.repeat(20))])),
      }, // > 16 KiB
      { op: 'rename' },
      { op: 'store', content: 'nul \u0000 inside' },
      { op: 'store', content: 'x', metadata: { k: 'nul \u0000' } },
      { op: 'search', query: 'nul \u0000' },
    ]
    for (const body of bad) await cap.expectRefused(t, body, { customer: a })
  })

  await t.test('embedding path through the fake server (/v1/embeddings)', async (t) => {
    const fake = await cap.useFake()
    const a = await cap.customer(100)
    const b = await cap.customer(100)

    // Stored before the embedding model existed: no vector; the first search backfills it.
    const [legacy] = await app.services.db.sql<{ id: string }>(
      `insert into memories (account_id, namespace, content) values (?, 'default', 'Allergic to peanuts') returning id`,
      [a.accountId],
    )
    const m1 = await store(a, 'favourite colour is green')
    const m2 = await store(a, 'lives in Lisbon near the river')
    const other = await store(b, 'favourite colour is green') // B: identical text, must never show up for A
    t.equal(m1.status, 200, m1.text)
    t.ok(fake.requests.some((r) => r.path === '/v1/embeddings'))
    const [row] = await app.services.db.sql(`select cardinality(embedding) as n, embedding_model from memories where id = ?`, [m1.body.id])
    t.equal(Number(row!.n), 64)
    t.match(row!.embedding_model, /test-embedding/)

    const r = await search(a, 'favourite colour green')
    t.equal(r.status, 200, r.text)
    t.equal(r.body.ranking, 'embedding')
    t.equal(r.body.results[0].id, m1.body.id)
    t.ok(r.body.results[0].score > 0.8, `score ${r.body.results[0].score}`)
    t.notOk(r.body.results.some((m: { id: string }) => m.id === other.body.id))
    t.notOk(
      r.body.results.some((m: { id: string }) => m.id === m2.body.id),
      'unrelated words score 0 and are left out',
    )

    const p = await search(a, 'peanuts allergic')
    t.equal(p.body.results[0]?.id, legacy!.id, 'the legacy memory was embedded and is found')

    const rb = await search(b, 'favourite colour green')
    t.same(
      rb.body.results.map((m: { id: string }) => m.id),
      [other.body.id],
    )
    t.equal((await app.ledger(a.accountId)).balance, 100 - 2 * 4)
  })

  await t.test('an embedding failure stores nothing and is free', async (t) => {
    // The fake server's embeddings at a URL that does not exist: a 404, the provider does not serve the model.
    const { baseURL } = await cap.useFake()
    const broken = fakeServerProvider(baseURL + '/broken', 'responses', 'test-embedding')
    cap.use({ embedding: () => broken.embedding() })
    const { customer } = await cap.expectRefused(
      t,
      { op: 'store', content: 'something' },
      { funds: 10, status: 503, code: 'inference_unavailable', message: /does not serve the model "test-embedding"/ },
    )
    t.same(await app.services.db.sql(`select id from memories where account_id = ?`, [customer.accountId]), [])
  })
})
