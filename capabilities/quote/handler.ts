import { Type, type Static } from '@sinclair/typebox'
import { ApiError, clip, distinctTexts, sum, type CapabilityContext } from '../../core/capability.ts'
import type { QuoteResult } from './manifest.ts'

export interface Rate {
  description: string
  unit?: string
  unitPrice: number
}

interface Input {
  job: string
  rates?: string | Rate[]
  pastQuotes?: string | string[]
  currency?: string
  taxRatePct?: number
}

type Result = Static<typeof QuoteResult>
type Line = Result['lineItems'][number]

const nullable = <T extends Parameters<typeof Type.Union>[0][number]>(t: T) => Type.Union([t, Type.Null()])

/**
 * What the model is asked for: the lines, the tax it sees in the job or rates, and the notes. Subtotal and
 * total are not asked for: code adds them up. Strict-mode safe (all properties required, no lengths).
 */
export const QuoteAnswer = Type.Object(
  {
    lineItems: Type.Array(
      Type.Object(
        {
          description: Type.String(),
          quantity: nullable(Type.Number({ minimum: 0 })),
          unitPrice: nullable(Type.Number()),
          amount: nullable(Type.Number()),
        },
        { additionalProperties: false },
      ),
    ),
    tax: nullable(Type.Number({ minimum: 0 })),
    currency: nullable(Type.String()),
    assumptions: Type.Array(Type.String()),
    scopeNotes: nullable(Type.String()),
  },
  { additionalProperties: false },
)
type Answer = Static<typeof QuoteAnswer>

const MAX_LINES = 100

export async function handler(input: Input, ctx: CapabilityContext): Promise<Result> {
  const currency = input.currency?.toUpperCase()
  const answer = await ctx.ai.object<Answer>({
    system: [
      'You prepare an itemized price quote for the job described.',
      'Return JSON with exactly these fields:',
      '- lineItems: one entry per priced item (description; quantity and unitPrice when the item is priced per unit, else null;',
      '  amount = quantity × unitPrice, or the lump sum). Use the rates given; where none applies, estimate and say so in assumptions.',
      '- tax: the tax amount only when the job or rates state a tax rate, else null.',
      `- currency: ISO 4217 code${currency ? ` (use ${currency})` : ', or null when unknown'}.`,
      '- assumptions: every assumption the prices depend on (quantities estimated, exclusions, access, materials).',
      '- scopeNotes: what is in and out of scope, in one short paragraph, or null.',
      'Do not add a subtotal or total: they are computed from the lines.',
      input.taxRatePct !== undefined
        ? `Tax is ${input.taxRatePct}% of the subtotal; it is computed from the lines, so set tax to null.`
        : '',
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
    schema: QuoteAnswer,
  })

  if (answer.lineItems.length === 0) throw new ApiError('inference_failed', 'The model returned a quote without line items.')
  if (answer.lineItems.length > MAX_LINES) throw new ApiError('inference_failed', `The model returned more than ${MAX_LINES} line items.`)
  const warnings: string[] = []
  const rates = Array.isArray(input.rates) ? input.rates : []

  const lineItems = answer.lineItems.map((l, i): Line => {
    const description = l.description.trim().replace(/\s+/g, ' ')
    if (!description) throw new ApiError('inference_failed', `The model's line ${i + 1} has no description.`)
    const name = `Line ${i + 1} (${clip(description, 60)})`
    let amount = l.amount
    if (l.quantity !== null && l.unitPrice !== null) {
      // The arithmetic of a quote we write is code's: amount = quantity × unitPrice, and a different
      // figure from the model is corrected and reported, never passed on.
      const computed = cents(l.quantity * l.unitPrice)
      if (amount !== null && Math.abs(amount - computed) > 0.01) {
        warnings.push(`${name}: ${l.quantity} × ${l.unitPrice} = ${computed}; the model wrote ${amount}. The amount is ${computed}.`)
      }
      amount = computed
    }
    if (amount === null)
      throw new ApiError('inference_failed', `The model's line ${i + 1} has neither an amount nor a quantity and unit price.`)
    const line: Line = { description: clip(description, 500), amount: cents(amount) }
    if (l.quantity !== null) line.quantity = l.quantity
    if (l.unitPrice !== null) line.unitPrice = l.unitPrice
    // The caller's own rates are the price list: a line that names one but charges otherwise is reported.
    const rate = rateFor(description, rates)
    if (rate && l.unitPrice !== null && Math.abs(l.unitPrice - rate.unitPrice) > 0.005) {
      warnings.push(`${name}: unit price ${l.unitPrice}, but the rate for "${rate.description}" is ${rate.unitPrice}.`)
    }
    return line
  })

  const subtotal = sum(lineItems.map((l) => l.amount))
  let tax = answer.tax
  if (input.taxRatePct !== undefined) {
    const computed = cents((subtotal * input.taxRatePct) / 100)
    if (tax !== null && Math.abs(tax - computed) > 0.01)
      warnings.push(`tax: ${input.taxRatePct}% of ${subtotal} is ${computed}; the model wrote ${tax}. The tax is ${computed}.`)
    tax = computed
  }
  const total = sum([subtotal, tax])
  if (total < 0) throw new ApiError('inference_failed', 'The model priced the job below zero.')

  const result: Result = {
    lineItems,
    subtotal,
    total,
    assumptions: distinctTexts(answer.assumptions.map((a) => clip(a.trim(), 500)).filter(Boolean)).slice(0, 50),
  }
  if (tax !== null) result.tax = cents(tax)
  const cur = currency ?? answer.currency?.trim().toUpperCase()
  if (cur && /^[A-Z]{3}$/.test(cur)) result.currency = cur
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
export function rateFor(description: string, rates: Rate[]): Rate | null {
  const line = ` ${norm(description)} `
  let best: Rate | null = null
  for (const r of rates) {
    const key = norm(r.description)
    if (key && line.includes(` ${key} `) && (!best || key.length > norm(best.description).length)) best = r
  }
  return best
}
