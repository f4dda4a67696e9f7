import { Type, type Static } from '@sinclair/typebox'
import { answerDocument, type CapabilityContext, MText, Nullable } from '../../core/capability.ts'
import type { Input, Output } from './schema.ts'

// Asked of the model: the response fields code cannot compute. Cells may come back as numbers or null; code
// turns them into strings. Every key present, no length bounds (strict structured-output friendly).
const ModelCell = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()])
const ModelTables = Type.Object(
  {
    tables: Type.Array(
      Type.Object(
        {
          title: MText,
          page: Nullable(Type.Integer()),
          headers: Type.Array(ModelCell),
          rows: Type.Array(Type.Array(ModelCell)),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
)
type ModelTables = Static<typeof ModelTables>

const cellText = (c: string | number | boolean | null): string => (c === null ? '' : String(c).trim())

export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {
  const { answer, pages } = await answerDocument<ModelTables>(ctx, input, ({ length: pageCount }) => ({
    system: [
      'You find every table in a document and return each one as data. Copy cell text exactly as printed; never invent, total or reorder.',
      `The document has ${pageCount} page${pageCount === 1 ? '' : 's'}${pageCount > 1 ? ', marked "--- page N ---" where its text is given' : ''}.`,
      'Return JSON: {"tables": [{title, page, headers, rows}]}, tables in reading order:',
      '- title: the caption or heading of the table, or null;',
      `- page: the 1-based page (1..${pageCount}) where the table starts;`,
      '- headers: the column headers, one string per column (use "" for a column without a header);',
      '- rows: the body rows, each an array with exactly one cell per header, as strings ("" for an empty cell).',
      'A table continued on the next page is one table. Header rows are not body rows. No tables: {"tables": []}.',
    ].join('\n'),
    schema: ModelTables,
  }))
  const pageCount = pages.length

  const warnings: string[] = []
  const tables: Output['tables'] = []
  answer.tables.forEach((raw, i) => {
    const at = `tables[${i}]`
    let headers = raw.headers.map(cellText)
    let rows = raw.rows.map((r) => r.map(cellText))
    if (headers.length === 0 && rows.every((r) => r.length === 0)) {
      warnings.push(`${at}: the model returned a table without headers or cells; it was left out.`)
      return
    }
    // Cells past the header width that are empty carry nothing: drop them. Non-empty ones are data: keep
    // them under unnamed headers rather than truncate, and say so.
    rows = rows.map((r) => {
      let end = r.length
      while (end > headers.length && r[end - 1] === '') end--
      return r.slice(0, end)
    })
    const width = rows.reduce((w, r) => Math.max(w, r.length), headers.length)
    if (headers.length === 0) {
      warnings.push(`${at}: the model gave no headers; ${width} unnamed ("") headers were added.`)
    } else if (width > headers.length) {
      const long = rows.flatMap((r, j) => (r.length > headers.length ? [j] : []))
      warnings.push(
        `${at}: ${long.length} row(s) (${list(long)}) had more cells than the ${headers.length} headers; ${width - headers.length} unnamed ("") header(s) were added so no cell is lost.`,
      )
    }
    headers = [...headers, ...Array<string>(width - headers.length).fill('')]
    const short = rows.flatMap((r, j) => (r.length < width ? [j] : []))
    if (short.length > 0)
      warnings.push(`${at}: ${short.length} row(s) (${list(short)}) had fewer cells than the headers; padded with empty cells at the end.`)
    rows = rows.map((r) => [...r, ...Array<string>(width - r.length).fill('')])

    let page: number | null = raw.page
    if (page !== null && !(Number.isInteger(page) && page >= 1 && page <= pageCount)) {
      warnings.push(`${at}: page ${page} is outside the document's ${pageCount} page(s); returned null.`)
      page = null
    }
    if (page === null && pageCount === 1) page = 1 // a one-page document: code knows the page
    const title = raw.title?.trim() || null
    tables.push({ title, page, headers, rows })
  })
  return { tables, tableCount: tables.length, pageCount, warnings }
}

function list(indexes: number[]): string {
  const shown = indexes.slice(0, 10).join(', ')
  return indexes.length > 10 ? `rows ${shown}, …` : `rows ${shown}`
}
