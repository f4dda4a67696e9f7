// Issue 27: long inputs within the model's context. With AI_CONTEXT_TOKENS=32000, every capability that asks a
// text or vision model is called with an input far over the budget (from the registry, not a list): each is served
// by the strategy its manifest declares or refused with a free 422 document_too_long, and no request the fake
// provider receives is over the budget by the kernel's own estimate, or 32 000 × 4 characters on the wire.
import t from 'tap'
import type { TSchema } from '@sinclair/typebox'
import { createRequire } from 'node:module'
import { budgetedObject, outputCap, promptTokens, type BudgetedCall } from '../../core/models/chunks.ts'
import type { ModelLink } from '../../core/models/fallback.ts'
import { Type } from '@sinclair/typebox'
import { countTokens } from '../../core/models/tokens.ts'
import { loadConfig } from '../../core/config.ts'
import { openAIProvider } from '../../core/models/provider.ts'
import { startTestApp, type TestApp } from '../helpers/app.ts'
import { callToEnd, loadManifests, requestOf } from '../helpers/examples.ts'
import { startFakeOpenAI, type FakeTextRequest } from '../../devkit/fake-openai.ts'
import { randomInstance, seededRng } from '../../devkit/schema-instance.ts'
import { plainPdf } from '../../devkit/fixtures/hostile.ts'

// 300-page PDFs through every capability: minutes under coverage on a loaded 2-core machine.
t.setTimeout(600_000)

const BUDGET = 32_000
const RESERVE = 4096 // config/defaults.json ai.context.outputReserveTokens
const MODEL = 'test-model' // no tokenizer known: the kernel counts characters / 3

/** What the kernel counts for a request the fake received: its text, schema, pictures and the answer's reserve. */
async function estimate(req: FakeTextRequest): Promise<number> {
  const pages = req.prompt.match(/^--- page \d+ ---$/gm)?.length ?? 0
  const pictures = req.files.reduce((n, f) => n + (f.mediaType === 'application/pdf' ? Math.max(1, pages) : 1), 0)
  return (await promptTokens(req.system, [req.prompt], JSON.stringify(req.jsonSchema), pictures, MODEL)) + RESERVE
}

/** Paragraphs of varied prose: `chars` characters, with `facts` placed where their offsets (0..1) say. */
function prose(chars: number, facts: Record<number, string> = {}): string {
  const out: string[] = []
  let n = 0
  for (let i = 0; n < chars; i++) {
    const p = `Paragraph ${i}. The supplier shipped ${i * 7} units of part ${(i * 37) % 1000} to warehouse ${i % 13}; the buyer confirmed receipt on day ${i % 28}.`
    out.push(p)
    n += p.length + 2
  }
  for (const [at, fact] of Object.entries(facts)) out[Math.min(out.length - 1, Math.floor(Number(at) * out.length))] = fact
  return out.join('\n\n').slice(0, chars)
}

/**
 * A PDF of `n` pages of 16 lines each (about 1 500 characters); `facts[i]` replaces page i's first line. plainPdf
 * writes one text operation a page: the lines go in as operations of their own, each on the next line.
 */
function longPdf(n: number, facts: Record<number, string> = {}): string {
  const page = (p: number) =>
    Array.from({ length: 16 }, (_, i) =>
      i === 0 && facts[p] ? facts[p] : `Page ${p} line ${i}: the parties agree that delivery ${p * 16 + i} is due within ${i + 1} days.`,
    ).join(') Tj 0 -14 Td (')
  return plainPdf(...Array.from({ length: n }, (_, i) => page(i + 1))).toString('base64')
}

/**
 * The example request with every long free-text field (no pattern or format; not a file's base64 `data`) filled
 * to 200 000 characters, each field's text starting with its path (two documents of compare differ).
 */
function lengthen(schema: TSchema, value: unknown, text: string, path = ''): unknown {
  if (typeof value === 'string' && schema.type === 'string' && !schema.pattern && !schema.format && (schema.maxLength ?? 0) >= 150_000)
    return `${path}\n\n${text}`.slice(0, Math.min(schema.maxLength as number, text.length))
  if (Array.isArray(value) && schema.items) return value.map((v, i) => lengthen(schema.items as TSchema, v, text, `${path}/${i}`))
  if (value && typeof value === 'object' && schema.properties) {
    const props = schema.properties as Record<string, TSchema>
    return Object.fromEntries(
      Object.entries(value).map(([k, v]) => [k, props[k] && k !== 'data' ? lengthen(props[k], v, text, `${path}/${k}`) : v]),
    )
  }
  return value
}

interface Harness {
  app: TestApp
  seen: FakeTextRequest[]
  key: string
  accountId: string
}

async function harness(t: Tap, reply?: (req: FakeTextRequest) => unknown, env: NodeJS.ProcessEnv = {}): Promise<Harness> {
  const seen: FakeTextRequest[] = []
  const fake = await startFakeOpenAI({
    text: (req) => {
      seen.push(req)
      return reply?.(req)
    },
  })
  t.teardown(() => fake.close())
  // The provider an operator's environment builds (prices and all), pointed at the fake.
  const full = { OPENAI_API_KEY: 'test', OPENAI_BASE_URL: fake.baseURL, AI_MODEL: MODEL, AI_CONTEXT_TOKENS: String(BUDGET), ...env }
  const app = await startTestApp(t, {
    worker: true,
    env: { PAUSED_ENDPOINTS: '{"transcribe": false}', ...full },
    provider: openAIProvider(loadConfig(full).ai),
  })
  const c = await app.customer(100_000)
  return { app, seen, key: c.key, accountId: c.accountId }
}
interface Tap {
  teardown(fn: () => unknown): void
}

async function withinBudget(t: Tap & { ok(v: unknown, m: string): void }, seen: FakeTextRequest[], what: string): Promise<void> {
  const estimates = await Promise.all(seen.map(estimate))
  const over = seen.filter((_, i) => estimates[i]! > BUDGET)
  const wide = seen.filter((r) => JSON.stringify(r.body).length >= BUDGET * 4)
  t.ok(
    seen.length > 0 && over.length === 0,
    `${what}: ${seen.length} model requests, none over ${BUDGET} tokens (largest ${Math.max(...estimates)})`,
  )
  t.ok(wide.length === 0, `${what}: none of ${BUDGET * 4} characters or more on the wire`)
}

/** What the call will charge if served: its dry run's quote (price by size, issue 27). */
async function quoted(app: { call: (path: string, o: object) => Promise<{ body: any }> }, name: string, key: string, body: unknown) {
  return (await app.call(`/v1/${name}`, { key, body, headers: { 'service-dry-run': '1' } })).body.wouldCharge as number
}

const require = createRequire(import.meta.url)
const manifests = await loadManifests()
const textual = manifests.filter((m) => m.model === 'text' || m.model === 'vision')

t.test("a short call never loads the tokenizer; a long one counts with the model's own, in a decoder", async (t) => {
  const loaded = () => Object.keys(require.cache).some((k) => k.includes('gpt-tokenizer'))
  t.notOk(loaded(), 'not loaded before') // first in this file: price by size counts long texts with o200k too
  // gpt-4.1-mini is priced (config/prices.json); the factor keeps the long call within the guard.
  const { app, seen, key } = await harness(t, undefined, { AI_MODEL: 'gpt-4.1-mini', AI_COST_GUARD_FACTOR: '100' })
  t.equal((await callToEnd(app, 'summarize', key, { text: prose(20_000) })).status, 200)
  t.notOk(loaded(), 'a call far below the budget is measured in bytes')
  t.equal((await callToEnd(app, 'summarize', key, { text: prose(300_000) })).status, 200)
  t.notOk(loaded(), 'a call over it is counted with o200k in the decoder pool, never in the process that answers HTTP')
  const over = seen.filter((r) => countTokens(`${r.system}${r.prompt}${JSON.stringify(r.jsonSchema)}`, 'gpt-4.1-mini') + RESERVE > BUDGET)
  t.same(over, [], 'no request over the budget by the tokenizer')
  t.ok(seen.length > 3)
})

t.test('every text and vision capability, given an input over the budget: served by its strategy or a free 422', async (t) => {
  const { app, seen, key, accountId } = await harness(t)
  const filler = prose(200_000)
  let balance = 100_000
  for (const m of textual) {
    const body = lengthen(m.request, requestOf(m), filler) as Record<string, unknown>
    if (JSON.stringify(body).length < 150_000) {
      t.comment(`${m.name}: no free-text field of its example can hold an input over the budget`)
      continue
    }
    const before = seen.length
    const price = await quoted(app, m.name, key, body)
    const out = await callToEnd(app, m.name, key, body)
    const strategy = m.chunking ?? 'refuse'
    if (strategy === 'refuse') {
      t.same([out.status, out.code], [422, 'document_too_long'], `${m.name} (refuse): 422 document_too_long`)
      t.match(out.message, /32000 tokens/, `${m.name}: the message names the limit`)
    } else {
      t.equal(out.status, 200, `${m.name} (${strategy}): served ${out.status} ${out.code ?? ''} ${out.message}`)
      t.ok(seen.length - before > 1, `${m.name}: answered in ${seen.length - before} model requests`)
      balance -= price
    }
    await app.expectLedger(t, accountId, balance)
  }
  await withinBudget(t, seen, 'all capabilities')
})

t.test('a 300-page PDF on parse and contract is served, on split refused; every request within the budget', async (t) => {
  // Random answers, but parse's classifies the document (a null docType is a 502 of its own).
  const { app, seen, key, accountId } = await harness(t, (req) => {
    const answer = randomInstance(req.jsonSchema, seededRng(req.prompt.slice(0, 200))) as Record<string, unknown>
    return 'docType' in answer ? { ...answer, docType: 'contract' } : answer
  })
  const file = { data: longPdf(300), mimeType: 'application/pdf' }
  let balance = 100_000
  for (const name of ['parse', 'contract', 'split']) {
    const before = seen.length
    const price = await quoted(app, name, key, { file })
    const m = manifests.find((x) => x.name === name)!
    t.equal(price, m.price + (300 - m.size!.included) * m.size!.perUnit, `${name}: priced by its 300 pages`)
    const out = await callToEnd(app, name, key, { file })
    if (name === 'split') t.same([out.status, out.code], [422, 'document_too_long'], 'split: 422 (one answer per page of the whole bundle)')
    else {
      t.equal(out.status, 200, `${name}: 200 ${out.code ?? ''} ${out.message}`)
      balance -= price
    }
    const mine = seen.slice(before)
    if (name !== 'split') {
      t.ok(mine.length >= 3, `${name}: ${mine.length} requests`)
      t.ok(
        mine.every((r) => r.files.length === 0),
        `${name}: the parts carry the extracted text, not the PDF`,
      )
      const pages = new Set(mine.flatMap((r) => [...r.prompt.matchAll(/^--- page (\d+) ---$/gm)].map((x) => Number(x[1]))))
      t.equal(pages.size, 300, `${name}: every page, by its own number, went to the model`)
    }
    await app.expectLedger(t, accountId, balance)
  }
  await withinBudget(t, seen, '300-page PDF')
})

t.test('a PDF over the budget only by its page images is sent as its text, even where the strategy is refuse', async (t) => {
  const { app, seen, key, accountId } = await harness(t)
  // 20 pages: 50,000 tokens as page images, about 10,000 as text.
  const out = await callToEnd(app, 'split', key, { file: { data: longPdf(20), mimeType: 'application/pdf' } })
  t.equal(out.status, 200)
  t.equal(seen.length, 1, 'one request')
  t.same(seen[0]!.files, [], 'without the file')
  t.equal(seen[0]!.prompt.match(/^--- page \d+ ---$/gm)?.length, 20, 'with the text of every page')
  const small = await callToEnd(app, 'split', key, { file: { data: longPdf(2), mimeType: 'application/pdf' } })
  t.equal(small.status, 200)
  t.equal(seen[1]!.files.length, 1, 'a PDF within the budget still goes with its file')
  await app.expectLedger(t, accountId, 100_000 - 20)
})

t.test('merge: line items of every part in page order, single values from the first part that states them', async (t) => {
  // Each part answers one line item for the first page it saw (quoted from it); only the part holding page 1
  // names the party and the type.
  const { app, key } = await harness(t, (req) => {
    const first = Number(/^--- page (\d+) ---$/m.exec(req.prompt)?.[1])
    const answer = randomInstance(req.jsonSchema, seededRng(req.prompt.slice(0, 200))) as Record<string, any>
    const quote = `Page ${first} line 1: the parties agree that delivery ${first * 16 + 1} is due within 2 days.`
    return {
      ...answer,
      docType: first === 1 ? 'invoice' : 'contract',
      party: first === 1 ? 'Acme Corp' : null,
      totalAmount: null,
      fields: [],
      lineItems: [{ description: `delivery ${first * 16 + 1}`, amount: first * 16 + 1, quote, page: first, confidence: 0.9 }],
    }
  })
  const out = await callToEnd(app, 'parse', key, { file: { data: longPdf(300), mimeType: 'application/pdf' } })
  t.equal(out.status, 200)
  t.match(out.body, { docType: 'invoice', party: 'Acme Corp' }, 'from the part that has page 1')
  const pages = out.body.lineItems.map((l: any) => (l.amount - 1) / 16)
  t.ok(pages.length >= 3, `${pages.length} parts' line items`)
  t.same(
    pages,
    [...pages].sort((a: number, b: number) => a - b),
    'in page order',
  )
  t.equal(pages[0], 1)
  t.ok(
    out.body.lineItems.every((l: any, i: number) => l.grounded && l.evidence.page === pages[i]),
    'each grounded on its own, original page number',
  )
})

t.test('480 000 characters on summarize: facts from only the first, middle and last parts reach the summary', async (t) => {
  const FACTS = {
    0: 'FACT-ALPHA: the opening balance was 1,234.',
    0.5: 'FACT-BRAVO: the midpoint audit passed.',
    0.999: 'FACT-CHARLIE: the contract ends in 2031.',
  }
  // The fake echoes what it saw: a part's summary lists the facts in its text; the reduce step's the facts in the
  // parts' answers. Only a reduce that read every part can name all three.
  const { app, seen, key, accountId } = await harness(t, (req) => {
    const facts = [...new Set(req.prompt.match(/FACT-[A-Z]+/g) ?? [])]
    const base = randomInstance(req.jsonSchema, seededRng(req.prompt.slice(0, 100))) as Record<string, unknown>
    return { ...base, summary: facts.length ? `Facts: ${facts.join(', ')}.` : 'Nothing notable.', keyPoints: facts, actionItems: [] }
  })
  const price = await quoted(app, 'summarize', key, { text: prose(480_000, FACTS) })
  t.ok(price > 3, `priced by its tokens: ${price} credits`)
  const out = await callToEnd(app, 'summarize', key, { text: prose(480_000, FACTS) })
  t.equal(out.status, 200)
  t.match(out.body.summary, /FACT-ALPHA.*FACT-BRAVO.*FACT-CHARLIE/, 'the summary names the facts of the first, middle and last pages')
  const reduce = seen.filter((r) => r.system.includes('split into'))
  t.ok(reduce.length >= 1, 'a reduce step combined the parts')
  t.ok(seen.length >= 5, `${seen.length} requests`)
  await withinBudget(t, seen, 'summarize')
  await app.expectLedger(t, accountId, 100_000 - price)
})

t.test('answers too long to combine in one request are combined in rounds, every fact kept', async (t) => {
  const FACTS = { 0: 'FACT-ALPHA opens it.', 0.5: 'FACT-BRAVO is in the middle.', 0.999: 'FACT-CHARLIE closes it.' }
  // Each part answers at length (20,000 characters): six parts' answers do not fit one combining request.
  const { app, seen, key } = await harness(t, (req) => {
    const facts = [...new Set(req.prompt.match(/FACT-[A-Z]+/g) ?? [])]
    const combining = req.system.includes('split into')
    const padding = combining ? '' : ' Details follow.'.repeat(1250)
    return { summary: `Facts: ${facts.join(', ') || 'none'}.${padding}`, keyPoints: facts, actionItems: [] }
  })
  const price = await quoted(app, 'summarize', key, { text: prose(480_000, FACTS) })
  t.ok(price > 3, `priced by its tokens: ${price} credits`)
  const out = await callToEnd(app, 'summarize', key, { text: prose(480_000, FACTS) })
  t.equal(out.status, 200)
  t.match(out.body.summary, /FACT-ALPHA.*FACT-BRAVO.*FACT-CHARLIE/)
  const combining = seen.filter((r) => r.system.includes('split into'))
  t.ok(combining.length >= 2, `${combining.length} combining requests`)
  await withinBudget(t, seen, 'rounds')
})

t.test('one charged call: a part that fails makes the whole call free', async (t) => {
  const { app, seen, key, accountId } = await harness(t, (req) => (req.system.includes('Part 3 of') ? { $status: 500 } : undefined))
  const out = await callToEnd(app, 'summarize', key, { text: prose(300_000) })
  t.same([out.status, out.code], [502, 'inference_failed'], 'the call fails as one')
  t.ok(seen.length > 1)
  await app.expectLedger(t, accountId, 100_000)
})

t.test('an async job shows its progress while its parts run', async (t) => {
  let release!: () => void
  const gate = new Promise<void>((r) => (release = r))
  const { app, key, accountId } = await harness(t, async (req) => {
    if (req.system.includes('Part 2 of')) await gate
    return undefined
  })
  const accepted = await app.call('/v1/parse', { key, body: { async: true, file: { data: longPdf(150), mimeType: 'application/pdf' } } })
  t.equal(accepted.status, 202)
  let job = accepted.body
  for (let i = 0; i < 400 && !(job.progress && job.progress.done > 0); i++) {
    await new Promise((r) => setTimeout(r, 25))
    job = (await app.call(`/v1/jobs/${accepted.body.jobId}`, { key })).body
  }
  t.equal(job.status, 'running')
  t.ok(job.progress.done >= 1 && job.progress.done < job.progress.total, `progress ${job.progress.done} of ${job.progress.total}`)
  release()
  for (let i = 0; i < 400 && job.status === 'running'; i++) {
    await new Promise((r) => setTimeout(r, 25))
    job = (await app.call(`/v1/jobs/${accepted.body.jobId}`, { key })).body
  }
  t.equal(job.status, 'succeeded')
  t.same(job.progress.done, job.progress.total, 'every part done')
  await app.expectLedger(t, accountId, 100_000 - 150) // 10 credits and 140 pages over the included 10
})

t.test('the limits are published per capability in the OpenAPI document', async (t) => {
  const { app } = await harness(t)
  const doc = (await app.call('/v1/openapi.json')).body
  const limits = (name: string) => doc.paths[`/v1/${name}`].post['x-limits']
  t.same(limits('parse'), {
    contextTokens: BUDGET,
    outputReserveTokens: RESERVE,
    overContext: 'merge',
    maxPages: 1000,
    maxFileBytes: 20 * 2 ** 20,
    maxCharacters: 2_000_000,
  })
  t.match(limits('summarize'), { contextTokens: BUDGET, overContext: 'map-reduce' })
  t.notOk('maxPages' in limits('summarize'), 'no document, no page limit')
  t.match(limits('split'), { overContext: 'refuse' })
  t.same(limits('image'), {}, 'no text model, no context budget')
  for (const m of manifests) t.ok(limits(m.name), `${m.name} publishes x-limits`)
})

t.test('the provider-cost guard: a call that would cost more than it earns is a free 422', async (t) => {
  // test-model priced so that the parts of a long summary cost more than it earns (priced by size: about $0.94),
  // while a short one stays within its 3 credits ($0.03), each priced at its worst: every request sent twice (the
  // corrective retry), every answer at its cap.
  const { app, key, accountId } = await harness(t, undefined, {
    AI_PRICES: JSON.stringify({ [MODEL]: { inputPerMTok: 3, outputPerMTok: 0.1 } }),
  })
  const cheap = await callToEnd(app, 'summarize', key, { text: prose(2_000) })
  t.equal(cheap.status, 200, 'a short call is within the guard')
  const out = await callToEnd(app, 'summarize', key, { text: prose(480_000) })
  t.same([out.status, out.code], [422, 'document_too_long'])
  t.match(out.message, /cost up to \$\d+\.\d+ .*\(7 requests, \d+ input tokens, each sent again/, 'the message says what it would cost')
  await app.expectLedger(t, accountId, 100_000 - 3)
})

t.test("the cost guard counts a call's earlier model calls, and caps every request's answer", async (t) => {
  const schema = Type.Object({ label: Type.String({ maxLength: 40 }) }, { additionalProperties: false })
  const links = [{ provider: 'primary', model: MODEL, price: { inputPerMTok: 5, outputPerMTok: 15 } }] as unknown as ModelLink[]
  const budget = { contextTokens: 32_000, outputReserve: 4096, concurrency: 1, costGuardFactor: 1 }
  const caps: number[] = []
  const generate = async <T>(r: { maxOutputTokens: number }) => {
    caps.push(r.maxOutputTokens)
    return { object: { label: 'a' } as T, sources: [] }
  }
  const deadline = { signal: new AbortController().signal, timeoutMs: 1000 }
  const ask = (call: BudgetedCall) =>
    budgetedObject({ system: 'Label it.', content: 'some text', schema }, links, budget, call, deadline, generate)
  const call = (earnsUsd: number): BudgetedCall => ({
    strategy: 'refuse',
    count: async (texts) => texts.map(() => 1),
    earnsUsd,
    estimated: { usd: 0 },
  })

  const measured = call(1)
  await ask(measured)
  const one = measured.estimated.usd // one model call at its worst: sent twice, each answer at its cap
  t.ok(one > 0, `one model call is estimated at $${one}`)
  const twice = call(one * 1.5)
  await ask(twice)
  const refused = await ask(twice).catch((e: unknown) => e)
  t.match(
    refused,
    { code: 'document_too_long', message: /and the earlier model calls of this call/ },
    'the second call would pass what the call earns',
  )
  t.same(caps, [outputCap(schema, 4096), outputCap(schema, 4096)], 'each request sent carried the cap; the refused one was not sent')
  t.equal(outputCap(schema, 4096), 1024, 'a small answer: the floor')
  t.equal(outputCap(Type.Object({ text: Type.String() }), 4096), 4096, 'an unbounded answer: AI_OUTPUT_RESERVE_TOKENS')
})

t.test('AI_COST_GUARD_FACTOR lets the operator accept a loss', async (t) => {
  const { app, key } = await harness(t, undefined, {
    AI_PRICES: JSON.stringify({ [MODEL]: { inputPerMTok: 3, outputPerMTok: 0.1 } }),
    AI_COST_GUARD_FACTOR: '100',
  })
  const out = await callToEnd(app, 'summarize', key, { text: prose(480_000) })
  t.equal(out.status, 200)
})
