// capabilities/README.md promises a capability author one folder and one command: copy a folder, give it its
// name, run `npm run sdk`, and the suite passes (issue 26). This test does exactly that in a copy of the
// checkout, then runs there every test that depends on the set of capabilities, plus the new folder's own test.
import { execFile } from 'node:child_process'
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'

const run = promisify(execFile)
const root = path.resolve(import.meta.dirname, '../..')
const NAME = 'label-copy'

/** The tests that read the set of capabilities: counts, the published document, tools, evals, the SDK, READMEs. */
const DEPENDENT_TESTS = [
  'test/eval.test.ts',
  'test/kernel/openapi.test.ts',
  'test/kernel/registry.test.ts',
  'test/kernel/capability-imports.test.ts',
  'test/kernel/capability-folders.test.ts',
  'test/mcp/mcp.test.ts',
  'test/sdk/drift.test.ts',
  'test/docs/examples.test.ts',
  `capabilities/${NAME}/${NAME}.test.ts`,
]

t.setTimeout(600_000)

t.test('a folder copied from classify under a new name passes the suite after `npm run sdk` alone', async (t) => {
  const copy = mkdtempSync(path.join(tmpdir(), 'new-capability-'))
  t.teardown(() => rmSync(copy, { recursive: true, force: true }))
  // The checkout as a developer has it: tracked and untracked files, not what .gitignore leaves out.
  const { stdout } = await run('git', ['ls-files', '-co', '--exclude-standard', '-z'], { cwd: root, maxBuffer: 64 << 20 })
  for (const file of stdout.split('\0').filter(Boolean)) {
    try {
      cpSync(path.join(root, file), path.join(copy, file))
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e // deleted in the work tree, not yet in git
    }
  }
  symlinkSync(path.join(root, 'node_modules'), path.join(copy, 'node_modules'))

  // What the author does: copy the folder, name the capability after it, name its test after it.
  const folder = path.join(copy, 'capabilities', NAME)
  cpSync(path.join(copy, 'capabilities', 'classify'), folder, { recursive: true })
  const manifest = path.join(folder, 'manifest.ts')
  writeFileSync(manifest, readFileSync(manifest, 'utf8').replace("name: 'classify'", `name: '${NAME}'`))
  renameSync(path.join(folder, 'classify.test.ts'), path.join(folder, `${NAME}.test.ts`))

  await run('env', [...isolated(), 'npm', 'run', '-s', 'sdk'], { cwd: copy })
  const tap = await run('env', [...isolated(), path.join(copy, 'node_modules', '.bin', 'tap'), '--disable-coverage', ...DEPENDENT_TESTS], {
    cwd: copy,
    maxBuffer: 256 << 20,
  }).catch((e: { stdout?: string; code?: number }) => ({ stdout: e.stdout ?? '', failed: e.code ?? 1 }))
  const failedLines = tap.stdout.split('\n').filter((l) => /^\s*not ok /.test(l))
  t.same(failedLines, [], 'no test fails in the copy')
  t.notOk('failed' in tap, 'tap exits 0 in the copy')
  t.match(readFileSync(path.join(copy, 'sdk', 'src', 'index.ts'), 'utf8'), /labelCopy|label-copy/, 'the SDK has the new endpoint')
})

/**
 * `env -i` and the few variables the copy's run needs (the database, the template flag, the key). Nothing of the
 * outer tap may reach it: tap's process tracking re-adds its variables to every child this process spawns, and a
 * nested tap that believes it is part of this run clears this run's coverage.
 */
function isolated(): string[] {
  const keep = ['PATH', 'HOME', 'DATABASE_URL', 'CAPAPI_TEMPLATE_READY', 'SECRET_ENCRYPTION_KEY', 'EMBEDDED_PG_PORT', 'CI']
  return ['-i', ...keep.filter((k) => process.env[k] !== undefined).map((k) => `${k}=${process.env[k]}`)]
}
