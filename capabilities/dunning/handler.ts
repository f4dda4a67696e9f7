import { Type, type TObject } from '@sinclair/typebox'
import {
  DaySchedule,
  Nullable,
  Prose,
  SendableText,
  StringEnum,
  clip,
  cutProse,
  scheduledDays,
  type CapabilityContext,
} from '../../core/capability.ts'
import { Channel, DEFAULT_STEPS, MAX_DAY, type Input, type Output } from './schema.ts'

/**
 * What the model is asked for, built per call so the schema states every rule it can: exactly `steps` steps;
 * days as a first day plus gaps of at least one day (so they always increase, and never pass day 365); the
 * caller's channel when one is given; every message and subject free of template placeholders, every message
 * naming the invoice number and the amount (patterns, enforced in strict mode and checked by Ajv).
 */
export function answerSchema(input: Pick<Input, 'invoice' | 'channel'>, steps: number): TObject {
  const facts = [amountSpellings(input.invoice.amount), ...(input.invoice.number ? [[input.invoice.number]] : [])]
  const Step = Type.Object(
    {
      channel: input.channel ? StringEnum([input.channel]) : Channel,
      subject: Nullable(SendableText()),
      message: SendableText(facts),
    },
    { additionalProperties: false },
  )
  return Type.Object(
    {
      ...DaySchedule(
        steps,
        { first: 0, last: MAX_DAY },
        { firstDay: 'day of the first step; 0 = today', gapDays: 'days between each step and the one before it, from the second step on' },
      ),
      sequence: Type.Array(Step, { minItems: steps, maxItems: steps }),
      escalationAdvice: Prose(ADVICE_MAX, { nonBlank: true }),
    },
    { additionalProperties: false },
  )
}
const ADVICE_MAX = 4000
interface Answer {
  firstDay: number
  gapDays: number[]
  sequence: Array<{ channel: 'email' | 'sms'; subject: string | null; message: string }>
  escalationAdvice: string
}

/** The ways a message may write the amount: with and without thousands separators, decimals optional. */
function amountSpellings(amount: number): string[] {
  const grouped = amount.toLocaleString('en-US', { maximumFractionDigits: 2 })
  return [...new Set([grouped, grouped.replace(/,/g, '')])]
}

const TONE = {
  friendly: 'friendly and helpful throughout; assume an oversight',
  firm: 'polite but firm; each step clearer about consequences',
  final: 'formal; this is the last stage before collections or legal action, and the last step says so',
}

export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const steps = input.steps ?? DEFAULT_STEPS
  const inv = input.invoice
  const amount = formatAmount(inv.amount, inv.currency)
  const answer = await ctx.ai.object<Answer>({
    system: [
      'You write a collections (dunning) sequence for one overdue invoice.',
      'Return JSON with exactly these fields:',
      '- firstDay: the day of the first step, in whole days after today (today is day 0).',
      '- gapDays: for each later step, the whole days (at least 1) since the step before it.',
      `- sequence: exactly ${steps} step${steps === 1 ? '' : 's'}, in the order they are sent. Each step: channel (email or sms), subject (email only; null for sms),`,
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
    schema: answerSchema(input, steps),
  })

  const today = ctx.now()
  const days = scheduledDays(answer, steps)
  const sequence = answer.sequence.map((s, i) => {
    const day = days[i]!
    const channel = s.channel
    let message = s.message.trim()
    if (input.paymentUrl && !message.includes(input.paymentUrl))
      message += `${channel === 'sms' ? ' ' : '\n\n'}Pay here: ${input.paymentUrl}`
    const step: Output['sequence'][number] = { day, date: isoDay(addDays(today, day)), channel, message: clip(message, 5000) }
    const subject = s.subject?.trim()
    if (channel === 'email' && subject) step.subject = clip(subject, 200)
    return step
  })
  return { sequence, escalationAdvice: cutProse(answer.escalationAdvice.trim(), ADVICE_MAX, 'escalationAdvice') }
}

function isoDay(d: Date): string {
  return d.toISOString().slice(0, 10)
}

function addDays(d: Date, days: number): Date {
  return new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + days))
}

function formatAmount(amount: number, currency?: string): string {
  const value = amount.toLocaleString('en-US', { minimumFractionDigits: 2, maximumFractionDigits: 2 })
  return currency ? `${currency.toUpperCase()} ${value}` : value
}
