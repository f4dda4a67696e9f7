import { readFileSync } from 'node:fs'
import t from 'tap'
import { fakeServerProvider, mockProvider, startTestApp, type TestApp } from '../../test/helpers/app.ts'
import { startFakeOpenAI } from '../../test/helpers/fake-openai.ts'
import { contractA } from '../../test/fixtures/documents.ts'

const pdf = (name: string) => ({ data: readFileSync(new URL(`../../test/fixtures/pdf/${name}.pdf`, import.meta.url)).toString('base64'), mimeType: 'application/pdf' })

const good = () => ({
  contractType: 'Services Agreement',
  parties: contractA.parties.map((p) => ({ name: p.name, role: p.role })),
  effectiveDate: 'January 1, 2024',
  term: '24 months from 2024-01-01',
  renewal: null,
  governingLaw: contractA.governingLaw,
  obligations: ['Provider hosts and maintains the fleet tracking platform with 99.5% monthly uptime.', 'Client pays USD 4,000 per month within 30 days.'],
  riskFlags: [{ clause: '5. Termination', severity: 'medium', reason: 'Either party may leave with 30 days notice.' }],
})

let reply: (prompt: string) => unknown = good
let calls = 0
const app = await startTestApp(t, {
  worker: true,
  provider: mockProvider((p) => {
    calls++
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

t.test('a PDF contract: parties, effective date as YYYY-MM-DD, no renewal clause → renewal null', async (t) => {
  reply = good
  const c = await app.customer(20)
  const res = await app.call('/v1/contract', { key: c.key, body: { file: pdf('contract-v1') } })
  t.equal(res.status, 200, res.text)
  const b = res.body
  t.equal(b.contractType, contractA.contractType)
  t.same(b.parties, contractA.parties)
  t.equal(b.effectiveDate, contractA.effectiveDate)
  t.equal(b.renewal, null)
  t.equal(b.governingLaw, 'New York')
  t.equal(b.riskFlags[0].severity, 'medium')
  t.same(b.warnings, [])
  t.same(b.usage, { credits: 12, balanceRemaining: 8 })
})

t.test('answers that break the promises: repeated or unknown parties, a non-date, blank obligations', async (t) => {
  reply = () => ({
    ...good(),
    parties: [
      { name: ' Orbit Software Ltd. ', role: 'Provider' },
      { name: 'orbit software ltd.', role: 'vendor' },
      { name: 'Globex Corp', role: 'guarantor' },
    ],
    effectiveDate: 'upon signature',
    renewal: { autoRenews: true, noticePeriod: ' ' },
    obligations: ['Pay on time.', ' ', 'pay on time.'],
  })
  const c = await app.customer(20)
  const res = await app.call('/v1/contract', { key: c.key, body: { text: contractA.toText() } })
  t.equal(res.status, 200, res.text)
  const b = res.body
  t.same(b.parties, [
    { name: 'Orbit Software Ltd.', role: 'provider' },
    { name: 'Globex Corp', role: 'guarantor' },
  ])
  t.equal(b.effectiveDate, null)
  t.same(b.renewal, { autoRenews: true, noticePeriod: null })
  t.same(b.obligations, ['Pay on time.'])
  t.match(b.warnings.join('\n'), /parties\[1\]: "Globex Corp" is not found in the contract text/)
  t.match(b.warnings.join('\n'), /effectiveDate: "upon signature" is not a date/)
})

t.test('no party, a non-boolean autoRenews or an unknown severity: one retry, then inference_failed, free', async (t) => {
  const c = await app.customer(12)
  for (const bad of [
    { ...good(), parties: [] },
    { ...good(), renewal: { autoRenews: 'yes', noticePeriod: null } },
    { ...good(), riskFlags: [{ clause: '5', severity: 'critical', reason: 'r' }] },
    { ...good(), parties: [{ name: ' ', role: 'client' }] },
  ]) {
    reply = () => bad
    calls = 0
    const res = await app.call('/v1/contract', { key: c.key, body: { text: contractA.toText() } })
    t.equal(res.status, 502, JSON.stringify(bad).slice(0, 120))
    t.equal(res.body.error.code, 'inference_failed')
    t.equal(calls, 2, 'one retry')
  }
  let first = true
  reply = () => (first ? ((first = false), { ...good(), parties: [] }) : good())
  const retried = await app.call('/v1/contract', { key: c.key, body: { text: contractA.toText() } })
  t.equal(retried.status, 200, 'a corrected second answer is accepted')
  t.match(await app.ledger(c.accountId), { balance: 0, reserved: 0 }, 'only the successful call was charged')
})

t.test('bad input is 400 invalid_request and free', async (t) => {
  const c = await app.customer(12)
  for (const body of [{}, { text: null }, { fileUrl: 'https://example.com/' + 'a'.repeat(2100) }, { file: { data: 'YQ==', mimeType: 'application/pdf' }, text: 'x' }, { text: 'x', callbackUrl: 5 }]) {
    const res = await app.call('/v1/contract', { key: c.key, body })
    t.equal(res.status, 400, JSON.stringify(body).slice(0, 80))
    t.equal(res.body?.error?.code, 'invalid_request')
  }
  t.match(await app.ledger(c.accountId), { balance: 12, reserved: 0 })
})

t.test('async: 202, then the job result has the sync shape with usage', async (t) => {
  reply = good
  const c = await app.customer(30)
  const res = await app.call('/v1/contract', { key: c.key, body: { file: pdf('contract-v1'), async: true } })
  t.equal(res.status, 202, res.text)
  const job = await waitForJob(app, c.key, res.body.jobId)
  t.equal(job.status, 'succeeded', JSON.stringify(job.error))
  t.same(job.result.parties, contractA.parties)
  t.equal(job.result.effectiveDate, '2024-01-01')
  t.same(job.result.usage, { credits: 12, balanceRemaining: 18 })
})

t.test('through the fake OpenAI-compatible server (chat wire API)', async (t) => {
  const fake = await startFakeOpenAI({ text: () => good() })
  t.teardown(() => fake.close())
  const live = await startTestApp(t, { provider: fakeServerProvider(fake.baseURL, 'chat') })
  const c = await live.customer(12)
  const res = await live.call('/v1/contract', { key: c.key, body: { file: pdf('contract-v1') } })
  t.equal(res.status, 200, res.text)
  t.match(res.body, { contractType: 'services agreement', parties: contractA.parties, effectiveDate: '2024-01-01', renewal: null })
  t.same(res.body.usage, { credits: 12, balanceRemaining: 0 })
  t.equal(fake.requests[0]?.path, '/v1/chat/completions')
  t.ok(JSON.stringify(fake.requests[0]?.body).includes('Lakeside Logistics'), 'the PDF text went to the model')
})
