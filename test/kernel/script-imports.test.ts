// scripts/ and devkit/ stand below the tests: the tests import them (the admin CLI, the eval runner, the fake
// providers), so neither may import test/, even through a chain of files or a capability's eval cases that
// scripts/eval.ts loads. What scripts and tests both need lives in devkit/. A failure names the chain.
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import ts from 'typescript'
import { CAPABILITIES_ROOT, capabilityFolders } from '../../core/capability-folders.ts'

const root = path.resolve(import.meta.dirname, '../..')
const TEST = path.join(root, 'test') + path.sep

/** The files a source file imports by a relative path (static, type-only, side-effect and dynamic imports). */
function importsOf(file: string): string[] {
  const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true)
  return importedFiles
    .filter((f) => f.fileName.startsWith('.') && f.fileName.endsWith('.ts'))
    .map((f) => path.resolve(path.dirname(file), f.fileName))
    .filter((target) => existsSync(target))
}

/** The first chain of imports from `start` that reaches test/, or null. */
export function chainIntoTest(start: string, imports: (file: string) => string[] = importsOf): string[] | null {
  const seen = new Set<string>()
  const walk = (file: string, chain: string[]): string[] | null => {
    if (file.startsWith(TEST)) return [...chain, file]
    if (seen.has(file)) return null
    seen.add(file)
    for (const next of imports(file)) {
      const found = walk(next, [...chain, file])
      if (found) return found
    }
    return null
  }
  return walk(start, [])
}

const tsFiles = (dir: string): string[] =>
  readdirSync(dir, { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.ts'))
    .map((name) => path.join(dir, name))

t.test('the checker follows a chain of imports into test/', async (t) => {
  const a = path.join(root, 'scripts', 'a.ts')
  const b = path.join(root, 'devkit', 'b.ts')
  const helper = path.join(root, 'test', 'helpers', 'app.ts')
  const graph = new Map([
    [a, [b]],
    [b, [helper]],
  ])
  const imports = (file: string) => graph.get(file) ?? []
  t.same(chainIntoTest(a, imports), [a, b, helper])
  t.equal(
    chainIntoTest(b, (file) => (file === b ? [a] : [])),
    null,
  )
  t.ok(importsOf(path.join(root, 'scripts', 'eval.ts')).includes(path.join(root, 'devkit', 'eval-kit.ts')), 'reads real imports')
})

t.test('no file of scripts/ or devkit/, nor an eval.ts they load, imports test/', async (t) => {
  const starts = [
    ...tsFiles(path.join(root, 'scripts')),
    ...tsFiles(path.join(root, 'devkit')),
    ...capabilityFolders(CAPABILITIES_ROOT)
      .map((name) => path.join(CAPABILITIES_ROOT, name, 'eval.ts'))
      .filter((file) => existsSync(file)),
  ]
  t.ok(starts.length > 20, `${starts.length} files`)
  const chains = starts
    .map((file) => chainIntoTest(file))
    .filter((chain) => chain !== null)
    .map((chain) => chain.map((file) => path.relative(root, file)).join(' → '))
  t.same(chains, [])
})
