// An API server in its own process, without a worker, so a test can kill -9 it mid-call; prints "ready <url>" once
// listening. It serves the capability folders named in CAPABILITIES (comma-separated) with the fake OpenAI server at
// FAKE_OPENAI_URL, or else the two-credit test capability with a mocked provider.
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { buildApp, httpServer } from '../../core/app.ts'
import { boot } from '../../core/boot.ts'
import { CAPABILITIES_ROOT } from '../../core/capability-folders.ts'
import type { CapabilityManifest } from '../../core/capability.ts'
import { loadConfig } from '../../core/config.ts'
import { createLogger } from '../../core/observability/log.ts'
import { checkManifest, type Capability } from '../../core/run/registry.ts'
import { fakeServerProvider, mockProvider } from './app.ts'
import { twoCreditCapability } from './job-capabilities.ts'

const folders = (process.env.CAPABILITIES ?? '').split(',').filter(Boolean)
const capabilities: Capability[] = folders.length ? [] : [twoCreditCapability]
for (const name of folders) {
  const file = pathToFileURL(path.join(CAPABILITIES_ROOT, name, 'manifest.ts')).href
  const manifest = ((await import(file)) as { default: CapabilityManifest }).default
  capabilities.push(checkManifest(manifest, name, `capabilities/${name}`))
}
const config = loadConfig({ ...process.env, PAUSED_ENDPOINTS: undefined })
const { services } = await boot(config, {
  capabilities: new Map(capabilities.map((c) => [c.name, c])),
  provider: folders.length ? fakeServerProvider(process.env.FAKE_OPENAI_URL!) : mockProvider(),
  log: () => {},
  logger: createLogger({ level: 'silent' }),
})
const server = httpServer(buildApp(services), config).listen(0, '127.0.0.1', () => {
  process.stdout.write(`ready http://127.0.0.1:${(server.address() as AddressInfo).port}\n`)
})
