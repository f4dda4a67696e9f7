import { readFileSync } from 'node:fs'
import t from 'tap'
import { extractPdfText } from '../../core/documents/pdf.ts'
import * as fx from '../../devkit/fixtures/documents.ts'

const pdf = (name: string) => new Uint8Array(readFileSync(new URL(`../../devkit/fixtures/pdf/${name}.pdf`, import.meta.url)))
// pdf.js drops blank lines and the renderer wraps long lines: compare with whitespace collapsed.
const norm = (s: string) => s.replace(/\s+/g, ' ').trim()
const cents = (n: number) => Math.round(n * 100)
const sum = (xs: number[]) => xs.reduce((a, x) => a + cents(x), 0)

t.test('every fixture PDF has the known pages and page text', async (t) => {
  for (const d of fx.allDocuments) {
    const { pages } = await extractPdfText(pdf(d.file))
    const want = d.toPages()
    t.equal(pages.length, want.length, `${d.file}: page count`)
    want.forEach((p, i) => t.equal(norm(pages[i] ?? ''), norm(p), `${d.file}: page ${i + 1}`))
  }
})

t.test('bundle: invoice on pages 1-2, letter on page 3', async (t) => {
  const { pages } = await extractPdfText(pdf('bundle'))
  t.equal(pages.length, fx.bundle.pageCount)
  t.match(pages[0], fx.bundle.invoice.invoiceNumber)
  t.match(pages[1], `Total due: ${fx.bundle.invoice.total.toFixed(2)}`)
  t.match(pages[2], fx.bundle.letter.subject)
  t.match(norm(pages[2]!), norm(fx.bundle.letter.body.join(' ')))
  t.notMatch(pages[2], 'Invoice number')
  t.same(
    fx.bundle.documents.map((d) => [d.pageStart, d.pageEnd]),
    [
      [1, 2],
      [3, 3],
    ],
  )
})

t.test('contract versions differ in the three known clauses', async (t) => {
  const [a, b] = [(await extractPdfText(pdf('contract-v1'))).pages[0]!, (await extractPdfText(pdf('contract-v2'))).pages[0]!]
  t.match(a, 'within 30 days')
  t.match(b, 'within 60 days')
  t.match(a, '30 days written notice')
  t.match(b, '90 days written notice')
  t.notMatch(a, 'Limitation of Liability')
  t.match(b, '6A. Limitation of Liability')
  t.equal(fx.contractChanges.length, 3)
})

t.test('the image-only PDF has a page but no text layer', async (t) => {
  const { pages } = await extractPdfText(pdf(fx.imageOnlyPdfName))
  t.equal(pages.length, 1)
  t.equal(pages[0]!.trim(), '')
})

t.test('leaves the caller bytes intact (pdf.js detaches the buffer it is given)', async (t) => {
  const bytes = pdf('invoice-1')
  const len = bytes.byteLength
  await extractPdfText(bytes)
  t.equal(bytes.byteLength, len)
  t.equal(Buffer.from(bytes.subarray(0, 5)).toString(), '%PDF-')
})

t.test('unreadable PDFs are refused as document_unreadable', async (t) => {
  const unreadable = { code: 'document_unreadable', message: /could not be read/ }
  await t.rejects(extractPdfText(new TextEncoder().encode('%PDF-1.7\nthis is not a pdf')), unreadable)
  await t.rejects(extractPdfText(pdf('invoice-1').subarray(0, 300)), unreadable)
  await t.rejects(extractPdfText(new Uint8Array(0)), unreadable)
})

t.test('fixtures add up (line items, taxes, balances)', async (t) => {
  for (const inv of [fx.invoice1, fx.invoice2, fx.bundle.invoice]) {
    for (const l of inv.lineItems)
      t.equal(Math.round(l.quantity * cents(l.unitPrice)), cents(l.amount), `${inv.invoiceNumber}: ${l.description}`)
    t.equal(sum(inv.lineItems.map((l) => l.amount)), cents(inv.subtotal), `${inv.invoiceNumber}: subtotal`)
    t.equal(Math.round((cents(inv.subtotal) * inv.taxRate) / 100), cents(inv.tax), `${inv.invoiceNumber}: tax`)
    t.equal(cents(inv.subtotal) + cents(inv.tax), cents(inv.total), `${inv.invoiceNumber}: total`)
  }
  for (const r of [fx.receipt1, fx.receipt2]) {
    t.equal(sum(r.items.map((i) => i.amount)), cents(r.subtotal), `${r.merchant}: subtotal`)
    t.equal(sum([r.subtotal, r.tax, r.tip ?? 0]), cents(r.total), `${r.merchant}: total`)
  }
  const s = fx.statement
  let bal = cents(s.openingBalance)
  for (const tx of s.transactions) {
    bal += tx.direction === 'credit' ? cents(tx.amount) : -cents(tx.amount)
    t.equal(bal, cents(tx.balance), `statement: balance after ${tx.description}`)
  }
  t.equal(bal, cents(s.closingBalance), 'statement: closing balance')
})
