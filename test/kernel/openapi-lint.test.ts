// C14 / issue 14: Redocly CLI (a dev dependency, offline) lints the document the app serves with the
// recommended ruleset as configured in redocly.yaml: no errors and no warnings.
import { execFile } from 'node:child_process'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { startTestApp } from '../helpers/app.ts'

t.test('redocly lint --extends recommended: 0 errors, 0 warnings on GET /v1/openapi.json', async (t) => {
  const app = await startTestApp(t)
  const dir = await mkdtemp(path.join(tmpdir(), 'openapi-lint-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  const file = path.join(dir, 'openapi.json')
  await writeFile(file, (await app.call('/v1/openapi.json')).text)
  const redocly = path.resolve('node_modules/.bin/redocly')
  const { stdout } = await promisify(execFile)(redocly, ['lint', '--config', path.resolve('redocly.yaml'), '--format', 'json', file], {
    env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' },
    maxBuffer: 64 * 1024 * 1024,
  }).catch((e) => e as { stdout: string })
  const report = JSON.parse(stdout.slice(stdout.indexOf('{')))
  const problems = report.problems.map((p: any) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location?.[0]?.pointer}`)
  t.same(report.totals, { errors: 0, warnings: 0, ignored: 0 }, problems.slice(0, 20).join('\n'))
})
