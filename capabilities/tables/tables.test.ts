import { readFileSync } from 'node:fs'
import t from 'tap'
import { fakeServerProvider, mockProvider, startTestApp, type TestApp } from '../../test/helpers/app.ts'
import { startFakeOpenAI } from '../../test/helpers/fake-openai.ts'
import { statement } from '../../test/fixtures/documents.ts'

const pdf = (name: string) => ({ data: readFileSync(new URL(`../../test/fixtures/pdf/${name}.pdf`, import.meta.url)).toString('base64'), mimeType: 'application/pdf' })

const statementTable = {
  title: null,
  page: null,
  headers: ['Date', 'Description', 'Debit', 'Credit', 'Balance'],
  rows: statement.transactions.map((x) => [x.date, x.description, x.direction === 'debit' ? x.amount.toFixed(2) : '', x.direction === 'credit' ? x.amount.toFixed(2) : '', x.balance.toFixed(2)]),
}

let reply: (prompt: string) => unknown = () => ({ tables: [statementTable] })
let lastPrompt = ''
const app = await startTestApp(t, {
  worker: true,
  provider: mockProvider((p) => {
    lastPrompt = p
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

t.test('a PDF statement: one table, tableCount from the array, page known for a one-page document', async (t) => {
  reply = () => ({ tables: [statementTable] })
  const c = await app.customer(10)
  const res = await app.call('/v1/tables', { key: c.key, body: { file: pdf('statement') } })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.tableCount, 1)
  t.equal(res.body.pageCount, 1)
  t.same(res.body.tables[0], { ...statementTable, page: 1 })
  t.same(res.body.warnings, [])
  t.same(res.body.usage, { credits: 8, balanceRemaining: 2 })
  t.ok(lastPrompt.includes('--- page 1 ---'), 'the model saw the PDF text with page markers')
})

t.test('ragged rows become rectangular, with warnings; cells become strings; empty tables are left out', async (t) => {
  reply = () => ({
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
  const c = await app.customer(10)
  const res = await app.call('/v1/tables', { key: c.key, body: { text: 'Item Qty Price\nChair 4 249.50 extra note\nDesk 2\nPaper 6' } })
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
  t.same(b.rows, [['a', 'b'], ['c', '']])
  for (const tbl of res.body.tables) for (const row of tbl.rows) t.equal(row.length, tbl.headers.length, 'row width = headers.length')
  const w = res.body.warnings.join('\n')
  t.match(w, /tables\[0\]: 1 row\(s\) \(rows 0\) had more cells than the 3 headers; 1 unnamed/)
  t.match(w, /tables\[0\]: 2 row\(s\) \(rows 1, 2\) had fewer cells/)
  t.match(w, /tables\[1\]: the model returned a table without headers or cells/)
  t.match(w, /tables\[2\]: the model gave no headers/)
})

t.test('pages: within the document, from PDF pages or form feeds', async (t) => {
  reply = () => ({
    tables: [
      { title: 'a', page: 2, headers: ['x'], rows: [['1']] },
      { title: 'b', page: 5, headers: ['x'], rows: [['1']] },
      { title: 'c', page: 0, headers: ['x'], rows: [['1']] },
    ],
  })
  const c = await app.customer(20)
  const res = await app.call('/v1/tables', { key: c.key, body: { file: pdf('bundle') } })
  t.equal(res.status, 200, res.text)
  t.equal(res.body.pageCount, 3)
  t.same(res.body.tables.map((x: { page: number | null }) => x.page), [2, null, null])
  t.match(res.body.warnings.join('\n'), /tables\[1\]: page 5 is outside the document's 3 page\(s\)/)

  const text = await app.call('/v1/tables', { key: c.key, body: { text: 'cover page\fA | B\n1 | 2\f' } })
  t.equal(text.status, 200, text.text)
  t.equal(text.body.pageCount, 2, 'a trailing form feed adds no page')
  t.same(text.body.tables.map((x: { page: number | null }) => x.page), [2, null, null])
  t.ok(lastPrompt.includes('--- page 2 ---'), 'text pages are marked for the model')
})

t.test('a scanned PDF without text layer goes to the model as a file', async (t) => {
  reply = () => ({ tables: [] })
  const c = await app.customer(10)
  const res = await app.call('/v1/tables', { key: c.key, body: { file: pdf('image-only') } })
  t.equal(res.status, 200, res.text)
  t.same(res.body, { tables: [], tableCount: 0, pageCount: 1, warnings: [], usage: { credits: 8, balanceRemaining: 2 } })
  t.ok(lastPrompt.includes('application/pdf'), 'the PDF file part was sent')
  t.notOk(lastPrompt.includes('--- page'), 'no (empty) text layer was sent')
})

t.test('bad input is 400 invalid_request and free', async (t) => {
  const c = await app.customer(10)
  for (const body of [{}, { text: 'a', file: { data: 'YQ==', mimeType: 'text/plain' } }, { text: 1 }, { text: 'x', pages: [1] }, { file: { data: 'YQ==', mimeType: 'x'.repeat(200) } }]) {
    const res = await app.call('/v1/tables', { key: c.key, body })
    t.equal(res.status, 400, JSON.stringify(body))
    t.equal(res.body?.error?.code, 'invalid_request')
  }
  const notPdf = await app.call('/v1/tables', { key: c.key, body: { file: { data: Buffer.from('hello').toString('base64'), mimeType: 'application/zip' } } })
  t.equal(notPdf.status, 422, 'an unsupported file type is unprocessable')
  t.match(await app.ledger(c.accountId), { balance: 10, reserved: 0 })
})

t.test('async: 202, then the job result has the sync shape with usage', async (t) => {
  reply = () => ({ tables: [statementTable] })
  const c = await app.customer(20)
  const res = await app.call('/v1/tables', { key: c.key, body: { file: pdf('statement'), async: true } })
  t.equal(res.status, 202, res.text)
  const job = await waitForJob(app, c.key, res.body.jobId)
  t.equal(job.status, 'succeeded', JSON.stringify(job.error))
  t.equal(job.result.tableCount, 1)
  t.equal(job.result.tables[0].rows.length, 6)
  t.same(job.result.usage, { credits: 8, balanceRemaining: 12 })
})

t.test('through the fake OpenAI-compatible server (chat wire API)', async (t) => {
  const fake = await startFakeOpenAI({ text: () => ({ tables: [{ ...statementTable, page: 1 }] }) })
  t.teardown(() => fake.close())
  const live = await startTestApp(t, { provider: fakeServerProvider(fake.baseURL, 'chat') })
  const c = await live.customer(10)
  const res = await live.call('/v1/tables', { key: c.key, body: { file: pdf('statement') } })
  t.equal(res.status, 200, res.text)
  t.match(res.body, { tableCount: 1, pageCount: 1, tables: [{ page: 1, headers: statementTable.headers }] })
  t.same(res.body.usage, { credits: 8, balanceRemaining: 2 })
  t.equal(fake.requests[0]?.path, '/v1/chat/completions')
  t.ok(JSON.stringify(fake.requests[0]?.body).includes('Payroll deposit'), 'the PDF text went to the model')
})
