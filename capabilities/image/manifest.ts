import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'image',
  summary: 'Image from a prompt',
  price: 10,
  async: false,
  ratePerMinute: 60,
  model: 'image',
  request: Request,
  response: Result,
  example: {
    request: { prompt: 'A lighthouse at dawn', style: 'watercolor', aspectRatio: '16:9' },
    response: {
      image: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR4nGNgaPj/HwAFBQJ/zl4q1QAAAABJRU5ErkJggg==',
      mimeType: 'image/png',
      revisedPrompt: 'A lighthouse at dawn, watercolor',
      size: '1536x1024',
      aspectRatio: '3:2',
      width: 1536,
      height: 1024,
    },
  },
  handler,
})
