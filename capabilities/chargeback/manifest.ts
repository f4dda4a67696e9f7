import { Type } from '@sinclair/typebox'
import { defineCapability } from '../../core/capability.ts'
import { Action, CategorySchema, NetworkSchema, handler } from './handler.ts'

export const ChargebackResult = Type.Object(
  {
    reasonCategory: CategorySchema,
    // One of the network's codes (codes.ts) or null: never a code the network does not have.
    reasonCode: Type.Union([Type.String({ maxLength: 8 }), Type.Null()], {
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

export default defineCapability({
  name: 'chargeback',
  summary: 'Representment narrative, evidence checklist, reason code, win-likelihood',
  price: 15,
  async: false,
  ratePerMinute: 30,
  model: 'text',
  request: Type.Object(
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
  ),
  response: ChargebackResult,
  example: {
    request: {
      reason: 'Cardholder says the order never arrived.',
      transaction: { amount: 249.99, currency: 'USD', date: '2026-02-03', descriptor: 'ACME*OUTDOOR' },
      evidence: ['UPS tracking 1Z999AA10123456784 shows delivered 2026-02-06', 'Order confirmation email'],
      network: 'visa',
    },
    response: {
      reasonCategory: 'consumer_dispute',
      reasonCode: '13.1',
      reasonDescription: 'Merchandise/Services Not Received',
      network: 'visa',
      recommendedAction: 'fight',
      narrative:
        'The cardholder ordered on 2026-02-03 and the goods were delivered to the billing address on 2026-02-06 (UPS 1Z999AA10123456784). We ask that the dispute be reversed.',
      evidenceChecklist: [
        {
          item: 'Proof of delivery (carrier tracking)',
          have: true,
          matchedEvidence: [{ evidenceIndex: 0, quote: 'shows delivered 2026-02-06' }],
        },
        { item: 'Signed delivery confirmation', have: false },
      ],
      winLikelihood: 0.7,
      rationale: 'Carrier proof of delivery to the billing address usually wins a 13.1; a signature would make it stronger.',
    },
  },
  handler,
})
