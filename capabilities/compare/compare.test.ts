import { readFileSync } from 'node:fs'
import t from 'tap'
import { fakeServerProvider, mockProvider, startTestApp, type TestApp } from '../../test/helpers/app.ts'
import { startFakeOpenAI } from '../../test/helpers/fake-openai.ts'
import { contractA, contractB, contractChanges } from '../../test/fixtures/documents.ts'

const pdf = (name: string) => ({ data: readFileSync(new URL(`../../test/fixtures/pdf/${name}.pdf`, import.meta.url)).toString('base64'), mimeType: 'application/pdf' })

const good = () => ({
  changes: contractChanges.map((c) => ({ ...c, materiality: 'high', note: `${c.section} changed.` })),
  summary: 'Payment and termination terms are longer and liability is capped.',
  riskNotes: ['Cash arrives a month later.', ' '],
})

let reply: (prompt: string) => unknown = good
let calls = 0
let lastPrompt = ''
const app = await startTestApp(t, {
  worker: true,
  provider: mockProvider((p) => {
    calls++
    lastPrompt = p
    return reply(p)
  }),
})

async function waitForJob(a: TestApp, key: string, id: string) {
  for (let i = 0; i < 200; i++) {
    const r = await a.call(`/v1/jobs/${id}`, { key })
    if (r.body?.status === 'succeeded' || r.body?.status === 'failed') return r.body
    await new Promise((res) => setTimeout(res, 50))
  }
  throw new Error(`job ${id} did not finish`)
}

t.test('two PDF versions of a contract: 3 changes, counted by code, quotes found in their documents', async (t) => {
  reply = good
  const c = await app.customer(20)
  const res = await app.call('/v1/compare', { key: c.key, body: { a: { file: pdf('contract-v1') }, b: { file: pdf('contract-v2') } } })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.changeCount, 3)
  t.same(
    res.body.changes.map((x: any) => [x.section, x.change, x.before, x.after]),
    contractChanges.map((x) => [x.section, x.change, x.before, x.after]),
  )
  t.same(res.body.riskNotes, ['Cash arrives a month later.'], 'blank risk notes dropped')
  t.same(res.body.warnings, [])
  t.same(res.body.usage, { credits: 15, balanceRemaining: 5 })
  t.ok(lastPrompt.includes('Document A (earlier version)') && lastPrompt.includes('Document B (later version)'), 'both documents, labelled')
})

t.test('answers that contradict themselves or quote what is not there: repaired where code can, always reported', async (t) => {
  reply = () => ({
    changes: [
      { section: '6A. Limitation of Liability', change: 'added', before: 'something', after: 'capped at the fees paid by Client', materiality: 'high', note: 'n' },
      { section: '2. Services', change: 'removed', before: 'host and maintain', after: 'x', materiality: 'low', note: 'n' },
      { section: '3. Fees and Payment', change: 'modified', before: 'within 30 days', after: null, materiality: 'medium', note: 'n' },
      { section: '7. Governing Law', change: 'modified', before: 'laws of the State of California', after: 'laws of the State of  New York', materiality: 'high', note: 'n' },
      { section: '5. Termination', change: 'modified', before: 'Either party … 30 days written notice', after: 'Either party may terminate', materiality: 'low', note: 'n' },
      { section: '4. Term', change: 'modified', before: 'runs for 24 months', after: 'runs for 24  months', materiality: 'low', note: 'n' },
    ],
    summary: ' s ',
    riskNotes: [],
  })
  const c = await app.customer(20)
  const res = await app.call('/v1/compare', { key: c.key, body: { a: { text: contractA.toText() }, b: { text: contractB.toText() } } })
  t.equal(res.status, 200, res.text)
  const ch = res.body.changes
  t.equal(res.body.changeCount, 6, 'from the array')
  t.equal(ch[0].before, null, 'added: no before')
  t.equal(ch[1].after, null, 'removed: no after')
  t.equal(res.body.summary, 's')
  const w: string[] = res.body.warnings
  t.match(w.join('\n'), /changes\[0\]: an "added" change cannot have a "before" text/)
  t.match(w.join('\n'), /changes\[1\]: a "removed" change cannot have an "after" text/)
  t.match(w.join('\n'), /changes\[2\]: a "modified" change needs both/)
  t.match(w.join('\n'), /changes\[3\]: the "before" text is not found in document a/)
  t.notOk(w.some((x) => x.startsWith('changes[3]: the "after"')), 'whitespace differences do not matter')
  t.notOk(w.some((x) => x.startsWith('changes[4]')), 'elided quotes are checked piece by piece')
  t.match(w.join('\n'), /changes\[5\]: "before" and "after" are the same text/)
  t.equal(res.body.usage.credits, 15)
})

t.test('enums are enforced: a bad materiality fails after one retry, free', async (t) => {
  reply = () => ({ ...good(), changes: [{ ...good().changes[0], materiality: 'critical' }] })
  calls = 0
  const c = await app.customer(20)
  const res = await app.call('/v1/compare', { key: c.key, body: { a: { text: contractA.toText() }, b: { text: contractB.toText() } } })
  t.equal(res.status, 502, res.text)
  t.equal(res.body.error.code, 'inference_failed')
  t.equal(calls, 2)
  t.match(await app.ledger(c.accountId), { balance: 20, reserved: 0 })
})

t.test('the same text on both sides: no changes, and no model call', async (t) => {
  reply = good // would claim 3 changes
  calls = 0
  const c = await app.customer(20)
  // The PDF and the text form of the same contract differ only in whitespace.
  const res = await app.call('/v1/compare', { key: c.key, body: { a: { file: pdf('contract-v1') }, b: { text: contractA.toText() } } })
  t.equal(res.status, 200, res.text)
  t.same(res.body.changes, [])
  t.equal(res.body.changeCount, 0)
  t.equal(calls, 0)
  t.equal(res.body.usage.credits, 15)
})

t.test('bad input: 400 with the side in the path; an unusable side is 422 with its path; all free', async (t) => {
  const c = await app.customer(20)
  const cases: Array<[unknown, string]> = [
    [{ a: { text: 'x' } }, '/b'],
    [{ a: { text: 'x' }, b: { text: 'y', fileUrl: 'https://example.com/b.pdf' } }, '/b'],
    [{ a: {}, b: { text: 'y' } }, '/a'],
    [{ a: { text: 'x' }, b: { text: 'y' }, c: { text: 'z' } }, '/c'],
    [{ text: 'x' }, '/text'],
  ]
  for (const [body, path] of cases) {
    const res = await app.call('/v1/compare', { key: c.key, body })
    t.equal(res.status, 400, JSON.stringify(body))
    t.equal(res.body?.error?.code, 'invalid_request')
    t.ok(res.body?.error?.details?.some((d: { path: string }) => d.path.startsWith(path)), `a detail at ${path}: ${JSON.stringify(res.body?.error?.details)}`)
  }
  const empty = await app.call('/v1/compare', { key: c.key, body: { a: { text: 'x' }, b: { text: '  ' } } })
  t.equal(empty.status, 422)
  t.equal(empty.body.error.code, 'unprocessable')
  t.same(empty.body.error.details, [{ path: '/b/text', message: 'the document is empty' }])
  const badB64 = await app.call('/v1/compare', { key: c.key, body: { a: { file: { data: '!!!', mimeType: 'application/pdf' } }, b: { text: 'y' } } })
  t.equal(badB64.status, 400)
  t.equal(badB64.body.error.details[0].path, '/a/file/data')
  t.match(await app.ledger(c.accountId), { balance: 20, reserved: 0 })
})

t.test('async: 202, then the job result has the sync shape with usage', async (t) => {
  reply = good
  const c = await app.customer(40)
  const res = await app.call('/v1/compare', { key: c.key, body: { a: { file: pdf('contract-v1') }, b: { file: pdf('contract-v2') }, async: true } })
  t.equal(res.status, 202, res.text)
  const job = await waitForJob(app, c.key, res.body.jobId)
  t.equal(job.status, 'succeeded', JSON.stringify(job.error))
  t.equal(job.result.changeCount, 3)
  t.same(job.result.usage, { credits: 15, balanceRemaining: 25 })
})

t.test('through the fake OpenAI-compatible server (responses wire API)', async (t) => {
  const fake = await startFakeOpenAI({ text: () => good() })
  t.teardown(() => fake.close())
  const live = await startTestApp(t, { provider: fakeServerProvider(fake.baseURL) })
  const c = await live.customer(15)
  const res = await live.call('/v1/compare', { key: c.key, body: { a: { file: pdf('contract-v1') }, b: { text: contractB.toText() } } })
  t.equal(res.status, 200, res.text)
  t.match(res.body, { changeCount: 3, changes: [{ change: 'modified', materiality: 'high' }, {}, { change: 'added', before: null }] })
  t.same(res.body.warnings, [])
  t.same(res.body.usage, { credits: 15, balanceRemaining: 0 })
  const sent = JSON.stringify(fake.requests[0]?.body)
  t.ok(sent.includes('within 30 days') && sent.includes('within 60 days'), 'both versions went to the model')
})
