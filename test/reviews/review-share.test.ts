// How many values human review (C21) sends to a person, on the eval fixtures: each extracting capability's grounding
// case (capabilities/<name>/eval.ts: a right answer, every value quoted from the line that states it; the fake model
// answers it) through the real app with review mode `ungrounded`, in each form its document has in devkit/fixtures
// (its text, its PDF with a text layer) and as a scan (a PDF without a text layer: nothing for code to find). A right
// answer on a document with text sends nothing to a person; a scan sends every value. The table (BENCHMARKS.md,
// "Human review") is printed at the end: `npm test -- test/reviews/review-share.test.ts`.
import t from 'tap'
import { CAPABILITIES_ROOT, capabilityFolders } from '../../core/capability-folders.ts'
import type { CapabilityManifest } from '../../core/capability.ts'
import { gradedValues } from '../../core/reviews/rule.ts'
import type { GroundingCase } from '../../devkit/eval-kit.ts'
import { startFakeOpenAI } from '../../devkit/fake-openai.ts'
import { pdfFile } from '../../devkit/fixture-files.ts'
import { allDocuments, imageOnlyPdfName } from '../../devkit/fixtures/documents.ts'
import { fakeServerProvider, startTestApp } from '../helpers/app.ts'
import { callToEnd } from '../helpers/examples.ts'

t.setTimeout(300_000)

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

let reply: unknown = null
const fake = await startFakeOpenAI({ text: () => reply })
t.teardown(() => fake.close())
const app = await startTestApp(t, { provider: fakeServerProvider(fake.baseURL, 'responses') })

const rows: string[] = []
const totals = { values: 0, flagged: 0 }
for (const name of capabilityFolders(CAPABILITIES_ROOT)) {
  const evalCases = (await import(`../../capabilities/${name}/eval.ts`)) as { groundingCase?: GroundingCase }
  if (!evalCases.groundingCase) continue
  const { groundingCase } = evalCases
  const manifest = ((await import(`../../capabilities/${name}/manifest.ts`)) as { default: CapabilityManifest }).default
  const takesFiles = 'file' in ((manifest.request as { properties?: object }).properties ?? {})
  t.test(`${name}: a right answer goes to review only where code has no text to check it against`, async (t) => {
    for (const [form, request] of forms(groundingCase.request, takesFiles)) {
      const customer = await app.customer(manifest.price * 10)
      await app.call('/v1/review-settings', { key: customer.key, method: 'PUT', body: { mode: 'ungrounded' } })
      reply = groundingCase.answer
      const outcome = await callToEnd(app, name, customer.key, request)
      t.equal(outcome.status, 200, `${form}: ${outcome.message}`)
      const values = gradedValues(outcome.body as object).length
      const flagged = ((outcome.body as { review?: { fields: string[] } }).review?.fields ?? []).length
      t.equal(flagged, form === 'scan' ? values : 0, `${form}: ${flagged} of ${values} values sent to a person`)
      if (form !== 'scan') Object.assign(totals, { values: totals.values + values, flagged: totals.flagged + flagged })
      rows.push(`| ${name} | ${form} | ${values} | ${flagged} | ${values ? `${((100 * flagged) / values).toFixed(0)}%` : '-'} |`)
    }
  })
}

t.teardown(() => {
  console.log(
    [
      '| capability | form | values with evidence | sent to a person | share |',
      '|---|---|---|---|---|',
      ...rows,
      `| all, text and PDF | | ${totals.values} | ${totals.flagged} | ${((100 * totals.flagged) / Math.max(1, totals.values)).toFixed(1)}% |`,
    ].join('\n'),
  )
})
