// The SDK's types, proven by the compiler: every TypeScript example published in README.md, sdk/README.md and
// docs/ compiles with tsc --strict against the committed sdk/; so do type-checks.ts (wrong bodies marked
// `@ts-expect-error`, return types pinned) and, for every operation of the published OpenAPI document, its
// published example called through the SDK with wrong bodies and queries refused (operation-checks.ts). A
// type that is too loose, or too strict for what the document publishes, fails here.
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { publishedDocument, tsType } from '../../scripts/generate-sdk.ts'
import { operationChecks } from './operation-checks.ts'

const root = path.resolve(import.meta.dirname, '../..')

/** The ```ts blocks of a Markdown file, with the line each starts on. */
export function typescriptBlocks(markdown: string): Array<{ line: number; code: string }> {
  const blocks: Array<{ line: number; code: string }> = []
  const fence = /^```(ts|typescript)\s*\n([\s\S]*?)^```/gm
  for (const m of markdown.matchAll(fence)) blocks.push({ line: markdown.slice(0, m.index).split('\n').length, code: m[2]! })
  return blocks
}

const sources = [
  'README.md',
  'sdk/README.md',
  ...(await readdir(path.join(root, 'docs'))).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`),
]

t.test('every published TypeScript example and the type checks compile with tsc --strict', async (t) => {
  const dir = await mkdtemp(path.join(tmpdir(), 'sdk-examples-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  // The examples import the package by name (or the repository path README.md uses); both resolve to sdk/.
  await mkdir(path.join(dir, 'node_modules'))
  await symlink(path.join(root, 'sdk'), path.join(dir, 'node_modules', 'metered-capability-sdk'))
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ type: 'module' }))
  const files: string[] = []
  const origin = new Map<string, string>()
  for (const source of sources) {
    for (const { line, code } of typescriptBlocks(await readFile(path.join(root, source), 'utf8'))) {
      const file = `${source.replace(/\W/g, '_')}_${line}.ts`
      // A block is a module of its own (top-level await, no name clashes between blocks).
      await writeFile(path.join(dir, file), `${code.replace(/'\.\/sdk\/dist\/index\.js'/g, "'metered-capability-sdk'")}\nexport {}\n`)
      files.push(file)
      origin.set(file, `${source}:${line}`)
    }
  }
  t.ok(files.length >= 3, `${files.length} examples found in ${sources.join(', ')}`)
  files.push(path.join(root, 'test/sdk/type-checks.ts'))
  // The document as the server publishes it (JSON), every operation through the SDK.
  const document = JSON.parse(JSON.stringify(await publishedDocument()))
  const checks = operationChecks(document)
  await writeFile(path.join(dir, 'operations.ts'), `${checks.source}\nexport {}\n`)
  files.push('operations.ts')
  const operationCount = Object.values(document.paths as Record<string, object>).reduce((n, item) => n + Object.keys(item).length, 0)
  t.equal(checks.operations, operationCount, `every operation of the document has a method (${operationCount})`)
  t.same(checks.problems, [], 'every body field and query parameter has a wrong value to refuse')
  t.comment(
    `${checks.operations} operations; ${checks.requestExamples} request examples and ${checks.responseExamples} published answers compiled; ` +
      `${checks.wrongInputs} wrong bodies and queries must be refused`,
  )
  await writeFile(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: {
        target: 'ES2022',
        module: 'NodeNext',
        moduleResolution: 'NodeNext',
        lib: ['ES2022', 'DOM'],
        strict: true,
        noEmit: true,
        skipLibCheck: true,
        types: ['node'],
        typeRoots: [path.join(root, 'node_modules/@types')],
      },
      files,
    }),
  )
  const tsc = path.join(root, 'node_modules/typescript/bin/tsc')
  const result = await promisify(execFile)(process.execPath, [tsc, '-p', dir], { cwd: dir }).then(
    () => '',
    (e: { stdout: string }) => e.stdout,
  )
  // Name the Markdown file and line of a failing example, or the operation, rather than the temporary file.
  const operationLines = checks.source.split('\n')
  const report = result.replace(/^(\S+?\.ts)\((\d+),\d+\)/gm, (whole, file: string, line: string) => {
    if (path.basename(file) === 'operations.ts') {
      const header = operationLines
        .slice(0, Number(line))
        .reverse()
        .find((l) => l.startsWith('// ') && l.includes('→'))
      return `${header ?? 'operations.ts'}: ${operationLines[Number(line) - 1]?.trim().slice(0, 160)}`
    }
    const where = origin.get(path.basename(file))
    return where ? `${where} (+${Number(line)})` : whole
  })
  t.equal(report, '', 'tsc --strict reports nothing: every example compiles and every wrong input is refused')
})

t.test('an op no `if` names keeps the plain fields (the generator never forbids what the server accepts)', async (t) => {
  const schema = {
    type: 'object',
    additionalProperties: false,
    required: ['op'],
    properties: { op: { anyOf: [{ const: 'a' }, { const: 'b' }] }, x: { type: 'string' }, n: { type: 'number' } },
    allOf: [{ if: { properties: { op: { const: 'a' } }, required: ['op'] }, then: { required: ['x'], properties: { n: false as const } } }],
  }
  t.equal(tsType(schema, ''), '{\n  op: "a"\n  x: string\n  n?: never\n} | {\n  op: "b"\n  x?: string\n  n?: number\n}')
})
