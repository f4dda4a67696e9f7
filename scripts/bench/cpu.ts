// The API's CPU per live call (`npm run bench`, BENCH_ONLY=cpu), in two parts:
// 1. The live /v1/classify call at 20 connections (unpaced, or BENCH_CPU_AB_RATE calls/s), with `Service-Cache:
//    no-store` so that every call holds, reaches the model and captures (the same body again would be a cache hit):
//    this API and each BENCH_AB checkout (started as its own `npm start` starts it) taking turns.
// 2. (BENCH_CPU_FEATURES=0 skips it) What each optional feature on a live call's path adds to it: the same call with
//    and without it, at one fixed rate (BENCH_CPU_RATE, default 30), in alternating order: balance thresholds on the account (the alerts outbox's trigger), the result cache
//    (a miss, against the same new bodies with no-store; a hit), a scoped key (the permission check), Service-Metadata tags.
import type { ChildProcess } from 'node:child_process'
import type { Caller } from '../../core/http/caller.ts'
import { readMetadata } from '../../core/http/metadata.ts'
import { requireCapability } from '../../core/http/permissions.ts'

interface Measured {
  r: { requests: number }
  cpu: Record<string, number>
}
type MeasuredFn = (name: string, target: string, opts: Record<string, unknown>, procs: Record<string, ChildProcess[]>) => Promise<Measured>

interface Api {
  label: string
  url: string
  proc: ChildProcess
}

const CONNECTIONS = 20
const NO_STORE = { 'service-cache': 'no-store' }
const TEXT = 'My card was charged twice.'
const SAME = JSON.stringify({ text: TEXT, labels: ['billing', 'technical'] })
const DISTINCT = JSON.stringify({ text: `${TEXT} [<id>]`, labels: ['billing', 'technical'] }) // autocannon's [<id>]: a miss each

interface Sum {
  api: number
  postgres: number
  n: number
}
const add = (s: Sum, row: Measured) => {
  s.api += row.cpu.api!
  s.postgres += row.cpu.postgres!
  s.n += row.r.requests
}
const per = (s: Sum, f: 'api' | 'postgres') => s[f] / s.n

/** CPU ns per run of `fn`, in this process, best of three blocks. */
function nsPer(n: number, fn: () => void): number {
  let best = Infinity
  for (let block = 0; block < 3; block++) {
    const t = process.cpuUsage()
    for (let i = 0; i < n; i++) fn()
    const used = process.cpuUsage(t)
    best = Math.min(best, ((used.user + used.system) * 1000) / n)
  }
  return best
}

interface CpuBench {
  apis: Api[]
  model: ChildProcess
  measured: MeasuredFn
  headers: (key: string, extra?: Record<string, string>) => Record<string, string>
  /** The hot account's key (permissions all), a scoped key of the same account, and a key of an account with thresholds. */
  keys: { all: string; scoped: string; alerted: string }
  seconds: number
}

export async function benchCpu(o: CpuBench): Promise<string[]> {
  const rounds = Number(process.env.BENCH_CPU_ROUNDS ?? 3)
  const lines = await comparedApis(o, rounds)
  return process.env.BENCH_CPU_FEATURES === '0' ? lines : [...lines, ...(await features(o, rounds))]
}

const procsOf = (o: CpuBench, a: Api) => ({ api: [a.proc], model: [o.model] })

/** 1. This API and the BENCH_AB checkouts, taking turns, in alternating order. */
async function comparedApis(o: CpuBench, rounds: number): Promise<string[]> {
  // BENCH_CPU_AB_RATE=n paces them at one rate (CPU per call falls as the rate rises: unpaced, a faster API looks cheaper).
  const abRate = Number(process.env.BENCH_CPU_AB_RATE ?? 0)
  const ab = o.apis.map(() => ({ api: 0, postgres: 0, n: 0 }))
  for (let round = 0; round < rounds; round++) {
    const order = o.apis.map((_, i) => i)
    for (const i of round % 2 ? order.reverse() : order) {
      const a = o.apis[i]!
      const opts = {
        connections: CONNECTIONS,
        body: SAME,
        headers: o.headers(o.keys.all, NO_STORE),
        ...(abRate ? { overallRate: abRate } : {}),
      }
      add(ab[i]!, await o.measured(`cpu ${a.label}`, `${a.url}/v1/classify`, opts, procsOf(o, a)))
    }
  }
  return [
    `Live /v1/classify with Service-Cache: no-store (hold, model call, capture), ${CONNECTIONS} connections ${abRate ? `at ${abRate} calls/s` : 'unpaced'}, ${rounds} rounds of ${o.seconds} s per API, taking turns in alternating order`,
    '',
    '| API | CPU ms/call API | CPU ms/call PostgreSQL | calls | API / this API |',
    '|---|---:|---:|---:|---:|',
    ...o.apis.map(
      (a, i) =>
        `| ${a.label} | **${per(ab[i]!, 'api').toFixed(3)}** | ${per(ab[i]!, 'postgres').toFixed(3)} | ${ab[i]!.n} | ${(per(ab[i]!, 'api') / per(ab[0]!, 'api')).toFixed(3)} |`,
    ),
    '',
  ]
}

/** 2. The features, on this API at one fixed rate (CPU per call falls as the rate rises). */
async function features(o: CpuBench, rounds: number): Promise<string[]> {
  const RATE = Number(process.env.BENCH_CPU_RATE ?? 30)
  const self = o.apis[0]!
  const kinds: Record<string, { what: string; body: string; key: string; extra: Record<string, string>; idReplacement?: boolean }> = {
    base: {
      what: 'the call alone: key of permissions all, no thresholds, no-store, no tags',
      body: SAME,
      key: o.keys.all,
      extra: NO_STORE,
    },
    fresh: {
      what: 'the call alone, every body new (no-store): the same call as a miss, without the cache',
      body: DISTINCT,
      key: o.keys.all,
      extra: NO_STORE,
      idReplacement: true,
    },
    alerts: { what: 'an account with balance thresholds [2e9, 1000] (never crossed)', body: SAME, key: o.keys.alerted, extra: NO_STORE },
    scoped: { what: 'a scoped key (permissions call, an allowlist of 38)', body: SAME, key: o.keys.scoped, extra: NO_STORE },
    metadata: {
      what: 'Service-Metadata with three tags',
      body: SAME,
      key: o.keys.all,
      extra: { ...NO_STORE, 'service-metadata': JSON.stringify({ order: '1182', user: 'u_7', team: 'support' }) },
    },
    miss: {
      what: 'the cache on, every body new (a miss: the claim in the hold, model call, the store in the capture)',
      body: DISTINCT,
      key: o.keys.all,
      extra: {},
      idReplacement: true,
    },
    hit: { what: 'the cache on, the same body (a hit: no model call)', body: SAME, key: o.keys.all, extra: {} },
  }
  const names = Object.keys(kinds)
  const sums = Object.fromEntries(names.map((k) => [k, { api: 0, postgres: 0, n: 0 }]))
  for (let round = 0; round < rounds; round++)
    for (const k of round % 2 ? [...names].reverse() : names) {
      const kind = kinds[k]!
      const opts = {
        connections: CONNECTIONS,
        overallRate: RATE,
        body: kind.body,
        headers: o.headers(kind.key, kind.extra),
        ...(kind.idReplacement ? { idReplacement: true } : {}),
      }
      add(sums[k]!, await o.measured(`cpu ${k}`, `${self.url}/v1/classify`, opts, procsOf(o, self)))
    }
  const base = sums.base!
  // The in-process share of two of them, timed alone (the end-to-end rows above carry the machine's noise).
  const caller = (capabilities: ReadonlySet<string> | null): Caller => ({
    keyId: 'k',
    accountId: 'a',
    mode: 'live',
    permissions: capabilities ? 'call' : 'all',
    capabilities,
  })
  const scopedCaller = caller(new Set(Array.from({ length: 38 }, (_, i) => (i ? `capability-${i}` : 'classify'))))
  const allCaller = caller(null)
  const check =
    nsPer(1_000_000, () => requireCapability(scopedCaller, 'classify')) - nsPer(1_000_000, () => requireCapability(allCaller, 'classify'))
  const tags = kinds.metadata!.extra['service-metadata']!
  const metadata = nsPer(100_000, () => readMetadata(tags))
  const share = (ns: number) => `${((ns / 1e6 / per(base, 'api')) * 100).toFixed(3)} %`
  return [
    `The same call with and without each feature, this API, ${CONNECTIONS} connections at ${RATE} calls/s, ${rounds} rounds of ${o.seconds} s each, taking turns in alternating order`,
    '',
    '| call | CPU ms/call API | CPU ms/call PostgreSQL | calls | API / alone | (API + PostgreSQL) / alone |',
    '|---|---:|---:|---:|---:|---:|',
    ...names.map((k) => {
      const s = sums[k]!
      const both = (x: Sum) => per(x, 'api') + per(x, 'postgres')
      return `| ${kinds[k]!.what} | ${per(s, 'api').toFixed(3)} | ${per(s, 'postgres').toFixed(3)} | ${s.n} | **${(per(s, 'api') / per(base, 'api')).toFixed(3)}** | ${(both(s) / both(base)).toFixed(3)} |`
    }),
    '',
    `- a miss against the same new bodies without the cache (no-store): API **${(per(sums.miss!, 'api') / per(sums.fresh!, 'api')).toFixed(3)}**, API + PostgreSQL **${((per(sums.miss!, 'api') + per(sums.miss!, 'postgres')) / (per(sums.fresh!, 'api') + per(sums.fresh!, 'postgres'))).toFixed(3)}**`,
    `- timed alone in the bench process: the scoped key's allowlist check ${check.toFixed(1)} ns more than a key of permissions all (${share(check)} of the call's API CPU); reading three Service-Metadata tags ${(metadata / 1000).toFixed(2)} µs (${share(metadata)})`,
  ]
}
