// The ai SDK's mock language model as the service's provider: tests and benches that need a model without a
// server (a fake OpenAI-compatible server on loopback is devkit/fake-openai.ts).
import { MockLanguageModelV3 } from 'ai/test'
import type { LanguageModel } from 'ai'
import { singleLink, type ModelProvider } from '../core/models/provider.ts'

/** A provider whose text model is the ai SDK's mock: `reply` gets the prompt and returns the JSON object. */
export function mockProvider(
  reply: (prompt: string) => unknown = () => ({}), // a value or a Promise of one
  extra: Partial<ModelProvider> = {},
): ModelProvider {
  const links = singleLink(mockLanguageModel(reply), 'mock', 'mock-model')
  return {
    configured: true,
    acceptsFiles: true,
    language: () => links,
    image: () => {
      throw new Error('no image model in this test')
    },
    speech: () => {
      throw new Error('no speech model in this test')
    },
    transcription: () => {
      throw new Error('no transcription model in this test')
    },
    embedding: () => null,
    webSearch: () => null,
    ...extra,
  }
}

export function mockLanguageModel(reply: (prompt: string) => unknown): LanguageModel {
  return new MockLanguageModelV3({
    doGenerate: async (options) => {
      const prompt = JSON.stringify(options.prompt)
      const value = await reply(prompt)
      return {
        content: [{ type: 'text', text: typeof value === 'string' ? value : JSON.stringify(value) }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: {
          inputTokens: { total: 10, noCache: 10, cacheRead: 0, cacheWrite: 0 },
          outputTokens: { total: 10, text: 10, reasoning: 0 },
        },
        warnings: [],
      }
    },
  })
}
