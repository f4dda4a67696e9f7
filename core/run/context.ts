// The world a handler sees (core/capability.ts), built the same way for sync calls (pipeline) and for jobs (worker).
import { CREDIT_USD } from '../wallet/credit.ts'
import type { DocumentInput, ResolvedDocument } from '../documents/schema.ts'
import type { CapabilityContext } from './manifest.ts'
import { contextConfig } from '../config.ts'
import { decodeOrRefuse, documentParts, resolveDocument, serverDocumentFetcher } from '../documents/resolve.ts'
import type { Reader } from '../documents/sandbox.ts'
import { requiringDigest } from '../documents/same-document.ts'
import { budgetedObject, contextBudget } from '../models/chunks.ts'
import { generateObject, runModel, type ObjectRequest } from '../models/generate.ts'
import { providerFor } from '../models/provider.ts'
import { callMeter } from '../models/usage.ts'
import type { Capability } from './registry.ts'
import type { Services } from '../services.ts'

/** The defaults, for a configuration built without loadConfig (tests): read once, not per call. */
const DEFAULT_CONTEXT = contextConfig({})

export function capabilityContext(
  services: Services,
  capability: Capability,
  call: {
    requestId: string
    accountId: string
    signal: AbortSignal
    timeoutMs: number
    waitForDecoder?: boolean
    /** The credits held for this call: the provider-cost guard's ceiling. */
    credits: number
    /** Hears the progress of a call answered in parts (jobs record it). */
    progress?: (done: number, total: number) => void
    /** Adds up what the call's provider requests cost (an unpaid call's account draws it: models/unpaid.ts). */
    providerCost?: { usd: number }
    /** A job's fileUrl documents: the SHA-256 its acceptance priced, which a new read must match. */
    digests?: ReadonlyMap<DocumentInput, { sha256: string; at: string }>
    /** The call's documents as its price measured them (pipeline/price.ts): not decoded twice. */
    documents?: ReadonlyMap<DocumentInput, ResolvedDocument> | undefined
    /** The call's turn at the decoders, when its caller accounts for it (a live call that fails draws it as unpaid). */
    reader?: Reader
    /** Gets each document the handler resolves (a review shows the reviewer its pages). */
    resolved?: ResolvedDocument[]
  },
): CapabilityContext {
  const { config } = services
  // Every role's model as this capability's route says (AI_ROUTES).
  const provider = providerFor(services.provider, capability.name, capability.model)
  // One guarded fetcher with the C12 limits, for documents and for any other caller-supplied URL.
  const fetchGuarded = serverDocumentFetcher(services)
  const log = (m: string) => services.log(`[${capability.name}] ${call.requestId} ${m}`)
  const deadline = { signal: call.signal, timeoutMs: call.timeoutMs, log }
  const usage = callMeter(services, { requestId: call.requestId, accountId: call.accountId, endpoint: capability.name }, call.providerCost)
  const context = config.ai.context ?? DEFAULT_CONTEXT
  // The account's turn at the decoders (paid work: the call holds its credits).
  const reader: Reader = call.reader ?? { accountId: call.accountId, unpaid: false, decoderMs: 0 }
  const wait = call.waitForDecoder ?? false
  // What the call's model calls were estimated to cost so far: each further one is guarded with it.
  const estimated = { usd: 0 }
  const objectWithSources = <T>(request: ObjectRequest) =>
    services.metrics.modelCall(capability.name, 'text', async () => {
      try {
        const links = provider.configured ? provider.language() : []
        return await budgetedObject<T>(
          { ...request, schema: request.schema ?? capability.response },
          links,
          {
            contextTokens: contextBudget(
              links.map((l) => l.model),
              context.tokens,
              context.windows,
            ),
            outputReserve: context.outputReserveTokens,
            concurrency: context.concurrency,
            costGuardFactor: context.costGuardFactor,
          },
          {
            strategy: capability.chunking ?? 'refuse',
            count: (texts, modelId) => services.sandbox.countTokens(texts, modelId, { wait, signal: call.signal, reader }),
            earnsUsd: call.credits * CREDIT_USD,
            estimated,
            ...(call.progress && { progress: call.progress }),
          },
          { ...deadline, meter: usage.meter },
          (r, opts) => generateObject(provider, r, opts),
        )
      } finally {
        usage.record()
      }
    })
  return {
    requestId: call.requestId,
    accountId: call.accountId,
    signal: call.signal,
    ai: {
      provider,
      objectWithSources,
      object: async (request) => (await objectWithSources(request)).object as never,
      run: (what, fn) => services.metrics.modelCall(capability.name, what, () => runModel(what, deadline, fn)),
    },
    documents: {
      resolve: async (input) => {
        const priced = call.digests?.get(input)
        const doc =
          call.documents?.get(input) ??
          (await resolveDocument(input, {
            fetch: priced ? requiringDigest(fetchGuarded, priced.sha256, priced.at) : fetchGuarded,
            sandbox: services.sandbox,
            waitForDecoder: wait,
            signal: call.signal,
            reader,
          }))
        call.resolved?.push(doc)
        return doc
      },
      parts: (doc) => documentParts(doc, provider.acceptsFiles),
      inspectImage: (bytes, mediaType, path) =>
        decodeOrRefuse(services.sandbox, mediaType, bytes, path, { wait, signal: call.signal, reader }).then(() => {}),
    },
    fetchPublic: (url, opts) => fetchGuarded(url, call.signal, opts),
    db: services.db,
    log,
    now: services.now,
  }
}
