// Request-schema pieces shared by every document endpoint (capabilities.md `Doc`; contract C12 bounds).
import { Type, type TProperties } from '@sinclair/typebox'

// ≈ 20 MiB of bytes as base64 (4/3); the 20 MiB body limit (C12) is the real cap.
export const InlineFile = Type.Object(
  {
    data: Type.String({ maxLength: 28_000_000, description: 'base64-encoded file bytes' }),
    mimeType: Type.String({ maxLength: 127, description: 'media type of the file (a hint: the bytes decide)' }),
  },
  { additionalProperties: false },
)

export const docProperties = {
  file: Type.Optional(InlineFile),
  // http(s) only (C12): refusing other schemes here gives a 400 with a path instead of a failed fetch.
  fileUrl: Type.Optional(Type.String({ format: 'uri', maxLength: 2048, pattern: '^[Hh][Tt][Tt][Pp][Ss]?://' })),
  text: Type.Optional(Type.String({ minLength: 1, maxLength: 500_000 })),
  // Issue 27: only these pages are read, sent and priced; citations keep the original page numbers.
  pages: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'e.g. "1-3,7"' })),
}

/** Spread into an object schema's options: exactly one of file, fileUrl, text. */
export const exactlyOneDoc = {
  oneOf: [{ required: ['file'] }, { required: ['fileUrl'] }, { required: ['text'] }],
}

export function DocObject<T extends TProperties = Record<never, never>>(extraProps?: T) {
  return Type.Object({ ...docProperties, ...(extraProps ?? ({} as T)) }, { additionalProperties: false, ...exactlyOneDoc })
}

// A lead, a company or a product: free text, or a flat JSON object (e.g. the result of /v1/enrich), bounded
// (C12). Values: scalars, arrays of scalars, or one level of nested object of scalars.
const Scalar = Type.Union([Type.String({ maxLength: 4000 }), Type.Number(), Type.Boolean(), Type.Null()])
const ScalarList = Type.Array(Type.Union([Type.String({ maxLength: 1000 }), Type.Number(), Type.Boolean(), Type.Null()]), { maxItems: 50 })
const Nested = Type.Object({}, { additionalProperties: Scalar, maxProperties: 40, propertyNames: { maxLength: 100 } })
export const Profile = Type.Union([
  Type.String({ minLength: 1, maxLength: 20_000 }),
  Type.Object(
    {},
    {
      additionalProperties: Type.Union([Scalar, ScalarList, Nested]),
      minProperties: 1,
      maxProperties: 60,
      propertyNames: { maxLength: 100 },
    },
  ),
])

/** A caller's document as the request carries it (exactly one of the three; the schema above says so). */
export interface ResolvedDocument {
  kind: 'text' | 'pdf' | 'image'
  mediaType: string
  /** all text; PDF pages joined with form feeds */
  text: string
  /** text per page: 1 entry for text, [] for images */
  pages: string[]
  /** the original bytes for pdf and image */
  bytes?: Uint8Array
  /** false for images and for PDFs without extractable text (send those to a vision model as files) */
  hasTextLayer: boolean
  /**
   * The page numbers the caller selected (`pages`), ascending; then `pages` has every page of the original, ''
   * where not selected, `text` only the selected ones, and the file itself is never sent.
   */
  selected?: number[]
}

export interface DocumentInput {
  file?: { data: string; mimeType: string }
  fileUrl?: string
  text?: string
  pages?: string
}
