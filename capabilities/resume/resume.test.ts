import { readFileSync } from 'node:fs'
import t from 'tap'
import { fakeServerProvider, mockProvider, startTestApp, type TestApp } from '../../test/helpers/app.ts'
import { startFakeOpenAI } from '../../test/helpers/fake-openai.ts'
import { resume } from '../../test/fixtures/documents.ts'

const pdf = (name: string) => ({ data: readFileSync(new URL(`../../test/fixtures/pdf/${name}.pdf`, import.meta.url)).toString('base64'), mimeType: 'application/pdf' })

// test/fixtures/documents.ts spreads `name: 'resume'` (the fixture's file name) over the candidate's name.
const CANDIDATE = 'Daniel Okafor'

/** What a well-behaved model answers for test/fixtures resume (dates at the precision the resume gives). */
const good = () => ({
  name: CANDIDATE,
  email: resume.email,
  phone: resume.phone,
  location: resume.location,
  headline: resume.headline,
  summary: resume.summary,
  yearsExperience: resume.yearsExperience,
  skills: [...resume.skills, 'typescript'],
  experience: [
    { ...resume.experience[0]!, endDate: 'present', current: false },
    { ...resume.experience[1]!, current: false },
  ],
  education: resume.education,
  links: resume.links,
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

t.test('a PDF resume: dates as YYYY-MM-DD with their precision, "present" as current, skills once', async (t) => {
  reply = good
  const c = await app.customer(10)
  const res = await app.call('/v1/resume', { key: c.key, body: { file: pdf('resume') } })
  t.equal(res.status, 200, res.text)
  const b = res.body
  t.equal(b.name, 'Daniel Okafor')
  t.same(b.skills, resume.skills, 'the duplicate "typescript" is dropped, order kept')
  t.match(b.experience[0], { company: 'Paylane', startDate: '2020-02-01', startDatePrecision: 'month', endDate: null, endDatePrecision: null, current: true })
  t.match(b.experience[1], { company: 'DataFoundry', startDate: '2015-06-01', endDate: '2020-01-01', endDatePrecision: 'month', current: false })
  t.same(b.education, [{ degree: 'B.S. Computer Science', school: 'University of Michigan', year: 2015 }])
  t.same(b.links, { linkedin: 'linkedin.com/in/danielokafor', github: 'github.com/dokafor', website: null })
  t.same(b.warnings, [])
  t.same(b.usage, { credits: 8, balanceRemaining: 2 })
})

t.test('answers that break the promises: reported in warnings, never passed through', async (t) => {
  reply = () => ({
    ...good(),
    email: 'daniel at example',
    phone: 'n/a',
    yearsExperience: 250,
    experience: [
      { title: 'Engineer', company: 'Paylane', startDate: 'March 2021', endDate: '2019', current: false, highlights: ['- shipped', ' '] },
      { title: 'Intern', company: 'DataFoundry', startDate: 'sometime', endDate: '2015-02-30', current: false, highlights: [] },
      { title: 'Lead', company: 'Acme', startDate: '06/2018', endDate: '2019-07-15', current: true, highlights: [] },
    ],
    education: [{ degree: '', school: 'MIT', year: 3020 }],
    links: { linkedin: 'github.com/dokafor', github: 'github.com/dokafor', website: '' },
  })
  const c = await app.customer(10)
  const res = await app.call('/v1/resume', { key: c.key, body: { text: resume.toText() } })
  t.equal(res.status, 200, res.text)
  const b = res.body
  t.equal(b.email, null)
  t.equal(b.phone, null)
  t.equal(b.yearsExperience, null)
  t.match(b.experience[0], { startDate: '2021-03-01', startDatePrecision: 'month', endDate: '2019-01-01', endDatePrecision: 'year', highlights: ['shipped'] })
  t.match(b.experience[1], { startDate: null, endDate: null }, 'unreadable and impossible dates become null')
  t.match(b.experience[2], { startDate: '2018-06-01', endDate: '2019-07-15', current: true })
  t.same(b.education, [{ degree: null, school: 'MIT', year: null }])
  t.same(b.links, { linkedin: null, github: 'github.com/dokafor', website: null })
  const w = b.warnings.join('\n')
  for (const s of ['email', 'phone', 'yearsExperience', 'experience[0]: startDate 2021-03-01 is after endDate 2019-01-01', 'experience[1].startDate', 'experience[1].endDate', 'experience[2]: marked current', 'education[0].year', 'links.linkedin']) {
    t.ok(w.includes(s), `warns about ${s}`)
  }
  t.equal(b.usage.credits, 8)
})

t.test('a model answer without a name fails after one retry, free', async (t) => {
  reply = () => ({ ...good(), name: '   ' })
  calls = 0
  const c = await app.customer(10)
  const res = await app.call('/v1/resume', { key: c.key, body: { text: resume.toText() } })
  t.equal(res.status, 502, res.text)
  t.equal(res.body.error.code, 'inference_failed')
  t.equal(calls, 2, 'one retry')
  t.match(await app.ledger(c.accountId), { balance: 10, reserved: 0 })
})

t.test('bad input is 400 invalid_request and free; an empty document is 422', async (t) => {
  reply = good
  const c = await app.customer(10)
  for (const body of [
    {},
    { text: 'a', fileUrl: 'https://example.com/cv.pdf' },
    { text: '' },
    { text: 'x', extra: true },
    { file: { data: 'abc' } },
    { fileUrl: 'ftp://example.com/cv.pdf' },
    { text: 'x'.repeat(500_001) },
  ]) {
    const res = await app.call('/v1/resume', { key: c.key, body })
    t.equal(res.status, 400, JSON.stringify(body).slice(0, 80))
    t.equal(res.body?.error?.code, 'invalid_request')
  }
  const empty = await app.call('/v1/resume', { key: c.key, body: { text: '   \n ' } })
  t.equal(empty.status, 422)
  t.equal(empty.body.error.code, 'unprocessable')
  t.match(await app.ledger(c.accountId), { balance: 10, reserved: 0 })
})

t.test('async: 202, then the job result has the sync shape with usage', async (t) => {
  reply = good
  const c = await app.customer(20)
  const res = await app.call('/v1/resume', { key: c.key, body: { file: pdf('resume'), async: true } })
  t.equal(res.status, 202, res.text)
  const job = await waitForJob(app, c.key, res.body.jobId)
  t.equal(job.status, 'succeeded', JSON.stringify(job.error))
  t.equal(job.result.name, 'Daniel Okafor')
  t.equal(job.result.experience[0].startDate, '2020-02-01')
  t.same(job.result.usage, { credits: 8, balanceRemaining: 12 })
})

t.test('through the fake OpenAI-compatible server (responses wire API)', async (t) => {
  const fake = await startFakeOpenAI({ text: () => good() })
  t.teardown(() => fake.close())
  const live = await startTestApp(t, { provider: fakeServerProvider(fake.baseURL) })
  const c = await live.customer(10)
  const res = await live.call('/v1/resume', { key: c.key, body: { file: pdf('resume') } })
  t.equal(res.status, 200, res.text)
  t.match(res.body, { name: 'Daniel Okafor', email: resume.email, skills: resume.skills, experience: [{ startDate: '2020-02-01', current: true }, {}] })
  t.same(res.body.usage, { credits: 8, balanceRemaining: 2 })
  const sent = fake.requests.find((r) => r.path === '/v1/responses')?.body
  t.ok(JSON.stringify(sent).includes('Paylane'), 'the PDF text went to the model')
})
