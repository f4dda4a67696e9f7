import t from 'tap'
import { AddressRefused, isPublicAddress, resolvePublicTarget, type Resolver } from '../../core/net/address-guard.ts'

const httpsOnly = { allowPrivate: false, schemes: ['https:'] } as const

function mapResolver(map: Record<string, string[]>): Resolver & { calls: string[] } {
  const calls: string[] = []
  const fn: Resolver = async (host) => {
    calls.push(host)
    const found = map[host]
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' })
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))
  }
  return Object.assign(fn, { calls })
}

const noDns: Resolver = async () => {
  throw new Error('resolver must not be called for IP literals')
}

t.test('isPublicAddress refuses every non-public class', async (t) => {
  const forbidden = [
    '127.0.0.1',
    '127.255.255.254',
    '10.0.0.1',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '169.254.0.1',
    '100.64.0.1',
    '100.127.255.255',
    '0.0.0.0',
    '0.1.2.3',
    '224.0.0.1',
    '239.255.255.250',
    '255.255.255.255',
    '240.0.0.1',
    '192.0.2.1',
    '198.51.100.1',
    '203.0.113.1',
    '198.18.0.1',
    '192.0.0.8',
    '::1',
    '::',
    'fe80::1',
    'fe80::1%eth0',
    'fc00::1',
    'fd12:3456::1',
    'ff02::1',
    'fec0::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '::ffff:7f00:1',
    '::ffff:169.254.169.254',
    '::127.0.0.1',
    '2001:db8::1',
    '2001:2::1',
    '2001::1',
    '2002:7f00:1::1',
    '64:ff9b::7f00:1',
    '64:ff9b:1::8.8.8.8',
    '100::1',
    '::ffff:0:8.8.8.8',
  ]
  for (const ip of forbidden) t.equal(isPublicAddress(ip), false, ip)
})

t.test('isPublicAddress accepts public unicast', async (t) => {
  for (const ip of ['8.8.8.8', '1.1.1.1', '2606:4700::1111', '2001:4860:4860::8888', '::ffff:8.8.8.8', '64:ff9b::808:808']) {
    t.equal(isPublicAddress(ip), true, ip)
  }
})

t.test('isPublicAddress: invalid or loose strings are not public', async (t) => {
  for (const s of ['', 'localhost', 'example.com', '8.8.8', '0x7f.1', '2130706433', '8.8.8.8.8', '[::1]', '1.1.1.1 ']) {
    t.equal(isPublicAddress(s), false, JSON.stringify(s))
  }
})

t.test('IP literal URLs are judged as-is, without DNS', async (t) => {
  const refused = [
    'https://127.0.0.1/',
    'https://10.1.2.3/',
    'https://172.16.0.1/',
    'https://192.168.0.1/',
    'https://169.254.169.254/latest/meta-data/',
    'https://100.64.0.1/',
    'https://0.0.0.0/',
    'https://224.0.0.1/',
    'https://255.255.255.255/',
    'https://[::1]/',
    'https://[::]/',
    'https://[fe80::1]/',
    'https://[fc00::1]/',
    'https://[ff02::1]/',
    'https://[::ffff:127.0.0.1]/',
    'https://[::ffff:10.0.0.1]/',
    'https://[::ffff:7f00:1]/',
    // Loose IPv4 spellings are canonicalised by URL to 127.0.0.1.
    'https://2130706433/',
    'https://0x7f.1/',
    'https://0177.0.0.1/',
  ]
  for (const u of refused) {
    await t.rejects(resolvePublicTarget(new URL(u), { ...httpsOnly, resolver: noDns }), { name: 'AddressRefused', reason: 'address' }, u)
  }
  t.same(await resolvePublicTarget(new URL('https://8.8.8.8/'), { ...httpsOnly, resolver: noDns }), {
    address: '8.8.8.8',
    family: 4,
  })
  t.same(await resolvePublicTarget(new URL('https://[2606:4700::1111]:8443/x'), { ...httpsOnly, resolver: noDns }), {
    address: '2606:4700::1111',
    family: 6,
  })
})

t.test('hostnames: every resolved address must be public', async (t) => {
  const resolver = mapResolver({
    'evil.test': ['127.0.0.1'],
    'mixed.test': ['1.1.1.1', '10.0.0.5'],
    'mixed6.test': ['2606:4700::1111', '::1'],
    'good.test': ['1.1.1.1', '2606:4700::1111'],
  })
  const opts = { ...httpsOnly, resolver }
  const err = await resolvePublicTarget(new URL('https://evil.test/'), opts).catch((e: unknown) => e)
  t.ok(err instanceof AddressRefused)
  t.match(err, { reason: 'address' })
  t.notMatch((err as Error).message, /127\.0\.0\.1/, 'message does not leak the resolved address')
  await t.rejects(resolvePublicTarget(new URL('https://mixed.test/'), opts), { name: 'AddressRefused', reason: 'address' })
  await t.rejects(resolvePublicTarget(new URL('https://mixed6.test/'), opts), { name: 'AddressRefused', reason: 'address' })
  t.same(await resolvePublicTarget(new URL('https://good.test/'), opts), { address: '1.1.1.1', family: 4 })
  await t.rejects(resolvePublicTarget(new URL('https://nowhere.test/'), opts), { name: 'AddressRefused', reason: 'unresolvable' })
  const empty: Resolver = async () => []
  await t.rejects(resolvePublicTarget(new URL('https://x.test/'), { ...httpsOnly, resolver: empty }), {
    name: 'AddressRefused',
    reason: 'unresolvable',
  })
})

t.test('scheme and credentials rules', async (t) => {
  const resolver = mapResolver({ 'good.test': ['1.1.1.1'] })
  await t.rejects(resolvePublicTarget(new URL('http://good.test/'), { ...httpsOnly, resolver }), {
    name: 'AddressRefused',
    reason: 'scheme',
  })
  await t.rejects(resolvePublicTarget(new URL('ftp://good.test/'), { ...httpsOnly, resolver }), {
    name: 'AddressRefused',
    reason: 'scheme',
  })
  await t.rejects(resolvePublicTarget(new URL('file:///etc/passwd'), { ...httpsOnly, resolver }), {
    name: 'AddressRefused',
    reason: 'scheme',
  })
  t.ok(await resolvePublicTarget(new URL('http://good.test/'), { allowPrivate: false, resolver, schemes: ['http:', 'https:'] }))
  await t.rejects(resolvePublicTarget(new URL('https://u:p@good.test/'), { ...httpsOnly, resolver }), {
    name: 'AddressRefused',
    reason: 'credentials',
  })
  await t.rejects(resolvePublicTarget(new URL('https://u@good.test/'), { ...httpsOnly, resolver }), {
    name: 'AddressRefused',
    reason: 'credentials',
  })
  t.same(resolver.calls, ['good.test'], 'refused before resolving')
})

t.test('allowPrivate lifts both the scheme and the address rule', async (t) => {
  const resolver = mapResolver({ 'hook.test': ['127.0.0.1'] })
  const dev = { allowPrivate: true, schemes: ['https:'], resolver }
  t.same(await resolvePublicTarget(new URL('http://hook.test:3000/cb'), dev), { address: '127.0.0.1', family: 4 })
  t.same(await resolvePublicTarget(new URL('http://[::1]/'), dev), { address: '::1', family: 6 })
  t.same(await resolvePublicTarget(new URL('https://10.0.0.1/'), dev), { address: '10.0.0.1', family: 4 })
  // ...but not the others: there is no dev use for them.
  await t.rejects(resolvePublicTarget(new URL('file:///etc/passwd'), dev), { name: 'AddressRefused', reason: 'scheme' })
  await t.rejects(resolvePublicTarget(new URL('http://u:p@hook.test/'), dev), { name: 'AddressRefused', reason: 'credentials' })
})
