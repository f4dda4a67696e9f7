import { Type, type Static, type TSchema } from '@sinclair/typebox'
import type { CapabilityContext } from '../../core/capability.ts'
import { ApiError } from '../../core/errors.ts'
import type { OutreachRequest, OutreachResult } from './manifest.ts'

export const CHANNELS = ['email', 'linkedin'] as const
export const MAX_STEPS = 10

type Input = Static<typeof OutreachRequest>
type Channel = 'email' | 'linkedin'

interface ModelStep {
  day: number
  subject?: string
  message: string
}
interface ModelAnswer {
  sequence: ModelStep[]
  personalizationPoints: string[]
}

// What the model is asked for: exactly the response fields code does not set (channel is the caller's).
// Every property required and no string length keywords, so the schema is accepted by strict structured
// output; lengths and order are checked by code below. One schema per (channel, steps), built once:
// Ajv caches compiled schemas by object identity, so building them per call would grow without bound.
function modelSchema(channel: Channel, steps: number): TSchema {
  const step =
    channel === 'email'
      ? Type.Object({ day: Type.Integer({ minimum: 1, maximum: 365 }), subject: Type.String(), message: Type.String() }, { additionalProperties: false })
      : Type.Object({ day: Type.Integer({ minimum: 1, maximum: 365 }), message: Type.String() }, { additionalProperties: false })
  return Type.Object(
    {
      sequence: Type.Array(step, { minItems: steps, maxItems: steps }),
      personalizationPoints: Type.Array(Type.String(), { maxItems: 10 }),
    },
    { additionalProperties: false },
  )
}
const schemas = new Map<string, TSchema>()
for (const channel of CHANNELS) {
  for (let n = 1; n <= MAX_STEPS; n++) schemas.set(`${channel}:${n}`, modelSchema(channel, n))
}

const asText = (v: unknown) => (typeof v === 'string' ? v : JSON.stringify(v, null, 2))

/**
 * Code guarantees (capabilities.md, outreach): exactly `steps` steps; `day` whole numbers ≥ 1 and strictly
 * increasing; every step carries the caller's channel; email steps have a subject, LinkedIn steps none;
 * no empty message. A model answer that breaks one of these is a failed call (502, free), never reordered.
 */
export async function handler(input: Input, ctx: CapabilityContext): Promise<OutreachResult> {
  const channel: Channel = input.channel ?? 'email'
  const steps = input.steps ?? 3
  const sender = input.sender ? Object.entries(input.sender).filter(([, v]) => v && v.trim()).map(([k, v]) => `${k}: ${v}`).join(', ') : ''
  const answer = await ctx.ai.object<ModelAnswer>({
    schema: schemas.get(`${channel}:${steps}`)!,
    system: [
      'You write personalised B2B outreach sequences.',
      `Write exactly ${steps} ${channel === 'email' ? 'emails' : 'LinkedIn messages'}, one per step, in the order they are sent.`,
      '"day" is the day the step is sent, counted from day 1 (the first message); each step comes on a later day than the one before.',
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
  return checkSequence(answer, channel, steps)
}

export function checkSequence(answer: ModelAnswer, channel: Channel, steps: number): OutreachResult {
  const fail = (why: string): never => {
    throw new ApiError('inference_failed', `The model returned an outreach sequence that breaks its promises: ${why}. Nothing was charged.`)
  }
  if (!Array.isArray(answer.sequence) || answer.sequence.length !== steps) fail(`${steps} steps were asked for, ${answer.sequence?.length ?? 0} came back`)
  let previous = 0
  const sequence = answer.sequence.map((s, i) => {
    if (!Number.isInteger(s.day) || s.day < 1) fail(`step ${i + 1} has no valid day`)
    if (s.day <= previous) fail(`step ${i + 1} is on day ${s.day}, not after day ${previous}`)
    previous = s.day
    const message = (s.message ?? '').trim()
    if (!message) fail(`step ${i + 1} has an empty message`)
    const step: OutreachResult['sequence'][number] = { day: s.day, channel, message }
    if (channel === 'email') {
      const subject = (s.subject ?? '').replace(/\s+/g, ' ').trim()
      if (!subject) fail(`email step ${i + 1} has no subject`)
      step.subject = subject
    }
    return step
  })
  const seen = new Set<string>()
  const personalizationPoints = (answer.personalizationPoints ?? [])
    .map((p) => p.replace(/\s+/g, ' ').trim())
    .filter((p) => p && !seen.has(p.toLowerCase()) && seen.add(p.toLowerCase()))
    .slice(0, 10)
  return { sequence, personalizationPoints }
}
