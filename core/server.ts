// Process entry. `npm start` runs the API and the worker together; --api or --worker runs one (C15).
// One-shot modes for deployments (docs/deploy.md): --migrate applies the migrations and exits; --maintenance
// runs one maintenance pass (a scheduler's job, e.g. a Kubernetes CronJob) and exits.
// SIGTERM: stop accepting, let running jobs finish within the grace period, then exit.
// The start scripts pass --max-old-space-size=1024: V8 otherwise sizes the heap from the machine (4 GiB on 24 GB)
// and left the garbage of 10,000 long calls uncollected past 1 GiB, 80 MiB of it live (BENCHMARKS.md).
import { boot } from './boot.ts'
import { buildApp, httpServer } from './app.ts'
import { BootRefusal, loadConfig } from './config.ts'
import { migrate, resolveDatabaseUrl } from './db/database.ts'
import { runMaintenance } from './maintenance.ts'
import { startWorker } from './worker.ts'
import { mailToLogWarning } from './mail.ts'
import { ManifestError } from './run/registry.ts'
import { startTracing } from './observability/tracing.ts'

const args = new Set(process.argv.slice(2))
const runApi = !args.has('--worker')
const runWorker = !args.has('--api')

const LISTEN_BACKLOG = 4096

async function main() {
  const config = loadConfig()
  const stopTracing = await startTracing(args.has('--worker') ? 'worker' : args.has('--api') ? 'api' : 'all')
  if (args.has('--migrate')) {
    const database = await resolveDatabaseUrl(config.databaseUrl)
    await migrate(database.url)
    await database.stop()
    console.log('Migrations applied')
    return
  }
  // Before anything starts, so a refusal is one line; a maintenance pass sends no sign-in link.
  const mailWarning = runApi && !args.has('--maintenance') ? mailToLogWarning(config) : null
  const booted = await boot(config)
  if (args.has('--maintenance')) {
    booted.services.log(`[maintenance] ${JSON.stringify(await runMaintenance(booted.services))}`)
    await booted.close()
    await stopTracing?.()
    return
  }
  const { services } = booted
  if (mailWarning) services.log(mailWarning)
  const server = runApi ? httpServer(buildApp(services), config) : null
  if (server) {
    await new Promise<void>((resolve) => {
      server.once('error', (e: NodeJS.ErrnoException) => {
        if (e.code === 'EADDRINUSE')
          console.error(`Port ${config.port} is already in use; set PORT to a free one, e.g. PORT=3001 npm start.`)
        else console.error(`Cannot listen on port ${config.port}: ${e.message}`)
        void booted.close().finally(() => process.exit(1))
      })
      // Node's default backlog (511) drops connects beyond it during a burst; the kernel caps this at somaxconn.
      server.listen({ port: config.port, backlog: LISTEN_BACKLOG }, resolve)
    })
    services.log(`API listening on http://localhost:${config.port} (${services.capabilities.size} capabilities)`)
  }
  const worker = runWorker ? await startWorker(services) : null
  if (worker) services.log('Worker running')

  let stopping = false
  const shutdown = async (signal: string) => {
    if (stopping) return
    stopping = true
    services.log(`${signal}: shutting down`)
    await new Promise<void>((resolve) => (server ? server.close(() => resolve()) : resolve()))
    await worker?.stop()
    await booted.close()
    await stopTracing?.()
    process.exit(0)
  }
  process.on('SIGTERM', () => void shutdown('SIGTERM'))
  process.on('SIGINT', () => void shutdown('SIGINT'))
}

main().catch((e) => {
  console.error(e instanceof ManifestError || e instanceof BootRefusal ? `Refusing to boot: ${e.message}` : e)
  process.exit(1)
})
