// One decoder process of the pool (sandbox.ts): decodes one document (renders one PDF page, or counts the tokens
// of texts) at a time and answers over IPC. It holds nothing but the task, so the pool may kill it at any moment (memory, time) without
// losing anything.
import { getResolvedPDFJS } from 'unpdf'
import { countTokens } from '../models/tokens.ts'
import { checkImage } from './image.ts'
import type { PageRanges } from './pages.ts'
import { extractPdfText, renderPdfPage } from './pdf.ts'
import { DocumentRefusal, type DocumentBudgets } from './refusal.ts'

export type DecodeTask =
  | {
      id: number
      mediaType: string
      bytes: Uint8Array
      budgets: DocumentBudgets
      /** a PDF's pages to read (the caller's `pages`); all when absent */
      only?: PageRanges
    }
  | { id: number; /** tokens of each, as `modelId` counts them */ texts: string[]; modelId: string }
  | { id: number; /** this page of the PDF `bytes` as a PNG */ render: number; bytes: Uint8Array; budgets: DocumentBudgets }

export type DecodeAnswer =
  | { id: number; pages: string[] }
  | { id: number; tokens: number[] }
  | { id: number; png: Uint8Array }
  | { id: number; refusal: { code: DocumentRefusal['code']; message: string } }
  | { ready: true }

const send = (answer: DecodeAnswer) => process.send!(answer)

async function decode(task: DecodeTask): Promise<DecodeAnswer> {
  try {
    if ('texts' in task) return { id: task.id, tokens: task.texts.map((text) => countTokens(text, task.modelId)) }
    if ('render' in task) return { id: task.id, png: await renderPdfPage(task.bytes, task.render, task.budgets) }
    if (task.mediaType === 'application/pdf')
      return { id: task.id, pages: (await extractPdfText(task.bytes, task.budgets, task.only)).pages }
    checkImage(task.bytes, task.mediaType, task.budgets)
    return { id: task.id, pages: [] }
  } catch (err) {
    if (err instanceof DocumentRefusal) return { id: task.id, refusal: { code: err.code, message: err.message } }
    return { id: task.id, refusal: { code: 'document_unreadable', message: 'the document could not be read' } }
  }
}

process.on('message', (task: DecodeTask) => {
  void decode(task).then(send)
})
process.on('disconnect', () => process.exit(0)) // the server is gone: nobody to answer
await getResolvedPDFJS() // loaded before the first document, so no document pays for it
send({ ready: true })
