// Issue 29, acceptance and eval: each extracting capability's grounding case (its eval.ts) is answered three ways
// by the fake model: right (every value quoted from the line that states it), invented (every value and quote
// made up, confidence 0.99) and with every page claim wrong. Code's `grounded` is scored against the truth
// (grounded on the right page, not grounded), reported as precision and recall; an invented answer is still a
// charged 200 whose every value has evidence null, grounded false and confidence ≤ 0.5. Last, a value printed
// on page 7 of a 10-page PDF gets evidence.page 7 when the model claims page 2.
import t from 'tap'
import { PDFDocument, StandardFonts } from 'pdf-lib'
import type { CapabilityManifest } from '../core/capability.ts'
import type { GroundingCase } from '../devkit/eval-kit.ts'
import { fakeServerProvider, startTestApp } from './helpers/app.ts'
import { groundings } from '../devkit/evidence.ts'
import { callToEnd } from './helpers/examples.ts'
import { startFakeOpenAI } from '../devkit/fake-openai.ts'

const EXTRACTING = ['parse', 'extract', 'invoice', 'receipt', 'statement', 'resume', 'contract']
const cases = await Promise.all(
  EXTRACTING.map(async (name) => ({
    name,
    manifest: (await import(`../capabilities/${name}/manifest.ts`)).default as CapabilityManifest,
    grounding: ((await import(`../capabilities/${name}/eval.ts`)) as { groundingCase: GroundingCase }).groundingCase,
  })),
)

/** Values the schema fixes (enums, names of fields) stay; every other value and quote is made up. */
const KEEP = new Set([
  'field',
  'page',
  'docType',
  'direction',
  'severity',
  'category',
  'role',
  'current',
  'autoRenews',
  'contractType',
  'currency',
])
function invent(v: unknown, key = ''): unknown {
  if (key === 'confidence') return 0.99
  if (KEEP.has(key) || v === null || typeof v === 'boolean') return v
  if (typeof v === 'number') return Number.isInteger(v) ? v + 1000 : Math.round((v + 1000.13) * 100) / 100
  if (typeof v === 'string') return `Qzx ${v}`
  if (Array.isArray(v)) return v.map((x) => invent(x))
  if (typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, invent(x, k)]))
  return v
}
/** Every page claim off by one (page 1 claimed as 2). */
function misplace(v: unknown, key = ''): unknown {
  if (key === 'page' && typeof v === 'number') return v + 1
  if (Array.isArray(v)) return v.map((x) => misplace(x))
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, misplace(x, k)]))
  return v
}

let reply: unknown = null
const fake = await startFakeOpenAI({ text: () => reply })
t.teardown(() => fake.close())
const app = await startTestApp(t, {
  worker: true,
  provider: fakeServerProvider(fake.baseURL, 'responses'),
})

async function run(name: string, request: Record<string, unknown>, answer: unknown, price: number) {
  reply = answer
  const customer = await app.customer(price)
  const outcome = await callToEnd(app, name, customer.key, request)
  return { outcome, ledger: await app.ledger(customer.accountId) }
}

interface Score {
  truePositive: number
  falsePositive: number
  falseNegative: number
  trueNegative: number
}
const scores: Record<string, Score> = {}

for (const c of cases) {
  t.test(`${c.name}: grounded is right for right, invented and misplaced answers`, async (t) => {
    const score: Score = (scores[c.name] = { truePositive: 0, falsePositive: 0, falseNegative: 0, trueNegative: 0 })
    const price = c.manifest.price
    const right = await run(c.name, c.grounding.request, c.grounding.answer, price)
    t.equal(right.outcome.status, 200, right.outcome.message)
    const truth = groundings(right.outcome.body)
    t.ok(truth.length >= 3, `${truth.length} values with evidence`)
    for (const g of truth)
      if (g.grounded) score.truePositive++
      else score.falseNegative++

    const invented = await run(c.name, c.grounding.request, invent(c.grounding.answer), price)
    t.equal(invented.outcome.status, 200, `invented values: still served (${invented.outcome.message})`)
    t.same(invented.ledger, { balance: 0, reserved: 0, ledgerSum: 0 }, 'and charged')
    const made = groundings(invented.outcome.body)
    t.ok(made.length > 0, `${made.length} invented values`)
    for (const g of made) {
      if (g.grounded) score.falsePositive++
      else score.trueNegative++
      t.ok(!g.grounded && g.page === null && g.confidence <= 0.5, `${g.path}: no evidence, confidence ${g.confidence} ≤ 0.5`)
    }
    t.same(
      groundings(invented.outcome.body).filter((g) => g.grounded || g.confidence > 0.5),
      [],
    )

    const misplaced = await run(c.name, c.grounding.request, misplace(c.grounding.answer), price)
    t.equal(misplaced.outcome.status, 200, misplaced.outcome.message)
    const moved = groundings(misplaced.outcome.body)
    for (const g of moved) {
      const want = truth.find((x) => x.path === g.path)
      const right = g.grounded && want?.grounded === true && g.page === want.page
      if (right) score.truePositive++
      else if (g.grounded) score.falsePositive++
      else score.falseNegative++
    }
    t.same(
      moved.map((g) => [g.path, g.grounded, g.page]),
      truth.map((g) => [g.path, g.grounded, g.page]),
      "the page is where code found the quote, never the model's claim",
    )
  })
}

t.test('a value on page 7 of a 10-page PDF has evidence.page 7 when the model claims page 2', async (t) => {
  const pdf = await PDFDocument.create()
  const font = await pdf.embedFont(StandardFonts.Helvetica)
  for (let n = 1; n <= 10; n++) {
    const page = pdf.addPage([612, 792])
    const lines = n === 7 ? ['Remittance page', 'Invoice number: INV-7777', 'Total due: 1.234,50 EUR'] : [`Terms and conditions, page ${n}`]
    lines.forEach((line, i) => page.drawText(line, { x: 56, y: 700 - 14 * i, size: 10, font }))
  }
  const file = { data: Buffer.from(await pdf.save()).toString('base64'), mimeType: 'application/pdf' }
  const parse = cases.find((c) => c.name === 'parse')!
  const { outcome } = await run(
    'parse',
    { file },
    {
      docType: 'invoice',
      party: null,
      documentNumber: 'INV-7777',
      date: null,
      totalAmount: 1234.5,
      currency: 'EUR',
      lineItems: [],
      fields: [{ label: 'Total due', value: '1234.50', quote: 'Total due: 1.234,50 EUR', page: 2, confidence: 0.9 }],
      support: [
        { field: 'documentNumber', quote: 'Invoice number: INV-7777', page: 2, confidence: 0.9 },
        { field: 'totalAmount', quote: 'Total due: 1.234,50 EUR', page: 2, confidence: 0.9 },
      ],
    },
    parse.manifest.price,
  )
  t.equal(outcome.status, 200, outcome.message)
  t.same(outcome.body.grounding.documentNumber.evidence, { page: 7, quote: 'Invoice number: INV-7777' })
  t.same(outcome.body.grounding.totalAmount.evidence, { page: 7, quote: 'Total due: 1.234,50 EUR' }, '"1.234,50 €" supports 1234.5')
  t.same(outcome.body.fields[0].evidence?.page, 7)
})

t.teardown(() => {
  const rows = Object.entries(scores).map(([name, s]) => {
    const precision = s.truePositive / Math.max(1, s.truePositive + s.falsePositive)
    const recall = s.truePositive / Math.max(1, s.truePositive + s.falseNegative)
    return `| ${name} | ${s.truePositive} | ${s.falsePositive} | ${s.falseNegative} | ${s.trueNegative} | ${precision.toFixed(2)} | ${recall.toFixed(2)} |`
  })
  console.log(
    [
      '| capability | grounded right | grounded wrongly | missed | refused right | precision | recall |',
      '|---|---|---|---|---|---|---|',
      ...rows,
    ].join('\n'),
  )
})

t.test('precision and recall of grounded', async (t) => {
  for (const [name, s] of Object.entries(scores)) {
    t.equal(s.falsePositive, 0, `${name}: nothing invented or misplaced is grounded (precision 1)`)
    t.equal(s.falseNegative, 0, `${name}: every quoted value is grounded on its page (recall 1)`)
  }
})
