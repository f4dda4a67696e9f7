import {
  ApiError,
  MAmount,
  MText,
  NonBlank,
  Reader,
  compact,
  money,
  sumWarning,
  textOf,
  times,
  toAmount,
  type CapabilityContext,
} from '../../core/capability.ts'
import { Type, type Static } from '@sinclair/typebox'
import type { Input, Output } from './schema.ts'

type Invoice = Output
type Line = Invoice['lineItems'][number]

/** What the model is asked for: the response fields as printed; code normalises and checks them. */
const InvoiceAnswer = Type.Object(
  {
    vendor: Type.Object({ name: NonBlank({ maxLength: 500 }), address: MText, taxId: MText }, { additionalProperties: false }),
    customer: MText,
    invoiceNumber: MText,
    poNumber: MText,
    issueDate: MText,
    dueDate: MText,
    currency: MText,
    subtotal: MAmount,
    tax: MAmount,
    total: MAmount,
    paymentTerms: MText,
    lineItems: Type.Array(
      Type.Object({ description: MText, quantity: MAmount, unitPrice: MAmount, amount: MAmount }, { additionalProperties: false }),
    ),
  },
  { additionalProperties: false },
)
type Answer = Static<typeof InvoiceAnswer>

const SYSTEM = [
  'You extract data from one invoice. Answer with a JSON object with exactly these fields:',
  'vendor {name, address, taxId}: the seller issuing the invoice; taxId is its VAT, GST or tax number.',
  'customer: the billed party, name and address on one line.',
  'invoiceNumber, poNumber (purchase order reference), issueDate, dueDate, currency, subtotal, tax, total, paymentTerms (e.g. "Net 30").',
  'lineItems: one entry per billed line in document order, each {description, quantity, unitPrice, amount};',
  'do not include subtotal, tax, shipping summary or total lines as line items.',
  'Rules: copy values as the document states them; never compute, correct or guess a value.',
  'Use null for anything the document does not state. Dates as YYYY-MM-DD. Amounts as plain numbers',
  '(no currency symbol, no thousands separators; negative for credits and discounts). tax is the tax amount, not the rate.',
  'currency is the ISO 4217 code (USD, EUR, GBP, ...).',
].join('\n')

export async function handler(input: Input, ctx: CapabilityContext): Promise<Invoice> {
  const doc = await ctx.documents.resolve(input)
  const answer = await ctx.ai.object<Answer>({
    system: SYSTEM,
    content: ctx.documents.parts(doc),
    schema: InvoiceAnswer,
    // A placeholder ("n/a", "unknown") is no vendor; the schema cannot say so, so it goes back in the corrective retry.
    check: (a: Answer) => (textOf(a.vendor?.name) ? [] : ["/vendor/name: the seller's name as printed, not a placeholder"]),
  })
  return buildInvoice(answer)
}

/** The code-side guarantees: normalised values, line arithmetic and totals checked and reported. */
function buildInvoice(a: Answer): Invoice {
  const r = new Reader()
  const name = r.text(a.vendor?.name, 500)
  // The vendor is the one required fact of an invoice; without it the answer is no extraction at all.
  if (!name) throw new ApiError('inference_failed', 'The model did not identify the vendor of the invoice.')

  const lineItems: Line[] = []
  for (const l of a.lineItems ?? []) {
    const description = r.text(l.description, 1000)
    const stated = toAmount(l.amount)
    const [q, u] = [toAmount(l.quantity), toAmount(l.unitPrice)]
    // Left out: reported by what the line says (it has no index in the result).
    if (!description) {
      r.warn(`A line item without a description${stated !== null ? ` (amount ${money(stated)})` : ''} was left out.`)
      continue
    }
    if (stated === null && (q === null || u === null)) {
      r.warn(`A line item ("${description}") without an amount was left out.`)
      continue
    }
    const at = `lineItems[${lineItems.length}]`
    const quantity = r.amount(l.quantity, `${at}.quantity`)
    const unitPrice = r.amount(l.unitPrice, `${at}.unitPrice`)
    let amount = r.amount(l.amount, `${at}.amount`)
    if (amount === undefined) {
      amount = times(q!, u!)
      r.warn(`${at}: no amount stated; computed as quantity × unitPrice = ${money(amount)}.`)
    } else if (quantity !== undefined && unitPrice !== undefined && Math.abs(times(quantity, unitPrice) - amount) > 0.01) {
      r.warn(`${at}: quantity × unitPrice is ${money(times(quantity, unitPrice))}, the amount stated is ${money(amount)}.`)
    }
    lineItems.push(compact({ description, quantity, unitPrice, amount }))
  }

  const subtotal = r.amount(a.subtotal, 'subtotal')
  const tax = r.amount(a.tax, 'tax')
  const total = r.amount(a.total, 'total')
  // A tax the document states but code cannot read makes every sum through it uncheckable: skip those.
  const taxKnown = tax !== undefined || textOf(a.tax) === null
  const amounts = lineItems.map((l) => l.amount)
  if (lineItems.length > 0) {
    if (subtotal !== undefined) r.warn(sumWarning('lineItems vs subtotal', amounts, subtotal))
    else if (total !== undefined && taxKnown) {
      r.warn(sumWarning(tax !== undefined ? 'lineItems + tax vs total' : 'lineItems vs total', [...amounts, tax ?? 0], total))
    }
  }
  if (subtotal !== undefined && total !== undefined && taxKnown) {
    r.warn(sumWarning(tax !== undefined ? 'subtotal + tax vs total' : 'subtotal vs total (no tax stated)', [subtotal, tax ?? 0], total))
  }

  const issueDate = r.date(a.issueDate, 'issueDate')
  const dueDate = r.date(a.dueDate, 'dueDate')
  if (issueDate && dueDate && dueDate < issueDate) r.warn(`dueDate ${dueDate} is before issueDate ${issueDate}.`)

  const result: Invoice = compact({
    vendor: compact({ name, address: r.text(a.vendor?.address), taxId: r.text(a.vendor?.taxId, 100) }),
    customer: r.text(a.customer),
    invoiceNumber: r.text(a.invoiceNumber, 200),
    poNumber: r.text(a.poNumber, 200),
    issueDate,
    dueDate,
    currency: r.currency(a.currency),
    subtotal,
    tax,
    total,
    paymentTerms: r.text(a.paymentTerms, 500),
    lineItems,
    warnings: r.warnings,
  })
  return result
}
