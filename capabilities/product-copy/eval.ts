// Eval cases for /v1/product-copy (scripts/eval.ts, devkit/eval-kit.ts).
import { contains, count, type EvalCase } from '../../devkit/eval-kit.ts'

export const evalCases: EvalCase[] = [
  {
    name: 'bottle-amazon',
    request: {
      product: {
        name: 'Trailhead 2L Insulated Water Bottle',
        brand: 'Trailhead',
        features: 'Double-wall steel, keeps drinks cold 24 h, leak-proof lid',
        keywords: ['insulated water bottle'],
      },
      channel: 'amazon',
    },
    checks: { 'brand in a title': contains('titles[]', 'Trailhead'), 'bullets given': count('bullets[]', 1, 10) },
  },
  {
    name: 'mug-shopify',
    request: { product: { name: 'Nordic Stoneware Mug', features: '350 ml, dishwasher safe, handmade in Portugal' }, channel: 'shopify' },
    checks: { 'mentions the capacity': contains('description', '350') },
  },
  {
    name: 'chair-generic',
    request: { product: { name: 'ErgoPro Office Chair', features: 'Adjustable lumbar support, 4D armrests, mesh back' } },
    checks: { 'mentions lumbar': contains('description', 'lumbar') },
  },
]
