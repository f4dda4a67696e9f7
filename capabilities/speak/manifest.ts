import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'speak',
  summary: 'Text to speech audio',
  price: 5,
  async: false,
  ratePerMinute: 60,
  model: 'speech',
  request: Request,
  response: Result,
  example: {
    request: { text: 'Your order has shipped and will arrive on Thursday.', voice: 'nova', pace: 'normal' },
    response: { audio: '//uQZAAAAAAAAAAAAAAAAAAAAAAAAAAA', mimeType: 'audio/mpeg', durationSec: 2.612 },
  },
  handler,
})
