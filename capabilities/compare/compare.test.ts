import t from 'tap'
import { contractA, contractB, contractChanges } from '../../devkit/fixtures/documents.ts'
import { capabilityHarness, pdfFile as pdf } from '../../test/helpers/capability.ts'
import manifest from './manifest.ts'

const good = () => ({
  changes: contractChanges.map((c) => ({ ...c, materiality: 'high', note: `${c.section} changed.` })),
  summary: 'Payment and termination terms are longer and liability is capped.',
  riskNotes: ['Cash arrives a month later.', ' '],
})

const cap = await capabilityHarness(t, manifest, { worker: true, funds: 20 })
cap.reply(good)

t.test('two PDF versions of a contract: 3 changes, counted by code, quotes found in their documents', async (t) => {
  cap.reply(good)
  const call = await cap.call({ a: { file: pdf('contract-v1') }, b: { file: pdf('contract-v2') } })
  cap.expectCharged(t, call)
  const { res } = call
  t.equal(res.body.changeCount, 3)
  t.same(
    res.body.changes.map((x: any) => [x.section, x.change, x.before, x.after]),
    contractChanges.map((x) => [x.section, x.change, x.before, x.after]),
  )
  t.same(res.body.riskNotes, ['Cash arrives a month later.'], 'blank risk notes dropped')
  t.same(res.body.warnings, [])
  const lastPrompt = cap.prompts.at(-1)!
  t.ok(lastPrompt.includes('Document A (earlier version)') && lastPrompt.includes('Document B (later version)'), 'both documents, labelled')
})

t.test('answers that contradict themselves or quote what is not there: repaired where code can, always reported', async (t) => {
  cap.reply({
    changes: [
      {
        section: '6A. Limitation of Liability',
        change: 'added',
        before: 'something',
        after: 'capped at the fees paid by Client',
        materiality: 'high',
        note: 'n',
      },
      { section: '2. Services', change: 'removed', before: 'host and maintain', after: 'x', materiality: 'low', note: 'n' },
      { section: '3. Fees and Payment', change: 'modified', before: 'within 30 days', after: null, materiality: 'medium', note: 'n' },
      {
        section: '7. Governing Law',
        change: 'modified',
        before: 'laws of the State of California',
        after: 'laws of the State of  New York',
        materiality: 'high',
        note: 'n',
      },
      {
        section: '5. Termination',
        change: 'modified',
        before: 'Either party … 30 days written notice',
        after: 'Either party may terminate',
        materiality: 'low',
        note: 'n',
      },
      { section: '4. Term', change: 'modified', before: 'runs for 24 months', after: 'runs for 24  months', materiality: 'low', note: 'n' },
    ],
    summary: ' s ',
    riskNotes: [],
  })
  const { res } = await cap.call({ a: { text: contractA.toText() }, b: { text: contractB.toText() } })
  t.equal(res.status, 200, res.text)
  const ch = res.body.changes
  t.equal(res.body.changeCount, 6, 'from the array')
  t.notOk('before' in ch[0], 'added: no before')
  t.notOk('after' in ch[1], 'removed: no after')
  t.equal(res.body.summary, 's')
  const w: string[] = res.body.warnings
  t.match(w.join('\n'), /changes\[0\]: an "added" change cannot have a "before" text/)
  t.match(w.join('\n'), /changes\[1\]: a "removed" change cannot have an "after" text/)
  t.match(w.join('\n'), /changes\[2\]: a "modified" change needs both/)
  t.match(w.join('\n'), /changes\[3\]: the "before" text is not found in document a/)
  t.notOk(
    w.some((x) => x.startsWith('changes[3]: the "after"')),
    'whitespace differences do not matter',
  )
  t.notOk(
    w.some((x) => x.startsWith('changes[4]')),
    'elided quotes are checked piece by piece',
  )
  t.match(w.join('\n'), /changes\[5\]: "before" and "after" are the same text/)
  t.equal(res.body.usage.credits, 15)
})

t.test('enums are enforced: a bad materiality fails after one retry, free', async (t) => {
  cap.reply({ ...good(), changes: [{ ...good().changes[0], materiality: 'critical' }] })
  await cap.expectRefused(
    t,
    { a: { text: contractA.toText() }, b: { text: contractB.toText() } },
    { status: 502, code: 'inference_failed', why: 'materiality "critical"' },
  )
  t.equal(cap.prompts.length, 2)
})

t.test('the same text on both sides: no changes, and no model call', async (t) => {
  cap.reply(good) // would claim 3 changes
  // The PDF and the text form of the same contract differ only in whitespace.
  const { res } = await cap.call({ a: { file: pdf('contract-v1') }, b: { text: contractA.toText() } })
  t.equal(res.status, 200, res.text)
  t.same(res.body.changes, [])
  t.equal(res.body.changeCount, 0)
  t.equal(cap.prompts.length, 0)
  t.equal(res.body.usage.credits, 15)
})

t.test('issue 16: a case-only edit is not "the same text": the model is asked, and its change kept', async (t) => {
  // Before: case was ignored, so the shortcut answered "nothing changed" without a model call, charged 15.
  const before = 'Payment is due within 30 days. The supplier may terminate on notice.'
  const after = 'Payment is due within 30 days. The Supplier MAY terminate on notice.'
  cap.reply({
    changes: [
      {
        section: 'Termination',
        change: 'modified',
        before: 'The supplier may terminate',
        after: 'The Supplier MAY terminate',
        materiality: 'low',
        note: 'Capitalisation only.',
      },
    ],
    summary: 'Capitalisation changed in the termination clause.',
    riskNotes: [],
  })
  const { res } = await cap.call({ a: { text: before }, b: { text: after } })
  t.equal(res.status, 200, res.text)
  t.equal(cap.prompts.length, 1, 'the model was asked')
  t.equal(res.body.changeCount, 1)
  t.same(res.body.warnings, [], 'a case-only modification is not "the same text"')
})

t.test('bad input: 400 with the side in the path; an unusable side is 422 with its path; all free', async (t) => {
  const cases: Array<[unknown, string]> = [
    [{ a: { text: 'x' } }, '/b'],
    [{ a: { text: 'x' }, b: { text: 'y', fileUrl: 'https://example.com/b.pdf' } }, '/b'],
    [{ a: {}, b: { text: 'y' } }, '/a'],
    [{ a: { text: 'x' }, b: { text: 'y' }, c: { text: 'z' } }, '/c'],
    [{ text: 'x' }, '/text'],
  ]
  for (const [body, path] of cases) {
    const { res } = await cap.expectRefused(t, body, { why: JSON.stringify(body) })
    t.ok(
      res.body?.error?.details?.some((d: { path: string }) => d.path.startsWith(path)),
      `a detail at ${path}: ${JSON.stringify(res.body?.error?.details)}`,
    )
  }
  const empty = await cap.expectRefused(
    t,
    { a: { text: 'x' }, b: { text: '  ' } },
    { status: 422, code: 'unprocessable', why: 'an empty side' },
  )
  t.same(empty.res.body.error.details, [{ path: '/b/text', message: 'the document is empty' }])
  const badB64 = await cap.expectRefused(
    t,
    { a: { file: { data: '!!!', mimeType: 'application/pdf' } }, b: { text: 'y' } },
    { why: 'bad base64' },
  )
  t.equal(badB64.res.body.error.details[0].path, '/a/file/data')
})

t.test('async: 202, then the job result has the sync shape with usage', async (t) => {
  cap.reply(good)
  const { res, customer } = await cap.call({ a: { file: pdf('contract-v1') }, b: { file: pdf('contract-v2') }, async: true }, { funds: 40 })
  t.equal(res.status, 202, res.text)
  const job = await cap.job(customer, res.body.jobId)
  t.equal(job.status, 'succeeded', JSON.stringify(job.error))
  t.equal(job.result.changeCount, 3)
  t.same(job.result.usage, { credits: 15, balanceRemaining: 25, livemode: true })
})

t.test('through the fake OpenAI-compatible server (responses wire API)', async (t) => {
  const fake = await cap.useFake({ text: () => good() })
  const call = await cap.call({ a: { file: pdf('contract-v1') }, b: { text: contractB.toText() } }, { funds: 15 })
  cap.expectCharged(t, call)
  const { res } = call
  t.match(res.body, { changeCount: 3, changes: [{ change: 'modified', materiality: 'high' }, {}, { change: 'added' }] })
  t.notOk('before' in res.body.changes[2])
  t.same(res.body.warnings, [])
  const sent = JSON.stringify(fake.requests[0]?.body)
  t.ok(sent.includes('within 30 days') && sent.includes('within 60 days'), 'both versions went to the model')
})
