// Which models a provider serves, as its own GET /models lists them (OpenAI, vLLM, Ollama, LiteLLM all answer
// it). Read at boot and again, at most once a minute, while a model is known missing (an operator may pull it
// meanwhile); a provider that answers a call with 404 for a model teaches the same for a minute. A provider that
// does not list its models is trusted: nothing is known missing until it says 404.
const RECHECK_MS = 60_000
const LIST_TIMEOUT_MS = 3000
/** OpenAI's API root, where @ai-sdk/openai goes without OPENAI_BASE_URL. */
const OPENAI_API = 'https://api.openai.com/v1'

export type Listing = { listed: true; models: string[] } | { listed: false; why: string }

export class ModelCatalog {
  /** The models of the last listing; null while the provider has not listed them. */
  private listed: Set<string> | null = null
  private listedAt = 0
  private listing: Promise<Listing> | null = null
  /** Models the provider answered 404 for, and when. */
  private readonly refused = new Map<string, number>()
  readonly url: string
  private readonly apiKey: string | undefined
  private readonly fetch: typeof fetch
  constructor(endpoint: { baseURL?: string | undefined; apiKey?: string | undefined }, fetcher: typeof fetch) {
    this.url = `${(endpoint.baseURL ?? OPENAI_API).replace(/\/+$/, '')}/models`
    this.apiKey = endpoint.apiKey
    this.fetch = fetcher
  }

  /** GET /models now (one request at a time); the answer replaces what was known. */
  list(): Promise<Listing> {
    this.listing ??= this.read().finally(() => (this.listing = null))
    return this.listing
  }

  /** True when the provider is known not to serve `model`: its listing lacks it, or it answered 404 for it lately. */
  lacks(model: string): boolean {
    const now = Date.now()
    const refusedAt = this.refused.get(model)
    if (refusedAt !== undefined && now - refusedAt > RECHECK_MS) this.refused.delete(model)
    const missing = this.refused.has(model) || (this.listed !== null && !serves(this.listed, model))
    if (missing && now - this.listedAt > RECHECK_MS) void this.list()
    return missing
  }

  /** The provider answered 404 for `model`. */
  learnMissing(model: string): void {
    this.refused.set(model, Date.now())
  }

  private async read(): Promise<Listing> {
    this.listedAt = Date.now()
    try {
      const res = await this.fetch(this.url, {
        headers: this.apiKey ? { authorization: `Bearer ${this.apiKey}` } : {},
        signal: AbortSignal.timeout(LIST_TIMEOUT_MS),
      })
      if (!res.ok) return { listed: false, why: `GET ${this.url} answered ${res.status}` }
      const body = (await res.json()) as { data?: Array<{ id?: unknown }> }
      if (!Array.isArray(body.data)) return { listed: false, why: `GET ${this.url} answered no model list` }
      const models = body.data.flatMap((m) => (typeof m.id === 'string' ? [m.id] : []))
      this.listed = new Set(models)
      this.refused.clear()
      return { listed: true, models }
    } catch (e) {
      return { listed: false, why: `GET ${this.url} failed: ${(e as Error).message}` }
    }
  }
}

/** Ollama lists `llama3:latest` and serves it as `llama3` too. */
function serves(listed: Set<string>, model: string): boolean {
  return listed.has(model) || (!model.includes(':') && listed.has(`${model}:latest`))
}
