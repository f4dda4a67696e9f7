import t from 'tap'
import { contractA } from '../../devkit/fixtures/documents.ts'
import { capabilityHarness, pdfFile as pdf } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import { groundings, supported, withoutEvidence } from '../../devkit/evidence.ts'
import manifest from './manifest.ts'
import { GROUNDED } from './schema.ts'

const good = () => supported(answer(), contractA.toPages(), { parties: ['name'], riskFlags: ['clause'] }, GROUNDED)
const answer = () => ({
  contractType: 'Services Agreement',
  parties: contractA.parties.map((p) => ({ name: p.name, role: p.role })),
  effectiveDate: 'January 1, 2024',
  term: '24 months', // as stated: a term rewritten ("24 months from 2024-01-01") would have no evidence
  renewal: null,
  governingLaw: contractA.governingLaw,
  obligations: [
    'Provider hosts and maintains the fleet tracking platform with 99.5% monthly uptime.',
    'Client pays USD 4,000 per month within 30 days.',
  ],
  riskFlags: [{ clause: '5. Termination', severity: 'medium', reason: 'Either party may leave with 30 days notice.' }],
})

const cap = await capabilityHarness(t, manifest, { worker: true, funds: 20 })

t.test('a PDF contract: parties, effective date as YYYY-MM-DD, no renewal clause → no renewal', async (t) => {
  cap.reply(good)
  const call = await cap.call({ file: pdf('contract-v1') })
  cap.expectCharged(t, call)
  const b = call.res.body
  t.equal(b.contractType, contractA.contractType)
  t.same(withoutEvidence(b.parties), contractA.parties)
  t.same(
    groundings(b).filter((g) => !g.grounded),
    [],
    'issue 29: every value carries evidence code found',
  )
  t.equal(b.effectiveDate, contractA.effectiveDate)
  t.notOk('renewal' in b, 'unknown values are left out')
  t.equal(b.governingLaw, 'New York')
  t.equal(b.riskFlags[0].severity, 'medium')
  t.same(b.warnings, [])
})

t.test('answers that break the promises: repeated or unknown parties, a non-date, blank obligations', async (t) => {
  cap.reply({
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
  const { res } = await cap.call({ text: contractA.toText() })
  t.equal(res.status, 200, res.text)
  const b = res.body
  t.same(withoutEvidence(b.parties), [
    { name: 'Orbit Software Ltd.', role: 'provider' },
    { name: 'Globex Corp', role: 'guarantor' },
  ])
  t.same([b.parties[1].evidence, b.parties[1].grounded], [null, false], 'a party not in the contract has no evidence')
  t.notOk('effectiveDate' in b)
  t.same(b.renewal, { autoRenews: true })
  t.same(b.obligations, ['Pay on time.'])
  t.match(b.warnings.join('\n'), /parties\[1\]: "Globex Corp" is not found in the contract text/)
  t.match(b.warnings.join('\n'), /effectiveDate: "upon signature" is not a date/)
})

t.test('no party, a non-boolean autoRenews or an unknown severity: one retry, then inference_failed, free', async (t) => {
  const c = await cap.customer(12)
  for (const bad of [
    { ...good(), parties: [] },
    { ...good(), renewal: { autoRenews: 'yes', noticePeriod: null } },
    { ...good(), riskFlags: [{ clause: '5', severity: 'critical', reason: 'r' }] },
    { ...good(), parties: [{ name: ' ', role: 'client' }] },
  ]) {
    cap.reply(bad)
    const why = JSON.stringify(bad).slice(0, 120)
    await cap.expectRefused(t, { text: contractA.toText() }, { customer: c, status: 502, code: 'inference_failed', why })
    t.equal(cap.prompts.length, 2, 'one retry')
  }
  cap.reply({ ...good(), parties: [] }, good())
  const retried = await cap.call({ text: contractA.toText() }, { customer: c })
  t.equal(retried.res.status, 200, 'a corrected second answer is accepted')
  t.match(retried.ledger, { balance: 0, reserved: 0 }, 'only the successful call was charged')
})

capabilitySuite(t, cap, {
  badBodies: [
    {},
    { text: null },
    { fileUrl: 'https://example.com/' + 'a'.repeat(2100) },
    { file: { data: 'YQ==', mimeType: 'application/pdf' }, text: 'x' },
    { text: 'x', callbackUrl: 5 },
  ],
})

t.test('async: 202, then the job result has the sync shape with usage', async (t) => {
  cap.reply(good)
  const { res, customer } = await cap.call({ file: pdf('contract-v1'), async: true }, { funds: 30 })
  t.equal(res.status, 202, res.text)
  const job = await cap.job(customer, res.body.jobId)
  t.equal(job.status, 'succeeded', JSON.stringify(job.error))
  t.same(withoutEvidence(job.result.parties), contractA.parties)
  t.equal(job.result.effectiveDate, '2024-01-01')
  t.same(job.result.usage, { credits: 12, balanceRemaining: 18, livemode: true })
})

t.test('through the fake OpenAI-compatible server (chat wire API)', async (t) => {
  const fake = await cap.useFake({ wire: 'chat', text: () => good() })
  const call = await cap.call({ file: pdf('contract-v1') }, { funds: 12 })
  cap.expectCharged(t, call)
  t.match(call.res.body, { contractType: 'services agreement', parties: contractA.parties, effectiveDate: '2024-01-01' })
  t.notOk('renewal' in call.res.body)
  t.equal(fake.requests[0]?.path, '/v1/chat/completions')
  t.ok(JSON.stringify(fake.requests[0]?.body).includes('Lakeside Logistics'), 'the PDF text went to the model')
})
