// Acceptance fuzz (issue 12, C2, C3): for every endpoint, FUZZ_N (default 200) bad bodies generated from its own
// request schema, each sent live and every fourth also as a dry run: no 5xx, no credit moved, balance == sum(ledger), healthy after.
// FUZZ_N=100000 is the long mode (BENCHMARKS.md); FUZZ_SEED replays a run.
import { request } from 'node:http'
import t from 'tap'
import type { Capability } from '../../core/run/registry.ts'
import { startTestApp } from '../helpers/app.ts'
import { CAPABILITIES_ROOT, capabilityFolders } from '../../core/capability-folders.ts'

const N = Number(process.env.FUZZ_N ?? 200)
let seed = Number(process.env.FUZZ_SEED ?? Date.now() % 1_000_000)
t.comment(`FUZZ_N=${N} FUZZ_SEED=${seed}`)
// About two minutes at the default FUZZ_N on a loaded two-core machine; the long mode needs FUZZ_N-proportional time.
t.setTimeout(Math.max(300_000, N * capabilityFolders(CAPABILITIES_ROOT).length * 50))
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2147483648
  return seed / 2147483648
}
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(random() * xs.length)]!

type Schema = Record<string, any>
type Json = unknown
interface Node {
  path: string[]
  schema: Schema
}

/** Every node of the example body with the schema that governs it (properties, items, the first fitting branch). */
function nodes(schema: Schema, value: Json, path: string[] = [], out: Node[] = []): Node[] {
  out.push({ path, schema })
  const branches: Schema[] = schema.anyOf ?? schema.oneOf ?? []
  for (const b of branches) if (b.properties || b.items) nodes(b, value, path, out)
  if (value && typeof value === 'object' && !Array.isArray(value) && schema.properties) {
    for (const [k, s] of Object.entries(schema.properties as Record<string, Schema>)) {
      nodes(s, (value as Record<string, Json>)[k], [...path, k], out)
    }
  }
  if (Array.isArray(value) && schema.items && value.length) nodes(schema.items, value[0], [...path, '0'], out)
  return out
}

function set(body: Json, path: string[], value: Json /* or REMOVE */): Json {
  if (!path.length) return value === REMOVE ? {} : value
  const copy = (body && typeof body === 'object' ? structuredClone(body) : {}) as Record<string, Json>
  let at: any = copy
  for (const k of path.slice(0, -1)) {
    if (!at[k] || typeof at[k] !== 'object') at[k] = {}
    at = at[k]
  }
  if (value === REMOVE) delete at[path.at(-1)!]
  else at[path.at(-1)!] = value
  return copy
}
const REMOVE = Symbol('remove')

const deep = (n: number): Json => {
  let v: Json = 1
  for (let i = 0; i < n; i++) v = pick([{ a: v }, [v]])
  return v
}
const strangeText = () =>
  pick([
    '\u0000',
    'a\u0000b',
    '\ud800',
    '\udfff\ud800',
    '\u202e\u200b',
    '💸'.repeat(50),
    '\\u0000',
    '%00',
    '<script>',
    "'; drop table accounts; --",
  ])

function wrongType(schema: Schema): Json {
  const types: string[] = [].concat(schema.type ?? [])
  const candidates: Array<[string, Json]> = [
    ['number', 123.5],
    ['integer', -7],
    ['string', 'text'],
    ['boolean', true],
    ['null', null],
    ['array', [1, 'x']],
    ['object', { x: 1 }],
  ]
  const wrong = candidates.filter(([ty]) => !types.includes(ty) && !(ty === 'integer' && types.includes('number')))
  return pick(wrong.length ? wrong : candidates)[1]
}

/** One mutation of the example, aimed at a rule of the schema. */
function mutate(example: Json, cap: Capability): Json {
  const node = pick(nodes(cap.request as Schema, example))
  const s = node.schema
  const kinds = ['type', 'extra', 'deep', 'strange']
  if (s.required?.length) kinds.push('missing')
  if (s.maxLength !== undefined || s.minLength) kinds.push('length')
  if (s.maxItems !== undefined || s.minItems) kinds.push('items')
  if (s.minimum !== undefined || s.maximum !== undefined || s.type === 'integer') kinds.push('range')
  if (s.enum || s.const !== undefined || s.anyOf?.every((b: Schema) => b.const !== undefined)) kinds.push('enum')
  switch (pick(kinds)) {
    case 'type':
      return set(example, node.path, wrongType(s))
    case 'extra':
      return set(example, [...node.path, pick(['__proto__x', 'unexpected', '\u0000', 'a'.repeat(300)])], pick([1, 'x', null, {}]))
    case 'deep':
      return set(example, node.path, deep(65 + Math.floor(random() * 400)))
    case 'strange':
      // Hostile text where a string belongs, plus a property the schema does not allow.
      return set(set(example, node.path, strangeText()), ['\u0000'], strangeText())
    case 'missing':
      return set(example, [...node.path, pick(s.required as string[])], REMOVE)
    case 'length':
      return set(
        example,
        node.path,
        s.maxLength !== undefined && random() < 0.8 ? 'x'.repeat(s.maxLength + 1 + Math.floor(random() * 10)) : '',
      )
    case 'items':
      return set(example, node.path, s.maxItems !== undefined && random() < 0.8 ? Array(s.maxItems + 1).fill('x') : [])
    case 'range':
      return set(
        example,
        node.path,
        pick([s.minimum !== undefined ? s.minimum - 1 : -1e308, s.maximum !== undefined ? s.maximum + 1 : 1e308, 0.5, -0.000001, 1e21]),
      )
    default:
      return set(example, node.path, pick(['not-in-the-enum', '', 'ＵＳＤ', 42]))
  }
}

/** A body the endpoint must refuse: a schema mutation (re-drawn until the schema or the check refuses it) or a broken envelope. */
async function badRequest(cap: Capability): Promise<{ raw: string; contentType?: string }> {
  const example = cap.example?.request ?? {}
  const r = random()
  if (r < 0.08) {
    const text = JSON.stringify(example)
    return {
      raw: pick([
        text.slice(0, Math.floor(random() * text.length)),
        `${text},`,
        `{"a":}`,
        'NaN',
        `{'a':1}`,
        '\ufeff{}x',
        '{"a":1}{"b":2}',
        '',
      ]),
    }
  }
  if (r < 0.12)
    return {
      raw: JSON.stringify(example),
      contentType: pick(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'application/xml']),
    }
  if (r < 0.15) return { raw: pick(['[]', '"x"', '1', 'null', 'true', '[{}]']) }
  for (let tries = 0; tries < 20; tries++) {
    const body = mutate(example, cap) as Record<string, unknown>
    if (!body || typeof body !== 'object' || Array.isArray(body) || !cap.validateRequest(body)) return { raw: JSON.stringify(body) }
    const { async: _a, callbackUrl: _c, ...input } = body
    const problems = await Promise.resolve(cap.check?.(input)).catch(() => [{ path: '', message: 'refused' }])
    if (problems?.length) return { raw: JSON.stringify(body) }
  }
  return { raw: JSON.stringify({ ...example, unexpected: true }) }
}

// Limits and pauses answer before validation (stages 2, 3); lifted here so every body reaches stage 4.
const names = capabilityFolders(CAPABILITIES_ROOT)
const app = await startTestApp(t, {
  config: { rateLimits: Object.fromEntries(names.map((n) => [n, 1e9])), paused: Object.fromEntries(names.map((n) => [n, false] as const)) },
})
const caps = [...app.services.capabilities.values()]
const customer = await app.customer(1_000_000)

/**
 * A POST that keeps the server's answer even when the server answers before reading the whole body (415, 413)
 * and closes the connection under the upload, which fetch reports only as a reset.
 */
function post(path: string, body: string, headers: Record<string, string>): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(app.url)
  return new Promise((resolve, reject) => {
    let answered: { status: number; text: string } | null = null
    const req = request(
      { hostname, port, path, method: 'POST', headers: { ...headers, 'content-length': Buffer.byteLength(body) } },
      (res) => {
        answered = { status: res.statusCode!, text: '' }
        res.on('data', (c) => (answered!.text += c))
        res.on('end', () => resolve(parsed(answered!)))
      },
    )
    const parsed = (a: { status: number; text: string }) => {
      try {
        return { status: a.status, body: JSON.parse(a.text) }
      } catch {
        return { status: a.status, body: undefined }
      }
    }
    req.on('error', (e) => (answered ? resolve(parsed(answered)) : reject(e)))
    req.end(body)
  })
}

t.test(`every endpoint refuses ${N} bad bodies (and their dry runs) with a 4xx; nothing is charged`, async (t) => {
  const started = Date.now()
  const statuses = new Map<number, number>()
  const failures: string[] = []
  let sent = 0
  const one = async (cap: Capability, bad: { raw: string; contentType?: string }, dry: boolean) => {
    const res = await post(`/v1/${cap.name}`, bad.raw, {
      authorization: `Bearer ${customer.key}`,
      'content-type': bad.contentType ?? 'application/json',
      ...(dry ? { 'service-dry-run': '1' } : {}),
    })
    sent++
    const status = dry && res.status === 200 ? res.body?.liveStatus : res.status
    statuses.set(status, (statuses.get(status) ?? 0) + 1)
    if (!(status >= 400 && status < 500) && failures.length < 20)
      failures.push(`${dry ? 'dry ' : ''}/v1/${cap.name} → ${res.status}${dry ? ` live ${status}` : ''}: ${bad.raw.slice(0, 200)}`)
    if (res.status >= 400 && !res.body?.error?.requestId && failures.length < 20)
      failures.push(`/v1/${cap.name} ${res.status} without the C2 error body`)
  }
  for (const cap of caps) {
    const bodies = await Promise.all(Array.from({ length: N }, () => badRequest(cap)))
    // Every body live, every fourth also as a dry run; sixteen at a time (correctness, not throughput).
    for (let i = 0; i < bodies.length; i += 16) {
      await Promise.all(bodies.slice(i, i + 16).flatMap((b, j) => [one(cap, b, false), ...((i + j) % 4 === 0 ? [one(cap, b, true)] : [])]))
    }
  }
  // Huge bodies (over the 20 MiB limit) for a few endpoints: 413, live and dry.
  const huge = `{"text":"${'x'.repeat(app.services.config.bodyLimitBytes + 10)}"}`
  for (const cap of caps.slice(0, 3)) for (const dry of [false, true]) await one(cap, { raw: huge }, dry)
  t.same(failures, [], 'every bad body got a 4xx with the C2 error body')
  t.notOk(
    [...statuses.keys()].some((s) => s >= 500),
    'no 5xx',
  )
  t.notOk(statuses.has(429), 'every body reached validation (no rate limit in the way)')
  t.comment(`${sent} requests in ${((Date.now() - started) / 1000).toFixed(1)} s; statuses ${JSON.stringify(Object.fromEntries(statuses))}`)
  const money = await app.ledger(customer.accountId)
  t.equal(money.balance, 1_000_000, 'no credit moved')
  t.equal(money.reserved, 0, 'no hold left')
  t.equal(money.ledgerSum, money.balance, 'balance == sum(ledger)')
  const [counts] = await app.services.db.sql(
    `select (select count(*) from jobs) as jobs, (select count(*) from idempotency_records) as idem`,
  )
  t.same([Number(counts!.jobs), Number(counts!.idem)], [0, 0], 'no job, no idempotency record')
  t.equal((await app.call('/healthz')).status, 200, 'healthy after')
  t.equal((await app.call('/readyz')).status, 200, 'ready after')
  const classify = app.services.capabilities.get('classify')!
  const dry = await app.call('/v1/classify', { body: classify.example.request, key: customer.key, headers: { 'service-dry-run': '1' } })
  t.equal(dry.body.liveStatus, 200, 'and still serves a valid call')
})
