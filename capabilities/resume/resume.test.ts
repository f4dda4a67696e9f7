import t from 'tap'
import { resume } from '../../devkit/fixtures/documents.ts'
import { capabilityHarness, pdfFile as pdf } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import { groundings, supported, withoutEvidence } from '../../devkit/evidence.ts'
import manifest from './manifest.ts'
import { GROUNDED } from './schema.ts'

const CANDIDATE = resume.name

/** What a well-behaved model answers for the devkit fixtures resume (dates at the precision the resume gives). */
const good = () => supported(answer(), resume.toPages(), { experience: ['title', 'company'], education: ['school'] }, GROUNDED)
const answer = () => ({
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

// A worker runs the async calls.
const cap = await capabilityHarness(t, manifest, { worker: true, funds: 10 })

t.test('a PDF resume: dates as YYYY-MM-DD with their precision, "present" as current, skills once', async (t) => {
  cap.reply(good)
  const call = await cap.call({ file: pdf('resume') })
  cap.expectCharged(t, call)
  const b = call.res.body
  t.equal(b.name, 'Daniel Okafor')
  t.same(b.skills, resume.skills, 'the duplicate "typescript" is dropped, order kept')
  t.match(b.experience[0], { company: 'Paylane', startDate: '2020-02-01', startDatePrecision: 'month', current: true })
  t.notOk('endDate' in b.experience[0] || 'endDatePrecision' in b.experience[0], 'an ongoing role has no end: left out')
  t.match(b.experience[1], {
    company: 'DataFoundry',
    startDate: '2015-06-01',
    endDate: '2020-01-01',
    endDatePrecision: 'month',
    current: false,
  })
  t.same(withoutEvidence(b.education), [{ degree: 'B.S. Computer Science', school: 'University of Michigan', year: 2015 }])
  t.same(
    groundings(b).filter((g) => !g.grounded),
    [],
    'issue 29: every value carries evidence code found',
  )
  t.same(b.links, { linkedin: 'linkedin.com/in/danielokafor', github: 'github.com/dokafor' })
  t.same(b.warnings, [])
})

t.test('answers that break the promises: reported in warnings, never passed through', async (t) => {
  cap.reply({
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
  const { res } = await cap.call({ text: resume.toText() })
  t.equal(res.status, 200, res.text)
  const b = res.body
  t.notOk('email' in b || 'phone' in b || 'yearsExperience' in b, 'unknown values are left out')
  t.match(b.experience[0], {
    startDate: '2021-03-01',
    startDatePrecision: 'month',
    endDate: '2019-01-01',
    endDatePrecision: 'year',
    highlights: ['shipped'],
  })
  t.notOk('startDate' in b.experience[1] || 'endDate' in b.experience[1], 'unreadable and impossible dates are left out')
  t.match(b.experience[2], { startDate: '2018-06-01', endDate: '2019-07-15', current: true })
  t.same(withoutEvidence(b.education), [{ school: 'MIT' }])
  t.same(b.links, { github: 'github.com/dokafor' })
  const w = b.warnings.join('\n')
  for (const s of [
    'email',
    'phone',
    'yearsExperience',
    'experience[0]: startDate 2021-03-01 is after endDate 2019-01-01',
    'experience[1].startDate',
    'experience[1].endDate',
    'experience[2]: marked current',
    'education[0].year',
    'links.linkedin',
  ]) {
    t.ok(w.includes(s), `warns about ${s}`)
  }
  t.equal(b.usage.credits, 8)
})

t.test('a model answer without a name fails after one retry, free', async (t) => {
  cap.reply({ ...good(), name: '   ' })
  await cap.expectRefused(t, { text: resume.toText() }, { status: 502, code: 'inference_failed', why: 'a blank name' })
  t.equal(cap.prompts.length, 2, 'one retry')
})

capabilitySuite(t, cap, {
  badBodies: [
    {},
    { text: 'a', fileUrl: 'https://example.com/cv.pdf' },
    { text: '' },
    { text: 'x', extra: true },
    { file: { data: 'abc' } },
    { fileUrl: 'ftp://example.com/cv.pdf' },
    { text: 'x'.repeat(500_001) },
  ],
})

t.test('an empty document is 422 unprocessable and free', async (t) => {
  cap.reply(good)
  await cap.expectRefused(t, { text: '   \n ' }, { status: 422, code: 'unprocessable', why: 'an empty document' })
})

t.test('async: 202, then the job result has the sync shape with usage', async (t) => {
  cap.reply(good)
  const { res, customer } = await cap.call({ file: pdf('resume'), async: true }, { funds: 20 })
  t.equal(res.status, 202, res.text)
  const job = await cap.job(customer, res.body.jobId)
  t.equal(job.status, 'succeeded', JSON.stringify(job.error))
  t.equal(job.result.name, 'Daniel Okafor')
  t.equal(job.result.experience[0].startDate, '2020-02-01')
  t.same(job.result.usage, { credits: 8, balanceRemaining: 12, livemode: true })
})

t.test('through the fake OpenAI-compatible server (responses wire API)', async (t) => {
  const fake = await cap.useFake({ text: () => good() })
  const call = await cap.call({ file: pdf('resume') })
  cap.expectCharged(t, call)
  t.match(call.res.body, {
    name: 'Daniel Okafor',
    email: resume.email,
    skills: resume.skills,
    experience: [{ startDate: '2020-02-01', current: true }, {}],
  })
  const sent = fake.requests.find((r) => r.path === '/v1/responses')?.body
  t.ok(JSON.stringify(sent).includes('Paylane'), 'the PDF text went to the model')
})
