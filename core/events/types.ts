// The events an account receives (C17): each type's `data`, the envelope sent to webhook endpoints and stored in
// the event log. Published as the OpenAPI document's `webhooks` (core/openapi/webhooks.ts) and components.
import { Type, type Static, type TSchema } from '@sinclair/typebox'

const Credits = Type.Integer({ minimum: 0 })
const BalanceData = Type.Object(
  {
    threshold: Type.Integer({ minimum: 0, description: 'the threshold of GET /v1/alerts that was crossed' }),
    available: Type.Integer({ description: 'the available credits right after the crossing (balance minus holds)' }),
  },
  { additionalProperties: false },
)

/** What the document and the docs say of an event type: its `data` schema, a sentence for users, an example of `data`. */
export interface EventTypeInfo {
  data: TSchema
  summary: string
  example: unknown
}

/** The job events: core/jobs records them and publishes their data (the Job object). */
export const JOB_EVENT_NAMES = ['job.completed', 'job.failed'] as const
/** The batch event: core/batches records it and publishes its data (the Batch object). */
export const BATCH_EVENT_NAMES = ['batch.completed'] as const
/** The review events: core/reviews records them and publishes their data. */
export const REVIEW_EVENT_NAMES = ['review.pending', 'review.completed'] as const

/** Every other event type, with its `data` schema, a sentence for users, and an example of `data`. */
export const EVENT_TYPES = {
  'balance.low': {
    data: BalanceData,
    summary:
      'The available credits went below a threshold: once per crossing, however many calls crossed it together; not again until balance.recovered.',
    example: { threshold: 50, available: 48 },
  },
  'balance.recovered': {
    data: BalanceData,
    summary: 'Credits came in (a purchase or a grant) and the available credits are back at or above a threshold that was low.',
    example: { threshold: 50, available: 1040 },
  },
  'key.budget_threshold': {
    data: Type.Object(
      {
        keyId: Type.String({ format: 'uuid' }),
        keyPrefix: Type.String(),
        percent: Type.Integer({ minimum: 1, maximum: 100 }),
        monthSpend: Credits,
        cap: Credits,
      },
      { additionalProperties: false },
    ),
    summary: 'A key’s spend this UTC month reached a percent of its monthly cap: once per key, percent and month.',
    example: { keyId: '01890000-0000-7000-8000-000000000002', keyPrefix: 'ksk_live_AbC', percent: 50, monthSpend: 500, cap: 1000 },
  },
  'payment.succeeded': {
    data: Type.Object(
      {
        kind: Type.Union(['pack', 'plan', 'plan_renewal', 'auto_recharge'].map((k) => Type.Literal(k))),
        pack: Type.Optional(Type.String()),
        plan: Type.Optional(Type.String()),
        credits: Credits,
        amountCents: Credits,
        reference: Type.String({ description: 'the Stripe Checkout Session, invoice or PaymentIntent' }),
      },
      { additionalProperties: false },
    ),
    summary: 'A payment was received and its credits granted: a pack or plan bought, a plan renewed, an auto-recharge.',
    example: { kind: 'pack', pack: 'starter', credits: 2000, amountCents: 2000, reference: 'cs_test_a1b2c3' },
  },
  'payment.failed': {
    data: Type.Object(
      {
        kind: Type.Literal('auto_recharge'),
        pack: Type.String(),
        amountCents: Credits,
        reason: Type.String({ description: 'what the card issuer or Stripe said' }),
      },
      { additionalProperties: false },
    ),
    summary: 'An off-session payment (an auto-recharge) failed; nothing was granted.',
    example: { kind: 'auto_recharge', pack: 'starter', amountCents: 2000, reason: 'Your card was declined.' },
  },
  'auto_recharge.failed': {
    data: Type.Object(
      { pack: Type.String(), reason: Type.String(), autoRechargeDisabled: Type.Literal(true) },
      { additionalProperties: false },
    ),
    summary: 'The auto-recharge payment failed, so auto-recharge is now off; buy a pack to update the card, then turn it back on.',
    example: { pack: 'starter', reason: 'Your card was declined.', autoRechargeDisabled: true },
  },
  ping: {
    data: Type.Object({ endpointId: Type.String(), message: Type.String() }, { additionalProperties: false }),
    summary: 'POST /v1/webhook-endpoints/{id}/test: sent to that endpoint alone.',
    example: { endpointId: 'we_0c5f0b2a3d9e4f1a', message: 'A test event from the dashboard or the API.' },
  },
} as const satisfies Record<string, EventTypeInfo>

export type EventType =
  (typeof JOB_EVENT_NAMES)[number] | (typeof BATCH_EVENT_NAMES)[number] | (typeof REVIEW_EVENT_NAMES)[number] | keyof typeof EVENT_TYPES
export const EVENT_TYPE_NAMES: EventType[] = [
  ...JOB_EVENT_NAMES,
  ...BATCH_EVENT_NAMES,
  ...REVIEW_EVENT_NAMES,
  ...(Object.keys(EVENT_TYPES) as (keyof typeof EVENT_TYPES)[]),
]

/** The envelope of one type with its `data`: what an endpoint receives and GET /v1/events/{id} shows (without deliveries). */
export function eventSchema(type: EventType, data: TSchema) {
  return Type.Object(
    {
      id: Type.String({ pattern: '^evt_', description: 'the same on every attempt and every resend (= webhook-id): deduplicate on it' }),
      type: Type.Literal(type),
      createdAt: Type.String({ format: 'date-time' }),
      livemode: Type.Boolean({ description: 'false: made by test-mode work (a ksk_test_ key)' }),
      data,
    },
    { additionalProperties: false },
  )
}

/** Any event, as the event log lists it. */
export const Event = Type.Object(
  {
    id: Type.String(),
    type: Type.Union(EVENT_TYPE_NAMES.map((t) => Type.Literal(t))),
    createdAt: Type.String({ format: 'date-time' }),
    livemode: Type.Boolean(),
    data: Type.Object({}, { additionalProperties: true, description: 'the type’s data (see the webhooks of this document)' }),
  },
  { additionalProperties: false },
)
export type EventBody = Static<typeof Event>

/**
 * An endpoint's `events` filter: exact types or a family (`balance.*`). Unknown names are refused at the API, so a
 * typo never silently subscribes to nothing.
 */
export const EventFilter = Type.Union([
  ...EVENT_TYPE_NAMES.map((t) => Type.Literal(t)),
  ...[...new Set(EVENT_TYPE_NAMES.filter((t) => t.includes('.')).map((t) => t.split('.')[0]!))].map((f) => Type.Literal(`${f}.*`)),
])
