// In-flight dedupe across API instances (C20). The claim is folded into the call's hold (result_cache_hold): the
// call that finds its key free leads, and its hold marks the key's row in flight; identical calls meanwhile follow:
// they hold nothing, wait, and claim again. This connection, one per process, does the rest: it LISTENs for the
// captures and releases that end a flight (delivered at their commit), and keeps a session advisory lock for as long
// as it lives, whose id each of the process's leaders writes into its row: a follower finds a leader whose process
// died (its connection gone, the lock with it) dead, and runs on its own. PostgreSQL wakes nobody when a process
// dies: followers also poll.
import { randomInt } from 'node:crypto'
import pg from 'pg'

/** The namespace (first key) of the processes' leader ids (result_cache_hold reads it in pg_locks). */
const LEADER_CLASS = 1128481353
const CHANNEL = 'result_cache_done'
/** How often a follower looks again without a notification: how soon it notices a leader's process died. */
const POLL_MS = 250

export class Flights {
  private client: pg.Client | null = null
  private connecting: Promise<pg.Client> | null = null
  /** This connection's leader id: the second key of the advisory lock it holds. */
  private id = 0
  /** Followers of each key, woken by a notification. */
  private readonly sleepers = new Map<string, Set<() => void>>()
  private closed = false
  private readonly url: string
  constructor(url: string) {
    this.url = url
  }

  /** The leader id a call of this process writes into its row in flight (connecting on the first call). */
  async leaderId(): Promise<number> {
    if (this.client) return this.id
    await this.connection()
    return this.id
  }

  /** Until the key's notification, a poll interval, the deadline or the client leaving. */
  async wait(hex: string, signal: AbortSignal, deadline: number): Promise<void> {
    let wake = () => {}
    const woken = new Promise<void>((go) => (wake = go))
    const set = this.sleepers.get(hex) ?? new Set()
    this.sleepers.set(hex, set)
    set.add(wake)
    const timer = setTimeout(wake, Math.max(0, Math.min(POLL_MS, deadline - Date.now())))
    signal.addEventListener('abort', wake, { once: true })
    try {
      await woken
    } finally {
      clearTimeout(timer)
      signal.removeEventListener('abort', wake)
      set.delete(wake)
      if (!set.size) this.sleepers.delete(hex)
    }
  }

  async close(): Promise<void> {
    this.closed = true
    const client = this.client ?? (await this.connecting?.catch(() => null))
    this.client = null
    await client?.end().catch(() => {})
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client
    if (this.closed) throw new Error('the result cache is closed')
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.url, application_name: 'result-cache' })
      const lost = () => {
        if (this.client === client) this.client = null
        for (const set of this.sleepers.values()) for (const wake of set) wake() // the notifications may be lost
      }
      client.on('error', lost)
      client.on('end', lost)
      client.on('notification', (n) => {
        for (const wake of this.sleepers.get(n.payload ?? '') ?? []) wake()
      })
      await client.connect()
      await client.query(`listen ${CHANNEL}`)
      // A random id, tried until free: another process may hold the same one.
      for (;;) {
        const id = randomInt(1, 2 ** 31 - 1)
        const { rows } = await client.query<{ ok: boolean }>(`select pg_try_advisory_lock($1, $2) as ok`, [LEADER_CLASS, id])
        if (rows[0]?.ok) {
          this.id = id
          break
        }
      }
      this.client = client
      return client
    })().finally(() => (this.connecting = null))
    return this.connecting
  }
}
