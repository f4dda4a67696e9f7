import { Type, type Static } from '@sinclair/typebox'
import { ApiError, MText, NonBlank, clip, distinctTexts, oneLine, type CapabilityContext } from '../../core/capability.ts'
import { Sentiment, type Input, type Output } from './schema.ts'

/**
 * What the model is asked for. Every property is required (nullable where optional) and there are no
 * length keywords, so the schema is also accepted by providers' strict structured-output modes; code
 * applies the published bounds afterwards.
 */
const ReviewReplyAnswer = Type.Object(
  {
    reply: NonBlank(),
    sentiment: Sentiment,
    issues: Type.Array(Type.String()),
    escalate: Type.Boolean(),
    escalationReason: MText,
  },
  { additionalProperties: false },
)
type Answer = Static<typeof ReviewReplyAnswer>

/** Legal, safety, health and discrimination language: always a person's job, whatever the rating. */
export const RISK_TERMS =
  /\b(lawyers?|attorneys?|lawsuits?|sue|suing|legal action|small claims|court|food poisoning|poisoned|hospital\w*|injur(?:y|ed|ies)|allerg(?:y|ic|ies)|discriminat\w*|racis[tm]\w*|harass\w*|assault\w*|police|health (?:department|inspector|code)|unsafe|stolen|theft|fraud\w*|scam\w*|data breach|identity theft)\b/i

/** Template placeholders a model sometimes leaves in a "ready to post" reply. */
const PLACEHOLDER = /\[[^\]\n]{1,60}\]|\{\{[^}\n]{0,60}\}\}|<(?:name|customer|business|manager)[^>\n]{0,40}>/i

const MAX_REPLY = 4000

export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const answer = await ctx.ai.object<Answer>({
    system: [
      'You write the public reply a business posts under a customer review, and triage the review.',
      'Return JSON with exactly these fields:',
      '- reply: the public reply, ready to post as is (no placeholders such as [Name]); under 150 words; thank the reviewer,',
      '  address their specific points, never argue, never reveal private details, never invent facts, offers or refunds.',
      '  Offer only the resolution given below, if any.',
      '- sentiment: positive, negative, neutral or mixed (the review, not the reply).',
      '- issues: short labels of the concrete problems the review reports (empty when there are none), for the business to log.',
      '- escalate: true when a person should follow up privately (safety, health, legal threats, discrimination, serious service failure).',
      '- escalationReason: one line when escalate is true, else null.',
      input.business?.name ? `Business name: ${input.business.name}.` : '',
      input.business?.voice ? `Write in this voice: ${input.business.voice}` : '',
      input.resolution
        ? `Resolution the business offers: ${input.resolution}`
        : 'The business offers no specific resolution: do not promise one.',
    ]
      .filter(Boolean)
      .join('\n'),
    content: [input.rating ? `Rating: ${input.rating} of 5` : 'Rating: not given', '', 'Review:', input.review].join('\n'),
    schema: ReviewReplyAnswer,
  })

  const reply = clipSentences(answer.reply.trim(), MAX_REPLY)
  if (!reply) throw new ApiError('inference_failed', 'The model returned an empty reply.')
  if (PLACEHOLDER.test(reply)) throw new ApiError('inference_failed', 'The model left a template placeholder in the reply.')

  const issues = distinctTexts(answer.issues.map((i) => clip(oneLine(i), 300)).filter(Boolean)).slice(0, 20)

  // Stars and words that disagree are, by definition, mixed.
  let sentiment = answer.sentiment
  if (input.rating !== undefined) {
    if (input.rating >= 4 && sentiment === 'negative') sentiment = 'mixed'
    if (input.rating <= 2 && sentiment === 'positive') sentiment = 'mixed'
  }

  // Code may raise escalation, never lower it.
  const reasons: string[] = []
  if (answer.escalate) reasons.push(clip((answer.escalationReason ?? '').trim(), 300) || 'The model flagged the review for follow-up.')
  if (input.rating !== undefined && input.rating <= 2 && issues.length > 0)
    reasons.push(`Rating ${input.rating} of 5 with reported issues.`)
  const risk = RISK_TERMS.exec(input.review)
  if (risk) reasons.push(`The review mentions "${risk[0]}" (legal, safety or conduct language).`)

  const result: Output = { reply, sentiment, issues, escalate: reasons.length > 0 }
  if (reasons.length) result.escalationReasons = reasons
  return result
}

/** Cuts an over-long text at the last sentence end that fits. */
function clipSentences(s: string, max: number): string {
  if (s.length <= max) return s
  const head = s.slice(0, max)
  const end = Math.max(head.lastIndexOf('. '), head.lastIndexOf('! '), head.lastIndexOf('? '))
  return end > max / 2 ? head.slice(0, end + 1) : clip(s, max)
}
