import { Type, type Static } from '@sinclair/typebox'
import { DocObject, EXPLICIT_NULL, Grounded, Groundings } from '../../core/capability.ts'

/** The document fields that carry evidence (issue 29); currency is a code read from a symbol, not printed as such. */
export const GROUNDED = ['party', 'documentNumber', 'date', 'totalAmount'] as const

/** Spec 2.6, plus the optional `currency` and `warnings` (see README.md). Fields not in the document are omitted. */
export const Result = Type.Object(
  {
    docType: Type.String({
      minLength: 1,
      maxLength: 64,
      description: 'lower_snake_case: invoice, receipt, eob, era, coi, bank_statement, ...',
    }),
    party: Type.Optional(Type.String({ description: 'Primary party (vendor, payer or carrier)' })),
    documentNumber: Type.Optional(Type.String()),
    date: Type.Optional(Type.String({ format: 'date', description: 'Primary date, YYYY-MM-DD' })),
    totalAmount: Type.Optional(Type.Number()),
    currency: Type.Optional(Type.String({ pattern: '^[A-Z]{3}$', description: 'ISO 4217 code of totalAmount' })),
    lineItems: Type.Optional(
      Type.Array(
        Type.Object({ description: Type.String({ minLength: 1 }), amount: Type.Number(), ...Grounded }, { additionalProperties: false }),
      ),
    ),
    fields: Type.Array(
      Type.Object(
        {
          label: Type.String({ minLength: 1 }),
          value: Type.Union([Type.String(), Type.Number(), Type.Null()], {
            [EXPLICIT_NULL]: true,
            description: 'dates as YYYY-MM-DD, amounts as numbers; null is an answer (the field has no value), never left out',
          }),
          ...Grounded,
        },
        { additionalProperties: false },
      ),
    ),
    grounding: Groundings(GROUNDED),
    warnings: Type.Optional(
      Type.Array(Type.String(), { description: 'Values present in the answer that could not be read; never silently dropped' }),
    ),
  },
  { additionalProperties: false },
)

export const Request = DocObject({
  docType: Type.Optional(Type.String({ maxLength: 64, description: 'A hint (e.g. "invoice", "eob"); the document decides' })),
})

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
