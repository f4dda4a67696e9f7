// The kernel reads top-down: no module of core/ imports, even for a type, a module that imports it back
// (issue 26). A cycle is reported as the chain of files, so the fix (narrow a parameter, move a type to a leaf
// module) is plain.
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'

const core = path.resolve(import.meta.dirname, '../../core')

/** Relative imports (static, type-only, side-effect and dynamic) of one file, as absolute paths. */
export function importsOf(file: string, source = readFileSync(file, 'utf8')): string[] {
  return [...source.matchAll(/(?:\bfrom\s*|\bimport\s*\(?\s*)['"](\.[^'"]+)['"]/g)].map((m) => path.resolve(path.dirname(file), m[1]!))
}

/** Every cycle of the graph, each once, as a file chain starting and ending at the same file. */
export function cycles(graph: Map<string, string[]>): string[][] {
  const found = new Map<string, string[]>()
  const state = new Map<string, 'open' | 'done'>()
  const stack: string[] = []
  const visit = (node: string) => {
    state.set(node, 'open')
    stack.push(node)
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue
      if (state.get(next) === 'open') {
        const chain = stack.slice(stack.indexOf(next))
        found.set([...chain].sort().join(' '), [...chain, next])
      } else if (!state.has(next)) visit(next)
    }
    stack.pop()
    state.set(node, 'done')
  }
  for (const node of [...graph.keys()].sort()) if (!state.has(node)) visit(node)
  return [...found.values()]
}

t.test('the cycle finder finds what it should', async (t) => {
  const g = new Map([
    ['a', ['b']],
    ['b', ['c']],
    ['c', ['a', 'd']],
    ['d', []],
  ])
  t.same(cycles(g), [['a', 'b', 'c', 'a']])
  t.same(
    cycles(
      new Map([
        ['a', ['b']],
        ['b', []],
      ]),
    ),
    [],
  )
  t.same(importsOf('/x/core/a.ts', `import type { T } from './b.ts'\nexport { x } from "../c.ts"\nawait import('./d.ts')\nimport 'pg'`), [
    '/x/core/b.ts',
    '/x/c.ts',
    '/x/core/d.ts',
  ])
})

t.test('core/ has no import cycle', async (t) => {
  const files = readdirSync(core, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(core, f))
  const graph = new Map(files.map((f) => [f, importsOf(f)]))
  const rel = (f: string) => path.relative(core, f)
  t.same(
    cycles(graph).map((c) => c.map(rel).join(' → ')),
    [],
  )
})
