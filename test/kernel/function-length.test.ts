// No function of core/, capabilities/ or scripts/ runs over MAX_LINES lines: a longer one is split by the steps it
// already has, so a reader sees them named. Counted with the TypeScript compiler: function declarations, methods,
// accessors and constructors wherever they are, and function or arrow expressions bound to a top-level constant
// or an object member (callbacks passed inline, such as a test's body, are their caller's business).
import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import t from 'tap'
import ts from 'typescript'

const MAX_LINES = 120
const root = path.resolve(import.meta.dirname, '../..')

/** The name a function is known by, or null when it is not one this rule counts. */
function countedName(node: ts.Node, source: ts.SourceFile): string | null {
  if (ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node) || ts.isAccessor(node)) return node.name?.getText(source) ?? 'default'
  if (ts.isConstructorDeclaration(node)) return 'constructor'
  if (!ts.isArrowFunction(node) && !ts.isFunctionExpression(node)) return null
  const parent = node.parent
  if (ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) return parent.name.getText(source)
  if (ts.isExportAssignment(parent)) return 'default'
  const statement = parent.parent?.parent
  if (ts.isVariableDeclaration(parent) && statement && ts.isVariableStatement(statement) && ts.isSourceFile(statement.parent))
    return parent.name.getText(source)
  return null
}

/** `file:line name (N lines)` for each counted function of `text` longer than `max` lines. */
export function longFunctions(file: string, text: string, max = MAX_LINES): string[] {
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true)
  const found: string[] = []
  const visit = (node: ts.Node) => {
    const name = countedName(node, source)
    if (name !== null && (node as ts.FunctionLikeDeclaration).body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line
      const lines = source.getLineAndCharacterOfPosition(node.getEnd()).line - first + 1
      if (lines > max) found.push(`${file}:${first + 1} ${name} (${lines} lines)`)
    }
    ts.forEachChild(node, visit)
  }
  visit(source)
  return found
}

t.test('the measure counts what it should', async (t) => {
  const body = (n: number) => Array.from({ length: n - 2 }, (_, i) => `  step(${i})`).join('\n')
  const fn = (head: string, n: number) => `${head} {\n${body(n)}\n}`
  t.same(longFunctions('a.ts', fn('function f()', 4), 4), [])
  t.same(longFunctions('a.ts', fn('function f()', 5), 4), ['a.ts:1 f (5 lines)'])
  t.same(longFunctions('a.ts', fn('export const g = () =>', 5), 4), ['a.ts:1 g (5 lines)'])
  t.same(longFunctions('a.ts', `class C ${fn('', 1)}\n`.replace('{\n\n}', `{\n${fn('m()', 5)}\n}`), 4), ['a.ts:2 m (5 lines)'])
  t.same(longFunctions('a.ts', `const o = {\n${fn('  h: () =>', 5)},\n}`, 4), ['a.ts:2 h (5 lines)'])
  t.same(longFunctions('a.ts', `t.test('x', ${fn('async () =>', 5)})`, 4), [], 'a callback passed inline is not counted')
  t.same(
    longFunctions('a.ts', fn('function outer()', 3).replace('step(0)', fn('function inner()', 5)), 4).length,
    2,
    'nested declarations too',
  )
})

t.test(`no function of core/, capabilities/ or scripts/ is over ${MAX_LINES} lines`, async (t) => {
  const found: string[] = []
  let files = 0
  for (const folder of ['core', 'capabilities', 'scripts'])
    for (const name of readdirSync(path.join(root, folder), { recursive: true, encoding: 'utf8' })) {
      if (!name.endsWith('.ts')) continue
      files++
      const file = path.join(folder, name)
      found.push(...longFunctions(file, readFileSync(path.join(root, file), 'utf8')))
    }
  t.ok(files > 300, `${files} files read`)
  t.same(found, [])
})
