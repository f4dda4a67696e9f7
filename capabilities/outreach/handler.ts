import { Type, type TSchema } from '@sinclair/typebox'
import { DaySchedule, SendableText, distinctTexts, oneLine, scheduledDays, type CapabilityContext } from '../../core/capability.ts'
import type { Input, Output } from './schema.ts'

type Channel = 'email' | 'linkedin'

interface ModelAnswer {
  firstDay: number
  gapDays: number[]
  sequence: Array<{ subject?: string; message: string }>
  personalizationPoints: string[]
}

// What the model is asked for, per (channel, steps): exactly `steps` steps; days as a first day plus gaps of at
// least one day, so they always increase; subjects (email only) and messages not blank and free of placeholders
// (no brackets or braces: no "[Name]", no "{{first_name}}"). Everything is stated by the schema, so a
// constrained model cannot break it and Ajv refuses an answer that does, with the corrective retry.
function modelSchema(channel: Channel, steps: number): TSchema {
  const step =
    channel === 'email'
      ? Type.Object({ subject: SendableText(), message: SendableText() }, { additionalProperties: false })
      : Type.Object({ message: SendableText() }, { additionalProperties: false })
  return Type.Object(
    {
      ...DaySchedule(
        steps,
        { first: 1, last: 365 },
        { firstDay: 'day of the first message, from day 1', gapDays: 'days between each step and the one before it' },
      ),
      sequence: Type.Array(step, { minItems: steps, maxItems: steps }),
      personalizationPoints: Type.Array(Type.String(), { maxItems: 10 }),
    },
    { additionalProperties: false },
  )
}

const asText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2))

/**
 * Code guarantees (capabilities.md, outreach): exactly `steps` steps; `day` whole numbers ≥ 1 and strictly
 * increasing; every step carries the caller's channel; email steps have a subject, LinkedIn steps none; no empty
 * message and no unfilled placeholder (issue 16). The answer schema states them all (see modelSchema).
 */
export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const channel: Channel = input.channel ?? 'email'
  const steps = input.steps ?? 3
  const sender = input.sender
    ? Object.entries(input.sender)
        .filter(([, v]) => v && v.trim())
        .map(([k, v]) => `${k}: ${v}`)
        .join(', ')
    : ''
  const answer = await ctx.ai.object<ModelAnswer>({
    schema: modelSchema(channel, steps),
    system: [
      'You write personalised B2B outreach sequences.',
      `Write exactly ${steps} ${channel === 'email' ? 'emails' : 'LinkedIn messages'}, one per step, in the order they are sent.`,
      '"firstDay" is the day the first message is sent, counted from day 1; "gapDays" the days (at least 1) between each later step and the one before it.',
      channel === 'email'
        ? 'Each email has a short "subject" and a plain-text "message" (no HTML). Follow-ups may reply in thread ("Re: ...").'
        : 'LinkedIn messages have no subject. Keep the first message under 300 characters so it fits a connection request note.',
      'Each message is specific to the lead: use concrete facts about the lead and their company from the input, never invented ones.',
      'Each follow-up adds something new (a proof point, a question, a resource) instead of repeating the first message; the last step closes the loop politely.',
      'Sign as the sender when a sender is given; otherwise leave the signature out. Do not use placeholders like [Name].',
      '"personalizationPoints": the facts about the lead you used to personalise the sequence, one short line each.',
      input.goal ? `Call to action: ${input.goal}` : '',
      input.instructions ? `Additional instructions from the caller:\n${input.instructions}` : '',
    ]
      .filter(Boolean)
      .join('\n'),
    content: [
      `<lead>\n${asText(input.lead)}\n</lead>`,
      `<product>\n${asText(input.product)}\n</product>`,
      sender ? `<sender>${sender}</sender>` : '',
    ]
      .filter(Boolean)
      .join('\n\n'),
  })
  return checkSequence(answer, channel)
}

/** The answer as the response: days from the first day and the gaps, the caller's channel, text tidied. */
function checkSequence(answer: ModelAnswer, channel: Channel): Output {
  const days = scheduledDays(answer, answer.sequence.length)
  const sequence = answer.sequence.map((s, i) => {
    const step: Output['sequence'][number] = { day: days[i]!, channel, message: s.message.trim() }
    if (channel === 'email') step.subject = oneLine(s.subject)
    return step
  })
  const personalizationPoints = distinctTexts((answer.personalizationPoints ?? []).map(oneLine)).slice(0, 10)
  return { sequence, personalizationPoints }
}
