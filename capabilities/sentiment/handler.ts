import { Type, type Static } from '@sinclair/typebox'
import { distinctTexts, type CapabilityContext } from '../../core/capability.ts'
import { Sentiment, type Input, type Output } from './schema.ts'

type Aspect = Output['aspects'][number]

const MAX_FOUND_ASPECTS = 20
const MAX_THEMES = 10

/** What the model is asked for: every property required and closed, so it also works with strict structured outputs. */
const ModelAnswer = Type.Object(
  {
    sentiment: Sentiment,
    score: Type.Number({ minimum: -1, maximum: 1 }),
    confidence: Type.Number({ minimum: 0, maximum: 1 }),
    aspects: Type.Array(
      Type.Object(
        { aspect: Type.String(), sentiment: Sentiment, score: Type.Number({ minimum: -1, maximum: 1 }), mentioned: Type.Boolean() },
        { additionalProperties: false },
      ),
    ),
    themes: Type.Array(Type.String()),
  },
  { additionalProperties: false },
)
type Answer = Static<typeof ModelAnswer>

/**
 * Label and score agree (README.md): `positive` needs a score above 0, `negative` below 0, `neutral` within
 * ±NEUTRAL_BAND, `mixed` within ±MIXED_BAND. A label that breaks its rule is replaced by the score's: at least
 * NEUTRAL_BAND positive, at most −NEUTRAL_BAND negative, else neutral. The score is the finer reading and is kept.
 */
const NEUTRAL_BAND = 0.3
const MIXED_BAND = 0.7
function reconciledLabel(label: Answer['sentiment'], score: number): Answer['sentiment'] {
  const fits =
    label === 'positive'
      ? score > 0
      : label === 'negative'
        ? score < 0
        : Math.abs(score) <= (label === 'neutral' ? NEUTRAL_BAND : MIXED_BAND)
  if (fits) return label
  return score >= NEUTRAL_BAND ? 'positive' : score <= -NEUTRAL_BAND ? 'negative' : 'neutral'
}

const clamp = (n: number, lo: number, hi: number) => (Number.isFinite(n) ? Math.min(hi, Math.max(lo, n)) : 0)
const loose = (s: string) => s.toLowerCase().replace(/[^\p{L}\p{N}]+/gu, '')

/**
 * Code guarantees: the sentiment labels are the four of the enum (the schema the model answers against), score
 * is within −1..1 and confidence within 0..1; each label agrees with its score (`reconciledLabel`). When the caller names aspects, `aspects` is exactly those, in that
 * order, each with `mentioned`; an aspect the model skipped or marked as not mentioned is neutral with score 0.
 * Otherwise the model's aspects, de-duplicated, at most 20. Themes: distinct, non-blank, at most 10.
 */
export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const asked = input.aspects && input.aspects.length > 0 ? input.aspects : null
  const answer = await ctx.ai.object<Answer>({
    system: [
      'You analyse the sentiment of the text the user sends.',
      '"sentiment" is positive, negative, neutral or mixed; "score" runs from -1 (very negative) to 1 (very positive); "confidence" is 0..1.',
      asked
        ? `"aspects": exactly one entry per aspect in ${JSON.stringify(asked)}, in that order, "aspect" spelled as given; "mentioned" is false when the text does not talk about it (then neutral, score 0).`
        : `"aspects": the main aspects the text talks about (at most ${MAX_FOUND_ASPECTS}), each with its own sentiment and score; "mentioned" is true.`,
      `"themes": at most ${MAX_THEMES} short recurring themes or topics.`,
    ].join('\n'),
    content: input.text,
    schema: ModelAnswer,
  })
  const score = clamp(answer.score, -1, 1)
  return {
    sentiment: reconciledLabel(answer.sentiment, score),
    score,
    confidence: clamp(answer.confidence, 0, 1),
    aspects: asked ? requestedAspects(asked, answer.aspects) : foundAspects(answer.aspects),
    themes: distinctTexts(answer.themes).slice(0, MAX_THEMES),
  }
}

function requestedAspects(asked: string[], answers: Answer['aspects']): Aspect[] {
  const exact = new Map<string, Answer['aspects'][number]>()
  const byLoose = new Map<string, Answer['aspects'][number]>()
  const looseOwners = new Map<string, number>()
  for (const a of asked) looseOwners.set(loose(a), (looseOwners.get(loose(a)) ?? 0) + 1)
  for (const a of answers) {
    if (!exact.has(a.aspect)) exact.set(a.aspect, a)
    const k = loose(a.aspect)
    if (looseOwners.get(k) === 1 && !byLoose.has(k)) byLoose.set(k, a)
  }
  return asked.map((aspect) => {
    const a = exact.get(aspect) ?? byLoose.get(loose(aspect))
    if (!a || !a.mentioned) return { aspect, sentiment: 'neutral', score: 0, mentioned: false }
    const score = clamp(a.score, -1, 1)
    return { aspect, sentiment: reconciledLabel(a.sentiment, score), score, mentioned: true }
  })
}

function foundAspects(answers: Answer['aspects']): Aspect[] {
  const seen = new Set<string>()
  const out: Aspect[] = []
  for (const a of answers) {
    const aspect = a.aspect.trim()
    if (!aspect || !a.mentioned || seen.has(aspect.toLowerCase())) continue
    seen.add(aspect.toLowerCase())
    const score = clamp(a.score, -1, 1)
    out.push({ aspect, sentiment: reconciledLabel(a.sentiment, score), score })
    if (out.length === MAX_FOUND_ASPECTS) break
  }
  return out
}
