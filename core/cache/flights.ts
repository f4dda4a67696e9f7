// In-flight dedupe across API instances (C20). The call that takes a key's advisory lock leads: it runs, stores
// its result and unlocks; identical calls meanwhile follow: they wait, then read the leader's result. The locks
// live on one connection per process (not a pool's, which a long model call must not hold), so a leader's
// process that dies releases its keys with its connection, and PostgreSQL wakes nobody: followers also poll.
// A follower whose leader ended without a result (it failed, or its process died) runs on its own, uncoordinated,
// so that N followers of a leader that timed out do not time out one after another.
import pg from 'pg'

/** The namespace (first key) of the two-key advisory locks result_cache_claim takes (migration 0025). */
const LOCK_CLASS = 1128481352
const CHANNEL = 'result_cache_done'
/** How often a follower looks again without a notification: how soon it notices a leader's process died. */
const POLL_MS = 250

export type Claim =
  | { role: 'hit'; sealed: string; savedUsd: number }
  /**
   * This call leads: `end` unlocks and wakes the followers (after its result is stored and committed: an unlock
   * inside the storing transaction would free the key before the result is visible). Only the first `end` counts.
   */
  | { role: 'leader'; end: () => Promise<void> }
  /** Runs without coordination: the leader it followed ended without a result, or it waited too long. */
  | { role: 'alone' }
  /** The client left while the call followed. */
  | { role: 'gone' }

interface ClaimRow {
  role: 'hit' | 'leader' | 'follower'
  result: string | null
  saved_usd: string | null
}

export interface ClaimArgs {
  accountId: string
  livemode: boolean
  key: Buffer
  now: Date
  signal: AbortSignal
  /** Longest a follower waits for its leader before it runs alone. */
  maxWaitMs: number
}

export class Flights {
  private client: pg.Client | null = null
  private connecting: Promise<pg.Client> | null = null
  /** Keys this process leads (or is claiming): a second claim on the same session would take the lock again. */
  private readonly local = new Map<string, { done: Promise<void>; finish: () => void }>()
  /** Followers of each key, woken by a notification. */
  private readonly sleepers = new Map<string, Set<() => void>>()
  private closed = false
  private queue: Promise<unknown> = Promise.resolve()
  private readonly url: string
  private readonly log: (message: string) => void
  constructor(url: string, log: (message: string) => void) {
    this.url = url
    this.log = log
  }

  async claim(a: ClaimArgs): Promise<Claim> {
    const hex = a.key.toString('hex')
    const lock = a.key.readInt32BE(0)
    const deadline = Date.now() + a.maxWaitMs
    let followed = false
    for (;;) {
      if (a.signal.aborted) return { role: 'gone' }
      if (Date.now() > deadline) return { role: 'alone' }
      const local = this.local.get(hex)
      if (local) {
        followed = true
        await this.sleep(hex, a.signal, deadline, local.done)
        continue
      }
      let finish = () => {}
      const done = new Promise<void>((go) => (finish = go))
      const mine = { done, finish }
      this.local.set(hex, mine)
      const release = () => {
        if (this.local.get(hex) === mine) this.local.delete(hex)
        finish()
      }
      let row: ClaimRow | undefined
      try {
        row = (
          await this.query<ClaimRow>(
            `select * from result_cache_claim($1, $2, $3, $4, $5)`,
            [a.accountId, a.livemode, a.key, lock, a.now],
            'result_cache_claim',
          )
        )[0]
      } catch (e) {
        release()
        if (!followed) throw e // the database is out: the call's own statements would fail the same way
        this.log(`[cache] a follower runs alone: ${(e as Error).message}`)
        return { role: 'alone' }
      }
      if (row?.role === 'leader') {
        if (!followed) {
          let ended: Promise<void> | null = null
          return { role: 'leader', end: () => (ended ??= this.end(hex, lock, release)) }
        }
        await this.end(hex, lock, release) // not to lead the others one after another
        return { role: 'alone' }
      }
      release()
      if (row?.role === 'hit') return { role: 'hit', sealed: row.result!, savedUsd: Number(row.saved_usd) }
      followed = true
      await this.sleep(hex, a.signal, deadline)
    }
  }

  async close(): Promise<void> {
    this.closed = true
    const client = this.client ?? (await this.connecting?.catch(() => null))
    this.client = null
    await client?.end().catch(() => {})
  }

  private async end(hex: string, lock: number, release: () => void): Promise<void> {
    try {
      await this.query(`select pg_advisory_unlock($1, $2), pg_notify($3, $4)`, [LOCK_CLASS, lock, CHANNEL, hex], 'result_cache_unlock')
    } catch (e) {
      this.log(`[cache] unlock: ${(e as Error).message}`) // a lost connection took the lock with it
    } finally {
      release()
    }
  }

  /** Until the key's notification, `until`, a poll interval, the deadline or the client leaving. */
  private async sleep(hex: string, signal: AbortSignal, deadline: number, until?: Promise<void>): Promise<void> {
    let wake = () => {}
    const woken = new Promise<void>((go) => (wake = go))
    const set = this.sleepers.get(hex) ?? new Set()
    this.sleepers.set(hex, set)
    set.add(wake)
    const timer = setTimeout(wake, Math.max(0, Math.min(until ? deadline - Date.now() : POLL_MS, deadline - Date.now())))
    signal.addEventListener('abort', wake, { once: true })
    try {
      await Promise.race([woken, ...(until ? [until] : [])])
    } finally {
      clearTimeout(timer)
      signal.removeEventListener('abort', wake)
      set.delete(wake)
      if (!set.size) this.sleepers.delete(hex)
    }
  }

  /** One statement at a time on the connection (pg would queue them too, but no longer wants to be asked to). */
  private query<T extends pg.QueryResultRow>(text: string, values: unknown[], name: string): Promise<T[]> {
    const run = this.queue.then(async () => (await (await this.connection()).query<T>({ name, text, values })).rows)
    this.queue = run.catch(() => {})
    return run
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client
    if (this.closed) throw new Error('the result cache is closed')
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.url, application_name: 'result-cache' })
      const lost = () => {
        if (this.client === client) this.client = null
        for (const set of this.sleepers.values()) for (const wake of set) wake() // their leaders' locks may be gone too
      }
      client.on('error', lost)
      client.on('end', lost)
      client.on('notification', (n) => {
        for (const wake of this.sleepers.get(n.payload ?? '') ?? []) wake()
      })
      await client.connect()
      await client.query(`listen ${CHANNEL}`)
      this.client = client
      return client
    })().finally(() => (this.connecting = null))
    return this.connecting
  }
}
