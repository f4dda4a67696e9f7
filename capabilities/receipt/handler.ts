import {
  answerDocument,
  ApiError,
  type CapabilityContext,
  compact,
  contradicted,
  DocumentText,
  MAmount,
  maskCardNumbers,
  money,
  MSupport,
  MSupports,
  MText,
  NonBlank,
  Reader,
  sumWarning,
  SUPPORT_RULES,
  textOf,
  toAmount,
} from '../../core/capability.ts'
import { Type, type Static } from '@sinclair/typebox'
import { CATEGORIES } from './categories.ts'
import { GROUNDED, type Input, type Output } from './schema.ts'

type Receipt = Output
type Category = (typeof CATEGORIES)[number]

/** What the model is asked for: the response fields as printed; code normalises and checks them. */
const ReceiptAnswer = Type.Object(
  {
    merchant: NonBlank({ maxLength: 500 }),
    location: MText,
    date: MText,
    time: MText,
    currency: MText,
    subtotal: MAmount,
    tax: MAmount,
    tip: MAmount,
    total: MAmount,
    paymentMethod: MText,
    category: MText,
    items: Type.Array(
      Type.Object({ description: MText, quantity: MAmount, amount: MAmount, ...MSupport }, { additionalProperties: false }),
    ),
    support: MSupports(GROUNDED),
  },
  { additionalProperties: false },
)
type Answer = Static<typeof ReceiptAnswer>

const SYSTEM = [
  'You extract data from one purchase receipt. Answer with a JSON object with exactly these fields:',
  'merchant (the business name), location (its address or city), date, time, currency, subtotal, tax, tip, total,',
  'paymentMethod (e.g. "VISA ending 4242", "Cash"; never a full card number), category, items.',
  `category is the expense category, exactly one of: ${CATEGORIES.join(', ')}.`,
  'items: one entry per purchased line in receipt order, each {description, quantity, amount} where amount is the line total;',
  'do not include subtotal, tax, tip or total lines as items.',
  'Rules: copy values as the receipt states them; never compute, correct or guess a value. Use null for anything the',
  'receipt does not state. Dates as YYYY-MM-DD, time as HH:MM (24-hour). Amounts as plain numbers (no currency symbol,',
  'no thousands separators; negative for discounts). currency is the ISO 4217 code (USD, EUR, GBP, ...).',
  `support: one entry for each of ${GROUNDED.join(', ')} that has a value. Each item carries its own quote, page and confidence.`,
  SUPPORT_RULES,
].join('\n')

export async function handler(input: Input, ctx: CapabilityContext): Promise<Receipt> {
  const { answer, evidence } = await answerDocument<Answer>(ctx, input, {
    system: SYSTEM,
    schema: ReceiptAnswer,
    // A placeholder ("n/a", "unknown") is no merchant; the schema cannot say so, so it goes back in the corrective retry.
    check: (a: Answer) => (textOf(a.merchant) ? [] : ['/merchant: the business name as printed, not a placeholder']),
  })
  return buildReceipt(answer, evidence)
}

// Words a model commonly answers instead of a category of the list; anything else becomes "other".
const SYNONYMS: Record<string, Category> = {
  meal: 'meals',
  food: 'meals',
  restaurant: 'meals',
  dining: 'meals',
  cafe: 'meals',
  coffee: 'meals',
  bar: 'meals',
  breakfast: 'meals',
  lunch: 'meals',
  dinner: 'meals',
  drinks: 'meals',
  airfare: 'travel',
  flight: 'travel',
  flights: 'travel',
  airline: 'travel',
  hotel: 'lodging',
  accommodation: 'lodging',
  motel: 'lodging',
  taxi: 'transport',
  rideshare: 'transport',
  transportation: 'transport',
  parking: 'transport',
  fuel: 'transport',
  gas: 'transport',
  transit: 'transport',
  train: 'transport',
  bus: 'transport',
  'car rental': 'transport',
  toll: 'transport',
  'office supplies': 'office',
  stationery: 'office',
  printing: 'office',
  postage: 'office',
  subscription: 'software',
  saas: 'software',
  'software subscription': 'software',
  utility: 'utilities',
  electricity: 'utilities',
  internet: 'utilities',
  phone: 'utilities',
  telecom: 'utilities',
  grocery: 'groceries',
  supermarket: 'groceries',
  pharmacy: 'health',
  medical: 'health',
  healthcare: 'health',
}

function categoryOf(value: unknown): Category | null {
  const s = textOf(value)?.toLowerCase().replace(/[_-]+/g, ' ')
  if (!s) return null
  if ((CATEGORIES as readonly string[]).includes(s)) return s as Category
  return SYNONYMS[s] ?? null
}

/** The code-side guarantees: normalised values, a category of the list, sums checked and reported. */
function buildReceipt(a: Answer, text: DocumentText): Receipt {
  const r = new Reader()
  const merchant = r.text(a.merchant, 500)
  if (!merchant) throw new ApiError('inference_failed', 'The model did not identify the merchant of the receipt.')

  let category = categoryOf(a.category)
  if (!category) {
    const given = textOf(a.category)
    r.warn(given ? `category: "${given}" is not one of the categories; reported as "other".` : 'category: none given; reported as "other".')
    category = 'other'
  }

  const items: Receipt['items'] = []
  for (const l of a.items ?? []) {
    const description = r.text(l.description, 1000)
    const stated = toAmount(l.amount)
    // Left out: reported by what the line says (it has no index in the result).
    if (!description || stated === null) {
      r.warn(
        description
          ? `An item ("${description}") without an amount was left out.`
          : `An item without a description${stated !== null ? ` (amount ${money(stated)})` : ''} was left out.`,
      )
      continue
    }
    const at = `items[${items.length}]`
    items.push({
      ...compact({ description, quantity: r.amount(l.quantity, `${at}.quantity`), amount: stated }),
      ...text.ground([l.description, l.amount], l),
    })
  }

  const subtotal = r.amount(a.subtotal, 'subtotal')
  const tax = r.amount(a.tax, 'tax')
  const tip = r.amount(a.tip, 'tip')
  const total = r.amount(a.total, 'total')
  // A tax or tip the receipt states but code cannot read makes the sums through it uncheckable.
  const readable = (raw: unknown, v: number | undefined) => v !== undefined || textOf(raw) === null
  const extrasKnown = readable(a.tax, tax) && readable(a.tip, tip)
  const extras = [tax ?? 0, tip ?? 0]
  const amounts = items.map((l) => l.amount)
  const named = (base: string) => [base, tax !== undefined ? 'tax' : '', tip !== undefined ? 'tip' : ''].filter(Boolean).join(' + ')
  // A sum that does not add up contradicts the stated figure it is checked against.
  const wrong = new Set<'subtotal' | 'total'>()
  const check = (what: 'subtotal' | 'total', warning: string | null) => {
    if (warning) wrong.add(what)
    r.warn(warning)
  }
  if (items.length > 0) {
    if (subtotal !== undefined) check('subtotal', sumWarning('items vs subtotal', amounts, subtotal))
    else if (total !== undefined && extrasKnown) check('total', sumWarning(`${named('items')} vs total`, [...amounts, ...extras], total))
  }
  if (subtotal !== undefined && total !== undefined && extrasKnown)
    check('total', sumWarning(`${named('subtotal')} vs total`, [subtotal, ...extras], total))

  const paymentMethod = r.text(a.paymentMethod, 200)
  const fields = {
    merchant,
    location: r.text(a.location),
    date: r.date(a.date, 'date'),
    time: r.time(a.time),
    currency: r.currency(a.currency),
    subtotal,
    tax,
    tip,
    total,
    paymentMethod: paymentMethod && maskCardNumbers(paymentMethod),
  }
  const grounding = text.fields(
    Object.fromEntries(GROUNDED.map((f) => [f, a[f]])) as Record<(typeof GROUNDED)[number], unknown>,
    a.support,
    fields,
  )
  for (const what of wrong) if (grounding[what]) grounding[what] = contradicted(grounding[what])
  return compact({ ...fields, category, items, grounding, warnings: r.warnings })
}
