// The model provider of C11: @ai-sdk/openai against OPENAI_BASE_URL, speaking the Responses API or chat
// completions (AI_WIRE_API), with one model name per role, a model per capability where a route names one
// (AI_ROUTES), and for text calls the fallback providers after it (AI_FALLBACK_*, config/defaults.json).
// Tests pass their own ModelProvider.
import { createOpenAI, type OpenAIProvider } from '@ai-sdk/openai'
import type { EmbeddingModel, ImageModel, LanguageModel, SpeechModel, Tool, TranscriptionModel } from 'ai'
import type { AiConfig } from '../config.ts'
import { modelFetch } from '../net/model-fetch.ts'
import { ModelCatalog } from './catalog.ts'
import { Breaker, type ModelLink } from './fallback.ts'

export type ModelRole = 'text' | 'vision' | 'image' | 'speech' | 'transcription' | 'embedding'
export const MODEL_ROLES: readonly ModelRole[] = ['text', 'vision', 'image', 'speech', 'transcription', 'embedding']

export interface ModelProvider {
  /** False when no provider is configured: model-backed calls answer 503 (C11). */
  readonly configured: boolean
  /** Structured outputs go out in strict mode (default true): the provider constrains decoding to the schema. */
  readonly strictSchemas?: boolean
  /** The text model accepts file parts (PDFs) as well as images. */
  readonly acceptsFiles: boolean
  /** The time one attempt may take before a text call moves to the next link (default: no limit of its own). */
  readonly attemptTimeoutMs?: number
  /** The text models a capability's calls try, in order: its route's model at the primary, then each fallback. */
  language(capability?: string): readonly ModelLink[]
  image(capability?: string): ImageModel
  speech(capability?: string): SpeechModel
  transcription(capability?: string): TranscriptionModel
  embedding(capability?: string): EmbeddingModel | null
  /** The provider's web search tool, or null where the wire API has none (chat completions). */
  webSearch(): Tool | null
  /** Each provider's breaker, for the metrics. */
  breakers?(): Array<{ provider: string; breaker: Breaker }>
  /**
   * Why a capability's calls cannot be served: the model its role (and route) asks for is one no provider of its
   * chain serves (their GET /models, or a 404 for it). Null when nothing is known missing.
   */
  unserved?(capability: string, role: ModelRole): string | null
  /** Asks each provider for its models (GET /models): the configured models it does not list (boot, /readyz). */
  checkModels?(): Promise<ModelCheck>
  /** The last check, or null before the first. */
  modelReport?(): ModelCheck | null
}

/** What GET /models said about the configured models: each one a provider does not list, with its setting. */
export interface ModelCheck {
  providers: Array<{ provider: string; listed: boolean; why?: string }>
  missing: Array<{ provider: string; model: string; setting: string }>
}

/** A chain of one: a model that is its own provider (tests, tools). */
export function singleLink(language: LanguageModel, provider = 'primary', model = 'default'): ModelLink[] {
  return [{ provider, model, language, breaker: new Breaker(), price: null }]
}

/**
 * Open connections to the provider per process; more concurrent calls wait for one. With the client's own
 * connection, each call in flight holds two file descriptors: 4,096 leaves room for 10,000 calls at once under
 * a 20,000 descriptor limit, and at 5 s a call they still finish well inside the 60 s deadline.
 */
const MODEL_CONNECTIONS = 4096

interface Endpoint {
  name: string
  openai: OpenAIProvider
  responses: boolean
  /** The text model asked here whatever the route (a fallback's AI_FALLBACK_MODEL). */
  model?: string | undefined
  breaker: Breaker
  catalog: ModelCatalog
}

export function openAIProvider(ai: AiConfig): ModelProvider {
  const configured = Boolean(ai.apiKey || ai.baseURL)
  const fetch = modelFetch(MODEL_CONNECTIONS)
  const primary: Endpoint = {
    name: 'primary',
    openai: createOpenAI({ apiKey: ai.apiKey ?? 'unset', baseURL: ai.baseURL, fetch }),
    responses: ai.wireApi === 'responses',
    breaker: new Breaker(),
    catalog: new ModelCatalog(ai, fetch),
  }
  const endpoints: Endpoint[] = [
    primary,
    ...(ai.fallbacks ?? []).map((f) => ({
      name: f.name,
      openai: createOpenAI({ apiKey: f.apiKey ?? 'unset', baseURL: f.baseURL, fetch }),
      responses: (f.wireApi ?? ai.wireApi) === 'responses',
      model: f.model,
      breaker: new Breaker(),
      catalog: new ModelCatalog(f, fetch),
    })),
  ]
  const routes = ai.routes ?? {}
  const prices = ai.prices ?? {}
  // One chain per text model name, built once: a call only looks it up.
  const chains = new Map<string, ModelLink[]>()
  const chainFor = (textModel: string): ModelLink[] => {
    let chain = chains.get(textModel)
    if (!chain) {
      chain = endpoints.map((e) => {
        const model = e.model ?? textModel
        return {
          provider: e.name,
          model,
          language: e.responses ? e.openai.responses(model) : e.openai.chat(model),
          breaker: e.breaker,
          price: prices[model] ?? null,
          catalog: e.catalog,
        }
      })
      chains.set(textModel, chain)
    }
    return chain
  }
  const routed = (capability: string | undefined, roleModel: string) => (capability && routes[capability]) || roleModel
  const webSearch = primary.responses ? primary.openai.tools.webSearch({}) : null
  const { openai } = primary
  const roleModel = (role: ModelRole) => (role === 'text' || role === 'vision' ? ai.models.text : (ai.models[role] ?? ''))
  let report: ModelCheck | null = null
  return {
    configured,
    strictSchemas: ai.strictSchemas ?? true,
    acceptsFiles: primary.responses,
    ...(ai.fallbacks?.length && ai.attemptTimeoutMs ? { attemptTimeoutMs: ai.attemptTimeoutMs } : {}),
    language: (capability) => chainFor(routed(capability, ai.models.text)),
    image: (capability) => openai.image(routed(capability, ai.models.image)),
    speech: (capability) => openai.speech(routed(capability, ai.models.speech)),
    transcription: (capability) => openai.transcription(routed(capability, ai.models.transcription)),
    embedding: (capability) => {
      const model = routed(capability, ai.models.embedding ?? '')
      return model ? openai.embedding(model) : null
    },
    webSearch: () => webSearch,
    breakers: () => endpoints.map((e) => ({ provider: e.name, breaker: e.breaker })),
    unserved: (capability, role) => {
      const model = routed(capability, roleModel(role))
      const links = role === 'text' || role === 'vision' ? chainFor(model) : [{ model, catalog: primary.catalog }]
      if (!model || !links.every((l) => l.catalog?.lacks(l.model))) return null
      const setting = routes[capability] ? `AI_ROUTES.${capability}` : SETTINGS[role]
      return `The model provider does not serve the model "${model}" (${setting}) this endpoint needs`
    },
    checkModels: async () => {
      const wanted = [
        ...(['text', 'image', 'speech', 'transcription', 'embedding'] as const).map((role) => ({
          model: roleModel(role),
          setting: SETTINGS[role],
        })),
        ...Object.entries(routes).map(([capability, model]) => ({ model, setting: `AI_ROUTES.${capability}` })),
      ].filter((w) => w.model)
      const checked = await Promise.all(
        endpoints.map(async (e) => {
          const listing = await e.catalog.list()
          const asked =
            e === primary ? wanted : [{ model: e.model ?? ai.models.text, setting: e.model ? fallbackSetting(e.name) : SETTINGS.text }]
          const missing = listing.listed ? asked.filter((w) => e.catalog.lacks(w.model)).map((w) => ({ provider: e.name, ...w })) : []
          return { provider: { provider: e.name, listed: listing.listed, ...(listing.listed ? {} : { why: listing.why }) }, missing }
        }),
      )
      report = { providers: checked.map((c) => c.provider), missing: checked.flatMap((c) => c.missing) }
      return report
    },
    modelReport: () => report,
  }
}

/** The boot line of a model check (null when every configured model is listed): what is missing, where to set it. */
export function modelCheckLine(check: ModelCheck): string | null {
  const missing = check.missing.map((m) => `"${m.model}" (${m.setting}${m.provider === 'primary' ? '' : `, at ${m.provider}`})`)
  const unlisted = check.providers.filter((p) => !p.listed).map((p) => `${p.provider}: ${p.why}`)
  if (missing.length)
    return `MODEL CHECK: the model provider does not list ${missing.join(', ')}: calls that need them answer 503 inference_unavailable until it serves them or the setting names a model it lists.`
  return unlisted.length ? `Model check skipped (the provider did not list its models; ${unlisted.join('; ')}).` : null
}

/** Where a fallback's own model is set: AI_FALLBACK_MODEL, or its entry in config/defaults.json. */
const fallbackSetting = (name: string) =>
  name === 'fallback' ? 'AI_FALLBACK_MODEL' : `ai.fallbacks "${name}" model in config/defaults.json`

/** The setting that names each role's model (README "Configuration"). */
const SETTINGS: Record<ModelRole, string> = {
  text: 'AI_MODEL',
  vision: 'AI_MODEL',
  image: 'AI_IMAGE_MODEL',
  speech: 'AI_SPEECH_MODEL',
  transcription: 'AI_TRANSCRIPTION_MODEL',
  embedding: 'AI_EMBEDDING_MODEL',
}

/**
 * The provider as one capability sees it: the model of its manifest's role is the one its route names (a route
 * never changes another role's model: memory's route names an embedding model, not a text one).
 */
export function providerFor(provider: ModelProvider, capability: string, role: ModelRole | null): ModelProvider {
  const own = (...roles: ModelRole[]) => (role && roles.includes(role) ? capability : undefined)
  return {
    configured: provider.configured,
    ...(provider.strictSchemas !== undefined ? { strictSchemas: provider.strictSchemas } : {}),
    acceptsFiles: provider.acceptsFiles,
    ...(provider.attemptTimeoutMs !== undefined ? { attemptTimeoutMs: provider.attemptTimeoutMs } : {}),
    language: () => provider.language(own('text', 'vision')),
    image: () => provider.image(own('image')),
    speech: () => provider.speech(own('speech')),
    transcription: () => provider.transcription(own('transcription')),
    embedding: () => provider.embedding(own('embedding')),
    webSearch: () => provider.webSearch(),
  }
}
