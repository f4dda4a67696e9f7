// The model provider of C11: @ai-sdk/openai against OPENAI_BASE_URL, speaking the Responses API or chat
// completions (AI_WIRE_API), with one model name per role. Tests pass their own ModelProvider.
import { createOpenAI } from '@ai-sdk/openai'
import type { EmbeddingModel, ImageModel, LanguageModel, SpeechModel, Tool, TranscriptionModel } from 'ai'
import type { AiConfig } from '../config.ts'

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

export function openAIProvider(ai: AiConfig): ModelProvider {
  const configured = Boolean(ai.apiKey || ai.baseURL)
  const openai = createOpenAI({ apiKey: ai.apiKey ?? 'unset', baseURL: ai.baseURL })
  const responses = ai.wireApi === 'responses'
  return {
    configured,
    strictSchemas: ai.strictSchemas ?? true,
    acceptsFiles: responses,
    language: () => (responses ? openai.responses(ai.models.text) : openai.chat(ai.models.text)),
    image: () => openai.image(ai.models.image),
    speech: () => openai.speech(ai.models.speech),
    transcription: () => openai.transcription(ai.models.transcription),
    embedding: () => (ai.models.embedding ? openai.embedding(ai.models.embedding) : null),
    webSearch: () => (responses ? openai.tools.webSearch({}) : null),
  }
}
