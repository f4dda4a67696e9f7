// The registry: discovery, the boot refusals, and every manifest pinned to the spec's table (4.3).
import { mkdtemp, mkdir, writeFile, rm } from 'node:fs/promises'
import path from 'node:path'
import t from 'tap'
import { loadCapabilities, ManifestError } from '../../core/run/registry.ts'
import { CAPABILITIES_ROOT } from '../../core/capability-folders.ts'

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
  example: { request: { text: 'hi' }, response: { ok: true } },
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
  [
    'a name that does not match its folder',
    { other: manifest('') },
    /capabilities\/other\/manifest\.ts: name "good" must equal the folder name "other"/,
  ],
  ['a non-integer price', { good: manifest(`price: 2.5`) }, /capabilities\/good\/manifest\.ts: price must be a whole number/],
  ['a missing handler', { good: manifest(`handler: undefined`) }, /capabilities\/good\/manifest\.ts: handler is missing/],
  [
    'a schema Ajv cannot compile',
    { good: manifest(`response: { type: 'object', properties: { a: { type: 'nonsense' } } } as any`) },
    /capabilities\/good\/manifest\.ts: schema does not compile/,
  ],
  [
    'an unbounded string',
    { good: manifest('', `Type.Object({ text: Type.String() }, { additionalProperties: false })`) },
    /capabilities\/good\/manifest\.ts: request schema at "\/text" has no bound/,
  ],
  [
    'an unbounded array',
    { good: manifest('', `Type.Object({ a: Type.Array(Type.Integer()) }, { additionalProperties: false })`) },
    /at "\/a" has no bound/,
  ],
  ['an open object', { good: manifest('', `Type.Object({ a: Type.String({ maxLength: 3 }) })`) }, /at "\/" has no bound/],
  [
    'an unbounded record',
    {
      good: manifest('', `Type.Object({ m: Type.Record(Type.String(), Type.String({ maxLength: 5 })) }, { additionalProperties: false })`),
    },
    /at "\/m" has no bound/,
  ],
  [
    'a record with unbounded values',
    {
      good: manifest(
        '',
        `Type.Object({ m: Type.Record(Type.String(), Type.String(), { maxProperties: 5 }) }, { additionalProperties: false })`,
      ),
    },
    /at "\/m\/\*" has no bound/,
  ],
  [
    'an unbounded tuple item',
    { good: manifest('', `Type.Object({ t: Type.Tuple([Type.Integer(), Type.String()]) }, { additionalProperties: false })`) },
    /has no bound/,
  ],
  [
    'an unbounded union branch',
    { good: manifest('', `Type.Object({ u: Type.Union([Type.Integer(), Type.String()]) }, { additionalProperties: false })`) },
    /at "\/u\(anyOf\[1\]\)" has no bound/,
  ],
  ['a bad folder name', { Bad_Name: manifest(`name: 'Bad_Name'`) }, /capabilities\/Bad_Name: folder names must match/],
  ['a folder without manifest', { empty: '' }, /capabilities\/empty\/manifest\.ts could not be loaded|must `export default/],
  [
    'an example that does not match',
    { good: manifest(`example: { request: { text: 'far too long text' }, response: { ok: true } }`) },
    /example\.request does not match/,
  ],
  ['an unknown model role', { good: manifest(`model: 'oracle' as any`) }, /model must be null or one of/],
  // Test-mode keys are answered with it (issue 30), so every capability has one.
  ['a manifest without an example', { good: manifest(`example: undefined`) }, /example is missing/],
]

for (const [what, folders, message] of refusals) {
  t.test(`boot refuses ${what}, naming the folder`, async (t) => {
    const dir = await folderWith(folders)
    await t.rejects(loadCapabilities(dir), message)
    await t.rejects(loadCapabilities(dir), ManifestError)
  })
}

// The published endpoints (spec 4.3, C6): name, price in credits, async, calls per minute ("not shown" in the
// spec is 60). The table is the published contract, kept in the repository so the tests need nothing beside it.
// Rule: each published endpoint must exist with exactly these values; a folder that is not in the table is a
// new capability, pinned by its own tests, and needs no edit here.
const PUBLISHED: Array<[name: string, price: number, async: boolean, perMinute: number]> = [
  ['parse', 10, true, 60],
  ['extract', 4, false, 60],
  ['classify', 2, false, 60],
  ['summarize', 3, false, 60],
  ['redact', 3, false, 60],
  ['sentiment', 2, false, 60],
  ['contract', 12, true, 60],
  ['chargeback', 15, false, 30],
  ['enrich', 5, false, 60],
  ['invoice', 8, true, 60],
  ['receipt', 6, true, 60],
  ['statement', 12, true, 60],
  ['resume', 8, true, 60],
  ['tables', 8, true, 60],
  ['split', 10, true, 60],
  ['compare', 15, true, 60],
  ['structure', 6, false, 60],
  ['normalize', 5, false, 60],
  ['match', 8, false, 60],
  ['categorize', 3, false, 60],
  ['dunning', 8, false, 60],
  ['po-match', 10, false, 60],
  ['quote', 8, false, 60],
  ['fraud-flag', 6, false, 60],
  ['reply', 5, false, 60],
  ['triage', 3, false, 300],
  ['minutes', 6, false, 60],
  ['outreach', 6, false, 60],
  ['review-reply', 3, false, 120],
  ['moderate', 2, false, 60],
  ['rewrite', 3, false, 120],
  ['product-copy', 5, false, 120],
  ['describe', 3, false, 120],
  ['research', 50, false, 60],
  ['screen', 10, false, 60],
  ['transcribe', 10, false, 60],
  ['memory', 2, false, 60],
  ['image', 10, false, 60],
  ['speak', 5, false, 60],
]

t.test("every published endpoint exists with the table's price, async flag and rate limit (4.3, C6)", async (t) => {
  t.equal(new Set(PUBLISHED.map(([name]) => name)).size, PUBLISHED.length, 'each published endpoint once')
  const caps = new Map((await loadCapabilities(CAPABILITIES_ROOT)).map((c) => [c.name, c]))
  for (const [name, price, async, perMinute] of PUBLISHED) {
    const cap = caps.get(name)
    if (!t.ok(cap, `capabilities/${name} exists`)) continue
    t.equal(cap!.price, price, `${name} price`)
    t.equal(cap!.async, async, `${name} async`)
    t.equal(cap!.ratePerMinute, perMinute, `${name} calls per minute`)
  }
})
