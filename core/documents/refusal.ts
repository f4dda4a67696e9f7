// Why a document was refused, as decided inside a decoder process or by the pool that watches it. The codes are
// the document_* codes of core/errors.ts (422): the caller's file, not our failure, so the call is free.
import type { DocumentLimits } from '../config.ts'

export type DocumentRefusalCode = 'document_too_complex' | 'document_unreadable' | 'document_encrypted'

export class DocumentRefusal extends Error {
  readonly code: DocumentRefusalCode
  constructor(code: DocumentRefusalCode, message: string) {
    super(message)
    this.code = code
  }
}

/** The budgets a decoder checks while it decodes (the pool itself enforces memory and time). */
export type DocumentBudgets = Pick<
  DocumentLimits,
  'maxDecompressedBytes' | 'maxPages' | 'maxObjects' | 'maxCharacters' | 'maxNesting' | 'maxImagePixels'
>
