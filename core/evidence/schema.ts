// Schema pieces for evidence: what the model is asked to give with a value (verbatim quote, page, its own
// confidence) and what the API publishes (evidence found by code, grounded, the confidence of the rule).
import { Type, type TObject, type TProperties } from '@sinclair/typebox'
import { StringEnum } from '../models/answers.ts'
import { EXPLICIT_NULL } from '../run/result.ts'

// ---- asked of the model (strict structured-output friendly: every key required, null for none) ----------

/**
 * Properties to add to an item the model answers: the support of that item's values. Optional: a model that
 * gives none is not refused, its values are unsupported (strict mode sends them required and nullable).
 */
export const MSupport = {
  quote: Type.Optional(
    Type.Union([Type.String(), Type.Null()], {
      description: 'the shortest passage of the document that states this value, copied character for character; null if none',
    }),
  ),
  page: Type.Optional(Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], { description: 'the number of the page the quote is on' })),
  confidence: Type.Optional(Type.Number({ minimum: 0, maximum: 1, description: 'how sure you are that the value is right, 0..1' })),
}

/** The model's supports of a result's single-valued fields, one entry per field it gives a value for. */
export const MSupports = (fields: readonly string[]) =>
  Type.Optional(
    Type.Array(Type.Object({ field: StringEnum(fields), ...MSupport }, { additionalProperties: false }), {
      description: 'one entry per field above that has a value: {field, quote, page, confidence}',
    }),
  )

/** The instruction that goes with MSupport / MSupports in a system prompt. */
export const SUPPORT_RULES = [
  'Evidence: for every value, "quote" is the shortest passage of the document that states it, copied exactly as printed',
  '(same words, digits and punctuation; not reformatted), "page" the number N of the page marker it is under',
  '(1 for a document without markers), and "confidence" how sure you are the value is right, from 0 to 1.',
  'Code looks every quote up in the document: a value whose quote is not there counts as unsupported.',
].join('\n')

// ---- published ---------------------------------------------------------------------------------------------

/**
 * Evidence of a value a person reviewed (C21, docs/api.md "Human review"): who, when, and whether they kept or corrected it.
 * Only reviews write it, never a handler: its static type is `never`, so handlers' result types stay as they are.
 */
const ReviewEvidence = Type.Unsafe<never>(
  Type.Object(
    {
      source: Type.Literal('review'),
      action: Type.Union([Type.Literal('accept'), Type.Literal('correct')]),
      reviewer: Type.Object(
        {
          type: Type.Union([Type.Literal('member'), Type.Literal('key')]),
          id: Type.String(),
          email: Type.Optional(Type.String()),
          keyPrefix: Type.Optional(Type.String()),
        },
        { additionalProperties: false, description: 'the member (dashboard) or key (API) that completed the review' },
      ),
      reviewId: Type.String({ description: 'rev_…' }),
      reviewedAt: Type.String({ format: 'date-time' }),
    },
    { additionalProperties: false },
  ),
)

const EvidenceSchema = Type.Union(
  [
    Type.Object(
      {
        page: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
          [EXPLICIT_NULL]: true,
          description: "the page where code found the quote (never the model's claim); null for input without pages",
        }),
        quote: Type.String({ description: "the document's own text of the passage" }),
      },
      { additionalProperties: false },
    ),
    ReviewEvidence,
    Type.Null(),
  ],
  {
    [EXPLICIT_NULL]: true,
    description:
      'the passage code found in the document and derived the value from; source "review": a person reviewed the value; null: not found (the value is unsupported)',
  },
)

/** Properties every grounded value carries (spread them into an item's object). */
export const Grounded = {
  evidence: EvidenceSchema,
  grounded: Type.Boolean({
    description: 'true when code found the evidence (or a person reviewed the value); false values are capped at confidence 0.5',
  }),
  confidence: Type.Number({
    minimum: 0,
    maximum: 1,
    description: "the model's figure, capped at 0.5 without evidence and at 0.2 when code found the value wrong",
  }),
} satisfies TProperties

/** The groundings of a result's single-valued fields, by field name; a field not in the result has none. */
export const Groundings = (fields: readonly string[]): TObject =>
  Type.Object(Object.fromEntries(fields.map((f) => [f, Type.Optional(Type.Object(Grounded, { additionalProperties: false }))])), {
    additionalProperties: false,
    description:
      'evidence, grounded and confidence of each single-valued field present in the result (docs/api.md "Evidence and confidence")',
  })
