import { Type, type Static } from '@sinclair/typebox'
import { DocObject, Nullable } from '../../core/capability.ts'

const Cell = Type.String({ maxLength: 20_000 })

const Table = Type.Object(
  {
    title: Nullable(Type.String({ maxLength: 1000 })),
    page: Nullable(Type.Integer({ minimum: 1 }), {
      description: '1-based page where the table starts; always within the document',
    }),
    headers: Type.Array(Cell, { maxItems: 2000 }),
    rows: Type.Array(Type.Array(Cell, { maxItems: 2000 }), {
      maxItems: 200_000,
      description: 'every row has exactly headers.length cells',
    }),
  },
  { additionalProperties: false },
)

export const Result = Type.Object(
  {
    tables: Type.Array(Table, { maxItems: 5000 }),
    tableCount: Type.Integer({ minimum: 0, description: 'tables.length, computed by code' }),
    pageCount: Type.Optional(
      Type.Integer({ minimum: 0, description: 'pages in the document (1 for text without form feeds and for images)' }),
    ),
    warnings: Type.Optional(
      Type.Array(Type.String({ maxLength: 2000 }), {
        maxItems: 10_000,
        description: "what code found wrong with the model's tables and how it made them rectangular",
      }),
    ),
  },
  { additionalProperties: false },
)
export const Request = DocObject()

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
