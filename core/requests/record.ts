// Writing the request log (issue 30): one row per call an account made, served or refused, with what the
// pipeline learnt about it (core/observability/log.ts AccessState). Rows are gathered for up to GATHER_MS and
// written by one statement per group, with an asynchronous commit (a crash may lose the last rows whole; nothing
// depends on them), off the answer's path: the answer never waits for its row, and a process writes many rows per
// round trip even when its calls come one at a time. A read of the log first writes the rows this process still
// holds (GET /v1/requests lists the call made just before it); rows of another instance are there within
// GATHER_MS and a round trip.
import type { Middleware } from 'koa'
import type { KeyMode } from '../accounts/accounts.ts'
import type { Query } from '../db/database.ts'
import type { AccessState } from '../observability/log.ts'

export interface RequestRecord {
  accountId: string
  keyId: string
  keyPrefix: string
  mode: KeyMode
  requestId: string
  method: string
  /** The route as published, e.g. /v1/classify or /v1/jobs/{id}. */
  endpoint: string
  status: number
  errorCode: string | null
  credits: number
  latencyMs: number
  idempotencyKey: string | null
  at: Date
}

/** Rows per statement, and rows held at most while the database does not take them (then new ones are dropped). */
const GROUP = 500
const HELD = 20_000
/** How long the first row of a group waits for others (BENCHMARKS.md, "The request log"). */
const GATHER_MS = 100

export class RequestLog {
  private pending: RequestRecord[] = []
  private writing: Promise<void> | null = null
  /** Rows taken so far, and rows written (or given up) so far: a read waits until what it follows is written. */
  private recorded = 0
  private written = 0
  private readers: Array<{ until: number; go: () => void }> = []
  /** Ends the current gathering wait at once (a reader is waiting). */
  private wake: (() => void) | null = null
  private readonly db: Query
  private readonly log: (message: string) => void
  constructor(db: Query, log: (message: string) => void) {
    this.db = db
    this.log = log
  }

  record(row: RequestRecord): void {
    if (this.pending.length >= HELD) return
    this.pending.push(row)
    this.recorded++
    this.writing ??= this.drain()
  }

  /** Resolves once every row recorded before the call is written (or given up), without waiting for later ones. */
  flush(): Promise<void> {
    if (this.written >= this.recorded) return Promise.resolve()
    const done = new Promise<void>((go) => this.readers.push({ until: this.recorded, go }))
    this.wake?.()
    return done
  }

  private async drain(): Promise<void> {
    while (this.pending.length) {
      if (this.pending.length < GROUP && !this.readers.length) await this.gather()
      const group = this.pending.splice(0, GROUP)
      try {
        await this.insert(group)
      } catch (e) {
        // The log is not worth an answer or a retry loop: the rows are given up, and said so.
        this.log(`[requests] ${group.length} request log rows not written: ${(e as { code?: string }).code ?? (e as Error).name}`)
      }
      this.written += group.length
      const served = this.readers.filter((r) => r.until <= this.written)
      this.readers = this.readers.filter((r) => r.until > this.written)
      for (const r of served) r.go()
    }
    this.writing = null
  }

  /** Up to GATHER_MS for more rows to join the group, unless a reader arrives. */
  private gather(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => this.woken(resolve), GATHER_MS).unref()
      this.wake = () => {
        clearTimeout(timer)
        this.woken(resolve)
      }
    })
  }

  private woken(resolve: () => void): void {
    this.wake = null
    resolve()
  }

  private async insert(rows: RequestRecord[]): Promise<void> {
    const col = <K extends keyof RequestRecord>(k: K) => rows.map((r) => r[k])
    await this.db.sql(
      `insert into request_log (account_id, key_id, key_prefix, mode, request_id, method, endpoint, status, error_code, credits,
                                latency_ms, idempotency_key, created_at)
       select * from unnest(?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int[], ?::text[],
                            ?::bigint[], ?::real[], ?::text[], ?::timestamptz[])`,
      [
        col('accountId'),
        col('keyId'),
        col('keyPrefix'),
        col('mode'),
        col('requestId'),
        col('method'),
        col('endpoint'),
        col('status'),
        col('errorCode'),
        col('credits'),
        col('latencyMs'),
        col('idempotencyKey'),
        col('at'),
      ],
    )
  }
}

/** What authenticate() and the pipeline leave in ctx.state about a call. */
interface CallState extends AccessState {
  keyId?: string
  keyMode?: KeyMode
}

/**
 * Records every /v1 request of a known key once it is answered (an unknown key has no account to show it to).
 * Reading the log itself is not recorded: paging through it would fill it.
 */
export function requestRecorder(requestLog: RequestLog, now: () => Date): Middleware {
  return async (ctx, next) => {
    const at = now()
    const started = process.hrtime.bigint()
    try {
      await next()
    } finally {
      const state = ctx.state as CallState
      if (state.keyId && ctx.path.startsWith('/v1/') && ctx.path !== '/v1/requests') {
        const route = (ctx as { _matchedRoute?: string })._matchedRoute
        const idempotencyKey = ctx.headers['idempotency-key']
        requestLog.record({
          accountId: state.accountId!,
          keyId: state.keyId,
          keyPrefix: state.keyPrefix!,
          mode: state.keyMode!,
          requestId: state.requestId!,
          method: ctx.method,
          endpoint: route ? route.replace(/:(\w+)/g, '{$1}') : ctx.path,
          status: ctx.status,
          errorCode: state.errorCode ?? null,
          credits: state.credits ?? 0,
          latencyMs: Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10,
          idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey.slice(0, 128) : null,
          at,
        })
      }
    }
  }
}
