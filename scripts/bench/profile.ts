// Summarises a V8 .cpuprofile (from BENCH_PROFILE): self time by package or project folder, and the top
// functions. `npx tsx scripts/bench/profile.ts <file.cpuprofile> [top] [from s] [to s]` (e.g. skip the boot,
// or look at the boot alone).
import { readFileSync } from 'node:fs'

interface Node {
  id: number
  callFrame: { functionName: string; url: string; lineNumber: number }
  children?: number[]
}
const prof = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as { nodes: Node[]; samples: number[]; timeDeltas: number[] }
const top = Number(process.argv[3] ?? 25)
const skipUs = Number(process.argv[4] ?? 0) * 1e6
const untilUs = Number(process.argv[5] ?? Infinity) * 1e6
const byId = new Map(prof.nodes.map((n) => [n.id, n]))
const self = new Map<number, number>()
let at = 0
prof.samples.forEach((id, i) => {
  at += prof.timeDeltas[i] ?? 0
  if (at >= skipUs && at < untilUs) self.set(id, (self.get(id) ?? 0) + (prof.timeDeltas[i] ?? 0))
})

function area(url: string, name: string): string {
  if (!url) return name === '(garbage collector)' ? 'GC' : name === '(idle)' || name === '(program)' ? name : `native ${name}`
  const m = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url)
  if (m) return m[1]!
  if (url.startsWith('node:internal/deps/')) return `node:${url.slice(19).split('/')[0]} (bundled)` // undici = fetch
  if (url.startsWith('node:internal/')) return `node:${url.slice(14).split('/')[0]!.replace(/\.js$/, '')}`
  if (url.startsWith('node:')) return url
  const p = /\/(core\/[^/]+|capabilities\/[^/]+|scripts|test)\//.exec(url)
  return p ? p[1]! : url
}
const areas = new Map<string, number>()
const fns = new Map<string, number>()
let total = 0
for (const [id, us] of self) {
  const n = byId.get(id)!
  const { functionName, url, lineNumber } = n.callFrame
  if (functionName === '(idle)') continue
  total += us
  const a = area(url, functionName)
  areas.set(a, (areas.get(a) ?? 0) + us)
  const f = `${functionName || '(anonymous)'} ${a}:${lineNumber + 1}`
  fns.set(f, (fns.get(f) ?? 0) + us)
}
const show = (m: Map<string, number>) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, us]) => `${((100 * us) / total).toFixed(1).padStart(5)} %  ${k}`)
    .join('\n')
console.log(`busy ${(total / 1000).toFixed(0)} ms\n\nby area (self time):\n${show(areas)}\n\ntop functions (self time):\n${show(fns)}`)
