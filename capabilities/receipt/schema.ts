import { Type, type Static } from '@sinclair/typebox'
import { DocObject, Grounded, Groundings } from '../../core/capability.ts'
import { CATEGORIES } from './categories.ts'

/** The single-valued fields that carry evidence (issue 29); currency and category are read or classified, not printed as such. */
export const GROUNDED = ['merchant', 'location', 'date', 'time', 'subtotal', 'tax', 'tip', 'total', 'paymentMethod'] as const

/** capabilities.md `receipt`, plus `warnings` (see README.md). Fields the receipt does not state are omitted. */
export const Result = Type.Object(
  {
    merchant: Type.String({ minLength: 1 }),
    location: Type.Optional(Type.String()),
    date: Type.Optional(Type.String({ format: 'date', description: 'YYYY-MM-DD' })),
    time: Type.Optional(Type.String({ pattern: '^([01][0-9]|2[0-3]):[0-5][0-9]$', description: 'HH:MM, 24-hour' })),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code' })),
    subtotal: Type.Optional(Type.Number()),
    tax: Type.Optional(Type.Number()),
    tip: Type.Optional(Type.Number()),
    total: Type.Optional(Type.Number()),
    paymentMethod: Type.Optional(Type.String({ description: 'card numbers masked to their last 4 digits' })),
    category: Type.Union(CATEGORIES.map((c) => Type.Literal(c))),
    items: Type.Array(
      Type.Object(
        { description: Type.String({ minLength: 1 }), quantity: Type.Optional(Type.Number()), amount: Type.Number(), ...Grounded },
        { additionalProperties: false },
      ),
    ),
    grounding: Groundings(GROUNDED),
    warnings: Type.Optional(
      Type.Array(Type.String(), { description: 'What does not add up or could not be read; checked by code, never silently fixed' }),
    ),
  },
  { additionalProperties: false },
)

export const Request = DocObject()

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
