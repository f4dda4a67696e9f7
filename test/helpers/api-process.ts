// The API in its own process, without a worker, so a test can kill -9 it right after a call. Prints "ready <url>".
import type { AddressInfo } from 'node:net'
import { buildApp, httpServer } from '../../core/app.ts'
import { boot } from '../../core/boot.ts'
import { loadConfig } from '../../core/config.ts'
import { createLogger } from '../../core/observability/log.ts'
import { mockProvider } from './app.ts'
import { twoCreditCapability } from './job-capabilities.ts'

const { services } = await boot(loadConfig(), {
  capabilities: new Map([[twoCreditCapability.name, twoCreditCapability]]),
  provider: mockProvider(),
  log: () => {},
  logger: createLogger({ level: 'silent' }),
})
const server = httpServer(buildApp(services), services.config).listen(0, '127.0.0.1')
server.once('listening', () => process.stdout.write(`ready http://127.0.0.1:${(server.address() as AddressInfo).port}\n`))
