// The image's HEALTHCHECK. A worker (started with --worker) has no HTTP server: healthy while it runs.
import { readFileSync } from 'node:fs'

const args = readFileSync('/proc/1/cmdline', 'utf8').split('\0')
if (args.includes('--worker') || args.includes('--migrate') || args.includes('--maintenance')) process.exit(0)
fetch(`http://127.0.0.1:${process.env.PORT ?? 3000}/healthz`, { signal: AbortSignal.timeout(2500) }).then(
  (r) => process.exit(r.ok ? 0 : 1),
  () => process.exit(1),
)
