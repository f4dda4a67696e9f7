// Callers' schemas, checked and used without running Ajv on the server's event loop. What is cheap and linear
// runs here (size, depth, draft); compiling and validating run in one worker thread per process
// (schema-worker.mjs), one task at a time, each within a deadline after which the thread is terminated and a new
// one started. The worker keeps what it compiled, and this side keeps each schema's verdict, so a schema sent again
// (the same call retried, or ten calls at once) is compiled once.
import { Worker } from 'node:worker_threads'
import type { ErrorObject } from 'ajv'
import { ApiError, formatErrors, type ErrorDetail } from '../../core/capability.ts'
import { META, draftOf, type Draft } from './ajv-factory.mjs'

/** Bounds on a caller's schema, refused with 400 schema_too_complex before anything compiles it. */
export const MAX_SCHEMA_CHARS = 100_000
export const MAX_SCHEMA_DEPTH = 32
/** Deadlines (tests shorten them): the worker's start, one compilation, one validation once compiled. */
export const limits = { workerStartMs: 20_000, compileMs: 20_000, patternValidationMs: 2_000 }

/** A caller's schema as the worker knows it: its draft and its JSON text ($schema spelled as Ajv knows it). */
export interface CallerSchema {
  draft: Draft
  text: string
  /** The schema as sent to the model. */
  schema: Record<string, unknown>
}

/** The schema ready to use, or throws: 400 schema_too_complex past the bounds, 400 invalid_request when it does not compile. */
export async function usableSchema(raw: Record<string, unknown>): Promise<CallerSchema> {
  const tooComplex = (message: string) => new ApiError('schema_too_complex', `schema ${message}.`, [{ path: '/schema', message }])
  const original = JSON.stringify(raw)
  if (original.length > MAX_SCHEMA_CHARS) throw tooComplex(`must be at most ${MAX_SCHEMA_CHARS} characters of JSON (is ${original.length})`)
  if (depth(raw) > MAX_SCHEMA_DEPTH) throw tooComplex(`must nest at most ${MAX_SCHEMA_DEPTH} levels deep`)
  const draft = draftOf(raw)
  if (!draft) {
    const message = 'must be draft-07, 2019-09 or 2020-12 (or left out for draft-07)'
    throw new ApiError('invalid_request', 'schema is not a usable JSON Schema.', [{ path: '/schema/$schema', message }])
  }
  const schema = JSON.parse(original) as Record<string, unknown>
  if (schema.$schema !== undefined) schema.$schema = META[draft]
  const usable = { draft, text: JSON.stringify(schema), schema }
  const problems = await verdict(usable)
  if (problems.length) throw new ApiError('invalid_request', 'schema is not a usable JSON Schema.', problems)
  return usable
}

/** The validation errors of `data` against the schema ([] when it validates); a validation past its deadline is one. */
export async function validate(schema: CallerSchema, data: unknown): Promise<ErrorObject[]> {
  const problem = (message: string): ErrorObject[] => [{ instancePath: '', schemaPath: '#', keyword: 'validation', params: {}, message }]
  const answer = await worker.run({ draft: schema.draft, text: schema.text, validate: true, data }).catch((e: unknown) => {
    if (e instanceof Deadline)
      return problem(
        e.compiling
          ? `validation could not start in time`
          : `validation did not finish within ${limits.patternValidationMs / 1000} s (a pattern in the schema backtracks too much on this value)`,
      )
    return problem(`validation could not run (${(e as Error).message})`)
  })
  if (Array.isArray(answer)) return answer
  // Whatever happens, `valid` is never true unless Ajv said so.
  return answer.valid === true ? [] : answer.errors.length ? answer.errors : problem('does not validate')
}

// ---- verdicts: what compiling a schema text said, kept for the texts seen last ----
const KEEP_VERDICTS = 256
const verdicts = new Map<string, Promise<ErrorDetail[]>>()

function verdict(schema: CallerSchema): Promise<ErrorDetail[]> {
  const key = `${schema.draft} ${schema.text}`
  let found = verdicts.get(key)
  if (found) verdicts.delete(key)
  else {
    found = worker.run({ draft: schema.draft, text: schema.text, validate: false }).then(
      (a) =>
        a.message
          ? [{ path: '/schema', message: a.message }]
          : formatErrors(a.errors).map((d) => ({ ...d, path: `/schema${d.path === '/' ? '' : d.path}` })),
      (e: unknown) => {
        verdicts.delete(key) // a deadline or a lost worker is not the schema's final verdict
        if (e instanceof Deadline && e.compiling)
          throw new ApiError('schema_too_complex', `schema took longer than ${limits.compileMs / 1000} s to compile (the limit).`, [
            { path: '/schema', message: 'too complex to compile in time' },
          ])
        throw e
      },
    )
  }
  verdicts.set(key, found)
  if (verdicts.size > KEEP_VERDICTS) verdicts.delete(verdicts.keys().next().value!)
  return found
}

function depth(v: unknown): number {
  if (typeof v !== 'object' || v === null) return 0
  let max = 0
  for (const child of Object.values(v)) max = Math.max(max, depth(child))
  return max + 1
}

// ---- the worker ----
interface Task {
  draft: Draft
  text: string
  validate: boolean
  data?: unknown
}
interface Answer {
  valid?: boolean
  errors: ErrorObject[]
  message?: string
}

class Deadline extends Error {
  readonly compiling: boolean
  constructor(compiling: boolean) {
    super(compiling ? 'compiling took too long' : 'validating took too long')
    this.compiling = compiling
  }
}

/** One thread, one task at a time (a deadline is a task's own), started on first use and after a deadline. */
class SchemaWorker {
  private thread: Worker | null = null
  private ready: Promise<Worker> | null = null
  private readonly queue: Array<{ task: Task; resolve(a: Answer): void; reject(e: unknown): void }> = []
  private busy = false
  private nextId = 0

  run(task: Task): Promise<Answer> {
    return new Promise((resolve, reject) => {
      this.queue.push({ task, resolve, reject })
      void this.pump()
    })
  }

  private start(): Promise<Worker> {
    this.ready ??= new Promise((resolve, reject) => {
      const thread = new Worker(new URL('./schema-worker.mjs', import.meta.url), {
        // Plain Node: the worker is JavaScript, and the parent's loaders (tsx, test hooks) only slow its start.
        execArgv: [],
        resourceLimits: { maxOldGenerationSizeMb: 256 },
      })
      thread.unref() // an idle worker does not keep the process alive
      const timer = setTimeout(() => this.stop(new Error('the validation worker did not start in time')), limits.workerStartMs)
      thread.once('message', () => {
        clearTimeout(timer)
        resolve(thread)
      })
      thread.once('error', (e: Error) => this.thread === thread && this.stop(e))
      thread.once('exit', (code) => this.thread === thread && this.stop(new Error(`the validation worker stopped (exit code ${code})`)))
      this.thread = thread
      this.fail = (e) => {
        clearTimeout(timer)
        reject(e)
      }
    })
    return this.ready
  }

  private fail: (e: Error) => void = () => {}

  /** The thread is gone (or stopped): the task in hand fails with `reason`, the next one starts a new thread. */
  private stop(reason: Error): void {
    const thread = this.thread
    this.thread = null
    this.ready = null
    this.fail(reason)
    this.fail = () => {}
    if (thread) void thread.terminate()
  }

  private async pump(): Promise<void> {
    if (this.busy) return
    const next = this.queue.shift()
    if (!next) return
    this.busy = true
    try {
      next.resolve(await this.one(next.task))
    } catch (e) {
      next.reject(e)
    } finally {
      this.busy = false
      void this.pump()
    }
  }

  private async one(task: Task): Promise<Answer> {
    const thread = await this.start()
    const id = ++this.nextId
    return new Promise<Answer>((resolve, reject) => {
      let timer = setTimeout(() => this.stop(new Deadline(true)), limits.compileMs)
      this.fail = (e) => {
        clearTimeout(timer)
        thread.off('message', listen)
        reject(e)
      }
      const listen = (m: Answer & { id: number; compiled?: true }) => {
        if (m.id !== id) return
        clearTimeout(timer)
        if (m.compiled) {
          timer = setTimeout(() => this.stop(new Deadline(false)), limits.patternValidationMs)
          return
        }
        thread.off('message', listen)
        this.fail = () => {}
        resolve(m)
      }
      thread.on('message', listen)
      thread.postMessage({ id, ...task })
    })
  }
}

const worker = new SchemaWorker()
