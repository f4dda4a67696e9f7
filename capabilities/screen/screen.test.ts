import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import manifest from './manifest.ts'
import { verdictFor } from './handler.ts'

// Every subtest starts on the fake OpenAI-compatible server (Responses API, with its web search).
const cap = await capabilityHarness(t, manifest, { via: 'responses' })
const fake = cap.fake

const SITE = { url: 'https://northwind-test.com/', title: 'Northwind Logistics' }
const LI = { url: 'https://www.linkedin.com/company/northwind-test/', title: 'Northwind | LinkedIn' }
const JOBS = { url: 'https://jobs.example.org/northwind?utm_source=openai', title: 'Jobs' }
const NOT_SEARCHED = 'https://made-up.example.io/northwind'
const criteria = ['Logistics or freight company', 'At least 200 employees', 'Uses SAP']
const lead = { company: 'Northwind Logistics', domain: 'northwind-test.com' }
const none = { value: null, sourceUrls: [] }
const emptyProfile = { name: none, website: none, industry: none, headquarters: none, employeeRange: none, description: none }
const field = (value: string, ...sourceUrls: string[]) => ({ value, sourceUrls })
const item = (evidence: string, sourceUrls: string[], criterion: string | null = null) => ({ evidence, criterion, sourceUrls })

t.test('verdict follows score', async (t) => {
  t.same([0, 0.39, 0.4, 0.69, 0.7, 1].map(verdictFor), ['disqualified', 'disqualified', 'maybe', 'maybe', 'qualified', 'qualified'])
})

t.test("evidence cites search results only; verdict from score; criteria from the caller's list", async (t) => {
  fake.set({
    webSearch: [SITE, LI, JOBS, { url: 'https://northwind-test.com/#about', title: 'dup' }],
    text: () => ({
      score: 0.82,
      evidenceFor: [
        item(
          'Freight forwarder with Rotterdam warehouses ([northwind-test.com](https://northwind-test.com/)).',
          [],
          'logistics or freight company',
        ),
        item('LinkedIn lists 201-500 employees.', ['https://linkedin.com/company/northwind-test', NOT_SEARCHED], 'At least 200 employees'),
        item('Won an award (no source).', [NOT_SEARCHED], 'Logistics or freight company'),
      ],
      evidenceAgainst: [item('Job posts mention Oracle, not SAP.', ['https://jobs.example.org/northwind'], 'Something not in the list')],
      unverified: ['ignored for list criteria'],
      profile: {
        ...emptyProfile,
        name: field('Northwind Logistics', SITE.url),
        website: field('northwind-test.com', SITE.url),
        employeeRange: field('201-500', LI.url),
        industry: field(' ', SITE.url),
        headquarters: field('Rotterdam', NOT_SEARCHED), // no searched page: left out
        description: field('A freight forwarder.'), // from memory: left out
      },
    }),
  })
  const call = await cap.call({ lead, criteria })
  cap.expectCharged(t, call)
  t.same(call.res.body, {
    verdict: 'qualified',
    score: 0.82,
    evidenceFor: [
      { evidence: 'Freight forwarder with Rotterdam warehouses.', criterion: 'Logistics or freight company', sourceIndexes: [0] },
      { evidence: 'LinkedIn lists 201-500 employees.', criterion: 'At least 200 employees', sourceIndexes: [1] },
    ],
    evidenceAgainst: [{ evidence: 'Job posts mention Oracle, not SAP.', sourceIndexes: [2] }],
    unverified: ['Uses SAP'],
    profile: { name: 'Northwind Logistics', website: 'https://northwind-test.com/', employeeRange: '201-500' },
    sources: [SITE, LI, JOBS],
    usage: { credits: 10, balanceRemaining: 90 },
  })
  t.same(fake.requests.at(-1)?.body.tools, [{ type: 'web_search' }])
})

t.test("criteria as text: the model's unverified list, no criterion names; score 0.5 is maybe", async (t) => {
  fake.set({
    webSearch: [SITE],
    text: () => ({
      score: 0.5,
      evidenceFor: [item('Logistics firm.', [SITE.url], 'logistics')],
      evidenceAgainst: [],
      unverified: [' SAP usage ', 'SAP usage'],
      profile: emptyProfile,
    }),
  })
  const { res } = await cap.call({
    lead: 'Northwind Logistics, northwind-test.com',
    criteria: 'Logistics company using SAP',
    depth: 'deep',
  })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.verdict, 'maybe')
  t.same(res.body.evidenceFor, [{ evidence: 'Logistics firm.', sourceIndexes: [0] }], 'no criterion without a list')
  t.same(res.body.unverified, ['SAP usage'])
  t.same(res.body.profile, {})
  t.match(JSON.stringify(fake.requests.at(-1)!.body), 'Search thoroughly')
})

t.test('issue 16: the verdict follows the evidence that survived the citation check', async (t) => {
  // A score of 0.9 whose only supporting item cites nothing the search returned: no evidence for is left, only
  // evidence against, so the lead cannot be qualified (before: "qualified", charged).
  fake.set({
    webSearch: [SITE, JOBS],
    text: () => ({
      score: 0.9,
      evidenceFor: [item('Huge SAP customer.', [NOT_SEARCHED], 'Uses SAP')],
      evidenceAgainst: [item('Job posts mention Oracle, not SAP.', [JOBS.url], 'Uses SAP')],
      unverified: [],
      profile: emptyProfile,
    }),
  })
  let { res } = await cap.call({ lead, criteria })
  t.equal(res.status, 200, res.text)
  t.same([res.body.verdict, res.body.score, res.body.evidenceFor], ['disqualified', 0.39, []])

  // The mirror case: only cited evidence for the lead and a score of 0.1 cannot disqualify it.
  fake.set({
    webSearch: [SITE],
    text: () => ({
      score: 0.1,
      evidenceFor: [item('Freight forwarder.', [SITE.url], criteria[0]!)],
      evidenceAgainst: [],
      unverified: [],
      profile: emptyProfile,
    }),
  })
  ;({ res } = await cap.call({ lead, criteria }))
  t.equal(res.status, 200, res.text)
  t.same([res.body.verdict, res.body.score], ['maybe', 0.4])
})

t.test('answers that cannot be grounded are failed calls, charged nothing', async (t) => {
  const ok = { score: 0.9, evidenceFor: [item('x', [SITE.url])], evidenceAgainst: [], unverified: [], profile: emptyProfile }
  const cases: Array<[string, Array<{ url: string; title: string }> | undefined, unknown]> = [
    ['the search returned no sources', undefined, ok],
    ['no evidence cites a searched URL', [SITE], { ...ok, evidenceFor: [item('x', [NOT_SEARCHED])], evidenceAgainst: [item('y', [])] }],
    ['no evidence at all', [SITE], { ...ok, evidenceFor: [] }],
    ['score above 1', [SITE], { ...ok, score: 1.5 }],
    ['a verdict from the model is not accepted', [SITE], { ...ok, verdict: 'qualified' }],
    ['employeeRange outside the buckets', [SITE], { ...ok, profile: { ...emptyProfile, employeeRange: field('about 300', SITE.url) } }],
  ]
  for (const [name, webSearch, answer] of cases) {
    fake.set({ webSearch, text: () => answer })
    await cap.expectRefused(t, { lead, criteria }, { status: 502, code: 'inference_failed', why: name })
  }
})

t.test('no web search: 503 inference_unavailable, charged nothing', async (t) => {
  await cap.useFake({ wire: 'chat' })
  const before = fake.requests.length
  await cap.expectRefused(t, { lead, criteria }, { status: 503, code: 'inference_unavailable', why: 'the chat wire API' })
  t.equal(fake.requests.length, before, 'the chat wire API is never called')

  cap.useMock()
  await cap.expectRefused(t, { lead, criteria }, { status: 503, code: 'inference_unavailable', why: 'a provider without webSearch()' })
})

t.test('bad input is 400 invalid_request and charges nothing', async (t) => {
  const bad: Array<[string, unknown]> = [
    ['no lead', { criteria }],
    ['no criteria', { lead }],
    ['empty criteria list', { lead, criteria: [] }],
    ['too many criteria', { lead, criteria: Array.from({ length: 31 }, (_, i) => `c${i}`) }],
    ['criterion too long', { lead, criteria: ['c'.repeat(1001)] }],
    ['criteria text too long', { lead, criteria: 'c'.repeat(10_001) }],
    ['criteria as object', { lead, criteria: { size: '200+' } }],
    ['lead too long', { lead: 'l'.repeat(20_001), criteria }],
    ['unknown depth', { lead, criteria, depth: 'max' }],
    ['unknown field', { lead, criteria, threshold: 0.5 }],
  ]
  for (const [why, body] of bad) await cap.expectRefused(t, body, { why })
})
