// Which capabilities may cache (C20), as the boot decides it, and what makes two calls the same call.
import t from 'tap'
import { Type } from '@sinclair/typebox'
import { cacheKey, canonicalJson, type KeyParts } from '../../core/cache/key.ts'
import { DocObject } from '../../core/capability.ts'
import { CAPABILITIES_ROOT } from '../../core/capability-folders.ts'
import { loadCapabilities, ManifestError } from '../../core/run/registry.ts'
import { testCapability } from '../helpers/app.ts'

t.test('the boot refuses cache: true on the creative, web-grounded, stateful and media capabilities', async (t) => {
  for (const name of ['image', 'speak', 'rewrite', 'product-copy', 'outreach', 'research', 'memory'])
    t.throws(() => testCapability({ name, cache: true }), ManifestError, name)
  t.throws(() => testCapability({ name: 'grounded', cache: true, webSearch: true }), /web-grounded/)
  t.throws(() => testCapability({ name: 'voice', cache: true, model: 'speech' }), /only text and vision/)
  t.throws(() => testCapability({ name: 'versioned', version: 0 }), /version must be a whole number/)
  t.equal(testCapability({ name: 'classify', cache: true }).cache, true)
})

t.test('the capability folders: only extracting and classifying ones cache', async (t) => {
  const cached = (await loadCapabilities(CAPABILITIES_ROOT)).filter((c) => c.cache).map((c) => c.name)
  t.ok(cached.includes('parse') && cached.includes('classify'), cached.join(', '))
  for (const never of ['image', 'speak', 'rewrite', 'product-copy', 'outreach', 'research', 'memory', 'screen', 'enrich'])
    t.notOk(cached.includes(never), never)
})

t.test('the key: key order, async and callbackUrl do not count; account, mode, version, route and document bytes do', async (t) => {
  const request = Type.Object({ a: DocObject({}), note: Type.String({ maxLength: 10 }) })
  const parts: KeyParts = {
    accountId: 'acc',
    livemode: true,
    endpoint: 'compare',
    version: 1,
    route: ['primary:m'],
    request,
    input: { note: 'x', a: { fileUrl: 'https://example.com/a.pdf', pages: '1' } },
    digests: { '/a': 'aa' },
  }
  const key = (over: Partial<KeyParts>) => cacheKey({ ...parts, ...over })?.toString('hex')
  const base = key({})
  t.match(base, /^[0-9a-f]{64}$/)
  t.equal(
    key({ input: { a: { pages: '1', fileUrl: 'https://example.com/a.pdf' }, note: 'x', async: false, callbackUrl: 'https://x' } }),
    base,
  )
  t.equal(key({ input: { note: 'x', a: { fileUrl: 'https://mirror.example.com/a.pdf', pages: '1' } } }), base, 'the bytes, not the URL')
  const changes: Array<[string, Partial<KeyParts>]> = [
    ['another document', { digests: { '/a': 'bb' } }],
    ['other pages', { input: { note: 'x', a: { fileUrl: 'https://example.com/a.pdf', pages: '2' } } }],
    ['another account', { accountId: 'acc2' }],
    ['test mode', { livemode: false }],
    ['another version', { version: 2 }],
    ['another route', { route: ['primary:n'] }],
    ['another endpoint', { endpoint: 'parse' }],
  ]
  for (const [why, over] of changes) t.not(key(over), base, why)
  t.equal(cacheKey({ ...parts, digests: {} }), null, 'a fileUrl whose bytes were not read: not cacheable')
  t.equal(canonicalJson({ b: [{ d: 1, c: 2 }], a: null }), '{"a":null,"b":[{"c":2,"d":1}]}')
})
