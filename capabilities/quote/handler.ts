import { Type } from '@sinclair/typebox'
import { NonBlank, Nullable, clip, distinctTexts, oneLine, sum, type CapabilityContext } from '../../core/capability.ts'
import type { Input, Output, Rate } from './schema.ts'

type Line = Output['lineItems'][number]

// Bounds that keep any conforming quote inside the response's money range: MAX_LINES lines of at most
// MAX_QUANTITY × MAX_UNIT_PRICE (or a lump sum of as much) plus a tax of as much stay below 1e12.
const MAX_LINES = 90
const MAX_QUANTITY = 1e5
const MAX_UNIT_PRICE = 1e5
const MAX_LINE_AMOUNT = MAX_QUANTITY * MAX_UNIT_PRICE

/** A line priced per unit: code computes its amount. */
const PerUnitLine = Type.Object(
  {
    description: NonBlank(),
    quantity: Type.Number({ minimum: 0, maximum: MAX_QUANTITY }),
    unitPrice: Type.Number({ minimum: 0, maximum: MAX_UNIT_PRICE }),
  },
  { additionalProperties: false },
)
/** A line priced as a whole. */
const LumpSumLine = Type.Object(
  { description: NonBlank(), amount: Type.Number({ minimum: 0, maximum: MAX_LINE_AMOUNT }) },
  { additionalProperties: false },
)

/**
 * What the model is asked for, per call: the lines (each priced per unit or as a lump sum, never both, so there is
 * no product to get wrong), the tax only when the caller gave no rate, the currency only when the caller gave
 * none, and the notes. Subtotal, total, line amounts and tax from a rate are code's arithmetic, never asked for.
 */
function quoteAnswer(input: Pick<Input, 'currency' | 'taxRatePct'>) {
  return Type.Object(
    {
      lineItems: Type.Array(Type.Union([PerUnitLine, LumpSumLine]), { minItems: 1, maxItems: MAX_LINES }),
      ...(input.taxRatePct === undefined ? { tax: Nullable(Type.Number({ minimum: 0, maximum: MAX_LINE_AMOUNT })) } : {}),
      ...(input.currency === undefined ? { currency: Nullable(Type.String({ pattern: '^[A-Za-z]{3}$' })) } : {}),
      assumptions: Type.Array(Type.String(), { maxItems: 50 }),
      scopeNotes: Nullable(Type.String()),
    },
    { additionalProperties: false },
  )
}
interface Answer {
  lineItems: Array<{ description: string; quantity?: number; unitPrice?: number; amount?: number }>
  tax?: number | null
  currency?: string | null
  assumptions: string[]
  scopeNotes: string | null
}

export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const currency = input.currency?.toUpperCase()
  const answer = await ctx.ai.object<Answer>({
    system: [
      'You prepare an itemized price quote for the job described.',
      'Return JSON with exactly these fields:',
      '- lineItems: one entry per priced item: {description, quantity, unitPrice} for an item priced per unit, or',
      '  {description, amount} for a lump sum. Use the rates given; where none applies, estimate and say so in assumptions.',
      input.taxRatePct === undefined ? '- tax: the tax amount only when the job or rates state a tax rate, else null.' : '',
      currency ? '' : '- currency: ISO 4217 code, or null when unknown.',
      '- assumptions: every assumption the prices depend on (quantities estimated, exclusions, access, materials).',
      '- scopeNotes: what is in and out of scope, in one short paragraph, or null.',
      'Line amounts, the subtotal, the total and any tax at a given rate are computed from the lines: do not write them.',
    ]
      .filter(Boolean)
      .join('\n'),
    content: [
      `Job:\n${input.job}`,
      input.rates !== undefined ? `\nRates:\n${typeof input.rates === 'string' ? input.rates : JSON.stringify(input.rates, null, 1)}` : '',
      input.pastQuotes !== undefined
        ? `\nPast quotes for reference:\n${typeof input.pastQuotes === 'string' ? input.pastQuotes : input.pastQuotes.join('\n---\n')}`
        : '',
    ].join(''),
    schema: quoteAnswer(input),
  })

  const warnings: string[] = []
  const rates = Array.isArray(input.rates) ? input.rates : []
  const lineItems = answer.lineItems.map((l, i): Line => {
    const description = clip(oneLine(l.description), 500)
    if (l.amount !== undefined) return { description, amount: cents(l.amount) }
    const { quantity, unitPrice } = l as Required<typeof l>
    // The caller's own rates are the price list: a line that names one but charges otherwise is reported.
    const rate = rateFor(description, rates)
    if (rate && Math.abs(unitPrice - rate.unitPrice) > 0.005) {
      warnings.push(
        `Line ${i + 1} (${clip(description, 60)}): unit price ${unitPrice}, but the rate for "${rate.description}" is ${rate.unitPrice}.`,
      )
    }
    return { description, quantity, unitPrice, amount: cents(quantity * unitPrice) }
  })

  const subtotal = sum(lineItems.map((l) => l.amount))
  const tax = input.taxRatePct !== undefined ? cents((subtotal * input.taxRatePct) / 100) : (answer.tax ?? null)
  const result: Output = {
    lineItems,
    subtotal,
    total: sum([subtotal, tax]),
    assumptions: distinctTexts(answer.assumptions.map((a) => clip(a.trim(), 500)).filter(Boolean)).slice(0, 50),
  }
  if (tax !== null) result.tax = cents(tax)
  const cur = currency ?? answer.currency?.toUpperCase()
  if (cur) result.currency = cur
  const scope = answer.scopeNotes?.trim()
  if (scope) result.scopeNotes = clip(scope, 4000)
  if (warnings.length) result.warnings = warnings.slice(0, 100)
  return result
}

function cents(n: number): number {
  return Math.round(n * 100) / 100
}

const norm = (s: string) =>
  s
    .toLowerCase()
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()

/** The caller's rate a line names: the longest rate description contained in the line's (whole words). */
function rateFor(description: string, rates: Rate[]): Rate | null {
  const line = ` ${norm(description)} `
  let best: Rate | null = null
  for (const r of rates) {
    const key = norm(r.description)
    if (key && line.includes(` ${key} `) && (!best || key.length > norm(best.description).length)) best = r
  }
  return best
}
