import {
  answerDocument,
  ApiError,
  type CapabilityContext,
  compact,
  contradicted,
  DocumentText,
  MAmount,
  money,
  MSupport,
  MSupports,
  MText,
  NonBlank,
  Reader,
  sumWarning,
  SUPPORT_RULES,
  textOf,
  times,
  toAmount,
} from '../../core/capability.ts'
import { Type, type Static } from '@sinclair/typebox'
import { GROUNDED, type Input, type Output } from './schema.ts'

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
      Type.Object(
        { description: MText, quantity: MAmount, unitPrice: MAmount, amount: MAmount, ...MSupport },
        { additionalProperties: false },
      ),
    ),
    support: MSupports(GROUNDED),
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
  'support: one entry for each field above that has a value (vendor.name, vendor.address, vendor.taxId, customer, invoiceNumber,',
  'poNumber, issueDate, dueDate, subtotal, tax, total, paymentTerms). Each line item carries its own quote, page and confidence.',
  SUPPORT_RULES,
].join('\n')

export async function handler(input: Input, ctx: CapabilityContext): Promise<Invoice> {
  const { answer, evidence } = await answerDocument<Answer>(ctx, input, {
    system: SYSTEM,
    schema: InvoiceAnswer,
    // A placeholder ("n/a", "unknown") is no vendor; the schema cannot say so, so it goes back in the corrective retry.
    check: (a: Answer) => (textOf(a.vendor?.name) ? [] : ["/vendor/name: the seller's name as printed, not a placeholder"]),
  })
  return buildInvoice(answer, evidence)
}

/** The code-side guarantees: normalised values, line arithmetic and totals checked and reported. */
function buildInvoice(a: Answer, text: DocumentText): Invoice {
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
    let grounding = text.ground([l.description, amount === undefined ? null : l.amount], l)
    if (amount === undefined) {
      amount = times(q!, u!)
      r.warn(`${at}: no amount stated; computed as quantity × unitPrice = ${money(amount)}.`)
    } else if (quantity !== undefined && unitPrice !== undefined && Math.abs(times(quantity, unitPrice) - amount) > 0.01) {
      r.warn(`${at}: quantity × unitPrice is ${money(times(quantity, unitPrice))}, the amount stated is ${money(amount)}.`)
      grounding = contradicted(grounding)
    }
    lineItems.push({ ...compact({ description, quantity, unitPrice, amount }), ...grounding })
  }

  const subtotal = r.amount(a.subtotal, 'subtotal')
  const tax = r.amount(a.tax, 'tax')
  const total = r.amount(a.total, 'total')
  // A tax the document states but code cannot read makes every sum through it uncheckable: skip those.
  const taxKnown = tax !== undefined || textOf(a.tax) === null
  const amounts = lineItems.map((l) => l.amount)
  // A sum that does not add up contradicts the stated figure it is checked against.
  const wrong = new Set<'subtotal' | 'total'>()
  const check = (what: 'subtotal' | 'total', warning: string | null) => {
    if (warning) wrong.add(what)
    r.warn(warning)
  }
  if (lineItems.length > 0) {
    if (subtotal !== undefined) check('subtotal', sumWarning('lineItems vs subtotal', amounts, subtotal))
    else if (total !== undefined && taxKnown) {
      check('total', sumWarning(tax !== undefined ? 'lineItems + tax vs total' : 'lineItems vs total', [...amounts, tax ?? 0], total))
    }
  }
  if (subtotal !== undefined && total !== undefined && taxKnown) {
    check(
      'total',
      sumWarning(tax !== undefined ? 'subtotal + tax vs total' : 'subtotal vs total (no tax stated)', [subtotal, tax ?? 0], total),
    )
  }

  const issueDate = r.date(a.issueDate, 'issueDate')
  const dueDate = r.date(a.dueDate, 'dueDate')
  if (issueDate && dueDate && dueDate < issueDate) r.warn(`dueDate ${dueDate} is before issueDate ${issueDate}.`)

  const vendor = compact({ name, address: r.text(a.vendor?.address), taxId: r.text(a.vendor?.taxId, 100) })
  const fields = {
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
  }
  const grounding = text.fields(
    {
      'vendor.name': a.vendor?.name,
      'vendor.address': a.vendor?.address,
      'vendor.taxId': a.vendor?.taxId,
      customer: a.customer,
      invoiceNumber: a.invoiceNumber,
      poNumber: a.poNumber,
      issueDate: a.issueDate,
      dueDate: a.dueDate,
      subtotal: a.subtotal,
      tax: a.tax,
      total: a.total,
      paymentTerms: a.paymentTerms,
    },
    a.support,
    { vendor, ...fields },
  )
  for (const what of wrong) if (grounding[what]) grounding[what] = contradicted(grounding[what])
  return compact({ vendor, ...fields, lineItems, grounding, warnings: r.warnings })
}
