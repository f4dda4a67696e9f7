// The result cache under the credit lease (CREDIT_LEASE=on): a call that reads the cache takes a hold (its claim is
// the hold's statement), never a slice of a lease, so a miss stores and a hit is marked as without the lease; and
// its refusal, like any hold's, is only answered once the account's open blocks are recalled.
import t from 'tap'
import { checkManifest } from '../../core/run/registry.ts'
import parse from '../../capabilities/parse/manifest.ts'
import { balances, release, reserve } from '../../core/wallet/wallet.ts'
import { fakeServerProvider, startTestApp } from '../helpers/app.ts'
import { startFakeOpenAI } from '../../devkit/fake-openai.ts'

const PRICE = 10
const fake = await startFakeOpenAI()
t.teardown(() => fake.close())
const modelRequests = () => fake.requests.filter((r) => r.path === '/v1/responses').length
const app = await startTestApp(t, {
  resultCache: true,
  env: { CREDIT_LEASE: 'on' },
  provider: fakeServerProvider(fake.baseURL),
  capabilities: [checkManifest({ ...parse }, 'parse', 'capabilities/parse')],
})
const db = app.services.db
const invoice = { text: 'Fabrikam Inc\nInvoice F-1\nLamp 40.00\nTotal due: 40.00 USD', docType: 'invoice' }

t.test('a miss and then a hit, held and captured, after another node’s block is recalled from a drained account', async (t) => {
  const c = await app.customer(1000)
  const [block] = await db.sql(`select * from lease_credits(?, ?, 'another-node', 1, '300 seconds', ?, 20)`, [
    c.accountId,
    c.keyId,
    new Date(),
  ])
  t.ok(block, 'another node leased a block of the account')
  // A running call of another endpoint holds all but 5 of the rest: the parse's 10 fit only with the block's credits.
  const rest = (await balances(db, c.accountId))!.available - 5
  const running = await reserve(db, {
    accountId: c.accountId,
    keyId: c.keyId,
    price: rest,
    endpoint: 'other',
    requestId: 'running',
    holdTtlSeconds: 300,
    now: new Date(),
  })
  t.equal(running.outcome, 'ok')
  const before = modelRequests()
  const miss = await app.call('/v1/parse', { key: c.key, body: invoice })
  t.equal(miss.status, 200, miss.text)
  t.equal(miss.headers.get('service-cache'), 'miss')
  t.equal(miss.body.usage.credits, PRICE)
  const [open] = await db.sql(`select count(*) as n from credit_leases where account_id = ? and state = 'open'`, [c.accountId])
  t.equal(Number(open!.n), 0, 'the block was recalled before the call was refused')
  const hit = await app.call('/v1/parse', { key: c.key, body: invoice })
  t.equal(hit.status, 200, hit.text)
  t.equal(hit.headers.get('service-cache'), 'hit')
  t.equal(hit.body.usage.cached, true)
  t.equal(modelRequests() - before, 1, 'one model request')
  if (running.outcome === 'ok') await release(db, running)
  await app.expectLedger(t, c.accountId, 1000 - PRICE - hit.body.usage.credits)
})
