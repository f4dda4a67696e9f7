// Long inputs within the model's context (issue 27). Every structured model call passes here first: its whole
// prompt (system, text, schema, file and image parts, output reserve) is estimated against the context budget
// and its provider cost against what the call earns. Within both, the call goes out as it always did (a short
// call never loads a tokenizer). Over the budget, the capability's manifest decides: `map-reduce` (parts answered
// in parallel, then combined by the model), `merge` (parts answered in parallel, combined by code) or `refuse`
// (422 document_too_long, free). Every part is a model request inside the one charged call. Exact token counts
// come from BudgetedCall.count (the decoder pool's, for the API: a long text can take the tokenizer seconds).
import type { TSchema } from '@sinclair/typebox'
import type { UserContent } from 'ai'
import type { ModelPrice } from '../config.ts'
import { ApiError } from '../errors.ts'
import type { ModelLink } from './fallback.ts'
import { sameSchema, type CallDeadline, type ObjectRequest, type ObjectResult } from './generate.ts'
import { strictSchema } from './strict.ts'
import { encodingOf, tokenBound } from './tokens.ts'

export type Chunking = 'map-reduce' | 'merge' | 'refuse'
export const CHUNKINGS: readonly Chunking[] = ['map-reduce', 'merge', 'refuse']

/**
 * Tokens counted for an image part, and for each page of a PDF sent as a file (providers add an image of every
 * page to its text, which is counted as text): the most a high-detail page image costs on OpenAI's vision models.
 */
export const IMAGE_TOKENS = 2_500
/** Tokens of the wrapping a provider adds per message and per request (roles, separators, the format block). */
const FRAMING_TOKENS = 64
/** A part must leave at least this much room for the document's text, else splitting cannot help. */
const MIN_PART_TOKENS = 512

export interface Budget {
  /** The largest prompt sent in one model request, output reserve included (AI_CONTEXT_TOKENS, model windows). */
  contextTokens: number
  /** Tokens kept free for the answer of each request (AI_OUTPUT_RESERVE_TOKENS). */
  outputReserve: number
  /** Parts of one call in flight at once (AI_CHUNK_CONCURRENCY). */
  concurrency: number
  /** Provider cost may reach the call's credits' value times this (AI_COST_GUARD_FACTOR). */
  costGuardFactor: number
}

/** Exact tokens of each text as `modelId` counts them (core/models/tokens.ts countTokens, off the event loop). */
export type TokenCounter = (texts: string[], modelId: string) => Promise<number[]>

export interface BudgetedCall {
  strategy: Chunking
  count: TokenCounter
  /** What the call earns in USD (credits held × the credit's value); the cost guard's ceiling before the factor. */
  earnsUsd: number
  /**
   * USD the call's earlier model calls were estimated at (one per capability call, shared by its handler's
   * model calls): each further call is guarded with what the earlier ones may cost.
   */
  estimated: { usd: number }
  /** Told how many of the call's model requests have ended, of how many (async jobs show it). */
  progress?: (done: number, total: number) => void
}

/** The budget of one call: AI_CONTEXT_TOKENS, never above the window of any model the call may reach. */
export function contextBudget(models: readonly string[], configured: number, windows: Record<string, number>): number {
  return Math.min(configured, ...models.map((m) => windows[m] ?? Infinity))
}

/** The answer schema as sent (its strict form or itself, the longer), cached per schema object (see sameSchema). */
const schemaTexts = new WeakMap<TSchema, string>()
function schemaText(schema: TSchema): string {
  let s = schemaTexts.get(schema)
  if (s === undefined) {
    const [plain, strict] = [JSON.stringify(schema), JSON.stringify(strictSchema(schema))]
    schemaTexts.set(schema, (s = strict.length > plain.length ? strict : plain))
  }
  return s
}

interface Shape {
  texts: string[]
  /** Image parts, and pages of PDFs sent as files, each counted as IMAGE_TOKENS. */
  pictures: number
  /** Pages of PDFs sent as files whose text is in the request too (marked by page): those files can be left out. */
  extracted: number
}

const PAGE_MARKER = /^--- page (\d+) ---$/gm

function shapeOf(content: string | UserContent): Shape {
  if (typeof content === 'string') return { texts: [content], pictures: 0, extracted: 0 }
  const texts: string[] = []
  let files = 0
  let images = 0
  for (const part of content) {
    if (part.type === 'text') texts.push(part.text)
    else if (part.type === 'image') images++
    else if (part.type === 'file') files++
  }
  // A PDF's pages are marked in its text; without a text layer, at least one page.
  const marked = files ? texts.reduce((n, t) => n + (t.match(PAGE_MARKER)?.length ?? 0), 0) : 0
  const pages = files ? Math.max(files, marked) : 0
  return { texts, pictures: images + pages, extracted: marked ? pages : 0 }
}

/**
 * Tokens of a prompt as the kernel counts them (the model's tokenizer, else characters / 3), output reserve
 * excluded. Without `count`: an upper bound from UTF-8 bytes instead (a token is at least one byte), no tokenizer.
 */
export async function promptTokens(
  system: string,
  texts: readonly string[],
  schema: string,
  pictures: number,
  modelId: string,
  count?: TokenCounter,
): Promise<number> {
  const all = [system, schema, ...texts]
  const counts = count && encodingOf(modelId) ? await count(all, modelId) : all.map((s) => tokenBound(s, modelId))
  return FRAMING_TOKENS + pictures * IMAGE_TOKENS + counts.reduce((a, b) => a + b, 0)
}

/** The price a call's requests may be charged at: the dearest model of its fallback chain, or null when none has one. */
function dearest(links: readonly ModelLink[]): ModelPrice | null {
  const priced = links.flatMap((l) => (l.price ? [l.price] : []))
  if (!priced.length) return null
  return { inputPerMTok: Math.max(...priced.map((p) => p.inputPerMTok)), outputPerMTok: Math.max(...priced.map((p) => p.outputPerMTok)) }
}

/** The fewest output tokens a request is capped at, whatever its schema (room for a model's formatting and reasoning). */
export const MIN_OUTPUT_CAP = 1024

/**
 * The output-token cap of every request of an answer in `schema`: twice the UTF-8 bytes of the largest answer
 * the schema allows (a token is at least a byte; twice leaves room for whitespace), at least MIN_OUTPUT_CAP, at
 * most `reserve` (AI_OUTPUT_RESERVE_TOKENS, which the context budget keeps for every answer).
 */
export function outputCap(schema: TSchema, reserve: number): number {
  const bytes = largestAnswerBytes(schema)
  return bytes === null ? reserve : Math.min(reserve, Math.max(MIN_OUTPUT_CAP, 2 * bytes))
}

type JsonNode = { [keyword: string]: unknown }
const caps = new WeakMap<object, number | null>()

/** UTF-8 bytes of the longest JSON text valid under `s` (6 per string character: an escape), null when unbounded. */
function largestAnswerBytes(s: JsonNode | boolean | undefined, depth = 0): number | null {
  if (typeof s !== 'object' || depth > 32) return null
  const known = caps.get(s)
  if (known !== undefined) return known
  const of = (sub: unknown) => largestAnswerBytes(sub as JsonNode, depth + 1)
  const most = (list: Array<number | null>) => (list.includes(null) || !list.length ? null : Math.max(...(list as number[])))
  let bytes: number | null
  if ('const' in s) bytes = Buffer.byteLength(JSON.stringify(s.const) ?? 'null')
  else if (Array.isArray(s.enum)) bytes = Math.max(4, ...s.enum.map((v) => Buffer.byteLength(JSON.stringify(v) ?? 'null')))
  else if (Array.isArray(s.anyOf) || Array.isArray(s.oneOf)) bytes = most(((s.anyOf ?? s.oneOf) as unknown[]).map(of))
  else {
    const types = Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type] : []
    bytes = types.length ? most(types.map((type) => typeBytes(s, type, of))) : null
  }
  caps.set(s, bytes)
  return bytes
}

function typeBytes(s: JsonNode, type: string, of: (sub: unknown) => number | null): number | null {
  if (type === 'null' || type === 'boolean') return 5
  if (type === 'integer' || type === 'number') return 24
  if (type === 'string') return typeof s.maxLength === 'number' ? 2 + 6 * s.maxLength : null
  if (type === 'array') {
    const item = of(s.items)
    return typeof s.maxItems === 'number' && item !== null ? 2 + s.maxItems * (item + 1) : null
  }
  if (type !== 'object') return null
  // Only declared properties: any other key makes the answer unbounded.
  if (s.additionalProperties !== false || s.patternProperties) return null
  let bytes = 2
  for (const [key, sub] of Object.entries((s.properties ?? {}) as Record<string, unknown>)) {
    const value = of(sub)
    if (value === null) return null
    bytes += Buffer.byteLength(JSON.stringify(key)) + 2 + Math.max(value, 5)
  }
  return bytes
}

type Generate = <T>(request: ObjectRequest & { schema: TSchema; maxOutputTokens: number }, opts: CallDeadline) => Promise<ObjectResult<T>>

/**
 * One structured answer within the budget: sent as is when it fits, else served by `call.strategy`.
 * `generate` is generateObject bound to the provider.
 */
export async function budgetedObject<T>(
  request: ObjectRequest & { schema: TSchema },
  links: readonly ModelLink[],
  budget: Budget,
  call: BudgetedCall,
  opts: CallDeadline,
  generate: Generate,
): Promise<ObjectResult<T>> {
  // No provider: the call's own refusal (503), whatever its size.
  if (!links.length) return generate<T>({ ...request, maxOutputTokens: budget.outputReserve }, opts)
  const modelId = links[0]!.model
  const room = budget.contextTokens - budget.outputReserve
  const shape = shapeOf(request.content)
  // A schema built per call is swapped for its first copy, whose text and cap are cached.
  const answerSchema = sameSchema(request.schema)
  const schema = schemaText(answerSchema)
  // Every request of this answer carries the cap; the guard prices each at it.
  const cap = outputCap(answerSchema, budget.outputReserve)
  const capped = { ...request, schema: answerSchema, maxOutputTokens: cap }
  const { estimate, guard, ceiling } = costGuard(call, budget, dearest(links), cap)
  // The common case costs what it did: a byte count shows it fits, no tokenizer.
  let tokens = await promptTokens(request.system, shape.texts, schema, shape.pictures, modelId)
  if (tokens > room || call.estimated.usd + estimate(tokens, 1) > ceiling)
    tokens = await promptTokens(request.system, shape.texts, schema, shape.pictures, modelId, call.count)
  if (tokens <= room) {
    guard(tokens, 1)
    return generate<T>(capped, opts)
  }
  // Over only by the page images of a PDF whose text is here: its text alone, as one request.
  const textOnly = tokens - shape.extracted * IMAGE_TOKENS
  if (shape.extracted && textOnly <= room && typeof request.content !== 'string') {
    guard(textOnly, 1)
    return generate<T>({ ...capped, content: request.content.filter((part) => part.type !== 'file') }, opts)
  }
  const limit = `${budget.contextTokens} tokens per model request (AI_CONTEXT_TOKENS)`
  if (call.strategy === 'refuse')
    throw tooLong(
      `This input needs about ${tokens + budget.outputReserve} tokens; this endpoint answers from one model request of at most ${limit}. Send fewer pages or less text.`,
    )
  const plan = await planParts(request, shape, schema, modelId, room, limit, call.count)
  const reduceRequests =
    call.strategy === 'map-reduce' ? await reduceCalls(plan.parts.length, budget, room, modelId, request.system, schema, call.count) : 0
  // The reduce requests read the instructions and the parts' answers, each at most the cap.
  guard(plan.inputTokens + reduceRequests * plan.fixedTokens + plan.parts.length * cap, plan.parts.length + reduceRequests)

  const run = partsRun(capped, generate, opts, budget.concurrency, call, plan.parts.length + reduceRequests)
  const answers = await answerParts(run, plan.parts)
  if (call.strategy === 'merge') return mergedAnswer<T>(request, answers)
  const reduce: Reduce = { room, modelId, schema, count: call.count, limit }
  return reducedAnswer<T>(run, answers, plan.parts, reduce)
}

/**
 * What the requests of one answer may cost, against what the call earns × AI_COST_GUARD_FACTOR: `guard` refuses
 * (422, free) a plan that could cost more, and adds what it allows to the call's estimate.
 */
function costGuard(call: BudgetedCall, budget: Budget, price: ModelPrice | null, cap: number) {
  const ceiling = call.earnsUsd * budget.costGuardFactor
  const estimate = (inputTokens: number, requests: number) => (price ? worstCostUsd(price, inputTokens, requests, cap) : 0)
  const guard = (inputTokens: number, requests: number) => {
    const usd = estimate(inputTokens, requests)
    if (call.estimated.usd + usd > ceiling)
      throw tooLong(
        `This input would cost up to $${(call.estimated.usd + usd).toFixed(4)} at the model provider (${requests} request${requests === 1 ? '' : 's'}, ` +
          `${inputTokens} input tokens, each sent again if its answer needs correcting${call.estimated.usd ? ', and the earlier model calls of this call' : ''}), ` +
          `more than the call's price covers ($${call.earnsUsd.toFixed(2)}); send fewer pages or less text.`,
      )
    call.estimated.usd += usd
  }
  return { estimate, guard, ceiling }
}

type CappedRequest = ObjectRequest & { schema: TSchema; maxOutputTokens: number }

/** The requests of an answer in parts: at most `concurrency` at once, each counted as it ends. */
interface PartsRun {
  capped: CappedRequest
  generate: Generate
  /** The call's deadline, for the last request. */
  opts: CallDeadline
  /** The same, also aborted when one part fails. */
  partOpts: CallDeadline
  step: () => void
  inParallel: <R>(count: number, fn: (i: number) => Promise<R>) => Promise<R[]>
}

function partsRun(
  capped: CappedRequest,
  generate: Generate,
  opts: CallDeadline,
  concurrency: number,
  call: BudgetedCall,
  total: number,
): PartsRun {
  let done = 0
  const step = () => call.progress?.(++done, Math.max(total, done))
  call.progress?.(0, total)
  // One part failing ends the call (free): the others are aborted rather than paid for.
  const stop = new AbortController()
  const partOpts: CallDeadline = { ...opts, signal: AbortSignal.any([opts.signal, stop.signal]) }
  const inParallel = <R>(count: number, fn: (i: number) => Promise<R>) =>
    bounded(count, concurrency, fn).catch((e: unknown) => {
      stop.abort()
      throw e
    })
  return { capped, generate, opts, partOpts, step, inParallel }
}

/** Each part answered alone (its own answer, no check: the whole answer is checked). */
function answerParts(run: PartsRun, parts: readonly Part[]): Promise<Array<ObjectResult<unknown>>> {
  const n = parts.length
  return run.inParallel(n, async (i) => {
    const part = parts[i]!
    const where = part.pages ? `, pages ${part.pages}` : ''
    const r = await run.generate<unknown>(
      {
        ...run.capped,
        check: undefined,
        system: `${run.capped.system}\n\n(Part ${i + 1} of ${n}${where} of an input too long for one request: answer from this part alone; pages keep the numbers marked in them.)`,
        content: part.content,
      },
      run.partOpts,
    )
    run.step()
    return r
  })
}

/** The parts' answers merged by code (the `merge` strategy), then held to the endpoint's rules. */
function mergedAnswer<T>(request: ObjectRequest & { schema: TSchema }, answers: Array<ObjectResult<unknown>>): ObjectResult<T> {
  const object = mergeAnswers(
    answers.map((a) => a.object),
    request.schema,
  )
  const problems = request.check?.(object) ?? []
  if (problems.length)
    throw new ApiError(
      'inference_failed',
      `The answers of the document's parts, merged, broke a rule of this endpoint: ${problems.slice(0, 5).join('; ')}`,
    )
  return { object: object as T, sources: answers.flatMap((a) => a.sources) }
}

interface Reduce {
  room: number
  modelId: string
  schema: string
  count: TokenCounter
  limit: string
}

/** The parts' answers read by the model (the `map-reduce` strategy), in rounds until one request holds them all. */
async function reducedAnswer<T>(
  run: PartsRun,
  answers: Array<ObjectResult<unknown>>,
  parts: readonly Part[],
  { room, modelId, schema, count, limit }: Reduce,
): Promise<ObjectResult<T>> {
  const { capped, generate } = run
  const sources = answers.flatMap((a) => a.sources)
  let partials = answers.map((a, i) => ({
    part: i + 1,
    ...(parts[i]!.pages ? { pages: parts[i]!.pages } : {}),
    answer: a.object,
  }))
  for (;;) {
    const groups = await reduceGroups(partials, room, modelId, capped.system, schema, count)
    if (groups.length === 1) {
      const r = await generate<T>(
        { ...capped, system: reduceSystem(capped.system, partials.length), content: JSON.stringify(groups[0]) },
        run.opts,
      )
      run.step()
      return { object: r.object, sources: [...sources, ...r.sources] }
    }
    if (groups.length === partials.length)
      throw tooLong(`The answers of this input's parts together exceed ${limit}; send fewer pages or less text.`)
    const rounds = await run.inParallel(groups.length, async (g) => {
      const r = await generate<unknown>(
        { ...capped, check: undefined, system: reduceSystem(capped.system, groups[g]!.length), content: JSON.stringify(groups[g]) },
        run.partOpts,
      )
      run.step()
      return r.object
    })
    partials = rounds.map((answer, g) => ({ part: g + 1, answer }))
  }
}

/**
 * The most `requests` requests reading `inputTokens` in all can cost: each may be sent twice (generateObject's
 * corrective retry reads the request again, with its first answer), every answer at most `cap` tokens.
 */
const worstCostUsd = (price: ModelPrice, inputTokens: number, requests: number, cap: number) =>
  ((2 * inputTokens + requests * cap) * price.inputPerMTok + 2 * requests * cap * price.outputPerMTok) / 1e6

const tooLong = (message: string) => new ApiError('document_too_long', message)

function reduceSystem(system: string, parts: number): string {
  return (
    `${system}\n\n(The input was too long for one request: it was split into ${parts} consecutive parts, each answered alone. ` +
    'You are given those answers, in order, as JSON. Combine them into the one answer for the whole input, in the same ' +
    'JSON format: join lists without repeats, keep page numbers as they are, and write any summary over all parts.)'
  )
}

/** `fn(0..n-1)`, at most `limit` at once, results in order; the first failure rejects. */
async function bounded<T>(n: number, limit: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array<T>(n)
  let next = 0
  await Promise.all(
    Array.from({ length: Math.min(n, Math.max(1, limit)) }, async () => {
      while (next < n) {
        const i = next++
        out[i] = await fn(i)
      }
    }),
  )
  return out
}

interface Part {
  content: string | UserContent
  /** "3-9" where the text was marked by page. */
  pages: string | null
}

interface Plan {
  parts: Part[]
  /** Input tokens of all parts' requests. */
  inputTokens: number
  /** Tokens of what every part repeats: instructions, schema, the request's other text. */
  fixedTokens: number
}

/**
 * The parts of an over-budget request: its longest text (the document) cut on page markers, else paragraphs,
 * each part with the rest of the request (other text, system, schema); file and image parts are left out (the
 * document's text was extracted from them). One segment that cannot fit alone → 422.
 */
async function planParts(
  request: ObjectRequest,
  shape: Shape,
  schema: string,
  modelId: string,
  room: number,
  limit: string,
  counter: TokenCounter,
): Promise<Plan> {
  const { texts } = shape
  if (!texts.length) throw tooLong(`This input has no text to split and does not fit ${limit}.`)
  const longest = texts.reduce((best, t, i) => (t.length > texts[best]!.length ? i : best), 0)
  const doc = texts[longest]!
  const others = texts.filter((_, i) => i !== longest)
  const count = async (texts: string[]) => (encodingOf(modelId) ? counter(texts, modelId) : texts.map((t) => tokenBound(t, modelId)))
  const fixed = await promptTokens(request.system + PART_NOTE, others, schema, 0, modelId, counter)
  const space = room - fixed
  if (space < MIN_PART_TOKENS)
    throw tooLong(`The instructions and other inputs of this request leave no room for the document within ${limit}.`)
  const segments = await segmentsOf(doc, space, count, limit)
  const parts: Part[] = []
  let inputTokens = 0
  let current: Segment[] = []
  let used = 0
  const close = () => {
    const text = current.map((s) => s.text).join('')
    const numbered = current.filter((s) => s.page !== null)
    const pages = numbered.length ? `${numbered[0]!.page}-${numbered.at(-1)!.page}` : null
    parts.push({ content: replaceText(request.content, longest, text), pages })
    inputTokens += fixed + used
  }
  for (const s of segments) {
    if (used + s.tokens > space && current.length) {
      close()
      // Overlap: the last segment again, when it is short, so nothing cut at a boundary loses its context.
      const last = current.at(-1)!
      current = last.tokens <= space / 8 && last.tokens + s.tokens <= space ? [last] : []
      used = current.length ? last.tokens : 0
    }
    current.push(s)
    used += s.tokens
  }
  close()
  return { parts, inputTokens, fixedTokens: fixed }
}

/** The longest bound the part note adds to a system prompt. */
const PART_NOTE =
  '\n\n(Part 10000 of 10000, pages 100000-100000 of an input too long for one request: answer from this part alone; pages keep the numbers marked in them.)'

interface Segment {
  text: string
  tokens: number
  page: number | null
}

/** Pages (with their markers, so their numbers survive) or paragraphs, each within `space` tokens. */
async function segmentsOf(doc: string, space: number, count: (texts: string[]) => Promise<number[]>, limit: string): Promise<Segment[]> {
  const starts = [...doc.matchAll(PAGE_MARKER)].map((m) => m.index)
  if (starts.length) {
    const cuts = starts[0] === 0 ? starts : [0, ...starts]
    const texts = cuts.map((at, i) => doc.slice(at, cuts[i + 1] ?? doc.length))
    const tokens = await count(texts)
    return texts.map((text, i) => {
      const page = /^--- page (\d+) ---$/m.exec(text)
      if (tokens[i]! > space)
        throw tooLong(
          `Page ${page?.[1] ?? 1} alone needs about ${tokens[i]} tokens, more than fits in ${limit} with this endpoint's instructions.`,
        )
      return { text, tokens: tokens[i]!, page: page && page.index === 0 ? Number(page[1]) : null }
    })
  }
  // Paragraphs; one too long for a part is cut at the whitespace nearest its middle, the halves each the same
  // way, every round of cuts counted at once.
  let segments: Array<{ text: string; tokens?: number }> = paragraphs(doc).map((text) => ({ text }))
  for (;;) {
    const uncounted = segments.filter((s) => s.tokens === undefined)
    const tokens = await count(uncounted.map((s) => s.text))
    uncounted.forEach((s, i) => (s.tokens = tokens[i]!))
    if (segments.every((s) => s.tokens! <= space)) return segments.map((s) => ({ text: s.text, tokens: s.tokens!, page: null }))
    segments = segments.flatMap((s) => (s.tokens! <= space ? [s] : halves(s.text).map((text) => ({ text }))))
  }
}

/** The text cut after each blank line (a linear scan: a lookbehind split is quadratic on long runs of newlines). */
function paragraphs(doc: string): string[] {
  const out: string[] = []
  let from = 0
  for (const m of doc.matchAll(/\n\s*\n/g)) {
    const end = m.index + m[0].length
    if (end === doc.length) break
    out.push(doc.slice(from, end))
    from = end
  }
  out.push(doc.slice(from))
  return out
}

/** A text cut in two at the whitespace nearest its middle (at the middle when it has none). */
function halves(text: string): [string, string] {
  const mid = text.length >> 1
  const after = text.slice(mid).search(/\s/)
  const before = text.slice(0, mid).search(/\s\S*$/)
  const at = after >= 0 && (before < 0 || after <= mid - before) ? mid + after + 1 : before >= 0 ? before + 1 : mid
  return [text.slice(0, at), text.slice(at)]
}

function replaceText(content: string | UserContent, index: number, text: string): string | UserContent {
  if (typeof content === 'string') return text
  let i = -1
  return content.flatMap((part) => {
    if (part.type !== 'text') return []
    return ++i === index ? [{ ...part, text }] : [part]
  })
}

/** How many reduce requests `parts` answers take (rounds of groups that fit), for the cost guard and progress. */
async function reduceCalls(
  parts: number,
  budget: Budget,
  room: number,
  modelId: string,
  system: string,
  schema: string,
  count: TokenCounter,
): Promise<number> {
  const fixed = await promptTokens(reduceSystem(system, parts), [], schema, 0, modelId, count)
  const perGroup = Math.max(2, Math.floor((room - fixed) / budget.outputReserve))
  let calls = 0
  for (let n = parts; ; n = Math.ceil(n / perGroup)) {
    calls += Math.ceil(n / perGroup)
    if (n <= perGroup) return calls
  }
}

/** Partial answers grouped so each group's reduce request fits; one group when all fit. */
async function reduceGroups<P>(
  partials: P[],
  room: number,
  modelId: string,
  system: string,
  schema: string,
  count: TokenCounter,
): Promise<P[][]> {
  const space = room - (await promptTokens(reduceSystem(system, partials.length), [], schema, 0, modelId, count))
  const texts = partials.map((p) => JSON.stringify(p))
  const sizes = encodingOf(modelId) ? await count(texts, modelId) : texts.map((t) => tokenBound(t, modelId))
  const groups: P[][] = []
  let group: P[] = []
  let used = 2
  partials.forEach((p, i) => {
    const tokens = sizes[i]! + 1
    if (group.length && used + tokens > space) {
      groups.push(group)
      group = []
      used = 2
    }
    group.push(p)
    used += tokens
  })
  groups.push(group)
  return groups
}

/**
 * The parts' answers as one, by code: objects merged key by key, lists joined in part order without exact
 * repeats (the overlap page answers twice), at most the schema's maxItems; any other value from the first part
 * that has one (not null, not blank).
 */
export function mergeAnswers(answers: unknown[], schema?: TSchema): unknown {
  const present = answers.filter((a) => a !== null && a !== undefined && !(typeof a === 'string' && a.trim() === ''))
  if (!present.length) return answers[0]
  if (present.every(Array.isArray)) {
    const seen = new Set<string>()
    const items = present.flat().filter((item) => {
      const key = JSON.stringify(item)
      return !seen.has(key) && seen.add(key)
    })
    const max = typeof schema?.maxItems === 'number' ? schema.maxItems : Infinity
    return items.slice(0, max)
  }
  if (present.every(isPlainObject)) {
    const properties = (schema?.properties ?? {}) as Record<string, TSchema>
    const keys = [...new Set(present.flatMap((a) => Object.keys(a)))]
    return Object.fromEntries(
      keys.map(
        (k) =>
          [
            k,
            mergeAnswers(
              present.map((a) => a[k]),
              properties[k],
            ),
          ] as const,
      ),
    )
  }
  return present[0]
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
