import { Type, type Static } from '@sinclair/typebox'
import { NonBlank, clip, distinctTexts, type CapabilityContext, type ErrorDetail } from '../../core/capability.ts'
import { Weight, type Input, type Level, type Output } from './schema.ts'

/** Where "low" ends: a score below it rounds to at most 0.33 (the bands below). */
const ELEVATED_AT = 0.335
const Signal = Type.Object({ signal: NonBlank(), weight: Weight, note: Type.String() }, { additionalProperties: false })

/**
 * What the model is asked for: the score with the signals behind it, and the checks. An elevated score needs a
 * signal, and the schema says so: a low score may come with any signals, one from ELEVATED_AT up with at least one.
 * `riskLevel` and `recommendation` are not asked for; code derives them from the score. Strict-mode safe.
 */
const FraudFlagAnswer = Type.Object(
  {
    assessment: Type.Union([
      Type.Object(
        { riskScore: Type.Number({ minimum: 0, exclusiveMaximum: ELEVATED_AT }), signals: Type.Array(Signal, { maxItems: 50 }) },
        { additionalProperties: false },
      ),
      Type.Object(
        {
          riskScore: Type.Number({ minimum: ELEVATED_AT, maximum: 1 }),
          signals: Type.Array(Signal, { minItems: 1, maxItems: 50 }),
        },
        { additionalProperties: false },
      ),
    ]),
    recommendedChecks: Type.Array(Type.String(), { maxItems: 20 }),
  },
  { additionalProperties: false },
)
type Answer = Static<typeof FraudFlagAnswer>

/** The bands (README): [0, 0.34) low, [0.34, 0.67) medium, [0.67, 1] high, on the score rounded to 2 decimals. */
export function levelOf(score: number): Level {
  if (score < 0.34) return 'low'
  if (score < 0.67) return 'medium'
  return 'high'
}

const RECOMMENDATION = { low: 'allow', medium: 'review', high: 'block' } as const

const ORDER_MAX_CHARS = 200_000
const WEIGHT_RANK: Record<Level, number> = { high: 0, medium: 1, low: 2 }

/** As the model reads it. */
const orderJson = (input: Input) => JSON.stringify(input.order, null, 1)

/** Stage 4 (manifest `check`): the request schema bounds the keys of `order`, not what is nested inside it. */
export function check(input: Input): ErrorDetail[] {
  if (orderJson(input).length <= ORDER_MAX_CHARS) return []
  return [{ path: '/order', message: `must be at most ${ORDER_MAX_CHARS} characters as JSON` }]
}

export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const order = orderJson(input)
  const answer = await ctx.ai.object<Answer>({
    system: [
      'You are a payments fraud analyst. Assess the order or transaction for fraud risk.',
      'Return JSON with exactly these fields:',
      '- assessment: {riskScore, signals}.',
      '  riskScore: a number from 0 (certainly legitimate) to 1 (certainly fraudulent). The score alone decides the outcome:',
      '  below 0.34 the order is allowed, 0.34 to 0.66 goes to manual review, 0.67 and above is blocked. A score of 0.34 or',
      '  more needs at least one signal behind it.',
      '  signals: each concrete risk or trust indicator you see in the data (signal: short name; weight: low, medium or high,',
      '  how much it moves the risk; note: one line citing the data). Only signals supported by the data given.',
      '- recommendedChecks: short, specific verification steps for a reviewer (empty when none are needed).',
    ].join('\n'),
    content: [`Order:\n${order}`, input.context ? `\nContext from the merchant:\n${input.context}` : ''].join(''),
    schema: FraudFlagAnswer,
  })

  const riskScore = Math.round(answer.assessment.riskScore * 100) / 100
  const riskLevel = levelOf(riskScore)
  const signals = answer.assessment.signals
    .map((s) => ({ signal: clip(s.signal.trim(), 200), weight: s.weight, note: clip(s.note.trim(), 500) }))
    .sort((a, b) => WEIGHT_RANK[a.weight] - WEIGHT_RANK[b.weight])
  const recommendedChecks = distinctTexts(answer.recommendedChecks.map((c) => clip(c.trim(), 300))).slice(0, 20)

  return { riskScore, riskLevel, signals, recommendedChecks, recommendation: RECOMMENDATION[riskLevel] }
}
