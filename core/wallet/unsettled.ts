// Holds the database could not be told to release (issue 25). A sync call that fails while the database is
// unreachable (its capture or release lost, or its reserve's answer lost after the commit) would leave its hold
// reserved and its idempotency claim "running" until their TTLs, so the client's retry with the same key got 409
// for minutes. Such a call is remembered here by its request id and released as soon as the database answers
// again: retried in the background, and before the next request for the same key at the latest.
import type { Database } from '../db/database.ts'
import { isUnavailable } from '../db/faults.ts'

interface Call {
  accountId: string
  requestId: string
  idempotencyKey: string | null
}

const RETRY_MS = 200

class Unsettled {
  private readonly calls = new Map<string, Call>()
  private timer: NodeJS.Timeout | null = null
  private readonly db: Database
  private readonly log: (m: string) => void
  constructor(db: Database, log: (m: string) => void) {
    this.db = db
    this.log = log
  }

  add(call: Call): void {
    this.calls.set(slot(call.accountId, call.idempotencyKey ?? call.requestId), call)
    this.schedule()
  }

  /** Releases what is left of an earlier call with this key; throws 503 while the database is still out. */
  async settleKey(accountId: string, idempotencyKey: string): Promise<void> {
    const call = this.calls.get(slot(accountId, idempotencyKey))
    if (call) await this.settle(call)
  }

  private async settle(call: Call): Promise<void> {
    // Whatever the lost answer was: an open hold of this request is released with its claim; a captured one
    // (the capture committed, its answer lost) stays, and its recorded 200 is the key's replay.
    await this.db.sql(`select release_hold(h.id, ?) from holds h where h.state = 'open' and h.account_id = ? and h.request_id = ?`, [
      call.idempotencyKey,
      call.accountId,
      call.requestId,
    ])
    this.calls.delete(slot(call.accountId, call.idempotencyKey ?? call.requestId))
  }

  private schedule(): void {
    if (this.timer || !this.calls.size) return
    this.timer = setTimeout(() => void this.retry(), RETRY_MS)
    this.timer.unref() // never what keeps a stopping process alive: the holds' TTLs are the last resort
  }

  private async retry(): Promise<void> {
    for (const call of [...this.calls.values()]) {
      try {
        await this.settle(call)
      } catch (e) {
        if (isUnavailable(e)) break // still out: try again later
        this.calls.delete(slot(call.accountId, call.idempotencyKey ?? call.requestId))
        this.log(`[wallet] could not release the hold of ${call.requestId}: ${e instanceof Error ? e.message : String(e)}`)
      }
    }
    this.timer = null
    this.schedule()
  }
}

const slot = (accountId: string, key: string) => `${accountId}\n${key}`

const byDatabase = new WeakMap<Database, Unsettled>()

/** The process's unsettled calls on this database. */
export function unsettled(db: Database, log: (m: string) => void): Unsettled {
  let u = byDatabase.get(db)
  if (!u) byDatabase.set(db, (u = new Unsettled(db, log)))
  return u
}
