import t from 'tap'
import { statement } from '../../devkit/fixtures/documents.ts'
import { capabilityHarness, pdfFile as pdf } from '../../test/helpers/capability.ts'
import { capabilitySuite } from '../../test/helpers/capability-suite.ts'
import manifest from './manifest.ts'

const statementTable = {
  title: null,
  page: null,
  headers: ['Date', 'Description', 'Debit', 'Credit', 'Balance'],
  rows: statement.transactions.map((x) => [
    x.date,
    x.description,
    x.direction === 'debit' ? x.amount.toFixed(2) : '',
    x.direction === 'credit' ? x.amount.toFixed(2) : '',
    x.balance.toFixed(2),
  ]),
}

// A worker runs the async calls.
const cap = await capabilityHarness(t, manifest, { worker: true, funds: 10 })
const lastPrompt = () => cap.prompts.at(-1) ?? ''

t.test('a PDF statement: one table, tableCount from the array, page known for a one-page document', async (t) => {
  cap.reply({ tables: [statementTable] })
  const call = await cap.call({ file: pdf('statement') })
  cap.expectCharged(t, call)
  const { res } = call
  t.equal(res.body.tableCount, 1)
  t.equal(res.body.pageCount, 1)
  t.same(res.body.tables[0], { headers: statementTable.headers, rows: statementTable.rows, page: 1 }, 'no title: left out')
  t.same(res.body.warnings, [])
  t.ok(lastPrompt().includes('--- page 1 ---'), 'the model saw the PDF text with page markers')
})

t.test('ragged rows become rectangular, with warnings; cells become strings; empty tables are left out', async (t) => {
  cap.reply({
    tables: [
      {
        title: '  Prices ',
        page: 1,
        headers: ['Item', 'Qty', 'Price'],
        rows: [
          ['Chair', 4, 249.5, 'extra note'], // one cell too many, not empty: kept under an unnamed header
          ['Desk', 2], // too short
          ['Paper', 6, null, ''], // trailing empty cell past the headers: dropped
        ],
      },
      { title: 'nothing', page: 1, headers: [], rows: [] },
      { title: null, page: 1, headers: [], rows: [['a', 'b'], ['c']] },
    ],
  })
  const { res } = await cap.call({ text: 'Item Qty Price\nChair 4 249.50 extra note\nDesk 2\nPaper 6' })
  t.equal(res.status, 200, res.text)
  const [a, b] = res.body.tables
  t.equal(res.body.tableCount, 2, 'counted from the returned tables, the empty one left out')
  t.equal(res.body.tables.length, 2)
  t.equal(a.title, 'Prices')
  t.same(a.headers, ['Item', 'Qty', 'Price', ''])
  t.same(a.rows, [
    ['Chair', '4', '249.5', 'extra note'],
    ['Desk', '2', '', ''],
    ['Paper', '6', '', ''],
  ])
  t.same(b.headers, ['', ''])
  t.same(b.rows, [
    ['a', 'b'],
    ['c', ''],
  ])
  for (const tbl of res.body.tables) for (const row of tbl.rows) t.equal(row.length, tbl.headers.length, 'row width = headers.length')
  const w = res.body.warnings.join('\n')
  t.match(w, /tables\[0\]: 1 row\(s\) \(rows 0\) had more cells than the 3 headers; 1 unnamed/)
  t.match(w, /tables\[0\]: 2 row\(s\) \(rows 1, 2\) had fewer cells/)
  t.match(w, /tables\[1\]: the model returned a table without headers or cells/)
  t.match(w, /tables\[2\]: the model gave no headers/)
})

t.test('pages: within the document, from PDF pages or form feeds', async (t) => {
  cap.reply({
    tables: [
      { title: 'a', page: 2, headers: ['x'], rows: [['1']] },
      { title: 'b', page: 5, headers: ['x'], rows: [['1']] },
      { title: 'c', page: 0, headers: ['x'], rows: [['1']] },
    ],
  })
  const c = await cap.customer(20)
  const res = await cap.post(c, { file: pdf('bundle') })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.pageCount, 3)
  t.same(
    res.body.tables.map((x: { page?: number }) => x.page),
    [2, undefined, undefined],
  )
  t.match(res.body.warnings.join('\n'), /tables\[1\]: page 5 is outside the document's 3 page\(s\)/)

  const text = await cap.post(c, { text: 'cover page\fA | B\n1 | 2\f' })
  t.equal(text.status, 200, text.text)
  t.equal(text.body.pageCount, 2, 'a trailing form feed adds no page')
  t.same(
    text.body.tables.map((x: { page?: number }) => x.page),
    [2, undefined, undefined],
  )
  t.ok(lastPrompt().includes('--- page 2 ---'), 'text pages are marked for the model')
})

t.test('a scanned PDF without text layer goes to the model as a file', async (t) => {
  cap.reply({ tables: [] })
  const { res } = await cap.call({ file: pdf('image-only') })
  t.equal(res.status, 200, res.text)
  t.same(res.body, { tables: [], tableCount: 0, pageCount: 1, warnings: [], usage: { credits: 8, balanceRemaining: 2, livemode: true } })
  t.ok(lastPrompt().includes('application/pdf'), 'the PDF file part was sent')
  t.notOk(lastPrompt().includes('--- page'), 'no (empty) text layer was sent')
})

capabilitySuite(t, cap, {
  badBodies: [
    {},
    { text: 'a', file: { data: 'YQ==', mimeType: 'text/plain' } },
    { text: 1 },
    { text: 'x', pages: [1] },
    { file: { data: 'YQ==', mimeType: 'x'.repeat(200) } },
  ],
})

t.test('an unsupported file type is 422 unprocessable and free', async (t) => {
  const zip = { data: Buffer.from('hello').toString('base64'), mimeType: 'application/zip' }
  await cap.expectRefused(t, { file: zip }, { status: 422, code: 'unprocessable', why: 'an unsupported file type is unprocessable' })
})

t.test('async: 202, then the job result has the sync shape with usage', async (t) => {
  cap.reply({ tables: [statementTable] })
  const { res, customer } = await cap.call({ file: pdf('statement'), async: true }, { funds: 20 })
  t.equal(res.status, 202, res.text)
  const job = await cap.job(customer, res.body.jobId)
  t.equal(job.status, 'succeeded', JSON.stringify(job.error))
  t.equal(job.result.tableCount, 1)
  t.equal(job.result.tables[0].rows.length, 6)
  t.same(job.result.usage, { credits: 8, balanceRemaining: 12, livemode: true })
})

t.test('through the fake OpenAI-compatible server (chat wire API)', async (t) => {
  const fake = await cap.useFake({ wire: 'chat', text: () => ({ tables: [{ ...statementTable, page: 1 }] }) })
  const call = await cap.call({ file: pdf('statement') })
  cap.expectCharged(t, call)
  t.match(call.res.body, { tableCount: 1, pageCount: 1, tables: [{ page: 1, headers: statementTable.headers }] })
  t.equal(fake.requests[0]?.path, '/v1/chat/completions')
  t.ok(JSON.stringify(fake.requests[0]?.body).includes('Payroll deposit'), 'the PDF text went to the model')
})
