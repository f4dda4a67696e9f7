// The registry: discovery, the boot refusals, and every manifest pinned to the spec's table (4.3).
import { mkdtemp, mkdir, writeFile, readFile, rm } from 'node:fs/promises'
import path from 'node:path'
import t from 'tap'
import { loadCapabilities, ManifestError } from '../../core/registry.ts'

const core = path.resolve('core/capability.ts')

async function folderWith(manifests: Record<string, string>): Promise<string> {
  // Inside the project so that the manifests resolve the project's node_modules.
  await mkdir(path.resolve('.tap'), { recursive: true })
  const dir = await mkdtemp(path.resolve('.tap/caps-'))
  t.teardown(() => rm(dir, { recursive: true, force: true }))
  for (const [name, source] of Object.entries(manifests)) {
    await mkdir(path.join(dir, name))
    await writeFile(path.join(dir, name, 'manifest.ts'), source)
  }
  return dir
}

const manifest = (over: string, request = `Type.Object({ text: Type.String({ maxLength: 10 }) }, { additionalProperties: false })`) => `
import { Type } from '@sinclair/typebox'
import { defineCapability } from '${core}'
export default defineCapability({
  name: 'good', summary: 's', price: 3, async: false, ratePerMinute: 60, model: 'text',
  request: ${request},
  response: Type.Object({ ok: Type.Boolean() }),
  handler: async () => ({ ok: true }),
  ${over}
})`

t.test('discovers folders sorted, skipping files', async (t) => {
  const dir = await folderWith({ zeta: manifest(`name: 'zeta'`), alpha: manifest(`name: 'alpha'`) })
  await writeFile(path.join(dir, 'README.md'), 'not a capability')
  const caps = await loadCapabilities(dir)
  t.same(
    caps.map((c) => c.name),
    ['alpha', 'zeta'],
  )
})

const refusals: Array<[string, Record<string, string>, RegExp]> = [
  ['a name that does not match its folder', { other: manifest('') }, /capabilities\/other\/manifest\.ts: name "good" must equal the folder name "other"/],
  ['a non-integer price', { good: manifest(`price: 2.5`) }, /capabilities\/good\/manifest\.ts: price must be a whole number/],
  ['a missing handler', { good: manifest(`handler: undefined`) }, /capabilities\/good\/manifest\.ts: handler is missing/],
  ['a schema Ajv cannot compile', { good: manifest(`response: { type: 'object', properties: { a: { type: 'nonsense' } } } as any`) }, /capabilities\/good\/manifest\.ts: schema does not compile/],
  ['an unbounded string', { good: manifest('', `Type.Object({ text: Type.String() }, { additionalProperties: false })`) }, /capabilities\/good\/manifest\.ts: request schema at "\/text" has no bound/],
  ['an unbounded array', { good: manifest('', `Type.Object({ a: Type.Array(Type.Integer()) }, { additionalProperties: false })`) }, /at "\/a" has no bound/],
  ['an open object', { good: manifest('', `Type.Object({ a: Type.String({ maxLength: 3 }) })`) }, /at "\/" has no bound/],
  ['an unbounded record', { good: manifest('', `Type.Object({ m: Type.Record(Type.String(), Type.String({ maxLength: 5 })) }, { additionalProperties: false })`) }, /at "\/m" has no bound/],
  ['a record with unbounded values', { good: manifest('', `Type.Object({ m: Type.Record(Type.String(), Type.String(), { maxProperties: 5 }) }, { additionalProperties: false })`) }, /at "\/m\/\*" has no bound/],
  ['an unbounded tuple item', { good: manifest('', `Type.Object({ t: Type.Tuple([Type.Integer(), Type.String()]) }, { additionalProperties: false })`) }, /has no bound/],
  ['an unbounded union branch', { good: manifest('', `Type.Object({ u: Type.Union([Type.Integer(), Type.String()]) }, { additionalProperties: false })`) }, /at "\/u\(anyOf\[1\]\)" has no bound/],
  ['a bad folder name', { Bad_Name: manifest(`name: 'Bad_Name'`) }, /capabilities\/Bad_Name: folder names must match/],
  ['a folder without manifest', { empty: '' }, /capabilities\/empty\/manifest\.ts could not be loaded|must `export default/],
  ['an example that does not match', { good: manifest(`example: { request: { text: 'far too long text' }, response: { ok: true } }`) }, /example\.request does not match/],
  ['an unknown model role', { good: manifest(`model: 'oracle' as any`) }, /model must be null or one of/],
]

for (const [what, folders, message] of refusals) {
  t.test(`boot refuses ${what}, naming the folder`, async (t) => {
    const dir = await folderWith(folders)
    await t.rejects(loadCapabilities(dir), message)
    await t.rejects(loadCapabilities(dir), ManifestError)
  })
}

t.test("every manifest's price, async flag and rate limit match the spec's table (4.3, C6)", async (t) => {
  const spec = await readFile(path.resolve('../shared/spec/service-spec.md'), 'utf8')
  const rows = [...spec.matchAll(/^\| `\/v1\/([a-z-]+)` \| [^|]+ \| (\d+) \| (Y?) *\| ([^|]+) \|$/gm)]
  t.equal(rows.length, 39, 'the spec lists 39 endpoints')
  const caps = new Map((await loadCapabilities()).map((c) => [c.name, c]))
  t.same([...caps.keys()].sort(), rows.map((r) => r[1]).sort(), 'one folder per endpoint of the spec, no more')
  for (const [, name, price, async, limit] of rows) {
    const cap = caps.get(name!)
    if (!cap) continue
    t.equal(cap.price, Number(price), `${name} price`)
    t.equal(cap.async, async === 'Y', `${name} async`)
    t.equal(cap.ratePerMinute, limit!.trim() === 'not shown' ? 60 : Number(limit), `${name} calls per minute`)
  }
})
