import t, { type Test as Tap } from 'tap'
import { statement, statementFields } from '../../devkit/fixtures/documents.ts'
import { capabilityHarness, pdfFile as pdf, withoutUsage } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import { groundings, supported, withoutEvidence } from '../../devkit/evidence.ts'
import manifest from './manifest.ts'
import { GROUNDED } from './schema.ts'

const PRICE = 12

type RawTx = { date: unknown; description: unknown; amount: unknown; direction: unknown; category: unknown; balance: unknown }

/** A well-behaved model answer for the known statement (the count is code's, never the model's). */
function answer(over: Record<string, unknown> = {}, txs?: RawTx[]) {
  const { transactionCount: _count, ...fields } = statementFields()
  const a = { ...fields, transactions: txs ?? statement.transactions.map((x) => ({ ...x, category: null as unknown })), ...over }
  return supported(a, statement.toPages(), { transactions: ['description', 'amount'] }, GROUNDED)
}

/** Every value carries evidence code found. */
function allGrounded(t: Tap, body: unknown) {
  t.same(
    groundings(body).filter((g) => !g.grounded),
    [],
    'every value grounded',
  )
}

/** What the API returns for the known statement. */
const expected = { ...statementFields(), warnings: [] }

// A worker runs the async calls.
const cap = await capabilityHarness(t, manifest, { worker: true, funds: 100 })

t.test('signed amounts, DR/CR, strings and odd dates come back normalised, charged once', async (t) => {
  cap.reply(
    answer(
      { periodStart: 'April 1, 2024', periodEnd: '30.04.2024', currency: 'usd', openingBalance: '2,450.00', closingBalance: '$4,331.38' },
      statement.transactions.map((x) => ({
        date: new Date(`${x.date}T00:00:00Z`).toUTCString().slice(5, 16), // "02 Apr 2024"
        description: x.description,
        amount: x.direction === 'debit' ? `-${x.amount.toFixed(2)}` : x.amount.toLocaleString('en-US', { minimumFractionDigits: 2 }),
        direction: x.direction === 'debit' ? 'DR' : 'Cr',
        category: null,
        balance: x.balance.toFixed(2),
      })),
    ),
  )
  const call = await cap.call({ text: statement.toText() })
  cap.expectCharged(t, call)
  const { res } = call
  t.same(withoutEvidence(withoutUsage(res.body)), expected)
  allGrounded(t, res.body)
  t.ok(
    res.body.transactions.every((x: any) => x.amount >= 0),
    'amounts ≥ 0',
  )
})

t.test('a PDF given inline: text extracted locally and the file sent along', async (t) => {
  cap.reply(answer())
  const { res } = await cap.call({ file: pdf('statement') })
  t.equal(res.status, 200, res.text)
  t.same(withoutEvidence(withoutUsage(res.body)), expected)
  allGrounded(t, res.body)
  const prompt = cap.prompts.at(-1)
  t.match(prompt, /Payroll deposit - Acme Corp/, 'the extracted text reaches the model')
  t.match(prompt, /application\/pdf/, 'the PDF itself is sent')
})

t.test('balances that do not reconcile are reported, never fixed', async (t) => {
  const txs = statement.transactions.map((x) => ({ ...x, category: null as unknown }))
  txs[3]!.balance = 4230.23 // should be 4220.23
  cap.reply(answer({ closingBalance: 4400 }, txs))
  const { res } = await cap.call({ text: statement.toText() })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.closingBalance, 4400, 'the stated closing balance is kept')
  t.equal(res.body.transactions[3].balance, 4230.23, 'the stated running balance is kept')
  t.equal(res.body.transactions[3].confidence, 0.2, 'issue 29: the line the running balance contradicts is capped at 0.2')
  t.equal(res.body.grounding.closingBalance.confidence, 0.2, 'so is a closing balance that does not reconcile')
  t.same(
    res.body.warnings,
    [
      "balances: openingBalance 2450.00 + credits − debits gives 4331.38, the statement's closingBalance is 4400.00.",
      'transactions[3]: the running balance should be 4220.23 after this transaction, the statement shows 4230.23.',
      'transactions[4]: the running balance should be 4480.23 after this transaction, the statement shows 4470.23.',
    ],
    'each wrong line is named; the check resynchronises on the stated balance',
  )
  t.same(res.body.usage, { credits: PRICE, balanceRemaining: 100 - PRICE, livemode: true })
})

t.test('newest-first statements reconcile without warnings; a card statement says its directions were reversed', async (t) => {
  const c = await cap.customer()
  cap.reply(answer({}, statement.transactions.map((x) => ({ ...x, category: null })).reverse()))
  let res = await cap.post(c, { text: statement.toText() })
  t.equal(res.status, 200, res.text)
  t.same(res.body.warnings, [], 'newest first')
  t.equal(res.body.transactions[0].description, 'Card purchase - Books & Co', 'the document order is kept')

  // A card statement: the balance is what is owed, purchases raise it and payments lower it.
  cap.reply(
    answer({ institution: 'Harbor Card Services', openingBalance: 500, closingBalance: 420.5 }, [
      { date: '2024-04-03', description: 'Coffee Roasters', amount: 120.5, direction: 'debit', category: 'meals', balance: 620.5 },
      { date: '2024-04-20', description: 'Payment - thank you', amount: 200, direction: 'credit', category: null, balance: 420.5 },
    ]),
  )
  res = await cap.post(c, { text: 'card statement' })
  t.same(res.body.warnings, [REVERSED], 'card statement: reconciles, but only with the directions reversed, and says so')
  t.equal(res.body.transactions[0].category, 'meals')
})

const REVERSED =
  'The balances reconcile only when debits raise the balance and credits lower it, the reverse of the directions read: either a card statement whose balance is what is owed, or every debit and credit swapped. Check the directions.'

t.test('issue 16: every debit and credit swapped does not reconcile silently', async (t) => {
  // Before: the "owed" reading (debits raise the balance) had no problems, so it was chosen with no warning.
  const flipped = statement.transactions.map((x) => ({ ...x, direction: x.direction === 'debit' ? 'credit' : 'debit', category: null }))
  cap.reply(answer({}, flipped))
  const { res } = await cap.call({ text: statement.toText() })
  t.equal(res.status, 200, res.text)
  t.same(res.body.warnings, [REVERSED])
  t.same(
    res.body.transactions.map((x: any) => x.direction),
    flipped.map((x) => x.direction),
    'the directions read are reported as read, never silently changed',
  )
})

t.test('issue 16: a negative amount without a direction is a debit with a warning', async (t) => {
  const txs: RawTx[] = statement.transactions.map((x) => ({ ...x, category: null }))
  txs[0] = { ...txs[0]!, amount: -statement.transactions[0]!.amount, direction: null, balance: null }
  cap.reply(answer({}, txs))
  const { res } = await cap.call({ text: statement.toText() })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.transactions[0].direction, 'debit')
  t.same(res.body.warnings, ['transactions[0]: direction not given; taken as debit from the negative amount.'])
})

t.test('directions: synonyms, signs, the running balance, or left out', async (t) => {
  const txs: RawTx[] = statement.transactions.map((x) => ({ ...x, category: null }))
  txs[0]!.direction = 'Withdrawal'
  txs[1]!.direction = 'deposit'
  txs[2]!.direction = null // the running balance says debit
  txs[3] = { ...txs[3]!, direction: 'credit', amount: -94.1 } // contradictory: kept as a credit, said so
  txs[4]!.direction = 'sideways' // the running balance says credit
  txs.push({ date: '2024-04-29', description: 'Memo: statement fee waived', amount: 0, direction: 'n/a', category: null, balance: null })
  cap.reply(answer({}, txs))
  const { res } = await cap.call({ text: statement.toText() })
  t.equal(res.status, 200, res.text)
  t.same(
    res.body.transactions.map((x: any) => x.direction),
    ['debit', 'credit', 'debit', 'credit', 'credit', 'debit'],
  )
  t.equal(res.body.transactionCount, 6, 'counted from the array, after the line left out')
  t.same(res.body.warnings, [
    'transactions[2]: direction not given; taken as debit from the running balance.',
    'transactions[3]: a negative amount marked as a credit; kept as a credit.',
    'transactions[4]: direction "sideways"; taken as credit from the running balance.',
    'A transaction ("Memo: statement fee waived") whose direction (not given) is neither debit nor credit was left out.',
    "balances: openingBalance 2450.00 + credits − debits gives 4519.58, the statement's closingBalance is 4331.38.",
    'transactions[3]: the running balance should be 4408.43 after this transaction, the statement shows 4220.23.',
  ])
})

t.test('transactionCount always equals the array; lines without amount or description are left out', async (t) => {
  const c = await cap.customer()
  const txs: RawTx[] = statement.transactions.slice(0, 2).map((x) => ({ ...x, category: null }))
  txs.push({ date: '2024-04-03', description: 'Pending hold', amount: 'pending', direction: 'debit', category: null, balance: null })
  txs.push({ date: '2024-04-04', description: '', amount: 10, direction: 'debit', category: null, balance: null })
  cap.reply(answer({ closingBalance: 4400.75 }, txs))
  const res = await cap.post(c, { text: statement.toText() })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.transactionCount, 2)
  t.equal(res.body.transactions.length, 2)
  t.same(res.body.warnings, [
    'A transaction ("Pending hold") with "pending", not an amount was left out.',
    'A transaction without a description (amount 10) was left out.',
  ])

  cap.reply(answer({ openingBalance: null, closingBalance: null }, []))
  const empty = await cap.post(c, { text: 'No activity this period.' })
  t.equal(empty.status, 200, empty.text)
  t.same([empty.body.transactions, empty.body.transactionCount, empty.body.warnings], [[], 0, []])
})

t.test('account numbers are masked to the last 4 digits; dates outside the period are reported', async (t) => {
  const c = await cap.customer()
  const txs: RawTx[] = statement.transactions.map((x) => ({ ...x, category: null }))
  txs[5]!.date = '2024-05-02'
  cap.reply(answer({ accountNumberMasked: '1234-5678-0012-6621', periodStart: '2024-04-31' }, txs))
  let res = await cap.post(c, { text: statement.toText() })
  t.equal(res.body.accountNumberMasked, '****-****-****-6621')
  t.notOk('periodStart' in res.body)
  t.same(res.body.warnings, ['periodStart: "2024-04-31" is not a valid date; omitted.'])

  cap.reply(answer({ accountNumberMasked: 'CHK 000123456621' }, txs))
  res = await cap.post(c, { text: statement.toText() })
  t.equal(res.body.accountNumberMasked, 'CHK ********6621')
  t.same(res.body.warnings, ['transactions[5]: dated 2024-05-02, outside the statement period.'])
})

capabilitySuite(t, cap, {
  badInput: [
    ['no document', {}],
    ['three documents', { text: 'x', fileUrl: 'https://example.com/s.pdf', file: pdf('statement') }],
    ['unknown field', { text: 'x', transactionCount: 3 }],
    ['file.data not a string', { file: { data: 12, mimeType: 'application/pdf' } }],
    ['mimeType too long', { file: { data: 'JVBERi0=', mimeType: 'x'.repeat(200) } }],
    ['callbackUrl not a URI', { text: 'x', async: true, callbackUrl: 'not a url' }],
  ],
})

t.test('a model answer that breaks the schema twice: 502 inference_failed, free', async (t) => {
  cap.reply({ ...answer(), transactions: [{ date: '2024-04-02', description: 'Rent' }] })
  await cap.expectRefused(t, { text: statement.toText() }, { status: 502, code: 'inference_failed', why: 'transactions without amounts' })
})

t.test('through the fake OpenAI-compatible server: sync, then async with the same result', async (t) => {
  const fake = await cap.useFake({ text: () => answer() })
  const call = await cap.call({ file: pdf('statement') })
  cap.expectCharged(t, call)
  const { res: sync, customer: c } = call
  t.same(withoutEvidence(withoutUsage(sync.body)), expected)
  allGrounded(t, sync.body)
  const schema = fake.requests.find((r) => r.path === '/v1/responses')?.body?.text?.format?.schema
  t.ok(schema?.properties?.transactions, 'structured output requested')
  t.notOk('transactionCount' in (schema?.properties ?? {}), 'the model is never asked for the count')

  const accepted = await cap.post(c, { file: pdf('statement'), async: true })
  t.equal(accepted.status, 202, accepted.text)
  const job = await cap.job(c, accepted.body.jobId)
  t.equal(job.status, 'succeeded', JSON.stringify(job.error))
  t.same(withoutUsage(job.result), withoutUsage(sync.body))
  t.same(job.result.usage, { credits: PRICE, balanceRemaining: 100 - 2 * PRICE, livemode: true })
})
