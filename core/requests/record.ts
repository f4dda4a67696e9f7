// Writing the request log: one row per request an account's key made, served or refused (a 404 or a 405 too, in
// any spelling), with what the pipeline learnt about it (core/observability/log.ts AccessState). Rows are gathered for up to GATHER_MS and
// written by one statement per group, with an asynchronous commit (a crash may lose the last rows whole; nothing
// depends on them), off the answer's path: the answer never waits for its row, and a process writes many rows per
// round trip even when its calls come one at a time. A read of the log first writes the rows this process still
// holds (GET /v1/requests lists the call made just before it); rows of another instance are there within
// GATHER_MS and a round trip.
import type { Context, Middleware } from 'koa'
import type { KeyLookup, KeyMode } from '../http/caller.ts'
import type { Query } from '../db/database.ts'
import { knownCaller } from '../http/auth.ts'
import type { Metadata } from '../http/metadata.ts'
import type { CallState, DryRunState } from './state.ts'

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
  /** A dry run: the status it quoted; errorCode and errorMessage are then the refusal it quoted. */
  dryRun: DryRunState | null
  /** An Idempotency-Key's recorded answer, sent again (nothing ran, nothing was charged). */
  replayed: boolean
  errorMessage: string | null
  /** The job a 202 accepted. */
  jobId: string | null
  metadata: Metadata | null
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
                                latency_ms, idempotency_key, created_at, dry_run, live_status, replayed, error_message, job_id,
                                metadata)
       select * from unnest(?::uuid[], ?::uuid[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::int[], ?::text[],
                            ?::bigint[], ?::real[], ?::text[], ?::timestamptz[], ?::boolean[], ?::int[], ?::boolean[], ?::text[],
                            ?::uuid[], ?::jsonb[])`,
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
        rows.map((r) => r.dryRun !== null),
        rows.map((r) => r.dryRun?.liveStatus ?? null),
        col('replayed'),
        col('errorMessage'),
        col('jobId'),
        rows.map((r) => (r.metadata ? JSON.stringify(r.metadata) : null)),
      ],
    )
  }
}

/** Reading the log is not recorded: paging through it would fill it. */
const LOG_READS = new Set(['/v1/requests', '/v1/requests/:requestId'])
/** Longest path kept on a row of a request no route matched. */
const PATH_CHARS = 200
const MESSAGE_CHARS = 500

/**
 * Records every request of a known key once it is answered (an unknown key has no account to show it to), and
 * says what it charged in Service-Credits-Charged, so a proxy can meter without reading bodies. A 404 or 405 (any
 * spelling of a path), which no handler authenticated, is attributed by its API key here.
 */
export function requestRecorder(requestLog: RequestLog, now: () => Date, keys: KeyLookup): Middleware {
  return async (ctx, next) => {
    const at = now()
    const started = process.hrtime.bigint()
    try {
      await next()
    } finally {
      const state = ctx.state as CallState
      const route = (ctx as { _matchedRoute?: string })._matchedRoute
      // A 404 or 405 ran no handler, so nothing authenticated it; a 401 was looked up already (once is enough).
      const unrouted = ctx.status === 404 || ctx.status === 405
      if (!(route && LOG_READS.has(route)) && (state.keyId || (unrouted && (await knownCaller(ctx, keys))))) {
        const credits = state.credits ?? 0
        ctx.set('Service-Credits-Charged', String(credits))
        const idempotencyKey = ctx.headers['idempotency-key']
        const dryError = state.dryRun?.error
        requestLog.record({
          accountId: state.accountId!,
          keyId: state.keyId!,
          keyPrefix: state.keyPrefix!,
          mode: state.keyMode!,
          requestId: state.requestId!,
          method: ctx.method,
          endpoint: endpointOf(ctx, route),
          status: ctx.status,
          errorCode: state.errorCode ?? dryError?.code ?? null,
          credits,
          latencyMs: Math.round(Number(process.hrtime.bigint() - started) / 1e5) / 10,
          idempotencyKey: typeof idempotencyKey === 'string' ? idempotencyKey.slice(0, 128) : null,
          at,
          dryRun: state.dryRun ?? null,
          replayed: state.replayed === true,
          errorMessage: (state.errorMessage ?? dryError?.message)?.slice(0, MESSAGE_CHARS) ?? null,
          jobId: state.jobId ?? null,
          metadata: state.metadata ?? null,
        })
      }
    }
  }
}

/** The route as published (/v1/jobs/{id}); for a method the route lacks, the route the path matched; else the path. */
function endpointOf(ctx: Context, matched: string | undefined): string {
  const layers = (ctx as { matched?: Array<{ path: string; methods: string[] }> }).matched ?? []
  const route = matched ?? layers.find((l) => l.methods.length)?.path
  return route ? route.replace(/:(\w+)/g, '{$1}') : ctx.path.slice(0, PATH_CHARS)
}
