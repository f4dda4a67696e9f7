import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'sentiment',
  summary: 'Sentiment score, per-aspect breakdown and themes',
  price: 2,
  size: { unit: '1k-tokens', included: 32, perUnit: 1 },
  async: false,
  cache: true,
  ratePerMinute: 60,
  model: 'text',
  chunking: 'map-reduce',
  request: Request,
  response: Result,
  example: {
    request: {
      text: 'Delivery was fast, but the blender broke after two days and support never answered.',
      aspects: ['delivery', 'quality', 'support', 'price'],
    },
    response: {
      sentiment: 'negative',
      score: -0.55,
      confidence: 0.86,
      aspects: [
        { aspect: 'delivery', sentiment: 'positive', score: 0.7, mentioned: true },
        { aspect: 'quality', sentiment: 'negative', score: -0.8, mentioned: true },
        { aspect: 'support', sentiment: 'negative', score: -0.7, mentioned: true },
        { aspect: 'price', sentiment: 'neutral', score: 0, mentioned: false },
      ],
      themes: ['product durability', 'unresponsive support'],
    },
  },
  handler,
})
