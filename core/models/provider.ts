// The model provider of C11: @ai-sdk/openai against OPENAI_BASE_URL, speaking the Responses API or chat
// completions (AI_WIRE_API), with one model name per role. Tests pass their own ModelProvider.
import { createOpenAI } from '@ai-sdk/openai'
import type { EmbeddingModel, ImageModel, LanguageModel, SpeechModel, Tool, TranscriptionModel } from 'ai'
import type { AiConfig } from '../config.ts'
import { modelFetch } from '../net/model-fetch.ts'

export type ModelRole = 'text' | 'vision' | 'image' | 'speech' | 'transcription' | 'embedding'
export const MODEL_ROLES: readonly ModelRole[] = ['text', 'vision', 'image', 'speech', 'transcription', 'embedding']

export interface ModelProvider {
  /** False when no provider is configured: model-backed calls answer 503 (C11). */
  readonly configured: boolean
  /** Structured outputs go out in strict mode (default true): the provider constrains decoding to the schema. */
  readonly strictSchemas?: boolean
  /** The text model accepts file parts (PDFs) as well as images. */
  readonly acceptsFiles: boolean
  language(): LanguageModel
  image(): ImageModel
  speech(): SpeechModel
  transcription(): TranscriptionModel
  embedding(): EmbeddingModel | null
  /** The provider's web search tool, or null where the wire API has none (chat completions). */
  webSearch(): Tool | null
}

/**
 * Open connections to the provider per process; more concurrent calls wait for one. With the client's own
 * connection, each call in flight holds two file descriptors: 4,096 leaves room for 10,000 calls at once under
 * a 20,000 descriptor limit, and at 5 s a call they still finish well inside the 60 s deadline.
 */
const MODEL_CONNECTIONS = 4096

export function openAIProvider(ai: AiConfig): ModelProvider {
  const configured = Boolean(ai.apiKey || ai.baseURL)
  const openai = createOpenAI({ apiKey: ai.apiKey ?? 'unset', baseURL: ai.baseURL, fetch: modelFetch(MODEL_CONNECTIONS) })
  const responses = ai.wireApi === 'responses'
  // One instance each: they hold only their settings, and a call would otherwise build its own.
  const text = responses ? openai.responses(ai.models.text) : openai.chat(ai.models.text)
  const webSearch = responses ? openai.tools.webSearch({}) : null
  return {
    configured,
    strictSchemas: ai.strictSchemas ?? true,
    acceptsFiles: responses,
    language: () => text,
    image: () => openai.image(ai.models.image),
    speech: () => openai.speech(ai.models.speech),
    transcription: () => openai.transcription(ai.models.transcription),
    embedding: () => (ai.models.embedding ? openai.embedding(ai.models.embedding) : null),
    webSearch: () => webSearch,
  }
}
