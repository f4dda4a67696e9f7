import { Type, type Static } from '@sinclair/typebox'

export const Category = Type.String({ minLength: 1, maxLength: 200 })

const MAX_ITEMS = 100 // spec 8.2 / C12: up to 100 items per call
// 100 items × 5,000 characters keeps one call within the 500,000-character text limit of C12.
const MAX_ITEM_CHARS = 5_000

export const Result = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        {
          index: Type.Integer({ minimum: 0, maximum: MAX_ITEMS - 1 }),
          category: Category,
          categories: Type.Optional(Type.Array(Category, { maxItems: 200 })),
          confidence: Type.Number({ minimum: 0, maximum: 1 }),
        },
        { additionalProperties: false },
      ),
      { maxItems: MAX_ITEMS },
    ),
  },
  { additionalProperties: false },
)

export const Request = Type.Object(
  {
    items: Type.Array(Type.String({ minLength: 1, maxLength: MAX_ITEM_CHARS }), { minItems: 1, maxItems: MAX_ITEMS }),
    taxonomy: Type.Array(Category, { minItems: 1, maxItems: 200, uniqueItems: true }),
    multi: Type.Optional(Type.Boolean()),
    instructions: Type.Optional(Type.String({ maxLength: 4000 })),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
