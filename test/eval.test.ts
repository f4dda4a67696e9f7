// The eval harness (npm run eval, issue 16): every capability has cases scored by code, the scorer honours a
// folder's align/compare options, ready requests are labelled by what they send, and a run against the fake
// OpenAI-compatible server ends with a JSON and a Markdown report. Scores against the fake mean nothing (its
// answers are schema-minimal): this pins that the harness runs and scores, not the quality of any answer.
import { execFile } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { EVALS, formOf, scoreCase } from '../scripts/eval.ts'
import { inBothForms, lacks, pdf, resolves, within } from '../devkit/eval-kit.ts'
import { statement } from '../devkit/fixtures/documents.ts'
import { CAPABILITIES_ROOT, capabilityFolders } from '../core/capability-folders.ts'

t.test('every capability folder has at least 3 eval cases, each scored by code', async (t) => {
  t.ok(capabilityFolders(CAPABILITIES_ROOT).length > 0)
  for (const name of capabilityFolders(CAPABILITIES_ROOT)) {
    const cases = EVALS[name]?.cases ?? []
    t.ok(cases.length >= 3, `${name}: ${cases.length} cases`)
    for (const c of cases)
      t.ok(Object.keys(c.expected ?? {}).length + Object.keys(c.checks ?? {}).length > 0, `${name} ${c.name}: something to score`)
  }
})

t.test("a folder's align and compare options are used: reordered changes with longer quotes score right", async (t) => {
  const entry = EVALS.compare!
  const c = entry.cases[0]!
  const expected = c.expected as { changes: Array<{ section: string; before: string | null; after: string | null }> }
  const longer = (q: string | null, how: string) => (q === null ? null : `Clause: ${q} (${how})`)
  const answer = {
    changeCount: expected.changes.length,
    changes: [...expected.changes]
      .reverse()
      .map((x) => ({ ...x, before: longer(x.before, 'as signed'), after: longer(x.after, 'as amended') })),
  }
  const outcomes = scoreCase(c, answer, c.request, entry)
  t.same(
    outcomes.filter((o) => o.outcome === 'wrong' || o.outcome === 'missing'),
    [],
    'nothing wrong or missing',
  )
  t.ok(
    outcomes.some((o) => o.path === 'changes[].before' && o.outcome === 'normalised'),
    'a longer quote is a (normalised) match',
  )
})

t.test('checks are scored as fields; a failing check is wrong', async (t) => {
  const c = {
    name: 'x',
    request: {},
    checks: {
      'no PII left': lacks('redacted', 'jane@example.com'),
      'labels in taxonomy': within('labels[]', ['a', 'b']),
      'citations resolve': resolves('items[].sourceIndexes[]', 'sources'),
    },
  }
  const good = scoreCase(
    c,
    { redacted: '[REDACTED:EMAIL]', labels: ['a'], items: [{ sourceIndexes: [0] }], sources: [{}] },
    {},
    { cases: [] },
  )
  t.same(
    good.map((o) => o.outcome),
    ['exact', 'exact', 'exact'],
  )
  const bad = scoreCase(
    c,
    { redacted: 'mail jane@example.com', labels: ['a', 'c'], items: [{ sourceIndexes: [1] }], sources: [{}] },
    {},
    { cases: [] },
  )
  t.same(
    bad.map((o) => [o.path, o.outcome]),
    [
      ['check: no PII left', 'wrong'],
      ['check: labels in taxonomy', 'wrong'],
      ['check: citations resolve', 'wrong'],
    ],
  )
})

t.test('ready requests are labelled by what they send (a PDF case is not [text])', async (t) => {
  t.equal(formOf({ file: pdf('invoice-1') }), 'pdf')
  t.equal(formOf({ a: { file: pdf('contract-v1') }, b: { text: 'x' } }), 'pdf')
  t.equal(formOf({ image: { data: 'iVBOR', mimeType: 'image/png' } }), 'image')
  t.equal(formOf({ audio: { data: 'UklG', mimeType: 'audio/wav' } }), 'audio')
  t.equal(formOf({ text: 'hello' }), 'text')
})

t.test('a known document is measured in both input forms, as text and as its PDF', async (t) => {
  const forms = EVALS.invoice!.cases.filter((c) => c.name === 'invoice-1').map((c) => formOf(c.request))
  t.same(forms, ['text', 'pdf'])
  const [text, file] = inBothForms(statement, { expected: { currency: 'USD' } })
  t.match(text, { name: 'statement', request: { text: statement.toText() }, expected: { currency: 'USD' } })
  t.same(file!.request, { file: pdf('statement') })
})

t.test('npm run eval -- --fake runs end to end and writes the JSON and Markdown reports', async (t) => {
  const out = mkdtempSync(join(tmpdir(), 'eval-'))
  t.teardown(() => rmSync(out, { recursive: true, force: true }))
  const run = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = execFile(
      process.execPath,
      [new URL('../scripts/eval.ts', import.meta.url).pathname, '--capability', 'classify,redact', '--fake', '--out', out],
      { env: process.env, timeout: 110_000 },
      (error, stdout, stderr) => resolve({ code: child.exitCode ?? (error ? 1 : 0), stdout, stderr }),
    )
  })
  const files = readdirSync(out)
  t.equal(files.filter((f) => f.endsWith('.json')).length, 1, `a JSON report (${run.stderr.slice(0, 500)})`)
  t.equal(files.filter((f) => f.endsWith('.md')).length, 1, 'a Markdown report')
  const report = JSON.parse(
    readFileSync(
      join(
        out,
        files.find((f) => f.endsWith('.json'))!,
      ),
      'utf8',
    ),
  )
  t.equal(report.fake, true)
  t.same(Object.keys(report.summary).sort(), ['classify', 'redact'])
  for (const s of Object.values<any>(report.summary)) {
    t.equal(s.calls, 3, 'every case was called')
    t.match(s, { credits: Number, latencyMs: { median: Number, max: Number } })
  }
  t.ok(
    report.calls.every((c: any) => c.status !== 200 || c.outcomes.length > 0),
    'every answered call was scored',
  )
  const md = readFileSync(
    join(
      out,
      files.find((f) => f.endsWith('.md'))!,
    ),
    'utf8',
  )
  t.match(md, /\| classify \| 3 \|/)
  t.match(md, /scores say nothing about quality/)
})
