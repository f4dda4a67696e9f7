import { Type, type Static } from '@sinclair/typebox'
import { DocObject, Nullable } from '../../core/capability.ts'

const Level = Type.Union([Type.Literal('low'), Type.Literal('medium'), Type.Literal('high')])

const Change = Type.Object(
  {
    section: Type.String({ minLength: 1, maxLength: 1000 }),
    change: Type.Union([Type.Literal('added'), Type.Literal('removed'), Type.Literal('modified')]),
    before: Nullable(Type.String({ maxLength: 50_000 }), { description: 'text of a; null when the change is "added"' }),
    after: Nullable(Type.String({ maxLength: 50_000 }), { description: 'text of b; null when the change is "removed"' }),
    materiality: Level,
    note: Type.String({ maxLength: 5000 }),
  },
  { additionalProperties: false },
)

export const Result = Type.Object(
  {
    changes: Type.Array(Change, { maxItems: 5000 }),
    changeCount: Type.Integer({ minimum: 0, description: 'changes.length, computed by code' }),
    summary: Type.String({ maxLength: 10_000 }),
    riskNotes: Type.Array(Type.String({ maxLength: 5000 }), { maxItems: 1000 }),
    warnings: Type.Optional(
      Type.Array(Type.String({ maxLength: 2000 }), {
        maxItems: 10_000,
        description: "what code found wrong with the model's changes (e.g. a quote not found in the document)",
      }),
    ),
  },
  { additionalProperties: false },
)
export const Request = Type.Object(
  {
    a: DocObject({}),
    b: DocObject({}),
  },
  { additionalProperties: false, description: 'a: the earlier version, b: the later version; each exactly one of file, fileUrl, text' },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
