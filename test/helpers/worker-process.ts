// A worker in its own process, so a test can kill -9 it mid-job. Prints "ready <worker id>" once it is polling.
import { boot } from '../../core/boot.ts'
import { loadConfig } from '../../core/config.ts'
import { startWorker } from '../../core/worker.ts'
import { createLogger } from '../../core/observability/log.ts'
import { mockProvider } from './app.ts'
import { jobCapability } from './job-capabilities.ts'

const { services } = await boot(loadConfig(), {
  capabilities: new Map([[jobCapability.name, jobCapability]]),
  provider: mockProvider(),
  log: () => {},
  logger: createLogger({ level: 'silent' }),
})
const runner = await startWorker(services, { concurrency: Number(process.env.WORKER_CONCURRENCY ?? 1) })
process.stdout.write(`ready ${runner.id}\n`)
process.on('SIGTERM', () => void runner.stop().then(() => process.exit(0)))
