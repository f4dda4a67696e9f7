// Human review (C21) end to end on parse: the account's rule decides which results go to a person, the call is
// answered and charged as usual, the queue shows each flagged field with its evidence and page text, and a
// completion writes a reviewed result that validates against parse's published schema, one audit entry, and for
// an async call the job's reviewed result, without touching the charge.
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { KeyCache } from '../../core/accounts/key-cache.ts'
import { createKey } from '../../core/accounts/keys.ts'
import { runMaintenance } from '../../core/maintenance.ts'
import { CAPABILITIES_ROOT } from '../../core/capability-folders.ts'
import { loadCapabilities } from '../../core/run/registry.ts'
import { reviewFixtures } from '../../core/reviews/export.ts'
import { carriesEvidence } from '../../core/reviews/rule.ts'
import { scoreCase } from '../../scripts/eval.ts'
import parse from '../../capabilities/parse/manifest.ts'
import { invoice1 } from '../../devkit/fixtures/documents.ts'
import { capabilityHarness, type Customer } from '../helpers/capability.ts'
import { quoted, supports } from '../../devkit/evidence.ts'
import { auditEntries } from '../helpers/teams.ts'

const pages = invoice1.toPages()
const cap = await capabilityHarness(t, parse, { worker: true, funds: 1000 })
const { app } = cap

/** A model answer for invoice-1, every value quoted from its line; `totalAmount` overridable. */
function answer(totalAmount: number = invoice1.total) {
  const a = {
    docType: 'invoice',
    party: invoice1.vendor.name,
    documentNumber: invoice1.invoiceNumber,
    date: invoice1.issueDate,
    totalAmount,
    currency: invoice1.currency,
    lineItems: quoted(
      pages,
      invoice1.lineItems.map((l) => ({ description: l.description, amount: l.amount })),
      ['description', 'amount'],
    ),
    // The subtotal and tax make the sum check pass: a total it contradicts is flagged like an absent one.
    fields: quoted(
      pages,
      [
        { label: 'PO number', value: invoice1.poNumber, confidence: 0.97 },
        { label: 'Subtotal', value: invoice1.subtotal, confidence: 0.9 },
        { label: 'Tax', value: invoice1.tax, confidence: 0.9 },
      ],
      ['value'],
    ),
  }
  return { ...a, support: supports(pages, { party: a.party, documentNumber: a.documentNumber, date: a.date, totalAmount }) }
}
/** A total the document does not state anywhere: the model's quote of it is not in the text. */
const ABSENT_TOTAL = 7777.77

const settings = (c: Customer, body: unknown) => app.call('/v1/review-settings', { key: c.key, method: 'PUT', body })
const parseCall = async (c: Customer, extra: Record<string, unknown> = {}) => {
  const before = await app.ledger(c.accountId)
  const res = await cap.post(c, { text: invoice1.toText(), ...extra })
  return { res, before, after: await app.ledger(c.accountId) }
}

t.test('settings: default off, PUT with one audit entry per change, bad settings are 400', async (t) => {
  const c = await cap.customer()
  t.same((await app.call('/v1/review-settings', { key: c.key })).body, { mode: 'off', evalConsent: false })
  const put = await settings(c, { mode: 'below', threshold: 0.8, endpoints: ['parse'] })
  t.equal(put.status, 200, put.text)
  t.match(put.body, { mode: 'below', threshold: 0.8, endpoints: ['parse'], evalConsent: false })
  const entries = (await auditEntries(app, c.accountId)).filter((e) => e.action === 'review_settings.updated')
  t.equal(entries.length, 1, 'one audit entry')
  t.match(entries[0], { actor_type: 'key', request_id: put.headers.get('x-request-id') })
  for (const [body, path] of [
    [{ mode: 'below' }, '/threshold'],
    [{ mode: 'ungrounded', threshold: 0.5 }, '/threshold'],
    [{ mode: 'ungrounded', endpoints: ['classify'] }, '/endpoints/0'],
    [{ mode: 'sometimes' }, '/mode'],
  ] as const) {
    const res = await settings(c, body)
    t.equal(res.status, 400, JSON.stringify(body))
    t.ok(
      res.body.error.details.some((d: { path: string }) => d.path.startsWith(path)),
      `${JSON.stringify(body)} names ${path}`,
    )
  }
  t.equal((await auditEntries(app, c.accountId)).filter((e) => e.action === 'review_settings.updated').length, 1, 'refusals change nothing')
  const reader = await createKey(app.services.db, c.accountId, { permissions: 'read' })
  t.equal(
    (await app.call('/v1/review-settings', { key: reader.key, method: 'PUT', body: { mode: 'off' } })).status,
    403,
    'a read key may not',
  )
})

t.test('mode ungrounded: a value absent from the document gets a review listing it; grounded: none; off: none', async (t) => {
  const c = await cap.customer()
  t.equal((await settings(c, { mode: 'ungrounded' })).status, 200)

  cap.reply(answer(ABSENT_TOTAL))
  const flagged = await parseCall(c)
  t.equal(flagged.res.status, 200, flagged.res.text)
  t.equal(flagged.res.body.totalAmount, ABSENT_TOTAL, 'answered as usual')
  t.match(flagged.res.body.review, { id: /^rev_[0-9A-Z]{26}$/, status: 'pending', fields: ['/totalAmount'] })
  t.equal(flagged.before.balance - flagged.after.balance, cap.price, 'charged the price, as without review')
  t.equal(flagged.res.body.usage.credits, cap.price)

  cap.reply(answer())
  const grounded = await parseCall(c)
  t.equal(grounded.res.status, 200)
  t.notOk('review' in grounded.res.body, 'a fully grounded answer gets no review')

  t.equal((await settings(c, { mode: 'off' })).status, 200)
  cap.reply(answer(ABSENT_TOTAL))
  const off = await parseCall(c)
  t.notOk('review' in off.res.body, 'mode off: no review')

  const list = await app.call('/v1/reviews?status=pending&endpoint=parse', { key: c.key })
  t.same(
    list.body.reviews.map((r: { id: string }) => r.id),
    [flagged.res.body.review.id],
    'the queue has the one review',
  )
  t.same((await app.call('/v1/reviews?status=completed', { key: c.key })).body.reviews, [], 'none completed')
  t.same((await app.call('/v1/reviews?endpoint=invoice', { key: c.key })).body.reviews, [], 'none of another endpoint')
})

t.test('the settings come with the cached key: review off costs no query; a change reaches every instance at once', async (t) => {
  const c = await cap.customer()
  const db = app.services.db
  const sql = db.sql.bind(db)
  const read: string[] = []
  db.sql = (text, params) => {
    if (/from review_settings/.test(text)) read.push(text)
    return sql(text, params)
  }
  t.teardown(() => {
    db.sql = sql
  })
  // Another instance's key cache, listening as every API process does.
  const other = new KeyCache(db, { now: () => new Date() })
  await other.listen(db.url)
  t.teardown(() => other.close())
  const elsewhere = async () => (await other.lookup(c.key))?.review ?? null
  /** The other instance's answer within 0.5 s: an entry read under 1 s ago is served unless the change reached it. */
  const elsewhereSoon = async (want: unknown) => {
    const until = Date.now() + 500
    let got = await elsewhere()
    while (JSON.stringify(got) !== JSON.stringify(want) && Date.now() < until) {
      await new Promise((r) => setTimeout(r, 20))
      got = await elsewhere()
    }
    return got
  }

  cap.reply(answer(ABSENT_TOTAL))
  const off = await parseCall(c)
  t.equal(off.res.status, 200, off.res.text)
  t.notOk('review' in off.res.body, 'off by default: no review')
  t.same(read, [], 'a call with review off reads no settings')
  t.equal(await elsewhere(), null)

  t.equal((await settings(c, { mode: 'ungrounded' })).status, 200)
  cap.reply(answer(ABSENT_TOTAL))
  const on = await parseCall(c)
  t.match(on.res.body.review, { fields: ['/totalAmount'] }, 'the next call on this instance follows the new rule')
  t.same(
    await elsewhereSoon({ mode: 'ungrounded', threshold: null, endpoints: null }),
    { mode: 'ungrounded', threshold: null, endpoints: null },
    'and on another',
  )

  t.equal((await settings(c, { mode: 'below', threshold: 0.5, endpoints: [] })).status, 200)
  cap.reply(answer(ABSENT_TOTAL))
  t.notOk('review' in (await parseCall(c)).res.body, 'no endpoint listed: no review')
  t.same(await elsewhereSoon({ mode: 'below', threshold: 0.5, endpoints: [] }), { mode: 'below', threshold: 0.5, endpoints: [] })

  t.equal((await settings(c, { mode: 'off' })).status, 200)
  t.equal(await elsewhereSoon(null), null, 'off reaches the other instance')
  t.same(read, [], 'no call read the settings: each came with the key')
})

t.test('below: values under the threshold; endpoints other than those listed are not reviewed', async (t) => {
  const c = await cap.customer()
  await settings(c, { mode: 'below', threshold: 0.95 })
  cap.reply(answer())
  const res = (await parseCall(c)).res
  // The supports say 0.9, the PO number 0.97: every value but the PO number is under 0.95.
  t.ok(res.body.review.fields.includes('/party'), 'party at 0.9 is flagged')
  t.notOk(res.body.review.fields.includes('/fields/0'), 'the PO number at 0.97 is not')
  await settings(c, { mode: 'below', threshold: 0.95, endpoints: [] })
  cap.reply(answer())
  t.notOk('review' in (await parseCall(c)).res.body, 'no endpoint listed: none')
})

t.test('a review: each flagged field with its evidence and the page text; completing with a correction', async (t) => {
  const c = await cap.customer()
  await settings(c, { mode: 'below', threshold: 0.95 })
  cap.reply(answer(ABSENT_TOTAL))
  const call = await parseCall(c)
  const id = call.res.body.review.id as string
  const review = (await app.call(`/v1/reviews/${id}`, { key: c.key })).body
  t.equal(review.status, 'pending')
  t.equal(review.endpoint, '/v1/parse')
  t.match(review.pages[0], /Northwind Office Supply LLC/, 'the document’s page text')
  const total = review.flagged.find((f: { path: string }) => f.path === '/totalAmount')
  t.match(total, { value: ABSENT_TOTAL, evidence: null, grounded: false, context: null }, 'the absent total: no quote to show')
  const party = review.flagged.find((f: { path: string }) => f.path === '/party')
  t.equal(party.value, invoice1.vendor.name)
  t.equal(
    party.context.text.slice(party.context.quoteStart, party.context.quoteEnd),
    party.evidence.quote,
    'the quote, located in its page text',
  )
  const line = review.flagged.find((f: { path: string }) => f.path === '/lineItems/0')
  t.same(
    line.value,
    { description: invoice1.lineItems[0]!.description, amount: invoice1.lineItems[0]!.amount },
    'a line item without its evidence',
  )

  const decide = (fields: unknown) => app.call(`/v1/reviews/${id}/complete`, { key: c.key, method: 'POST', body: { fields } })
  const rest = review.fields.filter((p: string) => p !== '/totalAmount').map((path: string) => ({ path, action: 'accept' }))
  const wrongType = await decide([{ path: '/totalAmount', action: 'correct', value: 'a lot' }, ...rest])
  t.equal(wrongType.status, 400, 'a correction that breaks parse’s schema')
  t.match(wrongType.body.error.details, [{ path: '/totalAmount' }])
  t.equal((await decide(rest)).status, 400, 'every flagged field needs a decision')
  t.equal((await decide([{ path: '/docType', action: 'accept' }, ...rest])).status, 400, 'only flagged fields')
  const reader = await createKey(app.services.db, c.accountId, { permissions: 'read' })
  const byReader = await app.call(`/v1/reviews/${id}/complete`, {
    key: reader.key,
    method: 'POST',
    body: { fields: [{ path: '/totalAmount', action: 'accept' }, ...rest] },
  })
  t.equal(byReader.status, 403, 'a read key may not review')
  t.equal((await app.call(`/v1/reviews/${id}`, { key: reader.key })).status, 200, 'but may read the review')

  const ledger = await app.ledger(c.accountId)
  const done = await decide([{ path: '/totalAmount', action: 'correct', value: invoice1.total }, ...rest])
  t.equal(done.status, 200, done.text)
  const reviewed = done.body.reviewedResult
  t.equal(reviewed.totalAmount, invoice1.total, 'the corrected value')
  t.match(reviewed.grounding.totalAmount, {
    evidence: { source: 'review', action: 'correct', reviewer: { type: 'key', id: c.keyId }, reviewId: id },
    grounded: true,
    confidence: 1,
  })
  t.equal(
    reviewed.grounding.party.evidence.quote,
    call.res.body.grounding.party.evidence.quote,
    'an accepted value keeps its document evidence',
  )
  t.match(reviewed.review, { id, status: 'completed' })
  const { review: _r, ...withoutReview } = reviewed
  const validate = app.services.capabilities.get('parse')!.validateResponse
  t.ok(validate(withoutReview), `the reviewed result validates against parse’s published schema ${JSON.stringify(validate.errors)}`)
  t.same(await app.ledger(c.accountId), ledger, 'the charge is unchanged')
  const entries = (await auditEntries(app, c.accountId)).filter((e) => e.action === 'review.completed')
  t.equal(entries.length, 1, 'one audit entry')
  t.match(entries[0], {
    actor_type: 'key',
    actor_id: c.keyId,
    target_type: 'review',
    target_id: id,
    request_id: done.headers.get('x-request-id'),
  })
  t.match(done.body, { status: 'completed', reviewer: { type: 'key', id: c.keyId } })
  t.equal((await decide([{ path: '/totalAmount', action: 'accept' }, ...rest])).status, 400, 'a completed review stays as it is')
  t.equal((await app.call(`/v1/reviews?status=completed`, { key: c.key })).body.reviews.length, 1)
})

t.test('async: the job’s result carries the review, and gains the reviewed result when it is completed', async (t) => {
  const c = await cap.customer()
  await settings(c, { mode: 'ungrounded' })
  cap.reply(answer(ABSENT_TOTAL))
  const accepted = await cap.post(c, { text: invoice1.toText(), async: true })
  t.equal(accepted.status, 202, accepted.text)
  const job = await cap.job(c, accepted.body.jobId)
  t.match(job.result.review, { status: 'pending', fields: ['/totalAmount'] })
  const review = (await app.call(`/v1/reviews/${job.result.review.id}`, { key: c.key })).body
  t.equal(review.jobId, accepted.body.jobId)
  const done = await app.call(`/v1/reviews/${review.id}/complete`, {
    key: c.key,
    method: 'POST',
    body: { fields: [{ path: '/totalAmount', action: 'correct', value: 2535.24 }] },
  })
  t.equal(done.status, 200, done.text)
  const after = (await app.call(`/v1/jobs/${accepted.body.jobId}`, { key: c.key })).body
  t.equal(after.result.totalAmount, ABSENT_TOTAL, 'the job’s own result as answered')
  t.equal(after.reviewedResult.totalAmount, 2535.24, 'and the reviewed version beside it')
})

t.test('livemode, accounts and retention: a test key and another account see none; completed reviews go after 30 days', async (t) => {
  const c = await cap.customer()
  await settings(c, { mode: 'ungrounded' })
  cap.reply(answer(ABSENT_TOTAL))
  const id = (await parseCall(c)).res.body.review.id as string
  const testKey = await createKey(app.services.db, c.accountId, { mode: 'test', permissions: 'all' })
  t.same((await app.call('/v1/reviews', { key: testKey.key })).body.reviews, [], 'a test key lists no live review')
  t.equal((await app.call(`/v1/reviews/${id}`, { key: testKey.key })).status, 404)
  const other = await cap.customer()
  t.equal((await app.call(`/v1/reviews/${id}`, { key: other.key })).status, 404, 'another account: 404')
  await app.call(`/v1/reviews/${id}/complete`, {
    key: c.key,
    method: 'POST',
    body: { fields: [{ path: '/totalAmount', action: 'accept' }] },
  })
  await app.services.db.sql(`update reviews set completed_at = now() - interval '29 days' where id = ?`, [id])
  await runMaintenance(app.services)
  t.equal((await app.call(`/v1/reviews/${id}`, { key: c.key })).status, 200, 'kept 29 days after completion')
  await app.services.db.sql(`update reviews set completed_at = now() - interval '31 days' where id = ?`, [id])
  t.ok((await runMaintenance(app.services)).reviewsRemoved >= 1)
  t.equal((await app.call(`/v1/reviews/${id}`, { key: c.key })).status, 404, 'gone after 30 days')
})

t.test('completed reviews are eval fixtures with the account’s consent, scored by npm run eval -- --reviewed', async (t) => {
  const c = await cap.customer()
  await settings(c, { mode: 'ungrounded' })
  cap.reply(answer(ABSENT_TOTAL))
  const answered = (await cap.post(c, { text: invoice1.toText(), docType: 'invoice' })).body
  const id = answered.review.id as string
  await app.call(`/v1/reviews/${id}/complete`, {
    key: c.key,
    method: 'POST',
    body: { fields: [{ path: '/totalAmount', action: 'correct', value: invoice1.total }] },
  })
  await t.rejects(reviewFixtures(app.services.db, c.accountId), /consented/, 'no consent: no fixtures')
  await settings(c, { mode: 'ungrounded', evalConsent: true })
  const fixtures = await reviewFixtures(app.services.db, c.accountId)
  t.equal(fixtures.length, 1)
  const [fixture] = fixtures
  t.match(fixture, { capability: 'parse', name: id, request: { docType: 'invoice', text: invoice1.toText() } })
  t.equal(fixture!.expected.totalAmount, invoice1.total, 'the reviewed value is the truth')
  t.notOk('grounding' in fixture!.expected || 'review' in fixture!.expected, 'values only')
  const wrong = scoreCase(fixture!, answered, fixture!.request, { cases: [] }).filter((o) => o.outcome === 'wrong')
  t.same(
    wrong.map((o) => o.path),
    ['totalAmount'],
    'the answer as first given scores wrong exactly where the reviewer corrected it',
  )

  const dir = mkdtempSync(join(tmpdir(), 'reviewed-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  writeFileSync(join(dir, 'fixtures.json'), JSON.stringify({ fixtures }))
  const run = await new Promise<{ stdout: string; stderr: string }>((resolve) => {
    execFile(
      process.execPath,
      [
        new URL('../../scripts/eval.ts', import.meta.url).pathname,
        '--reviewed',
        join(dir, 'fixtures.json'),
        '--fake',
        '--json',
        '--out',
        dir,
      ],
      { env: process.env, timeout: 110_000 },
      (_error, stdout, stderr) => resolve({ stdout, stderr }),
    )
  })
  const report = JSON.parse(
    readFileSync(
      join(
        dir,
        readdirSync(dir).find((f) => f.startsWith('eval-') && f.endsWith('.json'))!,
      ),
      'utf8',
    ),
  )
  t.match(JSON.stringify(report), id, `the run scored the reviewed case (${run.stderr.slice(0, 300)})`)
})

t.test('two reviewers completing the same review at once: one wins, one audit entry, the other is told', async (t) => {
  const c = await cap.customer()
  await settings(c, { mode: 'ungrounded' })
  cap.reply(answer(ABSENT_TOTAL))
  const id = (await parseCall(c)).res.body.review.id as string
  const other = await createKey(app.services.db, c.accountId, { permissions: 'all' })
  const [a, b] = await Promise.all(
    [c.key, other.key].map((key, i) =>
      app.call(`/v1/reviews/${id}/complete`, {
        key,
        method: 'POST',
        body: { fields: [{ path: '/totalAmount', action: 'correct', value: 1000 + i }] },
      }),
    ),
  )
  t.same([a!.status, b!.status].sort(), [200, 400], 'one completes, the other is refused')
  const winner = a!.status === 200 ? a! : b!
  const stored = (await app.call(`/v1/reviews/${id}`, { key: c.key })).body
  t.equal(stored.reviewedResult.totalAmount, winner.body.reviewedResult.totalAmount, 'the winner’s correction is the one kept')
  t.equal((await auditEntries(app, c.accountId)).filter((e) => e.action === 'review.completed').length, 1, 'one audit entry')
})

t.test('the queue pages with a cursor, newest first', async (t) => {
  const c = await cap.customer()
  await settings(c, { mode: 'ungrounded' })
  const ids: string[] = []
  for (let i = 0; i < 3; i++) {
    cap.reply(answer(ABSENT_TOTAL))
    ids.push((await parseCall(c)).res.body.review.id as string)
  }
  const first = (await app.call('/v1/reviews?limit=2', { key: c.key })).body
  t.same(
    first.reviews.map((r: { id: string }) => r.id),
    [ids[2], ids[1]],
  )
  const rest = (await app.call(`/v1/reviews?limit=2&cursor=${first.nextCursor}`, { key: c.key })).body
  t.same(
    rest.reviews.map((r: { id: string }) => r.id),
    [ids[0]],
  )
  t.notOk(rest.nextCursor, 'the last page')
  t.equal((await app.call('/v1/reviews?cursor=bm9wZQ', { key: c.key })).status, 400, 'a made-up cursor is 400')
})

t.test('the endpoints reviews apply to are the seven whose values carry evidence', async (t) => {
  const all = await loadCapabilities(CAPABILITIES_ROOT)
  t.same(
    all
      .filter((c) => carriesEvidence(c))
      .map((c) => c.name)
      .sort(),
    ['contract', 'extract', 'invoice', 'parse', 'receipt', 'resume', 'statement'],
    'enrich’s result-wide grounded flag is not evidence of values',
  )
})
