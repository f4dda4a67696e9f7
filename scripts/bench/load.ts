// Bench child process: the load generator, in its own process so its CPU is never counted as the server's.
// argv[2] is JSON: autocannon options plus `keys` (one bearer key per connection, round robin). Prints the
// result as one JSON line.
import autocannon from 'autocannon'

const { keys, ...opts } = JSON.parse(process.argv[2]!) as autocannon.Options & { keys?: string[] }
let next = 0
const statuses: Record<string, number> = {}
const result = await autocannon({
  ...opts,
  ...(keys
    ? {
        setupClient: (client: { setHeaders(h: object): void }) =>
          client.setHeaders({ ...opts.headers, authorization: `Bearer ${keys[next++ % keys.length]}` }),
      }
    : {}),
} as autocannon.Options)
for (const [k, v] of Object.entries(result.statusCodeStats ?? {})) statuses[k] = (v as { count: number }).count
console.log(
  JSON.stringify({
    requests: result.requests.total,
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    max: result.latency.max,
    errors: result.errors,
    timeouts: result.timeouts,
    non2xx: result.non2xx,
    statuses,
    duration: result.duration,
  }),
)
