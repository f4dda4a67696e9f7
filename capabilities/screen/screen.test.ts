import t from 'tap'
import { capabilityHarness } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import manifest from './manifest.ts'
import { verdictFor } from './handler.ts'

// Every subtest starts on the fake OpenAI-compatible server (Responses API, with its web search).
const cap = await capabilityHarness(t, manifest, { via: 'responses' })
const fake = cap.fake

const SITE = { url: 'https://northwind-test.com/', title: 'Northwind Logistics' }
const LI = { url: 'https://www.linkedin.com/company/northwind-test/', title: 'Northwind | LinkedIn' }
const JOBS = { url: 'https://jobs.example.org/northwind?utm_source=openai', title: 'Jobs' }
const criteria = ['Logistics or freight company', 'At least 200 employees', 'Uses SAP']
const lead = { company: 'Northwind Logistics', domain: 'northwind-test.com' }
const none = { value: null, sources: [] }
const emptyProfile = { name: none, website: none, industry: none, headquarters: none, employeeRange: none, description: none }
/** A profile field with the numbers of the sources it was read from. */
const field = (value: string, ...sources: number[]) => ({ value, sources })
/** An evidence item: its bearing, text, source numbers and criterion. */
const item = (bearing: 'for' | 'against', evidence: string, sources: number[], criterion: string | null = null) => ({
  bearing,
  evidence,
  criterion,
  sources,
})
/** The fake model: notes for the search call (the one with the web search tool), then `answer` for the screening. */
const model = (answer: unknown) => (req: { tools: string[] }) =>
  req.tools.includes('web_search') ? { notes: 'The site says freight forwarding; LinkedIn lists 201-500 staff.' } : answer

t.test('verdict follows score', async (t) => {
  t.same([0, 0.39, 0.4, 0.69, 0.7, 1].map(verdictFor), ['disqualified', 'disqualified', 'maybe', 'maybe', 'qualified', 'qualified'])
})

t.test("evidence cites the search's sources by number; verdict from score; criteria from the caller's list", async (t) => {
  fake.set({
    webSearch: [SITE, LI, JOBS, { url: 'https://northwind-test.com/#about', title: 'dup' }],
    text: model({
      score: 0.82,
      evidence: [
        item('for', 'Freight forwarder with Rotterdam warehouses ([northwind-test.com](https://northwind-test.com/)).', [1], criteria[0]),
        item('for', 'LinkedIn lists 201-500 employees.', [2, 2], criteria[1]),
        item('against', 'Job posts mention Oracle, not SAP.', [3], null),
      ],
      profile: {
        ...emptyProfile,
        name: field('Northwind Logistics', 1),
        website: field('northwind-test.com', 1),
        employeeRange: field('201-500', 2),
        industry: field(' ', 1),
        description: field('A freight forwarder.'), // cites no source: left out
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
    usage: { credits: 10, balanceRemaining: 90, livemode: true },
  })
  const [search, screening] = fake.requests.slice(-2)
  t.same(search!.body.tools, [{ type: 'web_search' }], 'the first call searches')
  const schema = screening!.body.text.format.schema
  const evidence = schema.properties.evidence
  t.match(evidence, { minItems: 1, items: { properties: { sources: { minItems: 1, items: { minimum: 1, maximum: 3 } } } } })
  t.same(evidence.items.properties.criterion.anyOf[0].enum, criteria, "the caller's criteria as an enum")
  t.notOk('unverified' in schema.properties, "with a list, unverified is code's")
})

t.test("criteria as text: the model's unverified list, no criterion names; score 0.5 is maybe", async (t) => {
  fake.set({
    webSearch: [SITE],
    text: model({
      score: 0.5,
      evidence: [item('for', 'Logistics firm.', [1], 'logistics')],
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
  t.match(JSON.stringify(fake.requests.at(-2)!.body), 'Search thoroughly')
})

t.test('issue 16: the verdict follows the evidence', async (t) => {
  // A score of 0.9 with only evidence against the lead cannot be qualified.
  fake.set({
    webSearch: [SITE, JOBS],
    text: model({ score: 0.9, evidence: [item('against', 'Job posts mention Oracle, not SAP.', [2], 'Uses SAP')], profile: emptyProfile }),
  })
  let { res } = await cap.call({ lead, criteria })
  t.equal(res.status, 200, res.text)
  t.same([res.body.verdict, res.body.score, res.body.evidenceFor], ['disqualified', 0.39, []])

  // The mirror case: only evidence for the lead and a score of 0.1 cannot disqualify it.
  fake.set({
    webSearch: [SITE],
    text: model({ score: 0.1, evidence: [item('for', 'Freight forwarder.', [1], criteria[0])], profile: emptyProfile }),
  })
  ;({ res } = await cap.call({ lead, criteria }))
  t.equal(res.status, 200, res.text)
  t.same([res.body.verdict, res.body.score], ['maybe', 0.4])
})

t.test('answers that cannot be grounded are failed calls, charged nothing', async (t) => {
  const ok = { score: 0.9, evidence: [item('for', 'x', [1])], profile: emptyProfile }
  const cases: Array<[string, Array<{ url: string; title: string }> | undefined, unknown]> = [
    ['the search returned no sources', undefined, ok],
    ['a source number beyond the sources found', [SITE], { ...ok, evidence: [item('for', 'x', [2])] }],
    ['evidence citing nothing', [SITE], { ...ok, evidence: [item('for', 'x', [])] }],
    ['no evidence at all', [SITE], { ...ok, evidence: [] }],
    ['a criterion not in the list', [SITE], { ...ok, evidence: [item('for', 'x', [1], 'Something else')] }],
    ['score above 1', [SITE], { ...ok, score: 1.5 }],
    ['a verdict from the model is not accepted', [SITE], { ...ok, verdict: 'qualified' }],
    ['employeeRange outside the buckets', [SITE], { ...ok, profile: { ...emptyProfile, employeeRange: field('about 300', 1) } }],
  ]
  for (const [name, webSearch, answer] of cases) {
    fake.set({ webSearch, text: model(answer) })
    await cap.expectRefused(t, { lead, criteria }, { status: 502, code: 'inference_failed', why: name })
  }
  fake.set({ webSearch: [SITE], text: model({ ...ok, evidence: [item('for', '([site](https://northwind-test.com/))', [1])] }) })
  await cap.expectRefused(
    t,
    { lead, criteria },
    {
      status: 502,
      code: 'inference_failed',
      why: 'evidence that is only a link',
      message: /broke a rule.*evidence 1 has no text besides links/,
    },
  )
})

t.test('no web search: 503 inference_unavailable, charged nothing', async (t) => {
  await cap.useFake({ wire: 'chat' })
  const before = fake.requests.length
  await cap.expectRefused(t, { lead, criteria }, { status: 503, code: 'inference_unavailable', why: 'the chat wire API' })
  t.equal(fake.requests.length, before, 'the chat wire API is never called')

  cap.useMock()
  await cap.expectRefused(t, { lead, criteria }, { status: 503, code: 'inference_unavailable', why: 'a provider without webSearch()' })
})

capabilitySuite(t, cap, {
  badInput: [
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
  ],
})
