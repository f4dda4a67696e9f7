import { defineCapability } from '../../core/capability.ts'
import { check, handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'memory',
  summary: "Store, search and forget agent memories in the caller's namespace (per operation)",
  price: 2,
  async: false,
  ratePerMinute: 60,
  // Runs without a model: full-text ranking; an embedding model, when configured, is used for similarity.
  model: null,
  request: Request,
  check,
  response: Result,
  example: {
    request: { op: 'search', namespace: 'user-42', query: 'preferred drink', limit: 3 },
    response: {
      op: 'search',
      namespace: 'user-42',
      results: [
        {
          id: '3f1c2a9e-8b7d-4c1e-9f0a-2b3c4d5e6f70',
          content: 'Prefers oat milk flat whites, no sugar.',
          score: 0.82,
          metadata: { source: 'chat' },
          createdAt: '2026-08-20T09:15:00.000Z',
        },
      ],
      ranking: 'embedding',
    },
  },
  handler,
})
