// Issue 13: core/capability.ts is the one door from a capability folder into the kernel. A folder that reaches
// into core/pipeline, core/wallet … would tie the kernel's insides to every capability folder; this test names the file and
// the import so the fix is obvious. Inside a folder, imports go one way (schema ← handler ← manifest, see
// capabilities/README.md) and the handler's input type is the request schema's.
import { existsSync } from 'node:fs'
import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import t from 'tap'
import { CAPABILITIES_ROOT, capabilityFolders } from '../../core/capability-folders.ts'

const root = path.resolve(import.meta.dirname, '../..')
const capabilitiesDir = CAPABILITIES_ROOT
const FACADE = path.join(root, 'core', 'capability.ts')

/** Static `from '…'`, side-effect `import '…'` and dynamic `import('…')` specifiers of a source file. */
const specifiers = (source: string): string[] => [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"]([^'"]+)['"]/g)].map((m) => m[1]!)

/** Why an import of `file` (inside capabilities/<folder>/) is not allowed, or null when it is. */
export function importProblem(file: string, specifier: string): string | null {
  if (!specifier.startsWith('.')) return null // a package
  const target = path.resolve(path.dirname(file), specifier)
  const folder = path.join(capabilitiesDir, path.relative(capabilitiesDir, file).split(path.sep)[0]!) // its capability's folder, from a subfolder too
  const base = path.basename(file)
  if (target.startsWith(folder + path.sep)) return null // its own folder
  if (target === FACADE) return null
  if (target.startsWith(path.join(root, 'core') + path.sep)) return `imports ${specifier}: import it from core/capability.ts`
  if (target.startsWith(capabilitiesDir + path.sep)) return `imports ${specifier}: another capability's folder`
  // Tests and eval cases (never loaded by the running service) may use devkit/: fixtures, fake providers, eval kit.
  // Only tests may use test/ (the harness): scripts/eval.ts loads the eval cases, and scripts never import test/.
  const inside = (dir: string) => target.startsWith(path.join(root, dir) + path.sep)
  if ((base === 'eval.ts' || base.endsWith('.test.ts')) && inside('devkit')) return null
  if (base.endsWith('.test.ts') && inside('test')) return null
  return `imports ${specifier}: outside what a capability may use`
}

t.test('the checker itself refuses what it should', async (t) => {
  const handler = path.join(capabilitiesDir, 'demo', 'handler.ts')
  const test = path.join(capabilitiesDir, 'demo', 'demo.test.ts')
  t.equal(importProblem(handler, '../../core/capability.ts'), null)
  t.equal(importProblem(handler, './schema.ts'), null)
  t.equal(importProblem(handler, '@sinclair/typebox'), null)
  t.match(importProblem(handler, '../../core/wallet/wallet.ts'), /core\/capability\.ts/)
  t.match(importProblem(handler, '../../core/models/answers.ts'), /core\/capability\.ts/)
  t.match(importProblem(handler, '../other/handler.ts'), /another capability/)
  t.match(importProblem(handler, '../../test/helpers/app.ts'), /outside/)
  t.equal(importProblem(test, '../../test/helpers/app.ts'), null)
  t.equal(importProblem(path.join(capabilitiesDir, 'demo', 'eval.ts'), '../../devkit/eval-kit.ts'), null)
  t.match(importProblem(path.join(capabilitiesDir, 'demo', 'eval.ts'), '../../test/helpers/app.ts'), /outside/)
  t.match(importProblem(path.join(capabilitiesDir, 'demo', 'eval.ts'), '../../scripts/eval.ts'), /outside/)
  t.match(importProblem(handler, '../../devkit/eval-kit.ts'), /outside/)
  t.match(importProblem(test, '../../core/db/database.ts'), /core\/capability\.ts/)
  t.same(specifiers(`import x from './a.ts'\nimport type { Y } from "../../core/errors.ts"\nawait import('./b.ts')\nimport './c.ts'`), [
    './a.ts',
    '../../core/errors.ts',
    './b.ts',
    './c.ts',
  ])
})

t.test('every file of every capability folder reaches the kernel only through core/capability.ts', async (t) => {
  const problems: string[] = []
  let files = 0
  for (const entry of capabilityFolders(capabilitiesDir)) {
    const folder = path.join(capabilitiesDir, entry)
    for (const name of await readdir(folder, { recursive: true })) {
      if (!name.endsWith('.ts')) continue
      const file = path.join(folder, name)
      files++
      for (const spec of specifiers(await readFile(file, 'utf8'))) {
        const problem = importProblem(file, spec)
        if (problem) problems.push(`${path.relative(root, file)} ${problem}`)
      }
    }
  }
  t.ok(files >= capabilityFolders(capabilitiesDir).length * 3, `${files} files read`)
  t.same(problems, [])
})

interface FolderSources {
  schema: string | null
  handler: string
}

/** How a folder breaks the schema ← handler ← manifest convention, one line each; empty when it keeps it. */
export function layoutProblems({ schema, handler }: FolderSources): string[] {
  if (schema === null) return ['has no schema.ts (the Request and Result schemas and their Input and Output types)']
  const problems: string[] = []
  if (!/^export type Input = Static<typeof Request>$/m.test(schema))
    problems.push('schema.ts: no `export type Input = Static<typeof Request>`')
  if (!/^export type Output = Static<typeof Result>$/m.test(schema))
    problems.push('schema.ts: no `export type Output = Static<typeof Result>`')
  for (const spec of specifiers(schema))
    if (spec === './handler.ts' || spec === './manifest.ts')
      problems.push(`schema.ts imports ${spec}: imports go schema ← handler ← manifest`)
  if (specifiers(handler).includes('./manifest.ts')) problems.push('handler.ts imports ./manifest.ts: take the types from ./schema.ts')
  if (/^(export )?(interface Input\b|type Input\s*=)/m.test(handler))
    problems.push('handler.ts declares its own Input: use the one of ./schema.ts')
  if (!/export async function handler\(input: Input,/.test(handler)) problems.push('handler.ts: the handler does not take `input: Input`')
  return problems
}

t.test('the layout checker refuses what it should', async (t) => {
  const schema = `import { Type, type Static } from '@sinclair/typebox'
export const Request = Type.Object({})
export const Result = Type.Object({})
export type Input = Static<typeof Request>
export type Output = Static<typeof Result>
`
  const handler = `import type { Input, Output } from './schema.ts'
export async function handler(input: Input, ctx: CapabilityContext): Promise<Output> {}
`
  t.same(layoutProblems({ schema, handler }), [])
  t.match(layoutProblems({ schema: null, handler }), [/no schema\.ts/])
  t.match(layoutProblems({ schema: schema.replace('export type Input', 'type Input'), handler }), [/Input = Static<typeof Request>/])
  t.match(layoutProblems({ schema: `import { handler } from './handler.ts'\n${schema}`, handler }), [/schema\.ts imports \.\/handler\.ts/])
  t.match(layoutProblems({ schema, handler: `import type { Result } from './manifest.ts'\n${handler}` }), [/imports \.\/manifest\.ts/])
  t.match(layoutProblems({ schema, handler: `interface Input {\n  text: string\n}\n${handler}` }), [/declares its own Input/])
  t.match(layoutProblems({ schema, handler: handler.replace('input: Input', 'input: { text: string }') }), [/does not take `input: Input`/])
})

t.test('every capability folder keeps the schema ← handler ← manifest layout', async (t) => {
  const problems: string[] = []
  for (const entry of capabilityFolders(capabilitiesDir)) {
    const folder = path.join(capabilitiesDir, entry)
    const schemaFile = path.join(folder, 'schema.ts')
    const found = layoutProblems({
      schema: existsSync(schemaFile) ? await readFile(schemaFile, 'utf8') : null,
      handler: await readFile(path.join(folder, 'handler.ts'), 'utf8'),
    })
    problems.push(...found.map((p) => `capabilities/${entry}: ${p}`))
  }
  t.same(problems, [])
})
