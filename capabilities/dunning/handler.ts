import { Type, type Static, type TObject } from '@sinclair/typebox'
import type { CapabilityContext } from '../../core/capability.ts'
import { ApiError } from '../../core/errors.ts'
import { clip, StringEnum } from '../../core/models/answers.ts'
import type { DunningResult } from './manifest.ts'

interface Input {
  invoice: { number?: string; amount: number; currency?: string; dueDate?: string; daysOverdue?: number }
  customer: { name: string; history?: string }
  tone?: 'friendly' | 'firm' | 'final'
  channel?: 'email' | 'sms'
  steps?: number
  senderName?: string
  paymentUrl?: string
}

type Result = Static<typeof DunningResult>

export const DEFAULT_STEPS = 3
export const MAX_DAY = 365
export const Channel = StringEnum(['email', 'sms'] as const)

const Step = Type.Object(
  {
    day: Type.Integer({ minimum: 0, maximum: MAX_DAY }),
    channel: Channel,
    subject: Type.Union([Type.String(), Type.Null()]),
    message: Type.String(),
  },
  { additionalProperties: false },
)

/**
 * What the model is asked for, one schema per step count (compiled once each): at least `steps` steps,
 * so a short answer gets the kernel's one retry. Strict-mode safe: all properties required, no lengths.
 */
export const DunningAnswers: TObject[] = Array.from({ length: 11 }, (_, steps) =>
  Type.Object(
    { sequence: Type.Array(Step, { minItems: Math.max(1, steps) }), escalationAdvice: Type.String() },
    { additionalProperties: false },
  ),
)
interface Answer {
  sequence: Array<{ day: number; channel: 'email' | 'sms'; subject: string | null; message: string }>
  escalationAdvice: string
}

/** Template placeholders a model leaves in a message meant to be sent as is. */
const PLACEHOLDER = /\[[^\]\n]{1,60}\]|\{\{[^}\n]{0,60}\}\}/

const TONE = {
  friendly: 'friendly and helpful throughout; assume an oversight',
  firm: 'polite but firm; each step clearer about consequences',
  final: 'formal; this is the last stage before collections or legal action, and the last step says so',
}

export async function handler(input: Input, ctx: CapabilityContext): Promise<Result> {
  const steps = input.steps ?? DEFAULT_STEPS
  const inv = input.invoice
  const amount = formatAmount(inv.amount, inv.currency)
  const answer = await ctx.ai.object<Answer>({
    system: [
      'You write a collections (dunning) sequence for one overdue invoice.',
      'Return JSON with exactly these fields:',
      `- sequence: exactly ${steps} step${steps === 1 ? '' : 's'}, in the order they are sent. Each step: day (whole days after today;`,
      '  today is day 0; each step strictly later than the one before), channel (email or sms), subject (email only; null for sms),',
      '  message (the full text to send, ready to go out unchanged: no placeholders such as [Name]; sms under 300 characters).',
      '- escalationAdvice: what the business should do if the sequence gets no payment (one short paragraph).',
      `Tone: ${TONE[input.tone ?? 'firm']}.`,
      input.channel ? `Every step goes out by ${input.channel}.` : 'Choose the channel of each step (email or sms).',
      `Mention the amount due (${amount})${inv.number ? ` and the invoice number ${inv.number}` : ''} in every message.`,
      input.paymentUrl ? `Include this payment link in every message: ${input.paymentUrl}` : 'Do not invent payment links.',
      `Sign messages as ${input.senderName ?? 'the accounts team'}.`,
      'Be truthful: no threats the business has not stated, no invented fees or dates.',
    ].join('\n'),
    content: [
      `Customer: ${input.customer.name}`,
      `Invoice: ${inv.number ?? '(no number)'}, ${amount}`,
      inv.dueDate ? `Due date: ${inv.dueDate}` : '',
      inv.daysOverdue !== undefined ? `Days overdue: ${inv.daysOverdue}` : '',
      `Today: ${isoDay(ctx.now())}`,
      input.customer.history ? `Customer history:\n${input.customer.history}` : '',
    ]
      .filter(Boolean)
      .join('\n'),
    schema: DunningAnswers[steps]!,
  })

  // Exactly `steps`: extra steps are cut (the first ones are kept), too few cannot be repaired.
  if (answer.sequence.length < steps) {
    throw new ApiError('inference_failed', `The model wrote ${answer.sequence.length} steps; ${steps} were asked for.`)
  }
  const kept = answer.sequence.slice(0, steps)
  for (let i = 1; i < kept.length; i++) {
    if (!(kept[i]!.day > kept[i - 1]!.day)) {
      throw new ApiError('inference_failed', `The model's step days are not strictly increasing (step ${i + 1}: day ${kept[i]!.day} after day ${kept[i - 1]!.day}).`)
    }
  }

  const today = ctx.now()
  const sequence = kept.map((s, i) => {
    const channel = input.channel ?? s.channel
    let message = s.message.trim()
    if (!message) throw new ApiError('inference_failed', `The model's step ${i + 1} has no message.`)
    if (PLACEHOLDER.test(message) || PLACEHOLDER.test(s.subject ?? '')) {
      throw new ApiError('inference_failed', `The model left a template placeholder in step ${i + 1}.`)
    }
    if (input.paymentUrl && !message.includes(input.paymentUrl)) message += `${channel === 'sms' ? ' ' : '\n\n'}Pay here: ${input.paymentUrl}`
    const step: Result['sequence'][number] = { day: s.day, date: isoDay(addDays(today, s.day)), channel, message: clip(message, 5000) }
    const subject = s.subject?.trim()
    if (channel === 'email' && subject) step.subject = clip(subject, 200)
    return step
  })
  const escalationAdvice = answer.escalationAdvice.trim()
  if (!escalationAdvice) throw new ApiError('inference_failed', 'The model gave no escalation advice.')
  return { sequence, escalationAdvice: clip(escalationAdvice, 4000) }
}

export function isoDay(d: Date): string {
  return d.toISOString().slice(0, 10)
}

function addDays(d: Date, days: number): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + days))
}

function formatAmount(amount: number, currency?: string): string {
  const value = amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })
  return currency ? `${currency.toUpperCase()} ${value}` : value
}

