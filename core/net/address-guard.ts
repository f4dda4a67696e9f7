// SSRF guard (contract C8, C12): decides whether a user-supplied URL may be connected to, and which address to
// connect to. Callers must connect to the returned address (not re-resolve), or DNS rebinding defeats the check.
import { promises as dns } from 'node:dns'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'

export type Resolver = (hostname: string) => Promise<Array<{ address: string; family: 4 | 6 }>>

export const systemResolver: Resolver = async (hostname) => {
  const found = await dns.lookup(hostname, { all: true, verbatim: true })
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }))
}

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3')
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96')

export function isPublicAddress(ip: string): boolean {
  // net.isIP first: ipaddr alone accepts loose forms ("0x7f.1", "2130706433") that no resolver returns.
  if (isIP(ip) === 0) return false
  let addr: ipaddr.IPv4 | ipaddr.IPv6
  try {
    addr = ipaddr.parse(ip)
  } catch {
    return false
  }
  if (addr.kind() === 'ipv4') return addr.range() === 'unicast'
  const v6 = addr as ipaddr.IPv6
  const range = v6.range()
  // Forms that embed an IPv4 address the network may route to: judge the embedded address.
  if (range === 'ipv4Mapped') return isPublicAddress(v6.toIPv4Address().toString())
  if (range === 'rfc6052' && v6.match(NAT64_WELL_KNOWN)) return isPublicAddress(embeddedV4(v6.parts[6], v6.parts[7]))
  if (range === '6to4') return isPublicAddress(embeddedV4(v6.parts[1], v6.parts[2]))
  // Everything else (teredo, rfc6145, local-use NAT64, ...) is not clearly public. "unicast" is ipaddr's
  // catch-all, so also require the IANA global unicast block (rules out ::a.b.c.d and other unassigned space).
  return range === 'unicast' && v6.match(GLOBAL_UNICAST_V6)
}

function embeddedV4(hi = 0, lo = 0): string {
  return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`
}

export interface GuardOptions {
  allowPrivate: boolean
  resolver?: Resolver
  schemes: readonly string[]
}

export type RefusalReason = 'scheme' | 'credentials' | 'address' | 'unresolvable'

export class AddressRefused extends Error {
  override readonly name = 'AddressRefused'
  readonly reason: RefusalReason
  constructor(reason: RefusalReason, message: string) {
    super(message)
    this.reason = reason
  }
}

// allowPrivate lifts the scheme rule only as far as plain http; nothing else is fetchable anyway.
const DEV_SCHEMES = ['http:', 'https:']

export async function resolvePublicTarget(url: URL, opts: GuardOptions): Promise<{ address: string; family: 4 | 6 }> {
  const schemes = opts.allowPrivate ? DEV_SCHEMES : opts.schemes
  if (!schemes.includes(url.protocol)) {
    throw new AddressRefused('scheme', `URL scheme ${url.protocol.replace(/:$/, '')} is not allowed`)
  }
  if (url.username !== '' || url.password !== '') {
    throw new AddressRefused('credentials', 'URLs with credentials are not allowed')
  }
  // WHATWG URL already canonicalises IPv4 literals (e.g. 2130706433 -> 127.0.0.1); IPv6 keeps its brackets.
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  if (host === '') throw new AddressRefused('unresolvable', 'URL has no host')

  const literal = isIP(host)
  let candidates: Array<{ address: string; family: 4 | 6 }>
  if (literal !== 0) {
    candidates = [{ address: host, family: literal === 6 ? 6 : 4 }]
  } else {
    try {
      candidates = await (opts.resolver ?? systemResolver)(host)
    } catch {
      candidates = []
    }
    if (candidates.length === 0) throw new AddressRefused('unresolvable', `host ${host} could not be resolved`)
  }
  // Every candidate, not just the first: a client library (or a retry) could pick any of them.
  if (!opts.allowPrivate && !candidates.every((c) => isPublicAddress(c.address))) {
    throw new AddressRefused('address', `host ${host} is not a public address`)
  }
  return candidates[0]!
}
