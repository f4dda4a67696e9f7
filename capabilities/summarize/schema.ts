import { Type, type Static } from '@sinclair/typebox'

export const Result = Type.Object(
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

export const Request = Type.Object(
  {
    text: Type.String({ minLength: 1, maxLength: 500_000 }),
    length: Type.Optional(Type.Union([Type.Literal('brief'), Type.Literal('standard'), Type.Literal('detailed')])),
    actionItems: Type.Optional(Type.Boolean()),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
