import { Type } from '@sinclair/typebox'
import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'

export const SummarizeResult = Type.Object(
  {
    summary: Type.String({ minLength: 1 }),
    keyPoints: Type.Array(Type.String({ minLength: 1 }), { maxItems: 15 }),
    actionItems: Type.Array(
      Type.Object(
        { task: Type.String({ minLength: 1 }), owner: Type.Optional(Type.String({ minLength: 1 })) },
        { additionalProperties: false },
      ),
      { maxItems: 50 },
    ),
  },
  { additionalProperties: false },
)

export default defineCapability({
  name: 'summarize',
  summary: 'Summary, key points and action items from a transcript, thread or report',
  price: 3,
  async: false,
  ratePerMinute: 60,
  model: 'text',
  request: Type.Object(
    {
      text: Type.String({ minLength: 1, maxLength: 500_000 }),
      length: Type.Optional(Type.Union([Type.Literal('brief'), Type.Literal('standard'), Type.Literal('detailed')])),
      actionItems: Type.Optional(Type.Boolean()),
    },
    { additionalProperties: false },
  ),
  response: SummarizeResult,
  example: {
    request: {
      text: 'Ana: the March invoice run failed again. Ben: I will patch the retry logic by Friday. Ana: good, then we re-run.',
      length: 'brief',
    },
    response: {
      summary: 'The March invoice run failed; Ben will fix the retry logic by Friday before a re-run.',
      keyPoints: ['The March invoice run failed again.', 'The retry logic needs a patch.'],
      actionItems: [
        { task: 'Patch the invoice-run retry logic by Friday', owner: 'Ben' },
        { task: 'Re-run the March invoices after the fix', owner: 'Ana' },
      ],
    },
  },
  handler,
})
