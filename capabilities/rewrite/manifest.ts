import { Type } from '@sinclair/typebox'
import { StringEnum, defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { LENGTHS, MAX_TEXT, RewriteResult } from './shapes.ts'

const Brief = Type.String({ maxLength: 2000 })

export default defineCapability({
  name: 'rewrite',
  summary: 'Rewrite copy in a brand voice and report what changed',
  price: 3,
  async: false,
  ratePerMinute: 120,
  model: 'text',
  request: Type.Object(
    {
      text: Type.String({ minLength: 1, maxLength: MAX_TEXT }),
      voice: Type.Optional(Brief),
      goal: Type.Optional(Brief),
      audience: Type.Optional(Brief),
      length: Type.Optional(StringEnum(LENGTHS)),
      preserve: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
          maxItems: 50,
          description: 'Phrases (product names, legal lines) that must come back unchanged wherever they occur in text',
        }),
      ),
    },
    { additionalProperties: false },
  ),
  response: RewriteResult,
  example: {
    request: {
      text: 'Our platform provides users with the ability to efficiently manage all of their invoices in one single place.',
      voice: 'plain, confident, friendly',
      length: 'shorter',
      preserve: ['invoices'],
    },
    response: {
      rewritten: 'Manage all your invoices in one place.',
      changes: ['Cut filler ("provides users with the ability to")', 'Addressed the reader directly', 'Removed the redundant "single"'],
    },
  },
  handler,
})
