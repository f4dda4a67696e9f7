// Eval cases for /v1/describe (scripts/eval.ts, devkit/eval-kit.ts).
import { solidPng, type Check, type EvalCase } from '../../devkit/eval-kit.ts'

/** The colour named in the alt text, caption or tags. */
const says =
  (colour: string): Check =>
  (r) =>
    JSON.stringify([r.altText, r.caption, r.tags]).toLowerCase().includes(colour)

export const evalCases: EvalCase[] = [
  {
    name: 'red-square',
    request: { image: { data: solidPng(64, 64, [220, 20, 20]), mimeType: 'image/png' } },
    checks: { 'says red': says('red') },
  },
  {
    name: 'blue-square-product',
    request: { image: { data: solidPng(96, 96, [20, 40, 220]), mimeType: 'image/png' }, purpose: 'product' },
    checks: { 'says blue': says('blue') },
  },
  {
    name: 'green-banner-alt',
    request: { image: { data: solidPng(160, 40, [20, 180, 40]), mimeType: 'image/png' }, purpose: 'alt' },
    checks: { 'says green': says('green') },
  },
]
