// The kernel reads top-down. No module of core/ imports, even for a type, a module that imports it back; and the
// rooms of core/ (each top-level file and each folder) stand on the floors of FLOORS below: a room's value imports
// go to its own floor or lower, and no rooms import each other in a loop. core/README.md draws the same floors. A
// failure names the chain of files, so the fix (move the code to the room that owns it, narrow a parameter, let the
// composition root wire it) is plain.
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

/**
 * The floors of core/, top first. A room may import rooms of its own floor and of the floors below, never above.
 * Folders not built yet are listed where their kind goes, so the next concern finds its floor here.
 */
export const FLOORS: ReadonlyArray<{ floor: string; rooms: readonly string[] }> = [
  { floor: 'composition roots', rooms: ['server.ts', 'app.ts', 'boot.ts', 'worker.ts', 'maintenance.ts'] },
  { floor: 'faces', rooms: ['openapi/', 'mcp.ts', 'docs/', 'dashboard/', 'admin/', 'probes.ts'] },
  { floor: 'features', rooms: ['billing/', 'usage/', 'requests/', 'sso/', 'teams/', 'batches/', 'reviews/'] },
  { floor: 'the call pipeline (C1)', rooms: ['pipeline/'] },
  { floor: 'jobs', rooms: ['jobs/'] },
  { floor: 'events and records', rooms: ['events/', 'records/'] },
  { floor: 'accounts and their audit log', rooms: ['accounts/', 'audit/'] },
  { floor: 'webhook signing and posting', rooms: ['webhooks/'] },
  { floor: 'the capability runtime', rooms: ['capability.ts', 'run/', 'evidence/'] },
  { floor: 'kernel services', rooms: ['wallet/', 'idempotency/', 'cache/', 'http/', 'documents/', 'models/'] },
  {
    floor: 'ground',
    rooms: [
      'db/',
      'observability/',
      'net/',
      'services.ts',
      'config.ts',
      'errors.ts',
      'validation.ts',
      'secrets.ts',
      'ratelimit.ts',
      'mail.ts',
      'roles.ts',
      'csv.ts',
      'capability-folders.ts',
      'query.ts',
    ],
  },
]

/** The longest chain of rooms a value import can run down (server.ts to config.ts): each room is one storey. */
export const MAX_STOREYS = 12

/** The imports that still run up a floor (file → file, from core/), each with why; the acceptance allows at most four. */
export const UP_IMPORTS: ReadonlyArray<{ from: string; to: string; why: string }> = []

/** The room of a path relative to core/: its first folder, or the file itself; a file beside the folder of its name (openapi.ts) is that folder's. */
export function roomOf(relative: string, folders: ReadonlySet<string>): string {
  const [first, ...rest] = relative.split(path.sep)
  if (rest.length) return `${first}/`
  const folder = `${first!.replace(/\.ts$/, '')}/`
  return folders.has(folder) ? folder : first!
}

/**
 * The relative imports of one file that are there at run time, as absolute paths: `import type`, `export type`,
 * braces of types only and `import('x').T` type queries are left out (a type is erased, and Services names the
 * classes of the concerns it carries).
 */
export function valueImportsOf(file: string, source = readFileSync(file, 'utf8')): string[] {
  const found: string[] = []
  for (const m of source.matchAll(/\b(import|export)\s+(type\s+)?([^'";]*?)\s*from\s*['"](\.[^'"]+)['"]/g)) {
    if (m[2]) continue
    const braces = /^\{([^}]*)\}$/.exec(m[3]!.trim())
    const names = braces
      ? braces[1]!
          .split(',')
          .map((n) => n.trim())
          .filter(Boolean)
      : []
    if (names.length && names.every((n) => n.startsWith('type '))) continue
    found.push(m[4]!)
  }
  for (const m of source.matchAll(/\bimport\s*['"](\.[^'"]+)['"]|\bimport\s*\(\s*['"](\.[^'"]+)['"]\s*\)(\.(?!then\b)\w)?/g)) {
    if (m[1]) found.push(m[1])
    else if (!m[3]) found.push(m[2]!)
  }
  return found.map((spec) => path.resolve(path.dirname(file), spec))
}

/** The floor index of every room in FLOORS (0 is the top). */
const floorOf = new Map(FLOORS.flatMap(({ rooms }, i) => rooms.map((r) => [r, i] as const)))

/** Each value import between two rooms, as `room → room` with the file import that makes it. */
function roomImports(files: string[]): Array<{ from: string; to: string; fromRoom: string; toRoom: string }> {
  const rel = (f: string) => path.relative(core, f)
  const folders = new Set(
    files
      .map(rel)
      .filter((f) => f.includes(path.sep))
      .map((f) => `${f.split(path.sep)[0]}/`),
  )
  return files.flatMap((f) =>
    valueImportsOf(f)
      .filter((to) => to.startsWith(core + path.sep))
      .map((to) => ({ from: rel(f), to: rel(to), fromRoom: roomOf(rel(f), folders), toRoom: roomOf(rel(to), folders) }))
      .filter((i) => i.fromRoom !== i.toRoom),
  )
}

/** Imports that run up the floors: from a room to a room on a higher floor (a smaller index). */
export function upImports(imports: Array<{ from: string; to: string; fromRoom: string; toRoom: string }>, floors = floorOf) {
  return imports.filter((i) => (floors.get(i.toRoom) ?? Infinity) < (floors.get(i.fromRoom) ?? -Infinity))
}

const coreFiles = () =>
  readdirSync(core, { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.ts'))
    .map((f) => path.join(core, f))

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

t.test('the room and floor readers read what they should', async (t) => {
  const folders = new Set(['jobs/', 'openapi/'])
  t.equal(roomOf('jobs/view.ts', folders), 'jobs/')
  t.equal(roomOf('openapi.ts', folders), 'openapi/', 'a file beside the folder of its name is that folder')
  t.equal(roomOf('app.ts', folders), 'app.ts')
  const source = [
    `import type { A } from './types.ts'`,
    `import { type B, type C } from './types-too.ts'`,
    `import { d, type E } from './value.ts'`,
    `export { f } from '../up.ts'`,
    `export type { G } from './type-export.ts'`,
    `import './side-effect.ts'`,
    `type Q = import('./query.ts').Query`,
    `const m = await import('./dynamic.ts')`,
  ].join('\n')
  t.same(valueImportsOf('/x/core/a.ts', source), ['/x/core/value.ts', '/x/up.ts', '/x/core/side-effect.ts', '/x/core/dynamic.ts'])
  const floors = new Map([
    ['top/', 0],
    ['low/', 1],
  ])
  const down = { from: 'top/a.ts', to: 'low/b.ts', fromRoom: 'top/', toRoom: 'low/' }
  const up = { from: 'low/b.ts', to: 'top/a.ts', fromRoom: 'low/', toRoom: 'top/' }
  t.same(upImports([down, up], floors), [up])
})

t.test('core/ has no import cycle', async (t) => {
  const files = coreFiles()
  const graph = new Map(files.map((f) => [f, importsOf(f)]))
  const rel = (f: string) => path.relative(core, f)
  t.same(
    cycles(graph).map((c) => c.map(rel).join(' → ')),
    [],
  )
})

t.test('every room of core/ stands on a floor of the table', async (t) => {
  const rooms = new Set(roomImports(coreFiles()).flatMap((i) => [i.fromRoom, i.toRoom]))
  const folders = new Set(
    coreFiles()
      .map((f) => path.relative(core, f))
      .filter((f) => f.includes(path.sep))
      .map((f) => `${f.split(path.sep)[0]}/`),
  )
  for (const f of coreFiles()) rooms.add(roomOf(path.relative(core, f), folders))
  t.same(
    [...rooms].filter((r) => !floorOf.has(r)).map((r) => `core/${r} is on no floor: add it to FLOORS where its kind goes (core/README.md)`),
    [],
  )
  t.equal(floorOf.size, new Set(FLOORS.flatMap((f) => f.rooms)).size, 'a room stands on one floor only')
})

t.test('no folder of core/ imports another in a loop (value imports)', async (t) => {
  const imports = roomImports(coreFiles())
  const graph = new Map<string, string[]>()
  for (const i of imports) graph.set(i.fromRoom, [...(graph.get(i.fromRoom) ?? []), i.toRoom])
  for (const i of imports) if (!graph.has(i.toRoom)) graph.set(i.toRoom, [])
  const via = (a: string, b: string) => imports.find((i) => i.fromRoom === a && i.toRoom === b)!
  t.same(
    cycles(graph).map((chain) =>
      chain
        .slice(1)
        .map((room, k) => `${chain[k]} → ${room} (${via(chain[k]!, room).from} → ${via(chain[k]!, room).to})`)
        .join(', '),
    ),
    [],
  )
})

t.test('no import runs up the floors, but the ones named with why', async (t) => {
  const imports = roomImports(coreFiles())
  const named = (i: { from: string; to: string }) => UP_IMPORTS.some((u) => u.from === i.from && u.to === i.to)
  const name = (room: string) => `${room} (floor ${floorOf.get(room)! + 1}, ${FLOORS[floorOf.get(room)!]!.floor})`
  t.same(
    upImports(imports)
      .filter((i) => !named(i))
      .map((i) => `core/${i.from} → core/${i.to}: ${name(i.fromRoom)} may not import ${name(i.toRoom)}`),
    [],
  )
  t.same(
    UP_IMPORTS.filter((u) => !upImports(imports).some((i) => i.from === u.from && i.to === u.to)).map(
      (u) => `core/${u.from} → core/${u.to} no longer runs up: take it off UP_IMPORTS`,
    ),
    [],
  )
  t.ok(UP_IMPORTS.length <= 4, 'at most four imports run up the floors')
})

/** The longest chain of rooms in an acyclic room graph, as the rooms in order. */
export function longestChain(graph: Map<string, string[]>): string[] {
  const memo = new Map<string, string[]>()
  const from = (room: string): string[] => {
    const known = memo.get(room)
    if (known) return known
    let best = [room]
    for (const next of graph.get(room) ?? []) {
      const chain = [room, ...from(next)]
      if (chain.length > best.length) best = chain
    }
    memo.set(room, best)
    return best
  }
  return [...graph.keys()].map(from).reduce((a, b) => (b.length > a.length ? b : a), [])
}

t.test('the chain finder finds the longest chain', async (t) => {
  const g = new Map([
    ['a', ['b', 'd']],
    ['b', ['c']],
    ['c', []],
    ['d', []],
  ])
  t.same(longestChain(g), ['a', 'b', 'c'])
})

t.test(`no chain of value imports runs through more than ${MAX_STOREYS} rooms`, async (t) => {
  const imports = roomImports(coreFiles())
  const graph = new Map<string, string[]>()
  for (const i of imports) graph.set(i.fromRoom, [...new Set([...(graph.get(i.fromRoom) ?? []), i.toRoom])])
  const chain = longestChain(graph)
  const via = (a: string, b: string) => imports.find((i) => i.fromRoom === a && i.toRoom === b)!
  const named = chain
    .slice(1)
    .map((room, k) => `${via(chain[k]!, room).from} → ${via(chain[k]!, room).to}`)
    .join(', ')
  t.ok(
    chain.length <= MAX_STOREYS,
    `${chain.length} rooms: ${chain.join(' > ')} (${named}); cut a link: move the code to the room that owns it`,
  )
  t.comment(`longest chain: ${chain.length} rooms, ${chain.join(' > ')}`)
})
