// /v1/split: the request (the shared document input) and the result.
import { Type, type Static } from '@sinclair/typebox'
import { DocObject, Nullable } from '../../core/capability.ts'

export const Request = DocObject()

export const SplitDocument = Type.Object(
  {
    docType: Type.String({ minLength: 1, maxLength: 100, description: 'lower-case kind, e.g. invoice, letter, contract, receipt' }),
    title: Type.String({ minLength: 1, maxLength: 1000 }),
    pageStart: Type.Integer({ minimum: 1, description: '1-based, inclusive' }),
    pageEnd: Type.Integer({ minimum: 1, description: '1-based, inclusive; ≥ pageStart and ≤ pageCount' }),
    party: Nullable(Type.String({ maxLength: 1000 })),
    date: Nullable(Type.String({ pattern: '^\\d{4}-\\d{2}-\\d{2}$', maxLength: 10 })),
    summary: Type.String({ maxLength: 5000 }),
  },
  { additionalProperties: false },
)

export const Result = Type.Object(
  {
    documents: Type.Array(SplitDocument, { minItems: 1, maxItems: 10_000, description: 'in page order, page ranges never overlap' }),
    documentCount: Type.Integer({ minimum: 1, description: 'documents.length, computed by code' }),
    pageCount: Type.Optional(
      Type.Integer({ minimum: 1, description: 'pages in the bundle (1 for text without form feeds and for images)' }),
    ),
    unassignedPages: Type.Optional(
      Type.Array(Type.Integer({ minimum: 1 }), {
        maxItems: 100_000,
        description: 'pages in no document (blank pages, separator sheets), ascending',
      }),
    ),
    warnings: Type.Optional(Type.Array(Type.String({ maxLength: 2000 }), { maxItems: 10_000 })),
  },
  { additionalProperties: false },
)

export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
