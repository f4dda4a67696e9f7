import { defineCapability } from '../../core/capability.ts'
import { handler } from './handler.ts'
import { Request, Result } from './schema.ts'

export default defineCapability({
  name: 'product-copy',
  summary: 'Titles, bullets, description and SEO keywords per channel',
  price: 5,
  async: false,
  ratePerMinute: 120,
  model: 'text',
  request: Request,
  response: Result,
  example: {
    request: {
      product: {
        name: 'Trailhead 2L Insulated Water Bottle',
        brand: 'Trailhead',
        features: 'Double-wall steel, keeps drinks cold 24 h, leak-proof lid, fits car cup holders',
        audience: 'hikers and commuters',
        keywords: ['insulated water bottle', 'leak proof'],
      },
      channel: 'amazon',
    },
    response: {
      titles: ['Trailhead Insulated Water Bottle, 2L Double-Wall Stainless Steel, Leak-Proof Lid, Cold 24 Hours, Fits Cup Holders'],
      bullets: [
        'COLD FOR 24 HOURS: double-wall vacuum insulation keeps water icy from trailhead to summit.',
        'LEAK-PROOF LID: toss it in your pack without a second thought.',
        'FITS CUP HOLDERS: tapered base slides into most car cup holders.',
        'BUILT TO LAST: food-grade stainless steel that does not retain flavours.',
        'MADE FOR THE DAY: 2 litres for long hikes, commutes and gym sessions.',
      ],
      description:
        'The Trailhead 2L bottle keeps drinks cold for a full day, seals tight in a backpack and still fits the car cup holder on the way home.',
      seoKeywords: ['insulated water bottle', 'leak proof', 'stainless steel water bottle', '2 liter bottle'],
    },
  },
  handler,
})
