// /v1/chargeback: the request (the dispute, the transaction, the merchant's evidence) and the result.
import { Type, type Static } from '@sinclair/typebox'
import { Nullable, StringEnum } from '../../core/capability.ts'
import { CATEGORIES, NETWORKS } from './codes.ts'

export const CategorySchema = StringEnum(CATEGORIES)
export const NetworkSchema = StringEnum(NETWORKS)
export const Action = StringEnum(['fight', 'accept'] as const)

export const Result = Type.Object(
  {
    reasonCategory: CategorySchema,
    // One of the network's codes (codes.ts) or null: never a code the network does not have.
    reasonCode: Nullable(Type.String({ maxLength: 8 }), {
      description: "one of the network's reason codes (the one the reason states, else the model's if the network has it), or null",
    }),
    // Optional (README): the network's name for the code, and the network it belongs to.
    reasonDescription: Type.Optional(Type.String({ maxLength: 200 })),
    network: Type.Optional(NetworkSchema),
    recommendedAction: Action,
    narrative: Type.String({ minLength: 1, maxLength: 20_000 }),
    evidenceChecklist: Type.Array(
      Type.Object(
        {
          item: Type.String({ minLength: 1, maxLength: 300 }),
          have: Type.Boolean({
            description: "true only when an item of the caller's evidence backs the entry (listed in matchedEvidence)",
          }),
          // Optional (README): the caller's evidence items that back the entry, each with the words of it that
          // show it (checked by code to be in that item); have is true iff any.
          matchedEvidence: Type.Optional(
            Type.Array(
              Type.Object(
                { evidenceIndex: Type.Integer({ minimum: 0, maximum: 49 }), quote: Type.String({ minLength: 1, maxLength: 1000 }) },
                { additionalProperties: false },
              ),
              { maxItems: 20 },
            ),
          ),
        },
        { additionalProperties: false },
      ),
      { minItems: 1, maxItems: 30 },
    ),
    winLikelihood: Type.Number({ minimum: 0, maximum: 1 }),
    rationale: Type.String({ minLength: 1, maxLength: 2000 }),
  },
  { additionalProperties: false },
)

export const Request = Type.Object(
  {
    reason: Type.String({ minLength: 1, maxLength: 4000 }),
    transaction: Type.Object(
      {
        amount: Type.Optional(Type.Number({ minimum: 0, maximum: 1e12 })),
        currency: Type.Optional(Type.String({ pattern: '^[A-Za-z]{3}$', maxLength: 3 })),
        date: Type.Optional(Type.String({ format: 'date', maxLength: 10 })),
        descriptor: Type.Optional(Type.String({ maxLength: 200 })),
      },
      { additionalProperties: false, minProperties: 1 },
    ),
    evidence: Type.Optional(Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 50 })),
    context: Type.Optional(Type.String({ maxLength: 20_000 })),
    network: Type.Optional(NetworkSchema),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
