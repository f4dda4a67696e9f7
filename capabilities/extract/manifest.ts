import { Type } from '@sinclair/typebox'
import { EXPLICIT_NULL, defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'

const FieldName = Type.String({ minLength: 1, maxLength: 200 })

export const ExtractResult = Type.Object(
  {
    results: Type.Array(
      Type.Object(
        {
          field: Type.String(),
          value: Type.Union([Type.String(), Type.Null()], {
            [EXPLICIT_NULL]: true,
            description: 'null: the text does not state this field',
          }),
          confidence: Type.Number({ minimum: 0, maximum: 1 }),
        },
        { additionalProperties: false },
      ),
      { maxItems: 100 },
    ),
  },
  { additionalProperties: false },
)

export default defineCapability({
  name: 'extract',
  summary: 'Extract a caller-defined field set from text, with typed values and confidence',
  price: 4,
  async: false,
  ratePerMinute: 60,
  model: 'text',
  request: Type.Object(
    {
      text: Type.String({ minLength: 1, maxLength: 500_000 }),
      fields: Type.Array(FieldName, { minItems: 1, maxItems: 100, uniqueItems: true }),
      instructions: Type.Optional(Type.String({ maxLength: 4000 })),
    },
    { additionalProperties: false },
  ),
  response: ExtractResult,
  example: {
    request: { text: 'Invoice INV-2041 from Acme GmbH, due 2026-03-31.', fields: ['invoiceNumber', 'vendor', 'dueDate', 'poNumber'] },
    response: {
      results: [
        { field: 'invoiceNumber', value: 'INV-2041', confidence: 0.98 },
        { field: 'vendor', value: 'Acme GmbH', confidence: 0.95 },
        { field: 'dueDate', value: '2026-03-31', confidence: 0.93 },
        { field: 'poNumber', value: null, confidence: 0 },
      ],
    },
  },
  handler,
})
