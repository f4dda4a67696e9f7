// How many values human review (C21) would send to a person, on the eval fixtures: each extracting capability's
// grounding case (capabilities/<name>/eval.ts: a right answer, every value quoted from the line that states it)
// answered through the real app, in each form its document has in test/fixtures (its text, its PDF with a text
// layer) and as a scan (a PDF without text: nothing for code to find), with review mode `ungrounded`. A value is
// flagged when code cannot find its quote or finds it wrong; the table says how many of each form's values, and
// whether the result went to review. The model is the fake server answering the right answer, so the figure is
// what code alone sends to a person when the model is right: a floor for a real model.
//
//   node scripts/review-share.ts      (DATABASE_URL, or the embedded PostgreSQL; a throwaway database)
import type { CapabilityManifest } from '../core/capability.ts'
import { gradedValues } from '../core/reviews/rule.ts'
import { allDocuments, imageOnlyPdfName } from '../test/fixtures/documents.ts'
import { fakeServerProvider, startTestApp } from '../test/helpers/app.ts'
import type { GroundingCase } from '../test/helpers/eval-kit.ts'
import { callToEnd } from '../test/helpers/examples.ts'
import { pdfFile } from '../test/helpers/fixture-files.ts'
import { startFakeOpenAI } from '../test/helpers/fake-openai.ts'

const EXTRACTING = ['parse', 'extract', 'invoice', 'receipt', 'statement', 'resume', 'contract']

/** The forms of a grounding case's document: as given, then its other form, then as a scan (endpoints that take files). */
function forms(request: Record<string, unknown>, takesFiles: boolean): Array<[string, Record<string, unknown>]> {
  const { text, file, ...options } = request as { text?: string; file?: { data: string } }
  const doc = allDocuments.find((d) => (text !== undefined ? d.toText() === text : pdfFile(d.file).data === file?.data))
  const out: Array<[string, Record<string, unknown>]> = []
  if (text !== undefined || doc) out.push(['text', { ...options, text: text ?? doc!.toText() }])
  if (takesFiles && (file || doc)) out.push(['PDF', { ...options, file: file ?? pdfFile(doc!.file) }])
  if (takesFiles) out.push(['scan', { ...options, file: pdfFile(imageOnlyPdfName) }])
  return out
}

const teardowns: Array<() => unknown> = []
let reply: unknown = null
const fake = await startFakeOpenAI({ text: () => reply })
teardowns.push(() => fake.close())
const app = await startTestApp({ teardown: (fn) => teardowns.push(fn) }, { provider: fakeServerProvider(fake.baseURL, 'responses') })

const rows: string[] = []
const totals = { values: 0, flagged: 0 }
try {
  for (const name of EXTRACTING) {
    const manifest = ((await import(`../capabilities/${name}/manifest.ts`)) as { default: CapabilityManifest }).default
    const { groundingCase } = (await import(`../capabilities/${name}/eval.ts`)) as { groundingCase: GroundingCase }
    const takesFiles = 'file' in ((manifest.request as { properties?: object }).properties ?? {})
    for (const [form, request] of forms(groundingCase.request, takesFiles)) {
      const customer = await app.customer(manifest.price * 100)
      await app.call('/v1/review-settings', { key: customer.key, method: 'PUT', body: { mode: 'ungrounded' } })
      reply = groundingCase.answer
      const outcome = await callToEnd(app, name, customer.key, request)
      if (outcome.status !== 200) throw new Error(`${name} (${form}): ${outcome.status} ${outcome.message}`)
      const values = gradedValues(outcome.body as object).length
      const flagged = ((outcome.body as { review?: { fields: string[] } }).review?.fields ?? []).length
      if (form !== 'scan') Object.assign(totals, { values: totals.values + values, flagged: totals.flagged + flagged })
      const share = values ? `${((100 * flagged) / values).toFixed(0)}%` : '-'
      rows.push(`| ${name} | ${form} | ${values} | ${flagged} | ${share} | ${flagged ? 'yes' : 'no'} |`)
    }
  }
} finally {
  for (const fn of teardowns.reverse()) await fn()
}
console.log(
  [
    '| capability | form | values with evidence | sent to a person | share | result reviewed |',
    '|---|---|---|---|---|---|',
    ...rows,
    `| all, text and PDF | | ${totals.values} | ${totals.flagged} | ${((100 * totals.flagged) / Math.max(1, totals.values)).toFixed(1)}% | |`,
  ].join('\n'),
)
