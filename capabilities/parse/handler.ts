import { Type, type Static } from '@sinclair/typebox'
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
  normalizeDate,
  Reader,
  sumWarning,
  SUPPORT_RULES,
  textOf,
  toAmount,
} from '../../core/capability.ts'
import { GROUNDED, type Input, type Output } from './schema.ts'

type Parsed = Output
type Field = Parsed['fields'][number]

/** What the model is asked for: the response fields as printed; code normalises them. */
const ParseAnswer = Type.Object(
  {
    docType: MText,
    party: MText,
    documentNumber: MText,
    date: MText,
    totalAmount: MAmount,
    currency: MText,
    support: MSupports(GROUNDED),
    lineItems: Type.Array(Type.Object({ description: MText, amount: MAmount, ...MSupport }, { additionalProperties: false })),
    fields: Type.Array(
      Type.Object(
        {
          label: MText,
          value: Type.Union([Type.String(), Type.Number(), Type.Null()]),
          ...MSupport,
          confidence: Type.Union([
            Type.Number({ minimum: 0, maximum: 100 }),
            Type.String({ pattern: '^\\s*(100(\\.0+)?|\\d{1,2}(\\.\\d+)?)\\s*%?\\s*$' }),
          ]),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
)
type Answer = Static<typeof ParseAnswer>

const DOC_TYPES =
  'invoice, receipt, eob (explanation of benefits), era (electronic remittance advice), coi (certificate of insurance), bank_statement, purchase_order, contract, letter, other'

function system(hint: string | null): string {
  return [
    'You parse one business document into structured data. Answer with a JSON object with exactly these fields:',
    `docType: the kind of document in lower_snake_case, preferably one of: ${DOC_TYPES}.`,
    hint ? `The caller expects ${JSON.stringify(hint)}: a hint only, classify by the content.` : '',
    'party: the primary party (the vendor or merchant for invoices and receipts, the payer for EOBs and ERAs, the carrier',
    "or insurer for COIs). documentNumber: the document's own number (invoice, claim, policy or certificate number).",
    'date: the primary date (issue, service or statement date). totalAmount: the total the document states. currency: its ISO 4217 code.',
    'lineItems: the itemised lines with an amount, each {description, amount}; [] if there are none.',
    'fields: every other labelled value that matters for processing the document (dates, parties, identifiers, amounts,',
    'terms), each {label as printed, value, confidence from 0 to 1 that the value is read correctly}.',
    'Rules: copy values as the document states them; never compute or guess. Use null for anything not stated.',
    'Dates as YYYY-MM-DD. Amounts as plain numbers (no currency symbol, no thousands separators).',
    'support: one entry for each of party, documentNumber, date and totalAmount that has a value. Line items and fields carry their own quote, page and confidence.',
    SUPPORT_RULES,
  ]
    .filter(Boolean)
    .join('\n')
}

export async function handler(input: Input, ctx: CapabilityContext): Promise<Parsed> {
  const hint = textOf(input.docType, 64)
  const { answer, evidence } = await answerDocument<Answer>(ctx, input, { system: system(hint), schema: ParseAnswer })
  return buildParse(answer, hint, evidence)
}

const ALIASES: Record<string, string> = {
  explanation_of_benefits: 'eob',
  electronic_remittance_advice: 'era',
  remittance_advice: 'era',
  certificate_of_insurance: 'coi',
  statement: 'bank_statement',
  account_statement: 'bank_statement',
  card_statement: 'bank_statement',
  po: 'purchase_order',
}

function docTypeOf(value: unknown): string | null {
  const s = textOf(value)
    ?.toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, 64)
  if (!s) return null
  return ALIASES[s] ?? s
}

/** 0..1 as is, 1..100 (or "87%") read as a percentage; anything else is null. */
function confidenceOf(value: unknown): number | null {
  const percent = typeof value === 'string' && value.trim().endsWith('%')
  const n = toAmount(percent ? value.replace('%', '') : value)
  if (n === null || n < 0 || n > 100) return null
  return percent || n > 1 ? Math.round(n * 100) / 10000 : n
}

// A field's value is turned into a date or an amount only when its label says so and the whole value reads
// as one: "Payment terms: Net 30" stays a string, "Tax: $187.80" becomes 187.8.
const DATE_LABEL = /\b(date|dob|birth|issued|expir\w*|effective|due|dated|through|until|valid)\b/i
const AMOUNT_LABEL =
  /\b(amount|total|subtotal|sub_total|tax|vat|gst|balance|price|fee|fees|charge|charges|paid|payment|due|cost|premium|deductible|copay|coinsurance|allowed|billed|limit|discount|tip|net|gross|owed|responsibility)\b/i
const MONEY = /^\(?\s*[-−]?\s*(?:[A-Z]{3}\s*|[A-Z]{0,2}\$\s*|[€£¥₹]\s*)?[-−]?\d[\d.,'\s]*\s*(?:[A-Z]{3}|[€£¥₹])?\s*\)?-?$/

function fieldValue(label: string, value: unknown): string | number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null
  const s = textOf(value)
  if (s === null) return null
  if (DATE_LABEL.test(label)) {
    const d = normalizeDate(s)
    if (d) return d
  }
  if (AMOUNT_LABEL.test(label) && MONEY.test(s)) {
    const n = toAmount(s)
    if (n !== null) return n
  }
  return s
}

// The sum check (README.md): the items against a stated subtotal, else against the total with the stated
// amounts that sit between items and total (tax, shipping, tip … added; discounts taken off). Documents whose
// lines are not parts of the total stated (an EOB's billed lines vs the patient's share, a statement's
// transactions vs its balance) are not checked.
const NOT_SUMMED = new Set(['eob', 'era', 'bank_statement', 'contract', 'letter'])
const SUBTOTAL = /\bsub[\s_-]?total\b/i
const ADDED = /\b(tax|vat|gst|hst|pst|sales tax|shipping|delivery|freight|handling|tip|gratuity|service charge|surcharge)\b/i
const TAKEN_OFF = /\b(discount|rebate|coupon|promo\w*)\b/i

/** The warning, and the field the sum contradicts (the stated subtotal, else null: the total). */
function sumCheck(
  docType: string,
  lineItems: Array<{ amount: number }>,
  fields: Field[],
  total: number | undefined,
): { warning: string; subtotal: Field | null } | null {
  if (NOT_SUMMED.has(docType) || lineItems.length === 0) return null
  const amounts = lineItems.map((l) => l.amount)
  const numeric = fields.filter((f): f is Field & { value: number } => typeof f.value === 'number')
  const subtotal = numeric.find((f) => SUBTOTAL.test(f.label))
  if (subtotal) {
    const warning = sumWarning('lineItems vs subtotal', amounts, subtotal.value)
    return warning ? { warning, subtotal } : null
  }
  const extras = numeric.flatMap((f) => (ADDED.test(f.label) ? [f.value] : TAKEN_OFF.test(f.label) ? [-Math.abs(f.value)] : []))
  const warning = sumWarning(
    extras.length ? 'lineItems with the stated tax, charges and discounts vs totalAmount' : 'lineItems vs totalAmount',
    [...amounts, ...extras],
    total,
  )
  return warning ? { warning, subtotal: null } : null
}

/** The code-side guarantees: a docType, normalised dates and amounts, evidence and confidences, sums checked. */
function buildParse(a: Answer, hint: string | null, text: DocumentText): Parsed {
  const r = new Reader()
  const docType = docTypeOf(a.docType) ?? docTypeOf(hint)
  if (!docType) throw new ApiError('inference_failed', 'The model did not classify the document.')

  const lineItems: NonNullable<Parsed['lineItems']> = []
  for (const l of a.lineItems ?? []) {
    const description = r.text(l.description, 1000)
    const amount = toAmount(l.amount)
    if (!description || amount === null) {
      const stated = textOf(l.amount)
      r.warn(
        description
          ? `A line item ("${description}") ${stated ? `with ${JSON.stringify(stated)}, not an amount,` : 'without an amount'} was left out.`
          : `A line item without a description${amount !== null ? ` (amount ${money(amount)})` : ''} was left out.`,
      )
      continue
    }
    lineItems.push({ description, amount, ...text.ground([l.description, l.amount], l) })
  }

  const fields: Field[] = []
  for (const f of a.fields ?? []) {
    const label = r.text(f.label, 200)
    if (!label) {
      if (textOf(f.value) !== null) r.warn(`A field without a label (value ${JSON.stringify(f.value)}) was left out.`)
      continue
    }
    const confidence = confidenceOf(f.confidence)
    // Confidence is the one number a caller acts on blindly; a value outside 0..1 (or 0..100 %) is no answer.
    if (confidence === null)
      throw new ApiError('inference_failed', `The model gave field "${label}" a confidence that is not between 0 and 1.`)
    const value = fieldValue(label, f.value)
    // A null value states that the document has none: nothing to quote, the model's figure capped as unsupported.
    if (!fields.some((x) => x.label === label && x.value === value))
      fields.push({ label, value, ...text.ground([f.value], { ...f, confidence }) })
  }

  const party = r.text(a.party, 500)
  const documentNumber = r.text(a.documentNumber, 200)
  const date = r.date(a.date, 'date')
  const totalAmount = r.amount(a.totalAmount, 'totalAmount')
  // A line left out (already reported) would make every sum wrong: no second warning for it.
  const sums = lineItems.length === (a.lineItems ?? []).length ? sumCheck(docType, lineItems, fields, totalAmount) : null
  r.warn(sums?.warning)
  const values = { party: a.party, documentNumber: a.documentNumber, date: a.date, totalAmount: a.totalAmount }
  const grounding = text.fields(values, a.support, { party, documentNumber, date, totalAmount })
  if (sums?.subtotal) Object.assign(sums.subtotal, contradicted(sums.subtotal))
  else if (sums && grounding.totalAmount) grounding.totalAmount = contradicted(grounding.totalAmount)
  return compact({
    docType,
    party,
    documentNumber,
    date,
    totalAmount,
    currency: r.currency(a.currency),
    lineItems,
    fields,
    grounding,
    warnings: r.warnings,
  })
}
