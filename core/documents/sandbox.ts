// The kernel's pool of decoder processes: every untrusted document (PDF, image) is decoded in one of them, never
// on the server's event loop, and so are the token counts of long texts (gpt-tokenizer takes seconds on some). Processes rather than worker threads: a decoder's resident memory is its own to
// measure and a SIGKILL ends a CPU-bound loop, a runaway native allocation or a crash without touching the
// server. Per document: the budgets the decoder checks while it decodes (sandbox-child.ts), a V8 heap cap and an
// RSS watchdog, a wall-clock limit. Per server process: `workers` decoders and `queue` waiting documents; past
// that a sync call gets 503 with Retry-After (jobs wait: the job runner bounds how many are in flight).
// Per account (the Reader a task is for): fair turns (the account with the fewest tasks decoding goes first), at
// most half the queue waiting, and unpaid work (dry runs, test keys) never on every decoder and within a budget
// of decoder time per hour (`unpaidSecondsPerHour`), refused with 429 free_decoding_exhausted once spent.
import { fork, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import type { DocumentLimits } from '../config.ts'
import { ApiError } from '../errors.ts'
import type { PageRanges } from './pages.ts'
import { DocumentRefusal, type DocumentBudgets } from './refusal.ts'
import type { DecodeAnswer, DecodeTask } from './sandbox-child.ts'

const CHILD = new URL('./sandbox-child.ts', import.meta.url)
const WATCH_MS = 25
export const BUSY_RETRY_AFTER_SECONDS = 2
const retryAfter = { 'Retry-After': String(BUSY_RETRY_AFTER_SECONDS) }
const shuttingDown = () => new ApiError('service_unavailable', 'The server is shutting down; retry shortly.', undefined, retryAfter)

/** Whom a decoder works for: fair turns between accounts and the budget of unpaid work are per account. */
export interface Reader {
  accountId: string
  /** A dry run or a test key's call: its decoder time is drawn from the account's unpaid budget as it is used. */
  unpaid: boolean
  /** Decoder time this reader's tasks took so far, ms; a live call that ends without a charge draws it (drawUnpaid). */
  decoderMs: number
}

export interface TaskOptions {
  /** Wait for a decoder instead of 503 when the queue is full (jobs). */
  wait?: boolean
  signal?: AbortSignal
  /** Unset: a task of no account (tools, benches): fair turns as an account of its own, no per-account limits. */
  reader?: Reader
}

type Work =
  | { mediaType: string; bytes: Uint8Array; only: PageRanges | undefined }
  | { texts: string[]; modelId: string }
  | { render: number; bytes: Uint8Array }
type Answer = string[] | number[] | Uint8Array

interface Pending {
  work: Work
  reader: Reader | undefined
  resolve(answer: Answer): void
  reject(err: unknown): void
}

interface Decoder {
  process: ChildProcess
  ready: boolean
  /** Killed on purpose between documents (it grew): its exit is expected. */
  retired?: boolean
  task:
    | (Pending & {
        id: number
        account: string
        started: number
        killedFor?: DocumentRefusal
        timer: NodeJS.Timeout
        watch: NodeJS.Timeout
      })
    | null
}

export class DocumentSandbox {
  private readonly decoders: Decoder[] = []
  private readonly queue: Pending[] = []
  /** What a decoder checks while it decodes (maxPages also bounds a text document's pages). */
  readonly budgets: DocumentBudgets
  private nextId = 0
  private closed = false
  private readonly limits: DocumentLimits
  private readonly log: (message: string) => void
  /** Unpaid decoder time an account has left, ms, as of `at` (refilled at unpaidSecondsPerHour; full ones dropped). */
  private readonly unpaidLeft = new Map<string, { ms: number; at: number }>()

  constructor(limits: DocumentLimits, log: (message: string) => void = () => {}) {
    this.limits = limits
    this.log = log
    const { maxDecompressedBytes, maxPages, maxObjects, maxCharacters, maxNesting, maxImagePixels } = limits
    this.budgets = { maxDecompressedBytes, maxPages, maxObjects, maxCharacters, maxNesting, maxImagePixels }
  }

  /**
   * The pages of a PDF ([] for an image, whose header is checked). Rejects with a DocumentRefusal for a document
   * over a limit or unreadable, and with 503 service_unavailable when every decoder is busy and the queue is full
   * (unless `wait`). With `only`, the PDF's pages outside those ranges are not read ('').
   */
  decode(mediaType: string, bytes: Uint8Array, opts: TaskOptions & { only?: PageRanges } = {}): Promise<string[]> {
    return this.enqueue({ mediaType, bytes, only: opts.only }, opts) as Promise<string[]>
  }

  /** Tokens of each text as `modelId` counts them (core/models/tokens.ts), in a decoder: a long text can take seconds. */
  countTokens(texts: string[], modelId: string, opts: TaskOptions = {}): Promise<number[]> {
    return this.enqueue({ texts, modelId }, opts) as Promise<number[]>
  }

  /**
   * Page `page` of a PDF as a PNG (pdf.ts: 1,100 px wide at most, within maxImagePixels), under the same limits as
   * decoding it; a page the PDF does not have is refused as document_unreadable.
   */
  renderPage(bytes: Uint8Array, page: number, opts: TaskOptions = {}): Promise<Uint8Array> {
    return this.enqueue({ render: page, bytes }, opts) as Promise<Uint8Array>
  }

  /** The 429 free_decoding_exhausted of unpaid work whose account has spent its unpaid decoder time, else null. */
  unpaidRefusal(reader: Reader | undefined): ApiError | null {
    return reader?.unpaid && this.left(reader.accountId) <= 0 ? this.exhausted(reader.accountId) : null
  }

  /** A live call that ended without a charge: the decoder time it used becomes unpaid work of its account. */
  drawUnpaid(reader: Reader): void {
    if (!reader.unpaid) this.draw(reader.accountId, reader.decoderMs)
    reader.decoderMs = 0
  }

  private enqueue(work: Work, opts: TaskOptions): Promise<Answer> {
    if (this.closed) return Promise.reject(shuttingDown())
    const { reader } = opts
    const spent = this.unpaidRefusal(reader)
    if (spent) return Promise.reject(spent)
    const free = this.limits.workers - this.decoders.filter((d) => d.task).length
    // An account may fill at most half the queue, so another account's call still finds a place in it.
    const waiting = reader ? this.queue.filter((p) => p.reader?.accountId === reader.accountId).length : 0
    if (!opts.wait && (this.queue.length >= this.limits.queue + free || waiting >= Math.max(1, Math.floor(this.limits.queue / 2)))) {
      return Promise.reject(
        new ApiError(
          'service_unavailable',
          `Every document decoder is busy (${this.limits.workers} decoding, ${this.limits.queue} waiting); retry shortly. Nothing was charged.`,
          undefined,
          retryAfter,
        ),
      )
    }
    return new Promise((resolve, reject) => {
      const pending: Pending = { work, reader, resolve, reject }
      this.queue.push(pending)
      opts.signal?.addEventListener(
        'abort',
        () => {
          const at = this.queue.indexOf(pending)
          if (at < 0) return // already decoding: it ends within the time limit anyway
          this.queue.splice(at, 1)
          reject(opts.signal!.reason as Error) // the caller's own reason, passed through as fetch does
        },
        { once: true },
      )
      this.pump()
    })
  }

  async close(): Promise<void> {
    this.closed = true
    for (const p of this.queue.splice(0)) p.reject(shuttingDown())
    await Promise.all(
      this.decoders.map(async (d) => {
        if (d.process.exitCode !== null || d.process.signalCode !== null) return
        const exited = new Promise((r) => d.process.once('exit', r))
        d.process.kill('SIGKILL')
        await exited
      }),
    )
  }

  private pump(): void {
    while (this.queue.length > 0) {
      const decoder = this.decoders.find((d) => d.ready && !d.task)
      if (!decoder) {
        if (this.decoders.length < this.limits.workers) this.spawn()
        return
      }
      const next = this.next()
      if (!next) return
      this.run(decoder, next)
    }
  }

  /**
   * The task to run next: of the account with the fewest tasks decoding, its oldest; unpaid work (and an account's
   * work once its unpaid budget is spent) never takes the last decoder from other accounts. An unpaid task whose
   * budget ran out while it waited is refused here.
   */
  private next(): Pending | undefined {
    const running = new Map<string, number>()
    for (const d of this.decoders) if (d.task) running.set(d.task.account, (running.get(d.task.account) ?? 0) + 1)
    const share = Math.max(1, this.limits.workers - 1)
    let best: Pending | undefined
    let fewest = Infinity
    for (const p of [...this.queue]) {
      const account = p.reader?.accountId ?? ''
      const limited = p.reader !== undefined && (p.reader.unpaid || this.left(account) <= 0)
      if (p.reader?.unpaid && this.left(account) <= 0) {
        this.queue.splice(this.queue.indexOf(p), 1)
        p.reject(this.exhausted(account))
        continue
      }
      const n = running.get(account) ?? 0
      if (limited && n >= share) continue
      if (n < fewest) [best, fewest] = [p, n]
    }
    if (best) this.queue.splice(this.queue.indexOf(best), 1)
    return best
  }

  /** Unpaid decoder time `account` has left now, ms. */
  private left(account: string): number {
    const perHourMs = this.limits.unpaidSecondsPerHour * 1000
    const entry = this.unpaidLeft.get(account)
    if (!entry) return perHourMs
    const ms = Math.min(perHourMs, entry.ms + ((Date.now() - entry.at) * perHourMs) / 3_600_000)
    if (ms >= perHourMs) this.unpaidLeft.delete(account)
    return ms
  }

  private draw(account: string, ms: number): void {
    if (ms <= 0) return
    if (this.unpaidLeft.size >= 10_000) for (const known of [...this.unpaidLeft.keys()]) this.left(known) // drops the refilled
    this.unpaidLeft.set(account, { ms: this.left(account) - ms, at: Date.now() })
  }

  private exhausted(account: string): ApiError {
    const perHourMs = this.limits.unpaidSecondsPerHour * 1000
    const seconds = perHourMs > 0 ? Math.max(1, Math.ceil(((1 - this.left(account)) * 3600) / perHourMs)) : 3600
    return new ApiError(
      'free_decoding_exhausted',
      `This account has used its ${this.limits.unpaidSecondsPerHour} s an hour of document reading for calls that are not charged ` +
        `(dry runs, test keys, refused calls); retry in ${seconds} s. Live calls are not limited.`,
      undefined,
      { 'Retry-After': String(seconds) },
    )
  }

  private spawn(): void {
    const child = fork(CHILD, [], {
      execArgv: [
        ...loaderFlags(process.execArgv),
        `--max-old-space-size=${this.limits.memoryMiB}`,
        // Under this cap V8 grows the old space only ~1.3× after a full GC (3× the mark-compacts of the server on
        // the same documents), while the young generation grows to 128 MiB: a decoder then sat above the RSS at
        // which it is retired after a document (memoryMiB / 2) and was replaced every few dozen normal PDFs. Both
        // only change how soon V8 collects below the cap; the cap and the watchdog stay the limits.
        '--heap-growing-percent=200',
        '--max-semi-space-size=16',
        '--disallow-code-generation-from-strings', // with isEvalSupported: false, pdf.js cannot compile fonts to code
      ],
      serialization: 'advanced', // the document's bytes as a typed array, not JSON
      stdio: ['ignore', 'ignore', 'ignore', 'ipc'],
    })
    const decoder: Decoder = { process: child, ready: false, task: null }
    this.decoders.push(decoder)
    child.on('message', (answer: DecodeAnswer) => this.answered(decoder, answer))
    child.on('error', (err) => this.log(`[documents] decoder ${child.pid}: ${err.message}`))
    child.once('exit', (code, signal) => this.exited(decoder, code, signal))
  }

  private run(decoder: Decoder, pending: Pending): void {
    const id = ++this.nextId
    const pid = decoder.process.pid!
    const kill = (reason: DocumentRefusal) => {
      if (!decoder.task || decoder.task.killedFor) return
      decoder.task.killedFor = reason
      decoder.process.kill('SIGKILL')
    }
    const seconds = this.limits.timeoutMs / 1000
    const what =
      'texts' in pending.work ? "counting the text's tokens" : 'render' in pending.work ? 'rendering the page' : 'decoding the document'
    decoder.task = {
      ...pending,
      id,
      account: pending.reader?.accountId ?? '',
      started: performance.now(),
      timer: setTimeout(
        () => kill(new DocumentRefusal('document_too_complex', `${what} took longer than ${seconds} s (the limit)`)),
        this.limits.timeoutMs,
      ),
      watch: setInterval(() => {
        if (residentMiB(pid) > this.limits.memoryMiB) {
          kill(new DocumentRefusal('document_too_complex', `${what} needed more than ${this.limits.memoryMiB} MiB of memory (the limit)`))
        }
      }, WATCH_MS),
    }
    const { work } = pending
    const task: DecodeTask =
      'texts' in work
        ? { id, texts: work.texts, modelId: work.modelId }
        : 'render' in work
          ? { id, render: work.render, bytes: work.bytes, budgets: this.budgets }
          : {
              id,
              mediaType: work.mediaType,
              bytes: work.bytes,
              budgets: this.budgets,
              ...(work.only ? { only: work.only } : {}),
            }
    decoder.process.send(task)
  }

  private answered(decoder: Decoder, answer: DecodeAnswer): void {
    if ('ready' in answer) {
      decoder.ready = true
      return this.pump()
    }
    const task = decoder.task
    if (!task || task.id !== answer.id || task.killedFor) return
    this.finish(decoder)
    if ('pages' in answer) task.resolve(answer.pages)
    else if ('tokens' in answer) task.resolve(answer.tokens)
    else if ('png' in answer) task.resolve(answer.png)
    else task.reject(new DocumentRefusal(answer.refusal.code, answer.refusal.message))
    // A decoder that grew on a large document starts afresh rather than holding that memory while idle.
    if (residentMiB(decoder.process.pid!) > this.limits.memoryMiB / 2) {
      decoder.ready = false // no new document for it while it exits
      decoder.retired = true
      decoder.process.kill('SIGKILL')
    }
    this.pump()
  }

  private exited(decoder: Decoder, code: number | null, signal: NodeJS.Signals | null): void {
    this.decoders.splice(this.decoders.indexOf(decoder), 1)
    const started = decoder.ready || decoder.retired
    // A decoder that had started is replaced at once, so the next document finds one with pdf.js loaded rather
    // than waiting for a process to start.
    if (started && !this.closed) this.spawn()
    if (!started && !this.closed) {
      // It never started (a broken install or flags): respawning would loop; the waiting calls fail as ours (500).
      this.log(`[documents] a decoder process could not start (${signal ?? `exit ${code}`})`)
      for (const p of this.queue.splice(0)) p.reject(new Error('the document decoder process could not start'))
      return
    }
    const task = decoder.task
    if (task) {
      this.finish(decoder)
      // Killed by the watchdog or the clock, or ended by V8's heap cap (abort): the document's doing either way.
      const reason =
        task.killedFor ??
        new DocumentRefusal(
          'document_too_complex',
          `decoding the document needed more than ${this.limits.memoryMiB} MiB of memory (the limit)`,
        )
      if (!task.killedFor) this.log(`[documents] decoder ${decoder.process.pid} stopped on a document (${signal ?? `exit ${code}`})`)
      task.reject(reason)
    }
    if (!this.closed) this.pump()
  }

  /** The task's end: its clocks stopped, its decoder time the reader's (and the unpaid budget's, for unpaid work). */
  private finish(decoder: Decoder): void {
    const task = decoder.task!
    clearTimeout(task.timer)
    clearInterval(task.watch)
    decoder.task = null
    if (!task.reader) return
    const ms = performance.now() - task.started
    task.reader.decoderMs += ms
    if (task.reader.unpaid) this.draw(task.reader.accountId, ms)
  }
}

/** The parent's module loaders (tsx under tests), without its memory, profiling or inspector flags. */
function loaderFlags(execArgv: string[]): string[] {
  const kept: string[] = []
  for (let i = 0; i < execArgv.length; i++) {
    const arg = execArgv[i]!
    if (!/^--(import|require|loader|experimental-loader|conditions)\b/.test(arg) && arg !== '-r') continue
    kept.push(arg)
    if (!arg.includes('=') && execArgv[i + 1] !== undefined) kept.push(execArgv[++i]!)
  }
  return kept
}

/** Resident set size of a process in MiB (Linux /proc; 0 where there is none, leaving the heap cap alone). */
function residentMiB(pid: number): number {
  try {
    const kb = /VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]
    return kb ? Number(kb) / 1024 : 0
  } catch {
    return 0
  }
}
