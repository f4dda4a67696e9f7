import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Result, Request } from './schema.ts'

export default defineCapability({
  name: 'describe',
  summary: 'Alt text, caption, tags and text found inside an image',
  price: 3,
  async: false,
  ratePerMinute: 120,
  model: 'vision',
  request: Request,
  response: Result,
  example: {
    request: { imageUrl: 'https://example.com/shoe.jpg', purpose: 'product' },
    response: {
      altText: 'Red canvas sneaker with a white rubber sole, side view',
      caption: 'A red canvas low-top sneaker on a white background.',
      detailed: 'Low-top sneaker in red canvas with white laces, a white rubber toe cap and sole, and a small logo on the heel.',
      tags: ['sneaker', 'red', 'canvas', 'footwear'],
      embeddedText: 'CLASSIC',
    },
  },
  handler,
})
