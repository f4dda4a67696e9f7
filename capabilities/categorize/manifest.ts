import { Type } from '@sinclair/typebox'
import { defineCapability } from '../../core/capability.ts'
import { check, handler } from './handler.ts'

const Category = Type.String({ minLength: 1, maxLength: 200 })

export const MAX_ITEMS = 100 // spec 8.2 / C12: up to 100 items per call
// 100 items × 5,000 characters keeps one call within the 500,000-character text limit of C12.
export const MAX_ITEM_CHARS = 5_000

export const CategorizeResult = Type.Object(
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

export default defineCapability({
  name: 'categorize',
  summary: 'Categorize up to 100 items against a taxonomy, with per-item confidence',
  price: 3,
  async: false,
  ratePerMinute: 60,
  model: 'text',
  request: Type.Object(
    {
      items: Type.Array(Type.String({ minLength: 1, maxLength: MAX_ITEM_CHARS }), { minItems: 1, maxItems: MAX_ITEMS }),
      taxonomy: Type.Array(Category, { minItems: 1, maxItems: 200, uniqueItems: true }),
      multi: Type.Optional(Type.Boolean()),
      instructions: Type.Optional(Type.String({ maxLength: 4000 })),
    },
    { additionalProperties: false },
  ),
  response: CategorizeResult,
  example: {
    request: {
      items: ['Refund for order #1182 not received', 'App crashes when I open settings', 'Package arrived damaged'],
      taxonomy: ['billing', 'technical', 'shipping'],
    },
    response: {
      results: [
        { index: 0, category: 'billing', confidence: 0.92 },
        { index: 1, category: 'technical', confidence: 0.95 },
        { index: 2, category: 'shipping', confidence: 0.88 },
      ],
    },
  },
  check,
  handler,
})
