import { Type, type Static } from '@sinclair/typebox'

const Line = (max: number) => Type.String({ minLength: 1, maxLength: max })

export const ActionItem = Type.Object(
  {
    task: Line(2000),
    owner: Type.Optional(Line(200)),
    due: Type.Optional(Type.String({ format: 'date', maxLength: 10 })),
  },
  { additionalProperties: false },
)

export const Result = Type.Object(
  {
    title: Line(300),
    summary: Line(20_000),
    decisions: Type.Array(Line(2000), { maxItems: 200 }),
    actionItems: Type.Array(ActionItem, { maxItems: 200 }),
    openQuestions: Type.Array(Line(2000), { maxItems: 200 }),
    /** Owners and dates the model gave that code could not keep (see README). Present only when not empty. */
    warnings: Type.Optional(Type.Array(Type.String({ maxLength: 1000 }), { maxItems: 400 })),
  },
  { additionalProperties: false },
)

export const Request = Type.Object(
  {
    transcript: Type.String({ minLength: 1, maxLength: 500_000 }),
    attendees: Type.Optional(Type.Array(Line(200), { minItems: 1, maxItems: 200, uniqueItems: true })),
    meetingDate: Type.Optional(
      Type.String({ format: 'date', maxLength: 10, description: 'YYYY-MM-DD; relative deadlines ("by Friday") are resolved against it' }),
    ),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
